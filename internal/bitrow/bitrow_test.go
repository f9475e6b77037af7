package bitrow

import (
	"math/rand/v2"
	"testing"
)

// TestExpandRank compares ExpandRank with the definition: bit j of a rank-r
// block stands for documents j·2^r to (j+1)·2^r − 1 of the block.
func TestExpandRank(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for rank := 3; rank <= 6; rank++ {
		for trial := 0; trial < 200; trial++ {
			bits := BlockDocs >> rank
			hb := r.Uint64()
			if bits < 64 {
				hb &= 1<<bits - 1
			}
			var got, want [BlockWords]uint64
			ExpandRank(hb, rank, &got)
			for d := 0; d < BlockDocs; d++ {
				if hb>>(d>>rank)&1 != 0 {
					want[d/64] |= 1 << (d % 64)
				}
			}
			if got != want {
				t.Fatalf("rank %d, bits %#x: got %x, want %x", rank, hb, got, want)
			}
		}
	}
	if Count([]uint64{0b1011, 1 << 63}) != 4 {
		t.Fatal("Count miscounts")
	}
}
