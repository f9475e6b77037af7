// Package indextest builds indexes for the tests and benchmarks of
// bitsieve's packages: every error fails the test.
package indextest

import (
	"testing"

	"github.com/bitsieve/bitsieve/index"
)

// Build writes docs as a new index in dir (replacing any there) with opt,
// in one commit, and returns the commit's statistics.
func Build(tb testing.TB, dir string, docs []index.Document, opt index.WriterOptions) index.WriteStats {
	tb.Helper()
	w, err := index.Create(dir, opt)
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range docs {
		if err := w.Add(d); err != nil {
			tb.Fatalf("add %s: %v", d.Key, err)
		}
	}
	st, err := w.Commit()
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// Open builds docs as an index in dir, as Build does, and opens it; the
// index is closed when the test ends.
func Open(tb testing.TB, dir string, docs []index.Document, opt index.WriterOptions) *index.Index {
	tb.Helper()
	Build(tb, dir, docs, opt)
	ix, err := index.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	return ix
}
