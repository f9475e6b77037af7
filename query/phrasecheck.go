package query

import (
	"slices"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// PhraseChecker checks phrases against a segment's stored positions, for a
// SegmentEngine: the check the verifier makes of a phrase's candidates.
// Its zero value is ready; it keeps its memory from check to check, and is
// for one goroutine at a time.
type PhraseChecker struct {
	r     segment.PositionReader
	ids   []segment.TermID
	slots []int
	lists []segment.PosList
	its   []segment.PosIter
}

// Check reports whether document doc of seg holds the phrase whose term j
// has the termID ids[j] and the offset offsets[j] (Phrase.Offsets).
func (pr *PhraseChecker) Check(seg *segment.Segment, doc int, ids []segment.TermID, offsets []int) (bool, error) {
	pr.r.Reset(seg)
	pr.ids = append(pr.ids[:0], ids...)
	slices.Sort(pr.ids)
	pr.ids = slices.Compact(pr.ids)
	pr.slots = pr.slots[:0]
	for _, id := range ids {
		i, _ := slices.BinarySearch(pr.ids, id)
		pr.slots = append(pr.slots, i)
	}
	pr.lists = slices.Grow(pr.lists[:0], len(pr.ids))[:len(pr.ids)]
	if err := pr.r.ReadLists(doc, pr.ids, pr.lists); err != nil {
		return false, err
	}
	found, bad := phraseIn(pr.lists, pr.slots, offsets, &pr.its)
	if bad {
		return false, pr.r.Corrupt(doc)
	}
	return found, nil
}
