package segment

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// lookupProbe is a document and three of its terms, ascending.
type lookupProbe struct {
	doc int
	ids []TermID
}

// lookupProbes builds a segment of documents of up to 1,024 words and
// draws three terms from each one's forward entry.
func lookupProbes(b *testing.B) (*Segment, []lookupProbe) {
	data, dict := buildFile(b, testCorpus(2000, 11, 0), DefaultParams)
	s := openFile(b, data, dict)
	r := rand.New(rand.NewPCG(3, 4))
	var probes []lookupProbe
	var fwd []Posting
	for d := range s.NumDocs() {
		var err error
		if fwd, err = s.Forward(fwd[:0], d); err != nil {
			b.Fatal(err)
		}
		if len(fwd) < 3 {
			continue
		}
		var ids []TermID
		for _, i := range r.Perm(len(fwd))[:3] {
			ids = append(ids, fwd[i].Term)
		}
		slices.Sort(ids)
		probes = append(probes, lookupProbe{d, ids})
	}
	return s, probes
}

// BenchmarkReadLists finds the position lists of three terms of a
// document, as a phrase's verification does for each candidate.
func BenchmarkReadLists(b *testing.B) {
	s, probes := lookupProbes(b)
	pr := s.NewPositionReader()
	lists := make([]PosList, 3)
	b.ResetTimer()
	for i := range b.N {
		p := probes[i%len(probes)]
		if err := pr.ReadLists(p.doc, p.ids, lists); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkForwardLookup finds the frequencies of three terms of a
// document, as ranking does for each candidate it reads the forward
// entry of.
func BenchmarkForwardLookup(b *testing.B) {
	s, probes := lookupProbes(b)
	tf := make([]uint32, 3)
	b.ResetTimer()
	for i := range b.N {
		p := probes[i%len(probes)]
		if err := s.ForwardLookup(p.doc, p.ids, tf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeek seeks, in lists of a common word's 300 positions (gaps
// of one byte), the first position at or after a random target, as a
// phrase's check does in its other words' lists for its rarest word's
// first position.
func BenchmarkSeek(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	var lists []PosList
	var targets []uint32
	for range 64 {
		var pos []uint32
		p := uint32(r.IntN(50))
		for range 300 {
			pos = append(pos, p)
			p += 1 + uint32(r.IntN(40))
		}
		lists = append(lists, encodeList(pos))
		targets = append(targets, uint32(r.IntN(int(p))))
	}
	b.ResetTimer()
	for i := range b.N {
		it := lists[i%len(lists)].Iter()
		if _, ok := it.Seek(targets[i%len(lists)]); !ok {
			b.Fatal("no position found")
		}
	}
}
