package inverted_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/query"
)

// engines builds an index of docs and returns a signature and an inverted
// Searcher over it.
func engines(t *testing.T, docs []index.Document, opt index.WriterOptions) (sig, inv *query.Searcher) {
	sig, inv, _ = enginesAndPostings(t, docs, opt)
	return sig, inv
}

// enginesAndPostings is engines, with the postings.
func enginesAndPostings(t *testing.T, docs []index.Document, opt index.WriterOptions) (sig, inv *query.Searcher, post *inverted.Index) {
	t.Helper()
	dir := t.TempDir()
	indextest.Build(t, dir, docs, opt)
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	post, err = inverted.Build(ix, inverted.BuildOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { post.Close() })
	if sig, err = query.NewSearcher(ix); err != nil {
		t.Fatal(err)
	}
	if inv, err = inverted.NewSearcher(ix, post); err != nil {
		t.Fatal(err)
	}
	if sig.Engine() != "signature" || inv.Engine() != "inverted" {
		t.Fatalf("engines %q and %q", sig.Engine(), inv.Engine())
	}
	return sig, inv, post
}

func matchKeys(s *query.Searcher, m *query.Matches) []string {
	var keys []string
	for si, docs := range m.Docs {
		for _, d := range docs {
			keys = append(keys, s.Index().Segments()[si].DocKey(int(d)))
		}
	}
	slices.Sort(keys)
	return keys
}

// TestInvertedEqualsSignature runs generated queries (words, phrases,
// prefixes, AND, OR, NOT) through both engines and brute force: the match
// sets, the counts and the ranked pages (keys and scores) must be equal.
func TestInvertedEqualsSignature(t *testing.T) {
	docs := indextest.Corpus(5000, 21)
	sig, inv := engines(t, docs, index.WriterOptions{Capacity: 1300})
	o, r := indextest.NewOracle(docs, "english"), rand.New(rand.NewPCG(31, 7))
	ctx := context.Background()
	ran, nonEmpty := 0, 0
	for ran < 400 {
		qs := kit.GenQuery(r, o)
		sm, serr := sig.Matches(ctx, qs)
		im, ierr := inv.Matches(ctx, qs)
		if (serr == nil) != (ierr == nil) {
			t.Fatalf("%q: signature error %v, inverted error %v", qs, serr, ierr)
		}
		if serr != nil {
			if serr.Error() != ierr.Error() {
				t.Fatalf("%q: signature error %q, inverted error %q", qs, serr, ierr)
			}
			continue
		}
		want, err := o.Match(qs)
		if err != nil {
			t.Fatalf("%q: the engines answer, the oracle: %v", qs, err)
		}
		if got := matchKeys(inv, im); !slices.Equal(got, want) {
			t.Fatalf("%q (parsed %s): inverted %d matches, brute force %d\ninverted-only: %v\nbrute-only: %v",
				qs, mustParse(sig, qs), len(got), len(want), diff(got, want), diff(want, got))
		}
		if got := matchKeys(sig, sm); !slices.Equal(got, want) {
			t.Fatalf("%q: signature Matches %d, brute force %d", qs, len(got), len(want))
		}
		if im.Candidates < im.Total || (im.Candidates != im.Total && !strings.Contains(qs, `"`)) || sm.Candidates < sm.Total {
			t.Fatalf("%q: candidates %d/%d (inverted), %d/%d (signature)", qs, im.Candidates, im.Total, sm.Candidates, sm.Total)
		}
		// Every hit ranked: equal lists mean equal pages of any size.
		for _, limit := range []int{len(want) + 1} {
			req := query.Request{Query: qs, Limit: limit}
			sr, err := sig.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			ir, err := inv.Search(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if sr.Total != len(want) || ir.Total != len(want) {
				t.Fatalf("%q: totals %d (signature), %d (inverted), want %d", qs, sr.Total, ir.Total, len(want))
			}
			// A segment whose plan is one word in rows lists only the
			// candidates of the blocks it scores (rankBlock) and reports
			// its hits as its candidates, as a count does; every other
			// segment reports what Matches lists.
			if sr.Candidates < sr.Total || sr.Candidates > sm.Candidates {
				t.Fatalf("%q: Search saw %d candidates for %d hits, Matches %d: evalCounted no longer follows eval", qs, sr.Candidates, sr.Total, sm.Candidates)
			}
			if !slices.EqualFunc(sr.Hits, ir.Hits, func(a, b query.Hit) bool { return a.Key == b.Key && a.Score == b.Score }) {
				t.Fatalf("%q limit %d: ranked pages differ\nsignature %v\ninverted  %v", qs, limit, hitKeys(sr.Hits), hitKeys(ir.Hits))
			}
		}
		ran++
		if len(want) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < ran/4 {
		t.Fatalf("only %d of %d queries matched anything", nonEmpty, ran)
	}
	t.Logf("%d queries (%d with matches): both engines equal brute force", ran, nonEmpty)
}

func hitKeys(hs []query.Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Key
	}
	return out
}

// TestInvertedSnippetsAndCounts checks the parts of a Result the inverted
// engine fills differently: no false positives, and the same snippets.
func TestInvertedSnippetsAndCounts(t *testing.T) {
	docs := indextest.Corpus(2000, 5)
	sig, inv := engines(t, docs, index.WriterOptions{})
	ctx := context.Background()
	for _, q := range []string{"kalo", "kalo mine", `"kalo mine"`, "kalo -mine", "ka*", "kalo OR ruvin"} {
		sr, serr := sig.Search(ctx, query.Request{Query: q, Snippets: true})
		ir, ierr := inv.Search(ctx, query.Request{Query: q, Snippets: true})
		if serr != nil || ierr != nil {
			if serr == nil || ierr == nil || serr.Error() != ierr.Error() {
				t.Fatalf("%q: errors %v and %v", q, serr, ierr)
			}
			continue
		}
		if (ir.FalsePositives != 0 && !strings.Contains(q, `"`)) || ir.Total != sr.Total {
			t.Fatalf("%q: inverted total %d candidates %d fp %d; signature total %d", q, ir.Total, ir.Candidates, ir.FalsePositives, sr.Total)
		}
		for i := range sr.Hits {
			if sr.Hits[i].Snippet != ir.Hits[i].Snippet || !slices.Equal(sr.Hits[i].Highlights, ir.Hits[i].Highlights) {
				t.Fatalf("%q: hit %d snippets differ", q, i)
			}
		}
	}
}

func TestNewSearcherRefusesOtherIndex(t *testing.T) {
	docs := indextest.Corpus(300, 6)
	sig, _ := engines(t, docs, index.WriterOptions{})
	_, _, other := enginesAndPostings(t, docs, index.WriterOptions{})
	if _, err := inverted.NewSearcher(sig.Index(), other); err == nil || !strings.Contains(err.Error(), "not opened for this index") {
		t.Fatalf("postings of another index accepted: %v", err)
	}
}

// TestInvertedSkipsDeletedDocuments deletes documents (tombstones: live
// rows shrink) and checks that both engines agree with brute force over the
// documents that are left.
func TestInvertedSkipsDeletedDocuments(t *testing.T) {
	docs := indextest.Corpus(3000, 41)
	dir := t.TempDir()
	w, err := index.Create(dir, index.WriterOptions{Capacity: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		w.Add(d)
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	before, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	old, err := inverted.Build(before, inverted.BuildOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	before.Close()

	uw, err := index.OpenWriter(dir, index.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kept []index.Document
	for i, d := range docs {
		if i%25 == 0 {
			if err := uw.Delete(d.Key); err != nil {
				t.Fatal(err)
			}
			continue
		}
		kept = append(kept, d)
	}
	if _, err := uw.Commit(); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.NumDocs() != len(kept) {
		t.Fatalf("%d live documents, want %d", ix.NumDocs(), len(kept))
	}
	// Postings of segments the update kept are reused; segments it wrote
	// (compaction may merge some) get new ones.
	post, err := inverted.Build(ix, inverted.BuildOptions{Dir: dir, Reuse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer post.Close()
	tombstoned := 0
	for _, seg := range ix.Segments() {
		if seg.NumLive() < seg.NumDocs() {
			tombstoned++
		}
	}
	if tombstoned == 0 {
		t.Fatal("no segment has deleted documents: the test tests nothing")
	}
	t.Logf("%d segments (%d with deletes), %d postings files built after the deletes", len(ix.Segments()), tombstoned, post.Built())
	sig, _ := query.NewSearcher(ix)
	inv, err := inverted.NewSearcher(ix, post)
	if err != nil {
		t.Fatal(err)
	}
	o, r := indextest.NewOracle(kept, "english"), rand.New(rand.NewPCG(43, 7))
	ctx := context.Background()
	for ran := 0; ran < 150; {
		qs := kit.GenQuery(r, o)
		im, err := inv.Matches(ctx, qs)
		if err != nil {
			continue
		}
		sm, err := sig.Matches(ctx, qs)
		if err != nil {
			t.Fatal(err)
		}
		want, err := o.Match(qs)
		if err != nil {
			t.Fatalf("%q: the engines answer, the oracle: %v", qs, err)
		}
		if got := matchKeys(inv, im); !slices.Equal(got, want) {
			t.Fatalf("%q: inverted %d matches, brute force %d; inverted-only %v", qs, len(got), len(want), diff(got, want))
		}
		if got := matchKeys(sig, sm); !slices.Equal(got, want) {
			t.Fatalf("%q: signature %d matches, brute force %d", qs, len(got), len(want))
		}
		ran++
	}
}

func mustParse(s *query.Searcher, q string) string {
	n, err := s.Parse(q)
	if err != nil {
		return err.Error()
	}
	return n.String()
}

// diff lists (up to ten of) the elements of a, sorted, that b lacks.
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
