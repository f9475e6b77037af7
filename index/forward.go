package index

import (
	"encoding/binary"
	"fmt"
)

// The forward index (section 5) holds, for each document, its terms sorted
// by termID with their frequencies. Entry of a document:
//
//	uvarint count
//	uvarint B                 bytes of the skips (only when count > 32)
//	(count−1)/32 skips        uvarint deltas from the previous skip (the
//	                          first from 0) of: the termID of term 32(j+1)−1,
//	                          the byte offset of term 32(j+1)'s pair among
//	                          the pairs, the byte offset of its list among
//	                          the positions entry's lists
//	count pairs               uvarint termID delta, uvarint tf (the first
//	                          delta from 0)
//
// termIDs are assigned in descending df order, so common terms are found
// after a few bytes; the skips take a lookup of a rare term in a long
// document there in a few dozen steps instead of one per term before it,
// both in the forward entry and in the document's positions.

// forwardSkip is the number of terms between two skips of a forward entry.
const forwardSkip = 32

// appendForwardEntry encodes a document's terms (ascending ids, their tfs)
// as an entry; listOff[i] is the byte offset of term i's list among the
// positions entry's lists (read only at the skip points).
func appendForwardEntry(dst []byte, ids, tfs []uint32, listOff []uint32) []byte {
	var pairs, skips []byte
	prev := uint32(0)
	var sb, sf, sp uint64
	for i, id := range ids {
		if i > 0 && i%forwardSkip == 0 {
			base, fo, po := uint64(ids[i-1]), uint64(len(pairs)), uint64(listOff[i])
			skips = binary.AppendUvarint(skips, base-sb)
			skips = binary.AppendUvarint(skips, fo-sf)
			skips = binary.AppendUvarint(skips, po-sp)
			sb, sf, sp = base, fo, po
		}
		pairs = binary.AppendUvarint(pairs, uint64(id-prev))
		pairs = binary.AppendUvarint(pairs, uint64(tfs[i]))
		prev = id
	}
	dst = binary.AppendUvarint(dst, uint64(len(ids)))
	if len(ids) > forwardSkip {
		dst = binary.AppendUvarint(dst, uint64(len(skips)))
		dst = append(dst, skips...)
	}
	return append(dst, pairs...)
}

// fwdCursor walks one document's forward entry in termID order, jumping
// ahead by its skips.
type fwdCursor struct {
	pairs []byte // the pairs from the next one on
	all   []byte // all the pairs
	skips []byte // skip records not yet read
	count int
	bad   bool // the entry does not decode

	i     int    // index of the next pair
	id    uint64 // termID of the last term read (or the base of a jump)
	tf    uint64 // its tf
	valid bool   // id and tf are a term's (not a jump's base)

	// the next skip, read ahead: the term index it leads to, the termID
	// before it and the offsets of its pair and list
	peeked            bool
	nTerm             int
	nBase, nFwd, nPos uint64
	jumpTerm          int    // the term the last jump led to (0: none yet)
	jumpPos           uint64 // the offset of its list
}

// forwardCursor opens document doc's entry.
func (s *Segment) forwardCursor(doc int) (fwdCursor, error) {
	b := s.fwd[s.fwdOff[doc]:s.fwdOff[doc+1]]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return fwdCursor{}, s.badForward(doc)
	}
	b = b[k:]
	c := fwdCursor{count: int(n)}
	if n > forwardSkip {
		sb, k := binary.Uvarint(b)
		if k <= 0 || sb > uint64(len(b)-k) {
			return fwdCursor{}, s.badForward(doc)
		}
		c.skips, b = b[k:k+int(sb)], b[k+int(sb):]
	}
	c.pairs, c.all = b, b
	return c, nil
}

func (s *Segment) badForward(doc int) error {
	return &CorruptError{File: s.name, Section: "forward", Detail: fmt.Sprintf("entry of document %d does not decode", doc)}
}

// readSkip reads the next skip record ahead; false when there is none.
func (c *fwdCursor) readSkip() bool {
	if c.peeked {
		return true
	}
	if len(c.skips) == 0 {
		return false
	}
	var d [3]uint64
	for f := range d {
		v, n := binary.Uvarint(c.skips)
		if n <= 0 {
			c.bad, c.skips = true, nil
			return false
		}
		d[f], c.skips = v, c.skips[n:]
	}
	c.nTerm += forwardSkip
	c.nBase, c.nFwd, c.nPos = c.nBase+d[0], c.nFwd+d[1], c.nPos+d[2]
	if c.nTerm >= c.count || c.nFwd > uint64(len(c.all)) {
		c.bad, c.skips = true, nil
		return false
	}
	c.peeked = true
	return true
}

// skipTo jumps over every term that the skips show to be below w.
func (c *fwdCursor) skipTo(w uint64) {
	for c.readSkip() && c.nBase < w {
		if c.nTerm > c.i {
			c.i, c.id, c.valid = c.nTerm, c.nBase, false
			c.pairs = c.all[c.nFwd:]
			c.jumpTerm, c.jumpPos = c.nTerm, c.nPos
		}
		c.peeked = false
	}
}

// next reads the next term into id and tf; false at the end or when the
// entry does not decode (bad).
func (c *fwdCursor) next() bool {
	if c.i >= c.count {
		return false
	}
	b := c.pairs
	var d, f uint64
	if len(b) >= 2 && b[0] < 0x80 && b[1] < 0x80 {
		// Most pairs: a one-byte delta and a one-byte frequency.
		d, f, c.pairs = uint64(b[0]), uint64(b[1]), b[2:]
	} else {
		var k1, k2 int
		if d, k1 = binary.Uvarint(b); k1 <= 0 {
			c.bad = true
			return false
		}
		if f, k2 = binary.Uvarint(b[k1:]); k2 <= 0 || f > 1<<32-1 {
			c.bad = true
			return false
		}
		c.pairs = b[k1+k2:]
	}
	if c.i > 0 && d == 0 {
		c.bad = true
		return false
	}
	c.id += d
	c.tf, c.valid = f, true
	c.i++
	return true
}

// seek moves to the first term at or after w and reports whether it is w.
// A cursor only moves forward: w must not be below the last term sought.
func (c *fwdCursor) seek(w uint64) bool {
	if c.valid && c.id >= w {
		return c.id == w
	}
	c.skipTo(w)
	for c.next() {
		if c.id >= w {
			return c.id == w
		}
	}
	return false
}

// Posting is one entry of a document's forward index.
type Posting struct {
	Term TermID
	TF   uint32
}

// Forward appends document doc's forward entries (sorted by TermID) to dst.
// It reads every pair and checks every skip against them.
func (s *Segment) Forward(dst []Posting, doc int) ([]Posting, error) {
	c, err := s.forwardCursor(doc)
	if err != nil {
		return dst, err
	}
	skips := c
	for c.next() {
		if c.id >= uint64(s.hdr.Terms) {
			return dst, s.badForward(doc)
		}
		dst = append(dst, Posting{TermID(c.id), uint32(c.tf)})
		if c.i%forwardSkip == 0 && c.i < c.count {
			// The skip to term c.i: the termID before it, its pair's offset.
			if !skips.readSkip() || skips.nBase != c.id || skips.nFwd != uint64(len(c.all)-len(c.pairs)) {
				return dst, s.badForward(doc)
			}
			skips.peeked = false
		}
	}
	if c.bad || c.i != c.count || len(c.pairs) != 0 || skips.readSkip() {
		return dst, s.badForward(doc)
	}
	return dst, nil
}

// ForwardLookup finds the frequencies of the terms ids (sorted ascending) in
// document doc: tf[i] is the frequency of ids[i], 0 when absent. Because
// termIDs are in descending-df order and the entry is sorted, decoding stops
// as soon as it passes the last id: common terms are found after a few
// bytes, and the skips pass over the rest.
func (s *Segment) ForwardLookup(doc int, ids []TermID, tf []uint32) error {
	clear(tf)
	if len(ids) == 0 {
		return nil
	}
	c, err := s.forwardCursor(doc)
	if err != nil {
		return err
	}
	for j, id := range ids {
		if c.seek(uint64(id)) {
			tf[j] = uint32(c.tf)
		}
	}
	if c.bad {
		return s.badForward(doc)
	}
	return nil
}
