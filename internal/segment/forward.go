package segment

import (
	"encoding/binary"
	"fmt"

	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/prefetch"
	"github.com/bitsieve/bitsieve/internal/sectioned"
)

// The forward index (section 5) holds, for each document, its terms sorted
// by termID with their frequencies. Entry of a document:
//
//	uvarint count
//	byte W                    field widths of the skips (only when count > 32)
//	(count−1)/8 skips         fixed-width little-endian records: the termID
//	                          of term 8(j+1)−1, the byte offset of term
//	                          8(j+1)'s pair among the pairs, the byte
//	                          offset of its list among the positions
//	                          entry's lists; field f takes 1 + (W>>2f)&3
//	                          bytes
//	count pairs               uvarint termID delta, uvarint tf (the first
//	                          delta from 0)
//
// termIDs are assigned in descending df order, so common terms are found
// after a few bytes. Rare terms lie at the end of a long entry: a lookup
// binary-searches the skips for the last one whose termID is below the term,
// jumps there and walks at most 7 pairs, in the forward entry and in the
// document's positions alike.

// forwardSkip is the number of terms between two skips of a forward entry,
// and SkipsFrom the most terms an entry without skips holds: a short entry
// is walked in a cache line or two, where skips would only add bytes.
const (
	forwardSkip = 8
	SkipsFrom   = 32
)

// appendForwardEntry encodes a document's terms (ascending ids, their tfs)
// as an entry; listOff[i] is the byte offset of term i's list among the
// positions entry's lists (read only at the skip points).
func appendForwardEntry(dst []byte, ids, tfs []uint32, listOff []uint32) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ids)))
	if len(ids) > SkipsFrom {
		// The fields grow along the entry: the last skip sets the widths.
		nskip := (len(ids) - 1) / forwardSkip
		last := nskip * forwardSkip
		var fwdLast int
		prev := uint32(0)
		for i, id := range ids[:last] {
			fwdLast += uvarintLen(uint64(id-prev)) + uvarintLen(uint64(tfs[i]))
			prev = id
		}
		wt, wf, wp := byteWidth(uint64(ids[last-1])), byteWidth(uint64(fwdLast)), byteWidth(uint64(listOff[last]))
		dst = append(dst, byte(wt-1|(wf-1)<<2|(wp-1)<<4))
		skipAt, rec := len(dst), wt+wf+wp
		dst = append(dst, make([]byte, nskip*rec)...)
		pairsAt := len(dst)
		prev = 0
		for i, id := range ids {
			if i > 0 && i%forwardSkip == 0 {
				r := dst[skipAt+(i/forwardSkip-1)*rec:]
				putWidth(r, wt, uint64(ids[i-1]))
				putWidth(r[wt:], wf, uint64(len(dst)-pairsAt))
				putWidth(r[wt+wf:], wp, uint64(listOff[i]))
			}
			dst = binary.AppendUvarint(dst, uint64(id-prev))
			dst = binary.AppendUvarint(dst, uint64(tfs[i]))
			prev = id
		}
		return dst
	}
	prev := uint32(0)
	for i, id := range ids {
		dst = binary.AppendUvarint(dst, uint64(id-prev))
		dst = binary.AppendUvarint(dst, uint64(tfs[i]))
		prev = id
	}
	return dst
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// byteWidth is the bytes (1 to 4) that hold v, which fits 32 bits.
func byteWidth(v uint64) int {
	switch {
	case v < 1<<8:
		return 1
	case v < 1<<16:
		return 2
	case v < 1<<24:
		return 3
	}
	return 4
}

func putWidth(b []byte, w int, v uint64) {
	for i := range w {
		b[i] = byte(v >> (8 * i))
	}
}

func getWidth(b []byte, w int) uint64 {
	switch w {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 3:
		return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16
	}
	return uint64(binary.LittleEndian.Uint32(b))
}

// fwdCursor walks one document's forward entry in termID order, jumping
// ahead by its skips.
type fwdCursor struct {
	pairs []byte // the pairs from the next one on
	all   []byte // all the pairs
	skips []byte // the skip records
	count int
	bad   bool // the entry does not decode

	wt, wf, wp int // the widths of a skip's fields
	nskip      int // skip records
	sk         int // the first skip record not passed

	i     int    // index of the next pair
	id    uint64 // termID of the last term read (or the base of a jump)
	tf    uint64 // its tf
	valid bool   // id and tf are a term's (not a jump's base)
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
	if n > SkipsFrom {
		if len(b) == 0 {
			return fwdCursor{}, s.badForward(doc)
		}
		w := b[0]
		c.wt, c.wf, c.wp = 1+int(w&3), 1+int(w>>2&3), 1+int(w>>4&3)
		c.nskip = (c.count - 1) / forwardSkip
		sb := c.nskip * (c.wt + c.wf + c.wp)
		if w>>6 != 0 || sb > len(b)-1 {
			return fwdCursor{}, s.badForward(doc)
		}
		c.skips, b = b[1:1+sb], b[1+sb:]
	}
	c.pairs, c.all = b, b
	return c, nil
}

func (s *Segment) badForward(doc int) error {
	return &sectioned.CorruptError{File: s.name, Section: "forward", Detail: fmt.Sprintf("entry of document %d does not decode", doc)}
}

// skip reads skip record j: the termID before the term it leads to (term
// 8(j+1)), that term's pair offset and its list's offset.
func (c *fwdCursor) skip(j int) (base, fwd, pos uint64) {
	r := c.skips[j*(c.wt+c.wf+c.wp):]
	return getWidth(r, c.wt), getWidth(r[c.wt:], c.wf), getWidth(r[c.wt+c.wf:], c.wp)
}

// skipBase reads only the termID of skip record j, as a search needs.
func (c *fwdCursor) skipBase(j int) uint64 {
	return getWidth(c.skips[j*(c.wt+c.wf+c.wp):], c.wt)
}

// skipBelow returns the last skip, among those not passed yet, whose
// termID lies below w, and marks it and those before it passed; false when
// the next one does not lie below w (most calls). It binary-searches without
// a branch on the probes, whose outcomes no predictor learns.
func (c *fwdCursor) skipBelow(w uint64) (int, bool) {
	if c.sk == c.nskip || c.skipBase(c.sk) >= w {
		return 0, false
	}
	// skip lo lies below w; the last that does is among the n from lo.
	lo, n := c.sk, c.nskip-c.sk
	for n > 1 {
		half := n >> 1
		if c.skipBase(lo+half) < w {
			lo += half
		}
		n -= half
	}
	c.sk = lo + 1
	return lo, true
}

// skipTo jumps to the last skip whose termID lies below w, when it leads
// past the terms read.
func (c *fwdCursor) skipTo(w uint64) {
	j, ok := c.skipBelow(w)
	if !ok {
		return
	}
	if t := (j + 1) * forwardSkip; t > c.i {
		base, fo, _ := c.skip(j)
		if fo > uint64(len(c.all)) {
			c.bad, c.i = true, c.count
			return
		}
		c.i, c.id, c.valid = t, base, false
		c.pairs = c.all[fo:]
	}
}

// nextShort reads the next pair into id and tf when it is the common
// kind, a one-byte delta (not 0: the first pair goes to next) and a
// one-byte frequency, and reports whether it did. It is small enough to
// be inlined: a loop over pairs calls it first and next only when it
// fails, and next begins with it.
func (c *fwdCursor) nextShort() bool {
	b := c.pairs
	if len(b) < 2 || c.i >= c.count || b[0]-1 >= 0x7f || b[1] >= 0x80 {
		return false
	}
	c.id += uint64(b[0])
	c.tf, c.valid, c.pairs = uint64(b[1]), true, b[2:]
	c.i++
	return true
}

// next reads the next term into id and tf; false at the end or when the
// entry does not decode (bad).
func (c *fwdCursor) next() bool {
	if c.nextShort() {
		return true
	}
	if c.i >= c.count {
		return false
	}
	d, f, rest, ok := decodePair(c.pairs, c.i == 0)
	if !ok {
		c.bad = true
		return false
	}
	c.pairs = rest
	c.id += d
	c.tf, c.valid = f, true
	c.i++
	return true
}

// decodePair reads a pair of any length from the front of b: the termID
// delta (0 only for the first pair) and the tf, and what follows; false
// when it does not decode.
func decodePair(b []byte, first bool) (d, tf uint64, rest []byte, ok bool) {
	d, k1 := binary.Uvarint(b)
	if k1 <= 0 || (!first && d == 0) {
		return 0, 0, nil, false
	}
	tf, k2 := binary.Uvarint(b[k1:])
	if k2 <= 0 || tf > 1<<32-1 {
		return 0, 0, nil, false
	}
	return d, tf, b[k1+k2:], true
}

// seek moves to the first term at or after w and reports whether it is w.
// A cursor only moves forward: w must not be below the last term sought.
func (c *fwdCursor) seek(w uint64) bool {
	if c.valid && c.id >= w {
		return c.id == w
	}
	c.skipTo(w)
	for c.nextShort() || c.next() {
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
	for c.next() {
		if c.id >= uint64(s.hdr.Terms) {
			return dst, s.badForward(doc)
		}
		dst = append(dst, Posting{TermID(c.id), uint32(c.tf)})
		if c.nskip > 0 && c.i%forwardSkip == 0 && c.i < c.count {
			// The skip to term c.i: the termID before it, its pair's offset.
			if base, fo, _ := c.skip(c.i/forwardSkip - 1); base != c.id || fo != uint64(len(c.all)-len(c.pairs)) {
				return dst, s.badForward(doc)
			}
		}
	}
	if c.bad || c.i != c.count || len(c.pairs) != 0 {
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

// PrefetchForward prefetches the first prefetchBytes of the forward
// entries of docs, so that the lookups that follow find them in cache: the
// loads of independent documents overlap, where one lookup after another
// waits for each document's offset, then its entry's head, then the pairs
// a skip leads to. Only the offsets are read; the entries are not waited
// for.
func (s *Segment) PrefetchForward(docs []int32) { prefetchHeads(s.fwd, s.fwdOff, docs) }

// PrefetchForwardOffsets prefetches where the forward entries of docs
// start, for a PrefetchForward of them to come: the offset of a document
// among sparse candidates is a cache miss of its own.
func (s *Segment) PrefetchForwardOffsets(docs []int32) { prefetchOffsets(s.fwdOff, docs) }

// PrefetchPositions prefetches the first prefetchBytes of the positions
// entries of docs (their counts, marks and first lists), for a phrase's
// verification to come, as PrefetchForward does the forward entries.
func (s *Segment) PrefetchPositions(docs []int32) { prefetchHeads(s.pos, s.posOff, docs) }

// PrefetchPositionOffsets prefetches where the positions entries of docs
// start, for a PrefetchPositions of them to come.
func (s *Segment) PrefetchPositionOffsets(docs []int32) { prefetchOffsets(s.posOff, docs) }

// prefetchHeads prefetches the first prefetchBytes of the entries of docs
// in a section whose entry d spans data[offs[d]:offs[d+1]].
func prefetchHeads(data []byte, offs []uint64, docs []int32) {
	for _, d := range docs {
		off := offs[d]
		if end := min(offs[d+1], off+prefetchBytes, uint64(len(data))); off < end {
			prefetch.Range(data[off:end])
		}
	}
}

// prefetchOffsets prefetches the offsets of the entries of docs.
func prefetchOffsets(offs []uint64, docs []int32) {
	for _, d := range docs {
		prefetch.Words(offs[d : d+2])
	}
}

// prefetchBytes is how much of an entry PrefetchForward asks for: the
// whole entry of most documents (four cache lines hold about a hundred
// terms), and never more than a few lines of a long one.
const prefetchBytes = 256

// PrefetchLengths prefetches the lengths of docs (section 14), which BM25
// reads for every document it scores.
func (s *Segment) PrefetchLengths(docs []int32) {
	for _, d := range docs {
		prefetch.Range(inplace.Uint32Bytes(s.lengths[d : d+1]))
	}
}
