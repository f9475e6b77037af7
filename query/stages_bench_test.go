package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// Micro-benchmarks of the per-segment stages: the AND kernel in GB/s on
// rows hot in L2 and cold (larger than the last-level cache), verification
// per candidate, BM25 top-10 per hit, and one segment's whole match stage.
// index/inverted times the roaring baseline's beside them.

// benchRows makes k rows of words uint64s, each bit set with probability
// about 15/16, so an AND of up to four rows never empties a block and the
// kernel reads every row in full.
func benchRows(k, words int) [][]uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]uint64, k)
	for i := range rows {
		rows[i] = make([]uint64, words)
		for j := range rows[i] {
			rows[i][j] = ^(r.Uint64() & r.Uint64() & r.Uint64() & r.Uint64())
		}
	}
	return rows
}

// BenchmarkAndKernel runs andRows over every block of four rows: "hot" rows
// of 8 KiB (a 65,536-document segment; 32 KiB in all, in L2), "cold" rows of
// 32 MiB (128 MiB in all, larger than the last-level cache).
func BenchmarkAndKernel(b *testing.B) {
	for _, c := range []struct {
		name  string
		words int
	}{{"hot", 1 << 10}, {"cold", 4 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			rows := benchRows(4, c.words)
			bytes := int64(len(rows)) * int64(c.words) * 8
			var out block
			var sink uint64
			b.SetBytes(bytes)
			for b.Loop() {
				for base := 0; base < c.words; base += bitrow.BlockWords {
					if andRows(rows, base, &out, nil) {
						sink += out[0]
					}
				}
			}
			if sink == 1 {
				b.Log(sink)
			}
			b.ReportMetric(float64(bytes)*float64(b.N)/1e9/b.Elapsed().Seconds(), "GB/s")
		})
	}
}

// benchSegment is one segment of an index and a query.
type benchSegment struct {
	s    *Searcher
	seg  *segment.Segment
	q    *compiled
	text string // the query
}

// newBenchSegment indexes 20,000 generated documents; q is a query, or
// "shared" for two words matched through shared rows (in an index built
// without lists), "lists" for two such words with the default parameters,
// which store them as lists, or "private" for a word with a private row.
func newBenchSegment(b testing.TB, q string) *benchSegment {
	docs := indextest.Corpus(20000, 9)
	dir := b.TempDir()
	p := index.DefaultParams
	if q == "shared" {
		p.ListDensity = 0
	}
	w, err := index.Create(dir, index.WriterOptions{Capacity: 1 << 16, Params: p})
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range docs {
		w.Add(d)
	}
	if _, err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	s, _ := NewSearcher(ix)
	// The largest segment: the one whose rows are longest.
	best := 0
	for i, seg := range ix.Segments() {
		if seg.NumDocs() > ix.Segments()[best].NumDocs() {
			best = i
		}
	}
	seg := ix.Segments()[best]
	if q == "shared" || q == "lists" || q == "private" {
		q = benchWords(b, s, seg, q == "private")
	}
	c, err := s.compile(q)
	if err != nil {
		b.Fatal(err)
	}
	return &benchSegment{s: s, seg: seg, q: c, text: q}
}

// benchWords picks, from a segment's dictionary, the most frequent term with
// a private row, or two terms in 2–8% of the documents (shared rows or
// lists), that analyze to themselves.
func benchWords(b testing.TB, s *Searcher, seg *segment.Segment, private bool) string {
	an := tokenize.MustNew("english")
	var picked []string
	n := seg.NumDocs()
	for id := 0; id < seg.NumTerms() && len(picked) < 2; id++ {
		df, tr := seg.DF(segment.TermID(id)), seg.Treatment(segment.TermID(id))
		if tr.Private != private || (!private && (df*50 < n || df*12 > n)) {
			continue
		}
		var term string
		seg.Terms(func(t string, tid segment.TermID) bool {
			if int(tid) == id {
				term = t
				return false
			}
			return true
		})
		if toks := an.Terms(nil, []byte(term)); len(toks) == 1 && toks[0] == term {
			picked = append(picked, term)
			if private {
				break
			}
		}
	}
	if len(picked) == 0 {
		b.Fatal("no suitable query word")
	}
	return fmt.Sprint(picked[0], " ", picked[len(picked)-1])
}

// BenchmarkVerify is the cost of deciding one candidate from its forward
// index: ns per candidate.
func BenchmarkVerify(b *testing.B) {
	bs := newBenchSegment(b, "shared")
	p, err := bs.s.plan(bs.seg, bs.q.segIdx[bs.seg], bs.q.root, bs.q)
	if err != nil {
		b.Fatal(err)
	}
	// Every live document is a candidate: the verifier's worst case.
	var cands []int
	for d := 0; d < bs.seg.NumDocs(); d++ {
		cands = append(cands, d)
	}
	v := newVerifier(p, tokenize.MustNew("english"))
	hits := 0
	for b.Loop() {
		for _, d := range cands {
			if err := v.load(d); err != nil {
				b.Fatal(err)
			}
			if ok, _ := v.check(p.root); ok {
				hits++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cands)), "ns/candidate")
}

// BenchmarkTop10 is BM25 scoring and the top-10 heap: ns per hit.
func BenchmarkTop10(b *testing.B) {
	bs := newBenchSegment(b, "shared")
	p, err := bs.s.plan(bs.seg, bs.q.segIdx[bs.seg], bs.q.root, bs.q)
	if err != nil {
		b.Fatal(err)
	}
	var hits []int32
	p.match(func(d int) { hits = append(hits, int32(d)) })
	v := newVerifier(p, tokenize.MustNew("english"))
	avgdl := bs.s.ix.AvgDocLen()
	for b.Loop() {
		top := topK{k: 10, segs: []*segment.Segment{bs.seg}}
		for _, d := range hits {
			if err := v.load(int(d)); err != nil {
				b.Fatal(err)
			}
			top.push(scored{score: p.bm25(v.tf, bs.q, bs.seg.DocTokens(int(d)), avgdl), doc: d})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*max(1, len(hits))), "ns/hit")
	b.ReportMetric(float64(len(hits)), "hits")
}

// BenchmarkSegmentMatch is one segment's count (Request.CountOnly: planning,
// matching, verification), for two words matched
// through shared rows, the same two words as lists, and a word with a
// private row.
func BenchmarkSegmentMatch(b *testing.B) {
	for _, q := range []struct{ name, q string }{{"two-shared-words", "shared"}, {"two-list-words", "lists"}, {"private-word", "private"}} {
		bs := newBenchSegment(b, q.q)
		an := tokenize.MustNew("english")
		b.Run(q.name+"/signature", func(b *testing.B) {
			var cands []int32
			for b.Loop() {
				if r, _ := bs.s.searchSegment(context.Background(), bs.seg, 0, bs.q, 0, 1, an, &cands, nil, new(scoreFloor), clock()); r.err != nil {
					b.Fatal(r.err)
				}
			}
		})
	}
}

// BenchmarkCount is a whole count (Searcher.Count, one worker) of two words
// matched through shared rows: parsing, lexicon lookups, planning,
// matching and verification. -benchmem shows what a count allocates:
// nothing, in steady state.
func BenchmarkCount(b *testing.B) {
	bs := newBenchSegment(b, "shared")
	ctx := context.Background()
	bs.s.SetWorkers(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bs.s.Count(ctx, bs.text); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCountAllocatesNothing counts two words again and again: the query
// state, parser arenas, compiled query, plans and verifier are reused, so a
// count in steady state allocates nothing. (A collection may empty the pools
// during the run; the mean stays far below one.)
func TestCountAllocatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-document index")
	}
	if raceEnabled {
		t.Skip("the race detector drops pooled objects at random")
	}
	bs := newBenchSegment(t, "shared")
	bs.s.SetWorkers(1)
	ctx := context.Background()
	want, err := bs.s.Count(ctx, bs.text)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, func() {
		if n, err := bs.s.Count(ctx, bs.text); err != nil || n != want {
			t.Fatalf("count %d, %v; want %d", n, err, want)
		}
	})
	if allocs >= 0.5 {
		t.Errorf("a count of %q allocates %.2f objects, want none", bs.text, allocs)
	} else {
		t.Logf("a count of %q allocates %.2f objects", bs.text, allocs)
	}
}
