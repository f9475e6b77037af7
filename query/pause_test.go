package query

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
)

// TestPauseBetweenSegments: a search calls Request.Pause between the
// segments it searches, with the time it worked, and answers as without.
func TestPauseBetweenSegments(t *testing.T) {
	dir := createIndex(t, indextest.Corpus(600, 3), index.WriterOptions{Capacity: 64, Compact: index.CompactPolicy{Disabled: true}})
	ix, s := openSearcher(t, dir)
	if len(ix.Segments()) < 4 {
		t.Fatalf("%d segments: the test needs several", len(ix.Segments()))
	}
	for _, q := range []string{"kalo OR mine", "kalo"} {
		want, err := s.Search(context.Background(), Request{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var calls atomic.Int64
		var worked atomic.Int64
		got, err := s.Search(context.Background(), Request{Query: q, Admit: func(Cost) (int, func(), error) { return 1, func() {}, nil },
			Pause: func(d time.Duration) { calls.Add(1); worked.Add(int64(d)) }})
		if err != nil {
			t.Fatal(err)
		}
		if calls.Load() < 3 || worked.Load() <= 0 {
			t.Errorf("%s: %d pauses (%v worked) over %d segments", q, calls.Load(), time.Duration(worked.Load()), len(ix.Segments()))
		}
		if got.Total != want.Total || len(got.Hits) != len(want.Hits) {
			t.Errorf("%s: %d hits with pauses, %d without", q, got.Total, want.Total)
		}
	}
}
