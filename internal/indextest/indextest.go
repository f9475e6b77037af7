// Package indextest builds indexes for the tests and benchmarks of
// bitsieve's packages (every error fails the test), and offers the test kit
// of package kit (generated corpora and the brute-force oracle) typed as
// index.Documents.
//
// The kit itself lives in the subpackage kit, which imports neither index
// nor internal/segment: the internal tests of those two packages use it,
// and could not import this package, which imports index.
package indextest

import (
	"testing"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest/kit"
)

// Corpus is kit.Corpus as index Documents.
func Corpus(n int, seed uint64) []index.Document { return documents(kit.Corpus(n, seed)) }

// CodeCorpus is kit.CodeCorpus as index Documents.
func CodeCorpus(n int, seed uint64) []index.Document { return documents(kit.CodeCorpus(n, seed)) }

func documents(ds []corpus.Document) []index.Document {
	out := make([]index.Document, len(ds))
	for i, d := range ds {
		out[i] = index.Document(d)
	}
	return out
}

// NewOracle returns a kit.Oracle holding docs, analyzed with the named
// analyzer (that of the index they are in).
func NewOracle(docs []index.Document, analyzer string) *kit.Oracle {
	o := kit.NewOracle(analyzer)
	for _, d := range docs {
		o.Add(d.Key, d.Text)
	}
	return o
}

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
