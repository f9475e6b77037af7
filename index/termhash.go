package index

// The termhash section finds a term in a segment's dictionary with one hash
// probe instead of a binary search over the sorted terms: a query hashes
// each of its words once (tokenize.Hash, the xxhash64 that also places
// shared rows) and probes every segment with that hash. The section is S
// uint32 slots, S = 2·T + 1 (0 when T is 0), so that linear probing stays
// short for the words a segment lacks too; slot i holds one plus the
// sorted position of a term, or 0 when empty. A term with hash h is looked
// for from slot (h>>32)·S>>32 on, linearly, wrapping, until it or an empty
// slot is found; there is always one, as S > T.

// termHashSlots is S for T terms.
func termHashSlots(terms int) int {
	if terms == 0 {
		return 0
	}
	return 2*terms + 1
}

// hashSlot is the first slot of hash h among n.
func hashSlot(h uint64, n int) int { return int((h >> 32) * uint64(n) >> 32) }

// buildTermHash fills the slots for terms in sorted order.
func buildTermHash(sorted []string) []uint32 {
	n := termHashSlots(len(sorted))
	slots := make([]uint32, n)
	for pos, t := range sorted {
		i := hashSlot(termHash(t), n)
		for slots[i] != 0 {
			if i++; i == n {
				i = 0
			}
		}
		slots[i] = uint32(pos + 1)
	}
	return slots
}

// LookupHash finds a term whose hash (tokenize.Hash) is h in the segment's
// dictionary.
func (s *Segment) LookupHash(term string, h uint64) (TermID, bool) {
	n := len(s.termSlots)
	if n == 0 {
		return 0, false
	}
	for i := hashSlot(h, n); ; {
		p := s.termSlots[i]
		if p == 0 {
			return 0, false
		}
		if string(s.termAt(int(p-1))) == term {
			return TermID(s.sortedID[p-1]), true
		}
		if i++; i == n {
			i = 0
		}
	}
}
