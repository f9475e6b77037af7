package query

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// The exactness tests compare the engine with the test kit's brute-force
// oracle, which shares nothing with it but the analyzer: queries are
// generated from the documents, and the oracle answers each from the
// re-analyzed text of every document.

func allHits(t *testing.T, s *Searcher, q string) ([]string, *Result, error) {
	res, err := s.Search(context.Background(), Request{Query: q, Limit: s.ix.NumDocs() + 1})
	if err != nil {
		return nil, nil, err
	}
	keys := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		keys[i] = h.Key
	}
	slices.Sort(keys)
	if len(keys) != res.Total {
		t.Fatalf("%q: %d hits listed, total %d", q, len(keys), res.Total)
	}
	return keys, res, nil
}

// checkExact runs n generated queries and compares each with brute force.
func checkExact(t *testing.T, docs []index.Document, opt index.WriterOptions, n int, seed uint64) {
	checkExactIn(t, createIndex(t, docs, opt), docs, n, seed)
}

// createIndex indexes docs into a new index in a temporary directory.
func createIndex(t *testing.T, docs []index.Document, opt index.WriterOptions) string {
	dir := t.TempDir()
	indextest.Build(t, dir, docs, opt)
	return dir
}

// openSearcher opens the index in dir, closed when the test ends, and a
// Searcher over it.
func openSearcher(t testing.TB, dir string) (*index.Index, *Searcher) {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	s, err := NewSearcher(ix)
	if err != nil {
		t.Fatal(err)
	}
	return ix, s
}

// treatments counts the terms of every kind over an index's segments.
func treatments(t *testing.T, dir string) (private, shared, lists int) {
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, seg := range ix.Segments() {
		for id := range seg.NumTerms() {
			switch tr := seg.Treatment(segment.TermID(id)); {
			case tr.Private:
				private++
			case tr.List:
				lists++
			default:
				shared++
			}
		}
	}
	return private, shared, lists
}

// checkExactIn runs n generated queries on the index in dir, whose live
// documents are docs, and compares each with brute force.
func checkExactIn(t *testing.T, dir string, docs []index.Document, n int, seed uint64) {
	ix, s := openSearcher(t, dir)
	o := indextest.NewOracle(docs, ix.Analyzer())
	r := rand.New(rand.NewPCG(seed, 7))
	ran, fps, cands, nonEmpty := 0, 0, 0, 0
	for ran < n {
		qs := kit.GenQuery(r, o)
		want, werr := o.Match(qs)
		if werr != nil && !errors.Is(werr, kit.ErrNoTerms) {
			t.Fatalf("generated query %q: %v", qs, werr)
		}
		got, res, err := allHits(t, s, qs)
		if err != nil {
			if werr != nil || strings.Contains(err.Error(), "negated") || strings.Contains(err.Error(), "matches more than") {
				continue // no searchable or only negated words: an error is right
			}
			t.Fatalf("query %q: %v", qs, err)
		}
		if werr != nil {
			t.Fatalf("query %q: %d hits; it has no searchable term", qs, len(got))
		}
		if c, err := s.Cost(qs); err != nil || c.Candidates < int64(len(want)) {
			t.Fatalf("query %q: cost %+v (err %v) bounds fewer than its %d hits", qs, c, err, len(want))
		}
		if sig := signatureCandidates(t, s, qs); !subset(want, sig) {
			t.Fatalf("query %q: the signature stage dropped true hits %v", qs, diff(want, sig))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %q (parsed %s): engine %d hits, brute force %d\nengine-only: %v\nbrute-only: %v",
				qs, mustParse(s, qs), len(got), len(want), diff(got, want), diff(want, got))
		}
		if cnt, err := s.Search(context.Background(), Request{Query: qs, CountOnly: true}); err != nil || cnt.Total != len(want) {
			t.Fatalf("query %q: count %v (err %v), brute force %d", qs, cnt, err, len(want))
		}
		// A short page scores few candidates and counts the rest unread
		// (rankCandidates), as a search for the first page does.
		if page, err := s.Search(context.Background(), Request{Query: qs, Limit: 2}); err != nil || page.Total != len(want) ||
			!slices.Equal(keysOf(page.Hits), keysOf(res.Hits[:min(2, len(res.Hits))])) {
			t.Fatalf("query %q: first page of 2 %v (err %v), total %d; brute force %d hits, all ranked %v",
				qs, page.Hits, err, page.Total, len(want), keysOf(res.Hits[:min(2, len(res.Hits))]))
		}
		ran++
		fps += res.FalsePositives
		cands += res.Candidates
		if len(want) > 0 {
			nonEmpty++
		}
	}
	t.Logf("%d queries (%d with hits) equal to brute force; %d candidates, %d false positives rejected", ran, nonEmpty, cands, fps)
	if nonEmpty < n/4 {
		t.Errorf("only %d of %d queries had hits: the generator is too weak to test anything", nonEmpty, n)
	}
}

func mustParse(s *Searcher, q string) string {
	n, err := s.Parse(q)
	if err != nil {
		return err.Error()
	}
	return n.String()
}

func diff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, x)
			if len(out) == 10 {
				break
			}
		}
	}
	return out
}

// sweep is the number of generated queries a test checks: n, or a fifth of
// it with -short (make test runs the quick suite; make test-long, all of it).
func sweep(n int) int {
	if testing.Short() {
		return n / 5
	}
	return n
}

func TestExactGenerated(t *testing.T) {
	docs := indextest.Corpus(6000, 1)
	// A small capacity makes many segments with shared rows at every density.
	checkExact(t, docs, index.WriterOptions{Capacity: 1500}, sweep(1000), 11)
}

// TestExactRepeatedWords: over a vocabulary of six words, most phrases
// repeat a word ("ka lo ka", "mi mi"), which a phrase matches at each of
// its offsets on its own, and short documents hold some phrases and not
// others.
func TestExactRepeatedWords(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 3))
	vocab := []string{"ka", "lo", "mi", "ne", "ru", "the"}
	docs := make([]index.Document, 600)
	for i := range docs {
		var b strings.Builder
		for range 2 + r.IntN(14) {
			b.WriteString(vocab[r.IntN(len(vocab))])
			b.WriteByte(' ')
		}
		docs[i] = index.Document{Key: fmt.Sprintf("rep/%04d", i), Text: []byte(b.String())}
	}
	checkExact(t, docs, index.WriterOptions{Capacity: 150}, sweep(500), 13)
}

// TestExactGeneratedCode runs the generated queries on source-like text
// indexed with the code analyzer, whose identifiers hold their whole word
// and their parts at consecutive positions.
func TestExactGeneratedCode(t *testing.T) {
	docs := indextest.CodeCorpus(3000, 4)
	checkExact(t, docs, index.WriterOptions{Analyzer: "code", Capacity: 1000}, 800, 41)
}

// TestExactGeneratedLists runs the generated queries with rare terms in
// lists beside shared and private rows, and with every non-private term in a
// list (where every plan is exact and nothing is verified).
func TestExactGeneratedLists(t *testing.T) {
	docs := indextest.Corpus(4000, 3)
	for _, p := range []index.Params{
		{Density: 0.5, SNR: 2, KMin: 1, KMax: 12, ListDensity: 1.0 / 64},
		{Density: 0.2, SNR: 10, KMin: 1, KMax: 12, ListDensity: 0.2},
	} {
		t.Run(fmt.Sprintf("list-density-%v", p.ListDensity), func(t *testing.T) {
			dir := createIndex(t, docs, index.WriterOptions{Params: p, Capacity: 1000})
			private, shared, lists := treatments(t, dir)
			t.Logf("terms: %d private, %d shared, %d lists", private, shared, lists)
			if lists == 0 || private == 0 || (shared == 0) != (p.ListDensity == p.Density) {
				// The first set mixes all three kinds; the second has no shared rows.
				t.Fatalf("the parameters did not give the mix of treatments this test needs")
			}
			checkExactIn(t, dir, docs, sweep(600), 13)
		})
	}
}

func TestExactGeneratedDenseRows(t *testing.T) {
	docs := indextest.Corpus(3000, 2)
	// Few rows per term and dense rows: many false positives to reject.
	p := index.Params{Density: 0.4, SNR: 1, KMin: 1, KMax: 2}
	checkExact(t, docs, index.WriterOptions{Params: p}, sweep(300), 12)
}

// TestExactGeneratedRanks runs the generated queries on indexes whose shared
// terms have rows at every supported higher rank, and at rank 0 only, with a
// low snr so that verification has false positives to reject.
func TestExactGeneratedRanks(t *testing.T) {
	docs := indextest.Corpus(3000, 5)
	for _, rank := range []int{0, 3, 4, 5, 6} {
		t.Run(fmt.Sprintf("rank-%d", rank), func(t *testing.T) {
			p := index.Params{Density: 0.25, SNR: 2, KMin: 1, KMax: 12, ListDensity: 1.0 / 1024, Rank: rank}
			dir := createIndex(t, docs, index.WriterOptions{Params: p, Capacity: 1500})
			ix, err := index.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			high := 0
			for _, seg := range ix.Segments() {
				high += seg.HighRows()
			}
			ix.Close()
			if (high > 0) != (rank > 0) {
				t.Fatalf("rank %d gave %d higher-rank rows", rank, high)
			}
			checkExactIn(t, dir, docs, sweep(300), 17+uint64(rank))
		})
	}
}

// signatureCandidates runs only the signature stage (planning and blocked
// matching, no verification) and returns the candidate keys, sorted.
func signatureCandidates(t *testing.T, s *Searcher, qs string) []string {
	q, err := s.compile(qs)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, seg := range s.ix.Segments() {
		p, err := s.plan(seg, q.segIdx[seg], q.root, q)
		if err != nil {
			t.Fatal(err)
		}
		p.match(func(doc int) { keys = append(keys, seg.DocKey(doc)) })
	}
	slices.Sort(keys)
	return keys
}

// subset reports whether every element of a (sorted) is in b (sorted).
func subset(a, b []string) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

func TestExactSample(t *testing.T) {
	var docs []index.Document
	if _, err := corpus.Sample(func(d corpus.Document) error {
		docs = append(docs, index.Document(d))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	n := 1000
	if testing.Short() {
		n = 200
	}
	checkExact(t, docs, index.WriterOptions{}, n, 21)
}

// TestExactGeneratedPairs runs the generated queries, a third of whose
// leaves are phrases, on indexes with word pairs in the shared rows (one
// row per pair, so that many pairs are false positives to reject, and the
// default three), and checks that pairs cut a phrase's candidates below
// those of its words alone.
func TestExactGeneratedPairs(t *testing.T) {
	docs := indextest.Corpus(3000, 9)
	phrases := []string{}
	for _, d := range docs[:200] {
		f := strings.Fields(string(d.Text))
		if len(f) >= 2 {
			phrases = append(phrases, f[0]+" "+f[1])
		}
	}
	for _, k := range []int{1, 3} {
		t.Run(fmt.Sprintf("pair-rows-%d", k), func(t *testing.T) {
			p := index.DefaultParams
			p.PairK = k
			dir := createIndex(t, docs, index.WriterOptions{Params: p, Capacity: 1000})
			checkExactIn(t, dir, docs, sweep(400), 31+uint64(k))

			ix, err := index.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			var pairs int64
			for _, seg := range ix.Segments() {
				pairs += seg.PairPostings()
			}
			if pairs == 0 {
				t.Fatal("no word pairs were indexed")
			}
			s, err := NewSearcher(ix)
			if err != nil {
				t.Fatal(err)
			}
			withPairs, without := 0, 0
			for _, ph := range phrases {
				q := `"` + PlainWords(ph) + `"`
				if _, err := s.Parse(q); err != nil {
					continue
				}
				withPairs += len(signatureCandidates(t, s, q))
				without += len(signatureCandidates(t, s, PlainWords(ph)))
			}
			t.Logf("%d word pair postings; %d phrase candidates, %d for the same words unquoted", pairs, withPairs, without)
			if withPairs >= without {
				t.Errorf("pairs did not cut the phrases' candidates: %d with, %d without", withPairs, without)
			}
		})
	}
}

// keysOf returns the keys of hits, in order.
func keysOf(hits []Hit) []string {
	keys := make([]string, len(hits))
	for i, h := range hits {
		keys[i] = h.Key
	}
	return keys
}
