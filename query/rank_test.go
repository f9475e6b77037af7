package query

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// TestTopKPages checks that pages of ranked results, where blocks whose
// score bound cannot enter the top k are skipped, equal the same slices of
// the full ranking (every hit scored), ties broken by key; and that their
// totals stay exact. The queries are the corpus's most common words alone
// and in pairs (the case that skips the most) and generated queries.
func TestTopKPages(t *testing.T) {
	docs := indextest.Corpus(5000, 21)
	for i := range docs {
		if i%7 == 0 { // equal scores: the same text under several keys
			docs[i].Text = docs[i/7].Text
		}
	}
	dir := createIndex(t, docs, index.WriterOptions{Capacity: 1500})
	ix, s := openSearcher(t, dir)
	var common, rare []string
	if err := ix.Prefix("", func(w string, es []segment.Entry) bool {
		df := 0
		for _, e := range es {
			df += e.DF
		}
		if df > ix.NumDocs()/5 {
			common = append(common, w)
		}
		if df >= 20 && df <= 200 && len(rare) < 40 {
			rare = append(rare, w)
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(common) < 5 {
		t.Fatalf("only %d common words", len(common))
	}
	queries := append([]string(nil), common...)
	for i := 0; i+1 < len(common); i++ {
		queries = append(queries, common[i]+" "+common[i+1], common[i]+" OR "+common[len(common)-1-i])
	}
	// ORs of rarer and common words: most of their candidates hold only
	// the common word, and are bounded by it alone (docBoundAt).
	for i, w := range rare {
		c := common[i%len(common)]
		queries = append(queries, w+" OR "+c, c+" OR "+w+" OR "+rare[(i+7)%len(rare)], "("+w+" OR "+c+") "+common[(i+1)%len(common)])
	}
	o, r := indextest.NewOracle(docs, "english"), rand.New(rand.NewPCG(5, 6))
	for len(queries) < 300 {
		queries = append(queries, kit.GenQuery(r, o))
	}
	ctx := context.Background()
	pages, scored, total := 0, 0, 0
	for qi, q := range queries {
		full, err := s.Search(ctx, Request{Query: q, Limit: ix.NumDocs() + 1})
		if err != nil {
			continue // a generated query the parser refuses
		}
		for _, off := range []int{0, 10, 37} {
			page, err := s.Search(ctx, Request{Query: q, Limit: 10, Offset: off})
			if err != nil {
				t.Fatal(err)
			}
			if qi < len(common) && off == 0 {
				scored, total = scored+page.Scored, total+page.Total
			}
			if page.Total != full.Total {
				t.Fatalf("%q: total %d on a page, %d in full", q, page.Total, full.Total)
			}
			want := full.Hits[min(off, len(full.Hits)):min(off+10, len(full.Hits))]
			if got, w := renderHits(page.Hits), renderHits(want); got != w {
				t.Fatalf("%q offset %d:\n got %s\nwant %s", q, off, got, w)
			}
			pages++
		}
	}
	t.Logf("%d queries, %d pages equal to the full ranking; the common words' first pages scored %d of %d hits", len(queries), pages, scored, total)
	if scored > total/2 {
		t.Errorf("the first pages of common words scored %d of their %d hits: blocks are not skipped", scored, total)
	}
}

// TestTopKTies checks pages where hundreds of hits tie, in several
// segments and under several workers: each page must be the same slice of
// the full ranking, ties in key order, whichever order the documents came
// in and whichever ties a heap kept first.
func TestTopKTies(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var docs []index.Document
	keys := r.Perm(1500) // the keys' order is not the documents'
	for i := range 1500 {
		text := "alpha beta gamma"
		switch {
		case i%5 == 0:
			text = "alpha beta gamma alpha delta" // a higher score, tied among itself
		case i%11 == 0:
			text = "alpha epsilon"
		}
		docs = append(docs, index.Document{Key: fmt.Sprintf("doc-%04d", keys[i]), Text: []byte(text)})
	}
	dir := createIndex(t, docs, index.WriterOptions{Capacity: 400})
	ix, s := openSearcher(t, dir)
	if len(ix.Segments()) < 3 {
		t.Fatalf("%d segments, the test needs 3", len(ix.Segments()))
	}
	ctx := context.Background()
	for _, workers := range []int{1, 3} {
		s.SetWorkers(workers)
		for _, q := range []string{"alpha", "beta gamma", "alpha delta", "alpha OR epsilon"} {
			full, err := s.Search(ctx, Request{Query: q, Limit: ix.NumDocs() + 1})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.IsSortedFunc(full.Hits, func(a, b Hit) int {
				return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Key, b.Key))
			}) {
				t.Fatalf("%q: the full ranking is not by score, then key", q)
			}
			for _, off := range []int{0, 10, 250, 299, 300, 301, 1000} {
				page, err := s.Search(ctx, Request{Query: q, Limit: 10, Offset: off})
				if err != nil {
					t.Fatal(err)
				}
				want := full.Hits[min(off, len(full.Hits)):min(off+10, len(full.Hits))]
				if got, w := renderHits(page.Hits), renderHits(want); got != w || page.Total != full.Total {
					t.Fatalf("%q offset %d, %d workers: %d hits\n got %s\nwant %s", q, off, workers, page.Total, got, w)
				}
			}
		}
	}
}

func renderHits(hs []Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s:%.17g ", h.Key, h.Score)
	}
	return b.String()
}

// TestBlockQueue checks that the queue gives blocks in the order of a
// sort by bound (descending), then block, with many ties and infinities,
// whether it was built at once (init) or block by block (push).
func TestBlockQueue(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for n := range 60 {
		var blocks []candBlock
		for i := range n {
			b := float64(rng.IntN(8))
			if rng.IntN(10) == 0 {
				b = math.Inf(1)
			}
			blocks = append(blocks, candBlock{lo: i, hi: i + 1, bound: b})
		}
		rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
		want := slices.Clone(blocks)
		slices.SortFunc(want, func(a, b candBlock) int {
			if c := cmp.Compare(b.bound, a.bound); c != 0 {
				return c
			}
			return a.lo - b.lo
		})
		built := blockQueue(slices.Clone(blocks))
		built.init()
		var pushed blockQueue
		for _, b := range blocks {
			pushed.push(b)
		}
		for name, q := range map[string]blockQueue{"init": built, "push": pushed} {
			for i, w := range want {
				if len(q) != n-i {
					t.Fatalf("%s n=%d: %d blocks left after %d taken", name, n, len(q), i)
				}
				if got := q.pop(); got != w {
					t.Fatalf("%s n=%d: block %d taken is %+v, want %+v", name, n, i, got, w)
				}
			}
		}
	}
}

// TestRankBlocksAcrossSegments checks that a search ranks the blocks of all
// its segments best bound first, as one: the short documents, whose
// segment is searched first, all score below the few long ones that repeat
// the word, so that once those are scored no block of short documents can
// enter the page. A search that ranked segment after segment scores nearly
// every short document (their bounds tie with the floor they set).
func TestRankBlocksAcrossSegments(t *testing.T) {
	var docs []index.Document
	const short = 3000
	for i := range short {
		docs = append(docs, index.Document{Key: fmt.Sprintf("s%04d", i), Text: []byte(fmt.Sprintf("alpha w%d v%d", i, i))})
	}
	for i := range 600 {
		var b strings.Builder
		tf := 1
		if i%40 == 0 {
			tf = 20
		}
		for range tf {
			b.WriteString("alpha ")
		}
		for j := range 39 - tf {
			fmt.Fprintf(&b, "l%d ", (i*39+j)%5000)
		}
		docs = append(docs, index.Document{Key: fmt.Sprintf("l%04d", i), Text: []byte(b.String())})
	}
	ix, s := openSearcher(t, createIndex(t, docs, index.WriterOptions{}))
	if n := len(ix.Segments()); n < 2 {
		t.Fatalf("%d segments, want short and long documents apart", n)
	}
	res, err := s.Search(context.Background(), Request{Query: "alpha", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != len(docs) {
		t.Fatalf("total %d, want %d", res.Total, len(docs))
	}
	for _, h := range res.Hits {
		if !strings.HasPrefix(h.Key, "l") {
			t.Fatalf("hit %s on the page: a short document outscores the long ones that repeat the word", h.Key)
		}
	}
	if res.Scored > short/10 {
		t.Errorf("scored %d of %d hits: the short documents' blocks were not skipped", res.Scored, res.Total)
	}
	t.Logf("scored %d of %d hits in %d segments", res.Scored, res.Total, len(ix.Segments()))
}
