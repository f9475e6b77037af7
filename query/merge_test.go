package query

import (
	"cmp"
	"context"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/indextest/kit"
)

// TestShardsEqualOneIndex splits a corpus into three indexes by key, as a
// cluster's shards are, and searches them as one: each index's Stats for
// the query, summed, are passed to every index, and their pages merged.
// Totals, keys, scores (to the last bit), snippets and errors must equal
// those of one index holding every document.
func TestShardsEqualOneIndex(t *testing.T) {
	docs := indextest.Corpus(3000, 77)
	whole, err := NewSearcher(indextest.Open(t, t.TempDir(), docs, index.WriterOptions{Capacity: 700}))
	if err != nil {
		t.Fatal(err)
	}
	const shardCount = 3
	parts := make([][]index.Document, shardCount)
	for _, d := range docs {
		h := fnv.New32a()
		h.Write([]byte(d.Key))
		i := h.Sum32() % shardCount
		parts[i] = append(parts[i], d)
	}
	shards := make([]*Searcher, shardCount)
	for i := range parts {
		if shards[i], err = NewSearcher(indextest.Open(t, t.TempDir(), parts[i], index.WriterOptions{Capacity: 500})); err != nil {
			t.Fatal(err)
		}
	}
	o, r := indextest.NewOracle(docs, "english"), rand.New(rand.NewPCG(3, 7))
	ctx := context.Background()
	matched := 0
	for n := 0; n < sweep(400); n++ {
		q := kit.GenQuery(r, o)
		for _, req := range []Request{{Query: q, Limit: 10, Snippets: true}, {Query: q, Limit: 7, Offset: 5}, {Query: q, CountOnly: true}} {
			want, werr := whole.Search(ctx, req)
			got, gerr := searchShards(ctx, shards, req)
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Fatalf("%q: one index: %v; shards: %v", q, werr, gerr)
			}
			if werr != nil {
				break
			}
			if got.Total != want.Total || len(got.Hits) != len(want.Hits) {
				t.Fatalf("%q %+v: shards give %d of %d hits, one index %d of %d", q, req, len(got.Hits), got.Total, len(want.Hits), want.Total)
			}
			for i, h := range got.Hits {
				w := want.Hits[i]
				if h.Key != w.Key || h.Score != w.Score || h.Snippet != w.Snippet || h.Line != w.Line {
					t.Fatalf("%q %+v: hit %d is %s (%v) from the shards, %s (%v) from one index", q, req, i, h.Key, h.Score, w.Key, w.Score)
				}
			}
			if want.Total > 0 {
				matched++
			}
		}
	}
	if matched < sweep(400)/2 {
		t.Fatalf("only %d requests matched anything: the test tests too little", matched)
	}
}

// searchShards searches indexes as one: statistics gathered and summed,
// each index searched for the first Offset+Limit hits, the pages merged.
func searchShards(ctx context.Context, shards []*Searcher, req Request) (*Result, error) {
	var st Stats
	for _, s := range shards {
		x, err := s.Stats(req.Query)
		if err != nil {
			return nil, err
		}
		st.Add(x)
	}
	parts := make([]*Result, len(shards))
	for i, s := range shards {
		r := req
		r.Offset, r.Limit, r.Stats = 0, req.Offset+cmp.Or(req.Limit, DefaultLimit), &st
		var err error
		if parts[i], err = s.Search(ctx, r); err != nil {
			return nil, err
		}
	}
	return Merge(req, parts), nil
}

// TestStatsMismatch: statistics that lack a word an index holds are
// refused, never scored as if the word were absent.
func TestStatsMismatch(t *testing.T) {
	docs := indextest.Corpus(300, 5)
	s, err := NewSearcher(indextest.Open(t, t.TempDir(), docs, index.WriterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats("kalo")
	if err != nil || st.DF["kalo"] == 0 {
		t.Fatalf("stats of kalo: %+v, %v", st, err)
	}
	if _, err := s.Search(context.Background(), Request{Query: "kalo mine", Stats: st}); !errors.Is(err, ErrStatsMismatch) {
		t.Fatalf("search of kalo mine with the stats of kalo: %v", err)
	}
}
