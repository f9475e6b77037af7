package query

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bitsieve/bitsieve/internal/doclist"
)

// TestCursor checks a list cursor against the list itself for blocks asked
// in ascending order with gaps, and backwards, in both encodings.
func TestCursor(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	kinds := map[bool]int{}
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(doclist.MaxDocs)
		df := 1 + r.IntN(min(n, 1+r.IntN(5000)))
		docs := make([]uint16, df)
		for i, d := range r.Perm(n)[:df] {
			docs[i] = uint16(d)
		}
		slices.Sort(docs)
		l := doclist.Encode(docs)
		kinds[l.Chunked()]++
		c := newCursor(0, l)
		blocks := (n + 511) / 512
		b := 0
		for step := 0; step < 200 && b < blocks; step++ {
			want := noBlock
			var wantBits block
			for _, d := range docs {
				if int(d)>>blockShift >= b && want == noBlock {
					want = int(d) >> blockShift
				}
				if int(d)>>blockShift == b {
					wantBits[d%512/64] |= 1 << (d % 64)
				}
			}
			var got block
			ok, _ := c.bits(b, &got)
			if ok != (wantBits != block{}) || got != wantBits {
				t.Fatalf("trial %d (chunked %v): block %d bits differ", trial, l.Chunked(), b)
			}
			if nb := c.seek(b); nb != want {
				t.Fatalf("trial %d (chunked %v): seek(%d) = %d, want %d", trial, l.Chunked(), b, nb, want)
			}
			switch r.IntN(4) {
			case 0:
				b = max(0, b-r.IntN(8)) // backwards
			case 1:
				b += 1 + r.IntN(20)
			default:
				b++
			}
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("encodings used: %v; the test needs both", kinds)
	}
}
