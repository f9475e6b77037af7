package segment

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// encodeList encodes ascending positions as a stored list: the first,
// then each minus the previous one minus 1.
func encodeList(pos []uint32) PosList {
	var b []byte
	for i, p := range pos {
		if i == 0 {
			b = binary.AppendUvarint(b, uint64(p))
		} else {
			b = binary.AppendUvarint(b, uint64(p-pos[i-1]-1))
		}
	}
	return PosList{enc: b, n: len(pos)}
}

// TestPosIterSeek checks random walks of Seek and Next over a list
// against a model of them, on lists whose gaps are mostly one byte (the
// case Seek reads inline), some of several bytes, and some near the
// largest position a list holds.
func TestPosIterSeek(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 3000 {
		n := 1 + r.IntN(200)
		pos := make([]uint32, 0, n)
		p := uint32(r.IntN(300))
		high := trial%10 == 0
		if high {
			p = 1<<31 - uint32(n*200) - uint32(r.IntN(1000))
		}
		for len(pos) < n && p <= 1<<31 {
			pos = append(pos, p)
			switch g := r.IntN(100); {
			case g < 85:
				p += 1 + uint32(r.IntN(0x80))
			case g < 95 || high:
				p += 1 + uint32(r.IntN(8))
			default:
				p += 1 + uint32(r.IntN(100000))
			}
		}
		// The model: c is the index of the position returned last (−1:
		// none yet). Seek(q) returns that one when it is at q or after,
		// else the first after it at q or after; Next the one after it.
		l := encodeList(pos)
		if l.Len() != len(pos) {
			t.Fatalf("trial %d: Len %d, want %d", trial, l.Len(), len(pos))
		}
		it := l.Iter()
		c := -1
		for step := 0; step < 60 && c < len(pos)-1; step++ {
			if r.IntN(4) == 0 {
				q, ok := it.Next()
				if c++; !ok || q != pos[c] {
					t.Fatalf("trial %d: Next = %d, %v, want %d", trial, q, ok, pos[c])
				}
				continue
			}
			// A target at a position of the list, or anywhere up to
			// just past its last.
			from := pos[max(c, 0)]
			target := from + uint32(r.IntN(int(pos[len(pos)-1]-from)+2))
			if r.IntN(2) == 0 {
				target = pos[max(c, 0)+r.IntN(len(pos)-max(c, 0))]
			}
			want := c
			if c < 0 || pos[c] < target {
				i, _ := slices.BinarySearch(pos, target)
				want = max(i, c+1)
			}
			q, ok := it.Seek(target)
			if want == len(pos) {
				if ok {
					t.Fatalf("trial %d: Seek(%d) = %d, want none", trial, target, q)
				}
				break
			}
			if !ok || q != pos[want] {
				t.Fatalf("trial %d: Seek(%d) = %d, %v, want %d", trial, target, q, ok, pos[want])
			}
			c = want
		}
		if it.Bad() {
			t.Fatalf("trial %d: a list that decodes found bad", trial)
		}
	}
}

// TestPosIterBad checks that a list cut inside a position, or holding a
// position past the largest, stops the iterator and says so.
func TestPosIterBad(t *testing.T) {
	l := encodeList([]uint32{5, 300, 70000})
	cut := PosList{enc: l.enc[:len(l.enc)-1], n: 3}
	it := cut.Iter()
	if _, ok := it.Seek(70000); ok || !it.Bad() {
		t.Fatalf("Seek on a cut list: ok %v, Bad %v", ok, it.Bad())
	}
	over := encodeList([]uint32{1 << 31, 1<<31 + 1})
	it = over.Iter()
	if p, ok := it.Next(); !ok || p != 1<<31 {
		t.Fatalf("Next = %d, %v, want %d", p, ok, 1<<31)
	}
	if _, ok := it.Next(); ok || !it.Bad() {
		t.Fatalf("Next past the largest position: ok %v, Bad %v", ok, it.Bad())
	}
}
