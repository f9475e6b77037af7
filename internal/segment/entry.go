package segment

import "github.com/bitsieve/bitsieve/internal/doclist"

// Entry is a word's term in one segment: where the lexicon says its rows,
// list and statistics are.
type Entry struct {
	Seg   int    // the segment's position in the snapshot (Index.Segments)
	ID    TermID // the term's id in that segment (its forward index)
	DF    int    // documents of the segment holding it, deleted ones included
	treat uint32 // the treatment word (privateFlag, listFlag, shared counts)
}

// EntryOf makes the entry of term id of segment seg, of document frequency
// df, from its treatment code in the lexicon (Code); ok is false for a code
// no treatment has.
func EntryOf(seg int, id TermID, df int, code uint64) (e Entry, ok bool) {
	e = Entry{Seg: seg, ID: id, DF: df}
	v := code >> 2
	if v >= chunkedFlag {
		return e, false
	}
	switch code & 3 {
	case 0:
		e.treat = privateFlag | uint32(v)
	case 1:
		e.treat = uint32(v)
	case 2:
		e.treat = listFlag | uint32(v)
	case 3:
		e.treat = listFlag | chunkedFlag | uint32(v)
	}
	return e, true
}

// Code is the lexicon's code of the entry's treatment: the private row r
// as r<<2, shared counts (k0 | kh<<6) as them<<2|1, the list at byte 2v of
// the lists section as v<<2|2, or v<<2|3 when it is chunked.
func (e Entry) Code() uint64 {
	t := e.treat
	switch {
	case t&privateFlag != 0:
		return uint64(t&^privateFlag) << 2
	case t&chunkedFlag != 0:
		return uint64(t&^(listFlag|chunkedFlag))<<2 | 3
	case t&listFlag != 0:
		return uint64(t&^listFlag)<<2 | 2
	}
	return uint64(t)<<2 | 1
}

// Admits reports whether e can be one of s's terms: its id, df and
// treatment within the segment's bounds, so that a damaged lexicon cannot
// send the matcher outside the segment's rows or lists.
func (s *Segment) Admits(e Entry) bool {
	h := &s.hdr
	if int(e.ID) >= h.Terms || e.DF < 1 || e.DF > h.Docs {
		return false
	}
	t := e.treat
	switch {
	case t&privateFlag != 0:
		r := int(t &^ privateFlag)
		return r >= 1 && r <= h.PrivateRows
	case t&listFlag == 0:
		k0, kh := decodeShared(t)
		return t>>12 == 0 && k0 >= 1 && k0 <= h.SharedRows && kh <= h.HighRows
	case t&chunkedFlag == 0:
		return 2*int(t&^listFlag)+2*e.DF <= len(s.lists)
	default:
		off := 2 * int(t&^(listFlag|chunkedFlag))
		return off < len(s.lists) && doclist.ChunkedEnd(s.lists[off:], e.DF, (h.Docs+255)/256) > 0
	}
}

// Dict is one segment's dictionary: its words in ascending order with
// their termIDs, and per termID the df and treatment word. Build returns
// a new segment's; the index keeps every segment's words in its lexicon and
// gives a segment its Dict back on demand (SetDict).
type Dict struct {
	Words []string // ascending
	IDs   []uint32 // sorted position → termID
	Info  []uint32 // termID → (df, treatment word) pairs

	// Or, for a dictionary the index's writer spilled to a file, its path
	// and its number of words; Words, IDs and Info are then nil.
	Spill   string
	Spilled int
}

// Size is the number of words of d.
func (d *Dict) Size() int { return len(d.Words) + d.Spilled }

// Entry is the entry of the word at sorted position i of d, in segment seg.
func (d *Dict) Entry(seg, i int) Entry {
	id := d.IDs[i]
	return Entry{Seg: seg, ID: TermID(id), DF: int(d.Info[2*id]), treat: d.Info[2*id+1]}
}

// Add appends to d a word and its entry: words must come in ascending order.
func (d *Dict) Add(word string, e Entry) {
	d.Words = append(d.Words, word)
	d.IDs = append(d.IDs, uint32(e.ID))
	d.Info[2*e.ID], d.Info[2*e.ID+1] = uint32(e.DF), e.treat
}
