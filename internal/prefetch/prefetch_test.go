package prefetch

import (
	"bytes"
	"slices"
	"testing"
)

// TestRangeAndWords prefetches slices of every small length and alignment,
// empty and nil ones among them, and checks that nothing was written.
func TestRangeAndWords(t *testing.T) {
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	want := bytes.Clone(buf)
	for from := range 130 {
		for n := range 200 {
			Range(buf[from : from+n])
		}
	}
	Range(nil)
	if !bytes.Equal(buf, want) {
		t.Fatal("Range changed the memory it prefetched")
	}
	words := make([]uint64, 512)
	for i := range words {
		words[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	wantWords := slices.Clone(words)
	for from := range 20 {
		for n := range 40 {
			Words(words[from : from+n])
		}
	}
	Words(nil)
	if !slices.Equal(words, wantWords) {
		t.Fatal("Words changed the memory it prefetched")
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
