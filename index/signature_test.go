package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRowDocs checks that a higher-rank row expanded to documents has bit d
// exactly when the row has bit d>>rank, and no bit past the last document.
func TestRowDocs(t *testing.T) {
	// 6,000 documents of ten words out of 30,000, each word in about two
	// documents: rare enough for rows of every rank.
	r := rand.New(rand.NewPCG(3, 3))
	var docs []Document
	for i := 0; i < 6000; i++ {
		var b strings.Builder
		for j := 0; j < 10; j++ {
			fmt.Fprintf(&b, "w%dx ", r.IntN(30000))
		}
		docs = append(docs, Document{Key: fmt.Sprint(i), Text: []byte(b.String())})
	}
	for _, rank := range []int{3, 4, 5, 6} {
		dir := t.TempDir()
		p := Params{Density: 0.1, SNR: 2, KMin: 1, KMax: 12, Rank: rank} // no lists: rare terms get ranks
		buildIndex(t, dir, docs, WriterOptions{Params: p})
		ix, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		high := 0
		for _, s := range ix.Segments() {
			for r := 0; r < s.NumRows(); r++ {
				if s.RowRank(r) == 0 {
					continue
				}
				high++
				row, docs := s.Row(r), s.RowDocs(r)
				for d := 0; d < len(docs)*64; d++ {
					got := docs[d/64]>>(d%64)&1 != 0
					g := d >> rank
					want := d < s.NumDocs() && row[g/64]>>(g%64)&1 != 0
					if got != want {
						t.Fatalf("rank %d, %s row %d, document %d: %v, want %v", rank, s.Name(), r, d, got, want)
					}
				}
			}
		}
		ix.Close()
		if high == 0 {
			t.Fatalf("rank %d: no higher-rank rows", rank)
		}
	}
}
