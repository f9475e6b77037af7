package prefetch

import (
	"slices"
	"testing"

	"github.com/bitsieve/bitsieve/internal/inplace"
)

// TestRangeAndWords prefetches slices of every small length and alignment
// (as bytes, words, uint16s and structs),
// empty and nil ones among them, and checks that nothing was written.
func TestRangeAndWords(t *testing.T) {
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	want := slices.Clone(buf)
	words := inplace.Uint64s(buf[:2048])
	halves := inplace.Uint16s(buf[:2048])
	triples := make([][3]uint32, 300)
	for from := range 130 {
		for n := range 200 {
			Range(buf[from : from+n])
			Words(words[from/8 : from/8+n/8])
			Uint16s(halves[from/2 : from/2+n/2])
			Slice(triples[from : from+n/2])
		}
	}
	Range(nil)
	Words(nil)
	Uint16s(nil)
	Slice[[3]uint32](nil)
	if !slices.Equal(buf, want) {
		t.Fatal("prefetching changed the memory it prefetched")
	}
}

func BenchmarkRange(b *testing.B) {
	buf := make([]byte, 1<<24)
	b.SetBytes(256)
	for i := 0; b.Loop(); i++ {
		off := (i * 4099 * 64) % (len(buf) - 256)
		Range(buf[off : off+256])
	}
}
