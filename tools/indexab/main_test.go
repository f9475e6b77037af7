package main

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/query"
)

func searcher(t *testing.T, docs []index.Document) *query.Searcher {
	ix := indextest.Open(t, t.TempDir(), docs, index.WriterOptions{})
	s, err := query.NewSearcher(ix)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompare(t *testing.T) {
	var docs []index.Document
	for i := range 200 {
		docs = append(docs, index.Document{Key: fmt.Sprint(i), Text: []byte(fmt.Sprintf("white whale %d sea %d", i%7, i%3))})
	}
	a, b := searcher(t, docs), searcher(t, docs)
	qs := queries("white whale\n\"sea 2\" -(x)\n\nOR\nwhale 3\n")
	if want := []string{"white whale", "sea 2 x", "or", "whale 3"}; !slices.Equal(qs, want) {
		t.Fatalf("queries = %q, want %q", qs, want)
	}
	r, err := compare(context.Background(), [2]*query.Searcher{a, b}, qs, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ratio) != 3 || len(r.p50[0]) != 3 || len(r.p95[1]) != 3 {
		t.Fatalf("3 rounds gave %d ratios, %d and %d quantiles", len(r.ratio), len(r.p50[0]), len(r.p95[1]))
	}
	for i, x := range r.ratio {
		if !(x > 0) || r.p95[0][i] < r.p50[0][i] {
			t.Fatalf("round %d: ratio %v, A p50 %v p95 %v", i, x, r.p50[0][i], r.p95[0][i])
		}
	}
	docs[5].Text = []byte("nothing")
	c := searcher(t, docs)
	if _, err := compare(context.Background(), [2]*query.Searcher{a, c}, qs, 1); err == nil {
		t.Fatal("indexes of different documents compared without an error")
	}
}
