package segment

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/inplace"
)

// TestListFreqs places the frequencies of lists of both encodings, behind
// another list, as the writer does, and reads them back through Freqs.Of
// for documents in and out of the list, in ascending and in random order
// (Of goes on from the chunk it read last, and must start over when a
// document lies before it).
func TestListFreqs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	for round := range 200 {
		span := 1 + rng.IntN(1<<16)
		n := 1 + rng.IntN(min(span, 3000))
		if round%4 == 0 {
			n = 1 + rng.IntN(min(span, 20)) // sparse: plain lists
		}
		docs := make([]uint16, n)
		for i, d := range rng.Perm(span)[:n] {
			docs[i] = uint16(d)
		}
		slices.Sort(docs)
		tf := make([]byte, n)
		want := map[int]byte{}
		for i, d := range docs {
			tf[i] = byte(1 + rng.IntN(255))
			want[int(d)] = tf[i]
		}

		lists, _ := doclist.Append(nil, []uint16{3, 9}) // another list first
		off := len(lists)
		lists, chunked := doclist.Append(lists, docs)
		var l doclist.List
		if chunked {
			l = doclist.NewChunked(lists[off:], n)
		} else {
			l = doclist.NewPlain(inplace.Uint16s(lists[off : off+2*n]))
		}
		freqs := placeListFreqs(nil, l, off, tf)
		f := Freqs{list: l.Plain(), tf: freqs[off:]}
		if chunked {
			f = Freqs{chunked: l.Bytes(), n: n, tf: freqs[off:]}
		}

		check := func(d int) {
			got, ok := f.Of(d)
			w := uint32(want[d])
			if w == freqSaturated {
				if ok {
					t.Fatalf("round %d (chunked %v): document %d: Of gives %d for a saturated tf", round, chunked, d, got)
				}
				return
			}
			if !ok || got != w {
				t.Fatalf("round %d (chunked %v, %d entries): document %d: Of gives %d (%v), want %d", round, chunked, n, d, got, ok, w)
			}
		}
		for d := range min(span+300, doclist.MaxDocs) {
			check(d)
		}
		for range 2000 {
			d := rng.IntN(span)
			if rng.IntN(2) == 0 {
				d = int(docs[rng.IntN(n)])
			}
			check(d)
		}
	}
}
