package segment

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkReadLists finds the position lists of three terms of a
// document, as a phrase's verification does for each candidate: documents
// of up to 1,024 words, terms drawn from each one's forward entry.
func BenchmarkReadLists(b *testing.B) {
	data, dict := buildFile(b, genDocs(2000, 11, 0), DefaultParams)
	s := openFile(b, data, dict)
	r := rand.New(rand.NewPCG(3, 4))
	type probe struct {
		doc int
		ids []TermID
	}
	var probes []probe
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
		probes = append(probes, probe{d, ids})
	}
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
