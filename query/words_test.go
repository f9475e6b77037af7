package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
)

// TestWordsEqualsPlans checks the document-at-a-time visit of a conjunction
// of words and phrases (searchWords) against the plans it stands in for: the same
// totals, candidates and pages, scores equal to the last bit, for counts
// and pages of several sizes, on indexes that mix lists, private and shared
// rows, with deleted documents and frequencies past what the frequencies
// section holds.
func TestWordsEqualsPlans(t *testing.T) {
	docs := indextest.Corpus(4000, 9)
	// Frequencies of 255 and more are read from the forward index.
	docs = append(docs,
		index.Document{Key: "gen/tf-list", Text: []byte(strings.Repeat("zebrafish ", 300) + "kalo")},
		index.Document{Key: "gen/tf-list-2", Text: []byte("zebrafish quagga " + strings.Repeat("quagga ", 280))},
	)
	for _, p := range []index.Params{
		index.DefaultParams,
		{Density: 0.5, SNR: 2, KMin: 1, KMax: 12, ListDensity: 1.0 / 64},
		{Density: 0.25, SNR: 2, KMin: 1, KMax: 12, ListDensity: 1.0 / 32, Rank: 6},
	} {
		t.Run(fmt.Sprintf("density-%v-lists-%v-rank-%d", p.Density, p.ListDensity, p.Rank), func(t *testing.T) {
			dir := createIndex(t, docs, index.WriterOptions{Params: p, Capacity: 1000})
			deleteSome(t, dir, docs, 0.04, p)
			_, s := openSearcher(t, dir)
			checkWordsEqualsPlans(t, s, docs, sweep(400))
		})
	}
}

// deleteSome deletes about a fraction of docs from the index in dir,
// keeping the tombstones (no compaction).
func deleteSome(t *testing.T, dir string, docs []index.Document, fraction float64, p index.Params) {
	t.Helper()
	w, err := index.OpenWriter(dir, index.WriterOptions{Params: p, Compact: index.CompactPolicy{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for _, d := range docs {
		if r.Float64() < fraction {
			if err := w.Delete(d.Key); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// checkWordsEqualsPlans runs n conjunctions of words drawn from docs, the
// rare words of the corpus as often as its common ones, with the words
// path and without it, and compares the answers.
func checkWordsEqualsPlans(t *testing.T, s *Searcher, docs []index.Document, n int) {
	plans, err := NewSearcher(s.ix)
	if err != nil {
		t.Fatal(err)
	}
	plans.plansOnly = true
	r := rand.New(rand.NewPCG(9, 1))
	ctx := context.Background()
	visited := 0
	// The documents of frequencies the forward index holds, then queries
	// drawn from the documents.
	queries := []string{"zebrafish", "zebrafish kalo", "quagga zebrafish", "quagga"}
	for len(queries) < n {
		d := docs[r.IntN(len(docs))]
		words := strings.Fields(string(d.Text))
		if len(words) == 0 {
			continue
		}
		var qw []string
		for range 1 + r.IntN(4) {
			qw = append(qw, words[r.IntN(len(words))])
		}
		if r.IntN(3) == 0 {
			// A phrase of the document's own words, beside the words now and then.
			at := r.IntN(len(words))
			phrase := `"` + strings.Join(words[at:min(len(words), at+2+r.IntN(3))], " ") + `"`
			qw = append(qw[:r.IntN(2)], phrase)
		}
		if r.IntN(4) == 0 {
			qw = append(qw, docs[r.IntN(len(docs))].Key[4:]) // a word no document holds, now and then
		}
		queries = append(queries, strings.Join(qw, " "))
	}
	for _, q := range queries {
		c, err := s.compile(q)
		if err != nil {
			continue // stop words alone
		}
		for si := range s.ix.Segments() {
			if c.words && c.canMatch(si) && c.listIn(si) {
				visited++
				break
			}
		}
		for _, limit := range []int{1, 10, s.ix.NumDocs() + 1} {
			got, err := s.Search(ctx, Request{Query: q, Limit: limit})
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			want, err := plans.Search(ctx, Request{Query: q, Limit: limit})
			if err != nil {
				t.Fatalf("%q without the words path: %v", q, err)
			}
			if got.Total != want.Total || got.Candidates != want.Candidates || len(got.Hits) != len(want.Hits) {
				t.Fatalf("%q limit %d: total %d, candidates %d, %d hits; the plans give %d, %d, %d",
					q, limit, got.Total, got.Candidates, len(got.Hits), want.Total, want.Candidates, len(want.Hits))
			}
			for i := range got.Hits {
				if g, w := got.Hits[i], want.Hits[i]; g.Key != w.Key || g.Score != w.Score {
					t.Fatalf("%q limit %d: hit %d is %s (%v); the plans give %s (%v)", q, limit, i, g.Key, g.Score, w.Key, w.Score)
				}
			}
		}
		cnt, err := s.Count(ctx, q)
		want, err2 := plans.Count(ctx, q)
		if err != nil || err2 != nil || cnt != want {
			t.Fatalf("%q: count %d (%v), the plans count %d (%v)", q, cnt, err, want, err2)
		}
	}
	t.Logf("%d queries, %d of them visiting a segment word by word", n, visited)
	if visited < n/4 {
		t.Fatalf("only %d of %d queries took the words path: the test tests too little", visited, n)
	}
}

// BenchmarkWords times ranked conjunctions of words on generated text, the
// segments with a list visited word by word and, for comparison, all of
// them planned (ns/query).
func BenchmarkWords(b *testing.B) {
	docs := indextest.Corpus(20000, 21)
	dir := b.TempDir()
	indextest.Build(b, dir, docs, index.WriterOptions{})
	ix, s := openSearcher(b, dir)
	s.SetWorkers(1)
	// Two or three words of one document, one of them with a list in
	// every segment that holds them all: the queries the words path is
	// for.
	r := rand.New(rand.NewPCG(21, 2))
	var queries []string
	for len(queries) < 200 {
		words := strings.Fields(string(docs[r.IntN(len(docs))].Text))
		if len(words) < 3 {
			continue
		}
		q := strings.Join([]string{words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))]}[:2+r.IntN(2)], " ")
		c, err := s.compile(q)
		if err != nil || !c.words {
			continue
		}
		listed := true
		for si := range ix.Segments() {
			listed = listed && (!c.canMatch(si) || c.listIn(si))
		}
		if listed {
			queries = append(queries, q)
		}
	}
	ctx := context.Background()
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "words", false: "plans"}[on]
		b.Run(name, func(b *testing.B) {
			s.plansOnly = !on
			defer func() { s.plansOnly = false }()
			for b.Loop() {
				for _, q := range queries {
					if _, err := s.Search(ctx, Request{Query: q, Limit: 10}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(queries)), "ns/query")
		})
	}
}

// TestFilterRow checks filterRow against testing each document's bit in
// turn, for rows of rank 0 and of a higher rank.
func TestFilterRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shift := range []uint{0, 3} {
		row := make([]uint64, 64)
		for i := range row {
			row[i] = rng.Uint64() & rng.Uint64() // a quarter of the bits
		}
		n := len(row) * 64 << shift
		for trial := range 50 {
			docs := make([]int32, trial*7)
			for i := range docs {
				docs[i] = int32(rng.IntN(n))
			}
			var want []int32
			for _, d := range docs {
				if h := uint(d) >> shift; row[h/64]&(1<<(h%64)) != 0 {
					want = append(want, d)
				}
			}
			got := filterRow(docs, row, shift)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("shift %d: kept %v, want %v", shift, got, want)
			}
		}
	}
}

// TestFilterRows checks that testing rows together keeps the documents
// that testing them one after another keeps, in order, with rows of rank
// 0 and of higher ranks.
func TestFilterRows(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 12))
	for trial := range 500 {
		docs := make([]int32, rnd.IntN(40))
		for i := range docs {
			docs[i] = int32(rnd.IntN(4096))
		}
		rows := make([]rowFilter, 1+rnd.IntN(7))
		for i := range rows {
			shift := uint(rnd.IntN(4))
			words := make([]uint64, 4096>>shift/64)
			for j := range words {
				a, b := rnd.Uint64(), rnd.Uint64()
				words[j] = a | b // three bits in four set: some documents pass seven rows
			}
			rows[i] = rowFilter{words, shift}
		}
		want := append([]int32(nil), docs...)
		for _, r := range rows {
			want = filterRow(want, r.row, r.shift)
		}
		got := filterRows(append([]int32(nil), docs...), rows)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d: filterRows kept %v, one row at a time %v", trial, got, want)
		}
	}
}
