package query

import (
	"context"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/segment"
)

func TestCountRange(t *testing.T) {
	words := []uint64{^uint64(0), 0b1011, 1 << 63}
	for _, c := range []struct{ lo, hi, want int }{
		{0, 64, 64}, {0, 10, 10}, {60, 68, 7}, {64, 66, 2}, {64, 128, 3}, {0, 192, 68}, {127, 128, 0}, {191, 192, 1},
	} {
		if got := countRange(words, c.lo, c.hi); got != c.want {
			t.Errorf("countRange(%d, %d) = %d, want %d", c.lo, c.hi, got, c.want)
		}
	}
}

// TestExplainBuckets: the counts by stretch of documents that Explain
// gives for drawing add up to the segment's live documents and to each
// step's survivors, and no row admits fewer documents than survive it.
func TestExplainBuckets(t *testing.T) {
	docs := indextest.Corpus(2500, 8)
	s, err := NewSearcher(indextest.Open(t, t.TempDir(), docs, index.WriterOptions{Capacity: 900}))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"kalo mine", "kalo", "ka*", "kalo -mine", "zzzqqq kalo"} {
		ex, err := s.Explain(context.Background(), q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		for _, sg := range ex.Segments {
			if sg.Buckets != min(ExplainBuckets, sg.Docs) || len(sg.Live) != sg.Buckets {
				t.Fatalf("%q %s: %d buckets, %d live counts for %d documents", q, sg.Segment, sg.Buckets, len(sg.Live), sg.Docs)
			}
			live := 0
			for _, n := range sg.Live {
				live += n
			}
			seg := segByName(s, sg.Segment)
			if live != seg.NumLive() {
				t.Fatalf("%q %s: %d live by bucket, %d live", q, sg.Segment, live, seg.NumLive())
			}
			for _, st := range sg.Steps {
				sum := 0
				for b, n := range st.Bits {
					sum += n
					for _, r := range st.Rows {
						if r.Bits[b] < n {
							t.Fatalf("%q %s: row %d admits %d of bucket %d, %d survive", q, sg.Segment, r.Row, r.Bits[b], b, n)
						}
					}
				}
				if sum != st.Survivors {
					t.Fatalf("%q %s step %s: %d survivors by bucket, %d in all", q, sg.Segment, st.Term, sum, st.Survivors)
				}
			}
		}
	}
}

func segByName(s *Searcher, name string) *segment.Segment {
	for _, seg := range s.ix.Segments() {
		if seg.Name() == name {
			return seg
		}
	}
	return nil
}
