package index

import (
	"errors"
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

func TestListEncodings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	kinds := map[bool]int{}
	for trial := 0; trial < 400; trial++ {
		n := 1 + r.IntN(MaxListDocs)
		df := 1 + r.IntN(min(n, 1+r.IntN(4000)))
		docs := randomList(r, df, n)
		prefix := make([]byte, 2*r.IntN(3))
		b, chunked := appendList(prefix, docs)
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
			end := chunkedEnd(body, df, (n+255)/256)
			if end < 0 || end > len(body) {
				t.Fatalf("a valid chunked list failed validation")
			}
			l = List{chunked: body, n: df}
		} else {
			l = List{plain: bytesAsU16(body), n: df}
		}
		if got := l.AppendTo(nil); !slices.Equal(got, docs) {
			t.Fatalf("decoded %v, want %v", got[:min(10, len(got))], docs[:min(10, len(docs))])
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
			if chunkedEnd(body[:chunkedEnd(body, df, (n+255)/256)-1], df, (n+255)/256) >= 0 {
				t.Fatalf("a truncated chunked list passed validation")
			}
			if chunkedEnd(body, df+1, (n+255)/256) >= 0 && chunkedEnd(body, df, (n+255)/256) == len(body) {
				t.Fatalf("a list claiming one more entry passed validation")
			}
		}
	}
	if kinds[true] == 0 || kinds[false] == 0 {
		t.Fatalf("encodings used: %v; the test needs both", kinds)
	}
}

// TestMalformedListRefused damages a chunked list of a real segment, without
// fixing its checksum (the structure is checked even where checksums are
// not), and expects the lookup of its word to report damage instead of
// reading past the list.
func TestMalformedListRefused(t *testing.T) {
	segs, lexData := smallIndexFiles(t, 300, 5)
	data := segs[0]
	s, lx := openPair(t, segs, lexData)
	sec := s.secs[secLists]
	var word string
	var at int
	lx.each(func(w []byte, es []Entry) error {
		if tr := es[0].Treatment(); word == "" && es[0].Seg == 0 && tr.List && s.ListOf(es[0]).Chunked() && es[0].DF < 256 {
			word, at = string(w), tr.ListAt
		}
		return nil
	})
	if word == "" {
		t.Fatal("the segment has no chunked list to damage")
	}
	for name, damage := range map[string]func(b []byte){
		"a chunk claims 256 entries":     func(b []byte) { b[1] = 255 },
		"a chunk past the last document": func(b []byte) { b[0] = 255 },
	} {
		bad := slices.Clone(data)
		damage(bad[sec.Offset+uint64(at):])
		_, lx := openPair(t, append([][]byte{bad}, segs[1:]...), lexData)
		_, err := lx.Lookup(word, nil)
		if err == nil || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: lookup says %v, want damage", name, err)
		}
	}
}
