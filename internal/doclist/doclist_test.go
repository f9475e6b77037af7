package doclist

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomList draws df distinct ascending documents below n.
func randomList(r *rand.Rand, df, n int) []uint16 {
	set := map[uint16]bool{}
	for len(set) < df {
		set[uint16(r.IntN(n))] = true
	}
	var l []uint16
	for d := range set {
		l = append(l, d)
	}
	slices.Sort(l)
	return l
}

// randomCase draws a segment of n documents and a list of 1 to about most
// of them.
func randomCase(r *rand.Rand, most int) (n int, docs []uint16) {
	n = 1 + r.IntN(MaxDocs)
	return n, randomList(r, 1+r.IntN(min(n, 1+r.IntN(most))), n)
}

func TestListEncodings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := map[bool]int{}
	for trial := 0; trial < 400; trial++ {
		n, docs := randomCase(r, 4000)
		df := len(docs)
		prefix := make([]byte, 2*r.IntN(3))
		b, chunked := Append(prefix, docs)
		kinds[chunked]++
		if len(b)%2 != 0 {
			t.Fatalf("list of %d is %d bytes, not even", df, len(b))
		}
		if want := min(2*df, chunkedSize(docs)+chunkedSize(docs)%2); len(b)-len(prefix) != want {
			t.Fatalf("list of %d took %d bytes, the smaller encoding is %d", df, len(b)-len(prefix), want)
		}
		body := b[len(prefix):]
		var l List
		if chunked {
			end := ChunkedEnd(body, df, (n+255)/256)
			if end < 0 || end > len(body) {
				t.Fatalf("a valid chunked list failed validation")
			}
			l = NewChunked(body, df)
		} else {
			l = NewPlain(u16s(body))
		}
		if e := Encode(docs); e.Chunked() != chunked || !slices.Equal(e.AppendTo(nil), docs) {
			t.Fatalf("Encode of %d documents differs from Append (chunked %v)", df, chunked)
		}
		if got := l.AppendTo(nil); !slices.Equal(got, docs) {
			t.Fatalf("decoded %v, want %v", got[:min(10, len(got))], docs[:min(10, len(docs))])
		}
		want := []int32{-1} // AppendDocs appends after what dst holds
		for _, d := range docs {
			want = append(want, int32(d))
		}
		if got := l.AppendDocs([]int32{-1}); !slices.Equal(got, want) {
			t.Fatalf("decoded as int32s %v, want %v", got[:min(10, len(got))], want[:min(10, len(want))])
		}
		for k := 0; k < 50; k++ {
			d := r.IntN(n)
			_, want := slices.BinarySearch(docs, uint16(d))
			if l.Contains(d) != want {
				t.Fatalf("Contains(%d) = %v, want %v", d, !want, want)
			}
		}
		if chunked {
			// Any cut short, or a chunk out of order, is refused.
			if ChunkedEnd(body[:ChunkedEnd(body, df, (n+255)/256)-1], df, (n+255)/256) >= 0 {
				t.Fatalf("a truncated chunked list passed validation")
			}
			if ChunkedEnd(body, df+1, (n+255)/256) >= 0 && ChunkedEnd(body, df, (n+255)/256) == len(body) {
				t.Fatalf("a list claiming one more entry passed validation")
			}
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("encodings used: %v; the test needs both", kinds)
	}
}

// u16s reads b (little-endian) as uint16s.
func u16s(b []byte) []uint16 {
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return out
}

// TestFilter checks Filter against Contains, in both encodings, for
// documents that are sparser, as dense as, and denser than the list, with
// the list's own documents among them.
func TestFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	kinds := map[bool]int{}
	for trial := 0; trial < 600; trial++ {
		n, docs := randomCase(r, 3000)
		df := len(docs)
		l := Encode(docs)
		kinds[l.Chunked()]++
		probe := randomList(r, 1+r.IntN(min(n, 1+r.IntN(3000))), n)
		for _, d := range docs { // some of the list's own documents
			if r.IntN(3) == 0 {
				probe = append(probe, d)
			}
		}
		slices.Sort(probe)
		probe = slices.Compact(probe)
		in := make([]int32, len(probe))
		var want []int32
		for i, d := range probe {
			in[i] = int32(d)
			if l.Contains(int(d)) {
				want = append(want, int32(d))
			}
		}
		if got := l.Filter(in); !slices.Equal(got, want) {
			t.Fatalf("Filter of %d documents by a list of %d (chunked %v): %d kept, want %d", len(probe), df, l.Chunked(), len(got), len(want))
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("encodings used: %v; the test needs both", kinds)
	}
	if got := Encode([]uint16{5}).Filter(nil); len(got) != 0 {
		t.Fatalf("Filter of no documents kept %v", got)
	}
}
