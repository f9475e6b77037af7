package query

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/indextest/kit"
)

// updateCorpus indexes docs in several commits of an OpenWriter writer,
// deleting and replacing documents along the way (with the automatic
// compaction on), and returns the live documents.
func updateCorpus(t *testing.T, dir string, docs []index.Document, opt index.WriterOptions, seed uint64) []index.Document {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 9))
	live := map[string]index.Document{}
	const commits = 6
	for c := 0; c < commits; c++ {
		w, err := index.OpenWriter(dir, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs[c*len(docs)/commits : (c+1)*len(docs)/commits] {
			w.Add(d)
			live[d.Key] = d
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range live {
				if !yield(k) {
					return
				}
			}
		})
		for i := 0; i < len(keys)/12; i++ {
			k := keys[r.IntN(len(keys))]
			if _, ok := live[k]; !ok {
				continue
			}
			if r.IntN(2) == 0 {
				w.Delete(k)
				delete(live, k)
			} else { // replace with another document's text
				d := index.Document{Key: k, Text: docs[r.IntN(len(docs))].Text}
				w.Add(d)
				live[k] = d
			}
		}
		st, err := w.Commit()
		if err != nil || st.CompactErr != nil {
			t.Fatal(err, st.CompactErr)
		}
	}
	out := make([]index.Document, 0, len(live))
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range live {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, live[k])
	}
	return out
}

// TestExactAfterUpdates: with tombstones, replacements and merged segments,
// every answer is still the brute-force answer over the live documents, and
// the ranking is the ranking of a fresh index of them (BM25 counts live
// documents only).
func TestExactAfterUpdates(t *testing.T) {
	n, queries := 3000, 400
	if testing.Short() {
		n, queries = 1200, 120
	}
	docs := indextest.Corpus(n, 31)
	dir := t.TempDir()
	live := updateCorpus(t, dir, docs, index.WriterOptions{Capacity: 400}, 1)
	checkExactIn(t, dir, live, queries, 13)

	fresh := t.TempDir()
	w, err := index.Create(fresh, index.WriterOptions{Capacity: 400})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range live {
		w.Add(d)
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	_, a := openSearcher(t, dir)
	_, b := openSearcher(t, fresh)
	o := indextest.NewOracle(live, "english")
	r := rand.New(rand.NewPCG(14, 7))
	for i := 0; i < 100; i++ {
		q := kit.GenQuery(r, o)
		ra, errA := a.Search(context.Background(), Request{Query: q, Limit: 10})
		rb, errB := b.Search(context.Background(), Request{Query: q, Limit: 10})
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%q: %v / %v", q, errA, errB)
		}
		if errA != nil {
			continue
		}
		if len(ra.Hits) != len(rb.Hits) || ra.Total != rb.Total {
			t.Fatalf("%q: %d/%d hits, fresh index %d/%d", q, len(ra.Hits), ra.Total, len(rb.Hits), rb.Total)
		}
		for j := range ra.Hits {
			if ra.Hits[j].Key != rb.Hits[j].Key || math.Abs(ra.Hits[j].Score-rb.Hits[j].Score) > 1e-9 {
				t.Fatalf("%q: hit %d is %s (%v), the fresh index ranks %s (%v)", q, j, ra.Hits[j].Key, ra.Hits[j].Score, rb.Hits[j].Key, rb.Hits[j].Score)
			}
		}
	}
}

// TestSearchDamagedIndex: with a byte flipped or a file truncated anywhere
// in the index, a search either fails with an error or gives exactly the
// answer of the intact index — never a panic, never a wrong answer.
func TestSearchDamagedIndex(t *testing.T) {
	dir := t.TempDir()
	live := updateCorpus(t, dir, indextest.Corpus(600, 41), index.WriterOptions{Capacity: 150, Compact: index.CompactPolicy{Disabled: true}}, 2)
	o, gr := indextest.NewOracle(live, "english"), rand.New(rand.NewPCG(15, 7))
	var queries []string
	for len(queries) < 12 {
		queries = append(queries, kit.GenQuery(gr, o))
	}
	run := func() ([]string, error) {
		ix, err := index.Open(dir)
		if err != nil {
			return nil, err
		}
		defer ix.Close()
		s, err := NewSearcher(ix)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, q := range queries {
			res, err := s.Search(context.Background(), Request{Query: q, Limit: 1000, Snippets: true})
			if err != nil {
				if !errors.As(err, new(*ParseError)) {
					return out, err
				}
				out = append(out, "error: "+err.Error())
				continue
			}
			for _, h := range res.Hits {
				out = append(out, fmt.Sprintf("%s %.12g %q", h.Key, h.Score, h.Snippet))
			}
			out = append(out, fmt.Sprint("total ", res.Total))
		}
		return out, nil
	}
	want, err := run()
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var files []string
	for _, e := range ents {
		if e.Name() != index.LockName {
			files = append(files, e.Name())
		}
	}
	r := rand.New(rand.NewPCG(16, 16))
	faults := 150
	if testing.Short() {
		faults = 20
	}
	refused, failed, intact := 0, 0, 0
	for i := 0; i < faults; i++ {
		name := files[r.IntN(len(files))]
		path := filepath.Join(dir, name)
		orig, _ := os.ReadFile(path)
		b := slices.Clone(orig)
		what := ""
		if i%10 == 9 {
			n := r.IntN(len(b))
			b, what = b[:n], fmt.Sprintf("%s truncated to %d bytes", name, n)
		} else {
			p := r.IntN(len(b))
			b[p] ^= byte(1 << r.IntN(8))
			what = fmt.Sprintf("%s flipped at %d", name, p)
		}
		os.WriteFile(path, b, 0o644)
		got, err := func() (got []string, err error) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("%s: panic: %v", what, p)
				}
			}()
			return run()
		}()
		switch {
		case err != nil && len(got) == 0 && !strings.Contains(err.Error(), "store"):
			refused++
		case err != nil:
			if !errors.Is(err, index.ErrCorrupt) {
				t.Errorf("%s: search fails with %v, want a damage report", what, err)
			}
			failed++
		case !slices.Equal(got, want):
			t.Fatalf("%s: a search answers differently without an error", what)
		default:
			intact++ // e.g. a flip in a store block no answer reads
		}
		os.WriteFile(path, orig, 0o644)
	}
	t.Logf("%d faults: %d refused at open, %d failed in a search, %d left every answer exact", faults, refused, failed, intact)
}

// TestSnapshotConsistency: searches running while documents are replaced
// and segments compacted always see one whole generation. Every commit
// rewrites every document with the commit's tag; a reader must find all
// documents and one tag only, even when it keeps its snapshot across later
// commits whose files replace its own.
func TestSnapshotConsistency(t *testing.T) {
	dir := t.TempDir()
	const n = 120
	commits := 24
	if testing.Short() {
		commits = 8
	}
	commit := func(c int) {
		w, err := index.OpenWriter(dir, index.WriterOptions{Capacity: 64, Workers: 2})
		if err != nil {
			t.Error(err)
			return
		}
		for i := 0; i < n; i++ {
			w.Add(index.Document{Key: fmt.Sprintf("d%03d", i), Text: []byte(fmt.Sprintf("common tag%d word%d", c, i%7))})
		}
		if _, err := w.Commit(); err != nil {
			t.Error(err)
		}
		if c%5 == 4 {
			if _, err := index.Compact(dir, index.CompactOptions{Capacity: 64, All: true}); err != nil {
				t.Error(err)
			}
		}
	}
	commit(0)
	var stop atomic.Bool
	var checks atomic.Int64
	var wg sync.WaitGroup
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				ix, err := index.Open(dir)
				if err != nil {
					t.Error(err)
					return
				}
				s, _ := NewSearcher(ix)
				for k := 0; k < 3; k++ { // the same snapshot, while commits go on
					res, err := s.Search(context.Background(), Request{Query: "common", Limit: n, Snippets: true})
					if err != nil {
						t.Error(err)
						break
					}
					tags := map[string]bool{}
					for _, h := range res.Hits {
						for _, f := range strings.Fields(h.Snippet) {
							if strings.HasPrefix(f, "tag") {
								tags[f] = true
							}
						}
					}
					if res.Total != n || len(tags) != 1 {
						t.Errorf("generation %d: %d documents, tags %v", ix.Generation(), res.Total, tags)
					}
					checks.Add(1)
				}
				ix.Close()
			}
		}()
	}
	for c := 1; c < commits && !t.Failed(); c++ {
		commit(c)
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d commits, %d consistent snapshot checks", commits, checks.Load())
}
