package segment

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/bitsieve/bitsieve/internal/sectioned"
)

// Positions. Every document keeps where each of its terms occurs: phrases
// are verified from them and snippets are placed by them, so a query never
// analyzes stored text to decide a match. Positions count every word the
// analyzer segments, stop words and over-long words too, which are not
// tokens themselves.
//
// Entry of a document (section 11):
//
//	uvarint K                  kept tokens (the document's BM25 length)
//	uvarint M                  bytes of the marks that follow
//	ceil(K/32) marks           uvarint position, uvarint byte offset in the
//	                           text, of kept token 32c, each minus those of
//	                           the previous mark (the first from 0)
//	for each term of the document's forward entry, in its (termID) order:
//	  uvarint L                bytes of its positions, only when tf > 1
//	  tf uvarints              its positions, ascending: the first, then
//	                           each minus the previous one minus 1
//
// The forward entry gives each term's tf, so a list of one position (most
// of them) needs no length. A phrase reads the lists of its terms only,
// found through the forward entry's skips, which also give the byte offset
// of every 8th term's list. The marks let a snippet segment the text from
// a nearby token instead of from the start: segmentation from mark c's
// offset finds that token first, at its position, when the analyzer is
// Restartable (tokenize).

// MarkStride is the number of kept tokens between two marks of a positions
// entry.
const MarkStride = 32

// appendPositionsEntry encodes a document's tokens, given in text order by
// their term's index in the forward entry (locals, below distinct) and
// position, with the byte offset of every markStride-th token, as an entry.
// It sets listOff[t] (len(listOff) ≥ distinct) to the offset of term t's
// list from the first list, for the forward entry's skips.
func appendPositionsEntry(dst []byte, locals, positions, offsets []uint32, distinct int, listOff []uint32) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(locals)))
	var marks []byte
	prevPos, prevOff := uint32(0), uint32(0)
	for c, off := range offsets {
		p := positions[c*MarkStride]
		marks = binary.AppendUvarint(marks, uint64(p-prevPos))
		marks = binary.AppendUvarint(marks, uint64(off-prevOff))
		prevPos, prevOff = p, off
	}
	dst = binary.AppendUvarint(dst, uint64(len(marks)))
	dst = append(dst, marks...)
	// Group the positions by term (a counting sort keeps each ascending).
	start := make([]int, distinct+1)
	for _, l := range locals {
		start[l+1]++
	}
	for i := 1; i <= distinct; i++ {
		start[i] += start[i-1]
	}
	byTerm := make([]uint32, len(locals))
	fill := slices.Clone(start[:distinct])
	for i, l := range locals {
		byTerm[fill[l]] = positions[i]
		fill[l]++
	}
	var list []byte
	first := len(dst)
	for t := 0; t < distinct; t++ {
		listOff[t] = uint32(len(dst) - first)
		list = list[:0]
		for i, p := range byTerm[start[t]:start[t+1]] {
			if i == 0 {
				list = binary.AppendUvarint(list, uint64(p))
			} else {
				list = binary.AppendUvarint(list, uint64(p-byTerm[start[t]+i-1]-1))
			}
		}
		if start[t+1]-start[t] > 1 {
			dst = binary.AppendUvarint(dst, uint64(len(list)))
		}
		dst = append(dst, list...)
	}
	return dst
}

// positionsHeader parses an entry's token count and marks.
func positionsHeader(e []byte) (k uint64, marks, lists []byte, ok bool) {
	k, n := binary.Uvarint(e)
	if n <= 0 || k > uint64(len(e)) { // every token takes a byte at least
		return 0, nil, nil, false
	}
	e = e[n:]
	m, n := binary.Uvarint(e)
	if n <= 0 || m > uint64(len(e)-n) {
		return 0, nil, nil, false
	}
	e = e[n:]
	return k, e[:m], e[m:], true
}

// appendPositions decodes one term's position list, appending to dst.
func appendPositions(dst []uint32, list []byte) ([]uint32, bool) {
	it := PosIter{b: list}
	for {
		p, ok := it.Next()
		if !ok {
			return dst, !it.bad
		}
		dst = append(dst, p)
	}
}

// nextList splits the next term's list, of tf positions, off lists: a
// single uvarint when tf is 1, else behind its byte length.
func nextList(lists []byte, tf int) (list, rest []byte, ok bool) {
	if tf == 1 {
		for i, b := range lists {
			if b < 0x80 {
				return lists[:i+1], lists[i+1:], true
			}
		}
		return nil, nil, false
	}
	if len(lists) > 0 && lists[0] < 0x80 {
		if l := int(lists[0]); l < len(lists) {
			return lists[1 : 1+l], lists[1+l:], true
		}
		return nil, nil, false
	}
	l, n := binary.Uvarint(lists)
	if n <= 0 || l > uint64(len(lists)-n) {
		return nil, nil, false
	}
	return lists[n : n+int(l)], lists[n+int(l):], true
}

// decodePositionsEntry decodes a whole entry of a document with distinct
// terms back into its tokens in text order (their term's index in the
// forward entry, and position) and its marks' byte offsets, appended to
// locals, positions and offsets. It checks what the format promises: a
// position holds one token, K tokens in all, and each mark is at the
// position of its token.
func decodePositionsEntry(e []byte, tfs []uint32, locals, positions, offsets []uint32) ([]uint32, []uint32, []uint32, error) {
	distinct := len(tfs)
	k, marks, lists, ok := positionsHeader(e)
	if !ok {
		return locals, positions, offsets, fmt.Errorf("its header does not decode")
	}
	type tok struct{ pos, local uint32 }
	toks := make([]tok, 0, k)
	var buf []uint32
	for t := 0; t < distinct; t++ {
		var list []byte
		if list, lists, ok = nextList(lists, int(tfs[t])); !ok {
			return locals, positions, offsets, fmt.Errorf("the list of its term %d does not decode", t)
		}
		if buf, ok = appendPositions(buf[:0], list); !ok {
			return locals, positions, offsets, fmt.Errorf("the positions of its term %d do not decode", t)
		}
		for _, p := range buf {
			toks = append(toks, tok{p, uint32(t)})
		}
	}
	if len(lists) != 0 || uint64(len(toks)) != k {
		return locals, positions, offsets, fmt.Errorf("it holds %d tokens and %d bytes more, its count says %d", len(toks), len(lists), k)
	}
	slices.SortFunc(toks, func(a, b tok) int { return int(a.pos) - int(b.pos) })
	for i, t := range toks {
		if i > 0 && t.pos == toks[i-1].pos {
			return locals, positions, offsets, fmt.Errorf("two tokens at position %d", t.pos)
		}
		locals = append(locals, t.local)
		positions = append(positions, t.pos)
	}
	pos, off := uint64(0), uint64(0)
	for c := 0; c < int(k+MarkStride-1)/MarkStride; c++ {
		dp, n1 := binary.Uvarint(marks)
		if n1 <= 0 {
			return locals, positions, offsets, fmt.Errorf("mark %d does not decode", c)
		}
		do, n2 := binary.Uvarint(marks[n1:])
		if n2 <= 0 {
			return locals, positions, offsets, fmt.Errorf("mark %d does not decode", c)
		}
		marks = marks[n1+n2:]
		pos, off = pos+dp, off+do
		if pos != uint64(toks[c*MarkStride].pos) || off > 1<<32-1 {
			return locals, positions, offsets, fmt.Errorf("mark %d is at position %d, its token at %d", c, pos, toks[c*MarkStride].pos)
		}
		offsets = append(offsets, uint32(off))
	}
	if len(marks) != 0 {
		return locals, positions, offsets, fmt.Errorf("%d bytes follow its marks", len(marks))
	}
	return locals, positions, offsets, nil
}

// PositionReader reads documents' positions from one segment. It keeps
// scratch memory, so it is not safe for concurrent use.
type PositionReader struct {
	seg   *Segment
	lists []PosList
	mpos  []uint32
	moff  []uint32
}

// NewPositionReader returns a reader of the segment's positions.
func (s *Segment) NewPositionReader() *PositionReader { return &PositionReader{seg: s} }

// Reset makes r read the positions of s, keeping its scratch memory, so
// that a reader kept across segments and queries allocates nothing; the
// zero PositionReader is ready for Reset.
func (r *PositionReader) Reset(s *Segment) { r.seg = s }

// Read fills pos[i] with the positions (ascending) of the term ids[i] in
// document doc; ids must be strictly ascending and pos as long as ids. A
// term the document lacks gets no positions.
func (r *PositionReader) Read(doc int, ids []TermID, pos [][]uint32) error {
	r.lists = slices.Grow(r.lists[:0], len(ids))[:len(ids)]
	if err := r.ReadLists(doc, ids, r.lists); err != nil {
		return err
	}
	for i, l := range r.lists {
		var ok bool
		if pos[i], ok = appendPositions(pos[i][:0], l.enc); !ok {
			return r.seg.badPositions(doc, "a position list does not decode")
		}
	}
	return nil
}

// ReadLists sets lists[i] to the position list, still encoded, of the term
// ids[i] in document doc; ids must be strictly ascending and lists as long
// as ids. A term the document lacks gets an empty list. The forward entry's
// skips lead to each term and to its list, so only a few lists before each
// are passed, and none is decoded: a phrase decodes its lists only as far as
// its first occurrence (PosIter).
func (r *PositionReader) ReadLists(doc int, ids []TermID, lists []PosList) error {
	s := r.seg
	clear(lists)
	if len(ids) == 0 {
		return nil
	}
	c, err := s.forwardCursor(doc)
	if err != nil {
		return err
	}
	_, _, all, ok := positionsHeader(s.pos[s.posOff[doc]:s.posOff[doc+1]])
	if !ok {
		return s.badPositions(doc, "its header does not decode")
	}
	// The walk keeps its state in locals: pairs starts with the pair of
	// term i, the next to read; id and tf are those of the last read (or
	// the base of a jump: the termID before term i); pending: that last
	// term's list is where rest starts, not passed yet. Every term the walk
	// passes has its list passed too, so the two stay in step; a jump
	// (skipBelow, once per term sought) moves both to the term it leads to.
	pairs, rest := c.all, all
	i, count := 0, c.count
	id, tf := uint64(0), uint64(0)
	pending := false
	for j, t := range ids {
		w := uint64(t)
		if !pending || id < w {
			if sk, ok := c.skipBelow(w); ok {
				if to := (sk + 1) * forwardSkip; to > i {
					base, fo, po := c.skip(sk)
					if fo > uint64(len(c.all)) {
						return s.badForward(doc)
					}
					if po > uint64(len(all)) {
						return s.badPositions(doc, fmt.Sprintf("the forward entry's skip to term %d lies past its lists", to))
					}
					i, id, pending = to, base, false
					pairs, rest = c.all[fo:], all[po:]
				}
			}
			for {
				if pending {
					// Mostly a one-byte list (tf 1) or a one-byte length
					// and the list, told apart without a branch.
					if len(rest) > 0 && rest[0] < 0x80 {
						x := int(rest[0])
						if tf == 1 {
							x = 0
						}
						if x >= len(rest) {
							return s.badPositions(doc, fmt.Sprintf("the list of its term %d does not decode", i-1))
						}
						rest = rest[1+x:]
					} else if _, rest, ok = nextList(rest, int(tf)); !ok {
						return s.badPositions(doc, fmt.Sprintf("the list of its term %d does not decode", i-1))
					}
				}
				if i >= count {
					return nil
				}
				// The next pair: mostly a one-byte delta (not 0) and a
				// one-byte tf (fwdCursor.nextShort), else any (decodePair).
				if len(pairs) >= 2 && pairs[0]-1 < 0x7f && pairs[1] < 0x80 {
					id += uint64(pairs[0])
					tf = uint64(pairs[1])
					pairs = pairs[2:]
				} else {
					d, f, after, ok := decodePair(pairs, i == 0)
					if !ok {
						return s.badForward(doc)
					}
					id, tf, pairs = id+d, f, after
				}
				i++
				pending = true
				if id >= w {
					break
				}
			}
		}
		if id == w {
			var list []byte
			if list, rest, ok = nextList(rest, int(tf)); !ok {
				return s.badPositions(doc, fmt.Sprintf("the list of its term %d does not decode", i-1))
			}
			lists[j] = PosList{enc: list, n: int(tf)}
			pending = false
		}
	}
	return nil
}

// Corrupt is the error for document doc whose position list a PosIter
// found not to decode (PosIter.Bad).
func (r *PositionReader) Corrupt(doc int) error {
	return r.seg.badPositions(doc, "a position list does not decode")
}

// PosList is one term's positions in one document, as stored
// (PositionReader.ReadLists).
type PosList struct {
	enc []byte
	n   int
}

// Len is the number of positions: the term's frequency in the document.
func (l PosList) Len() int { return l.n }

// Iter returns an iterator over the list's positions.
func (l PosList) Iter() PosIter { return PosIter{b: l.enc} }

// PosIter decodes a position list in ascending order, a position at a
// time.
type PosIter struct {
	b   []byte
	cur uint32
	has bool // cur is a position decoded
	bad bool
}

// Next returns the next position, or false at the end of the list or when
// it does not decode (Bad).
func (it *PosIter) Next() (uint32, bool) {
	if len(it.b) == 0 {
		return 0, false
	}
	var d uint64
	if it.b[0] < 0x80 {
		d, it.b = uint64(it.b[0]), it.b[1:]
	} else {
		var n int
		if d, n = binary.Uvarint(it.b); n <= 0 {
			it.b, it.bad = nil, true
			return 0, false
		}
		it.b = it.b[n:]
	}
	if it.has {
		d += uint64(it.cur) + 1
	}
	if d > 1<<31 {
		it.b, it.bad = nil, true
		return 0, false
	}
	it.cur, it.has = uint32(d), true
	return it.cur, true
}

// Seek returns the first position at or after p, or false when there is
// none (or the list does not decode: Bad). The positions it passes are
// gone: a later Seek or Next goes on from the one returned.
func (it *PosIter) Seek(p uint32) (uint32, bool) {
	if it.has && it.cur >= p {
		return it.cur, true
	}
	for {
		// Eight one-byte gaps at once, when the position after them is
		// still below p: a common word's long list is passed a word of
		// memory at a time. Each gap is below 0x80, so their bytes summed
		// in 16-bit lanes, then the lanes summed, do not carry.
		if b := it.b; len(b) >= 8 && it.has && it.cur < posFastMax-8*0x80 {
			if x := binary.LittleEndian.Uint64(b); x&0x8080808080808080 == 0 {
				lanes := x&0x00ff00ff00ff00ff + x>>8&0x00ff00ff00ff00ff
				if end := it.cur + uint32(lanes*0x0001000100010001>>48) + 8; end < p {
					it.cur, it.b = end, b[8:]
					continue
				}
			}
		}
		// Next, its commonest case read here, in the loop: a one-byte gap
		// after a position well below the largest.
		if b := it.b; len(b) > 0 && b[0] < 0x80 && it.has && it.cur < posFastMax {
			it.cur += uint32(b[0]) + 1
			it.b = b[1:]
			if it.cur >= p {
				return it.cur, true
			}
			continue
		}
		q, ok := it.Next()
		if !ok || q >= p {
			return q, ok
		}
	}
}

// posFastMax bounds the positions Seek steps from inline: no one-byte gap
// takes them past 1<<31, the largest position Next accepts.
const posFastMax = 1<<31 - 0x80

// Bad reports whether the list was found not to decode.
func (it *PosIter) Bad() bool { return it.bad }

// ReadMarks reads the marks of document doc (Mark).
func (r *PositionReader) ReadMarks(doc int) error {
	r.mpos, r.moff = r.mpos[:0], r.moff[:0]
	return r.seg.eachMark(doc, func(pos, off uint32) bool {
		r.mpos, r.moff = append(r.mpos, pos), append(r.moff, off)
		return true
	})
}

// MarkBefore returns the byte offset in document doc's text of its last
// mark at or before position pos (0 when there is none): analysis from
// there reaches the token at pos. The marks are walked, not kept, so a
// long text's costs no memory.
func (s *Segment) MarkBefore(doc, pos int) (offset int, err error) {
	err = s.eachMark(doc, func(p, off uint32) bool {
		if int(p) > pos {
			return false
		}
		offset = int(off)
		return true
	})
	return offset, err
}

// eachMark calls fn with the position and byte offset of each mark of
// document doc, in order, until fn returns false.
func (s *Segment) eachMark(doc int, fn func(pos, off uint32) bool) error {
	k, marks, _, ok := positionsHeader(s.pos[s.posOff[doc]:s.posOff[doc+1]])
	if !ok {
		return s.badPositions(doc, "its header does not decode")
	}
	pos, off := uint64(0), uint64(0)
	for c := uint64(0); c < (k+MarkStride-1)/MarkStride; c++ {
		dp, n1 := binary.Uvarint(marks)
		if n1 <= 0 {
			return s.badPositions(doc, fmt.Sprintf("mark %d does not decode", c))
		}
		do, n2 := binary.Uvarint(marks[n1:])
		if n2 <= 0 || pos+dp > 1<<31 || off+do > 1<<32-1 {
			return s.badPositions(doc, fmt.Sprintf("mark %d does not decode", c))
		}
		marks = marks[n1+n2:]
		pos, off = pos+dp, off+do
		if !fn(uint32(pos), uint32(off)) {
			return nil
		}
	}
	return nil
}

// Marks is the number of marks of the document last given to ReadMarks.
func (r *PositionReader) Marks() int { return len(r.mpos) }

// Mark returns mark c of the document last given to ReadMarks: the byte
// offset in its text of kept token c·markStride, and that token's position.
// Analysis of the text from that offset finds the token first, when the
// analyzer is Restartable (tokenize).
func (r *PositionReader) Mark(c int) (offset, pos int) { return int(r.moff[c]), int(r.mpos[c]) }

func (s *Segment) badPositions(doc int, detail string) error {
	return &sectioned.CorruptError{File: s.name, Section: "positions", Detail: fmt.Sprintf("entry of document %d: %s", doc, detail)}
}

// A document waiting in a writer's buffer keeps its tokens as a stream, in
// text order, each naming its term by its index in the document's terms
// (sorted by term, as Doc.Terms): uvarint K, ceil(K/32) uvarint
// byte offsets of every 32nd token (each minus the previous), then per
// token uvarint(local<<1 | g), followed by uvarint(gap) when g is 1 (gap:
// positions skipped before the token, from −1). Build turns it into
// an entry.

// appendTokens encodes tokens (local, position) in text order, with the
// byte offsets of every markStride-th token, as a stream.
func appendTokens(dst []byte, locals, positions, offsets []uint32) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(locals)))
	prev := uint32(0)
	for _, m := range offsets {
		dst = binary.AppendUvarint(dst, uint64(m-prev))
		prev = m
	}
	last := -1
	for i, l := range locals {
		gap := int(positions[i]) - last - 1
		if gap == 0 {
			dst = binary.AppendUvarint(dst, uint64(l)<<1)
		} else {
			dst = binary.AppendUvarint(dst, uint64(l)<<1|1)
			dst = binary.AppendUvarint(dst, uint64(gap))
		}
		last = int(positions[i])
	}
	return dst
}

// decodeTokens decodes a stream of tokens naming terms below distinct,
// appending to locals, positions and offsets.
func decodeTokens(b []byte, distinct int, locals, positions, offsets []uint32) ([]uint32, []uint32, []uint32, error) {
	bad := fmt.Errorf("a token stream does not decode")
	k, n := binary.Uvarint(b)
	if n <= 0 || k > uint64(len(b)) {
		return locals, positions, offsets, bad
	}
	b = b[n:]
	off := uint64(0)
	for c := uint64(0); c < (k+MarkStride-1)/MarkStride; c++ {
		d, n := binary.Uvarint(b)
		if n <= 0 {
			return locals, positions, offsets, bad
		}
		off += d
		offsets = append(offsets, uint32(off))
		b = b[n:]
	}
	pos := -1
	for i := uint64(0); i < k; i++ {
		v, n := binary.Uvarint(b)
		if n <= 0 || v>>1 >= uint64(distinct) {
			return locals, positions, offsets, bad
		}
		b = b[n:]
		gap := uint64(0)
		if v&1 != 0 {
			if gap, n = binary.Uvarint(b); n <= 0 {
				return locals, positions, offsets, bad
			}
			b = b[n:]
		}
		pos += 1 + int(gap)
		locals = append(locals, uint32(v>>1))
		positions = append(positions, uint32(pos))
	}
	if len(b) != 0 {
		return locals, positions, offsets, bad
	}
	return locals, positions, offsets, nil
}

// pairHash is the hash of the word pair (a, b), a directly followed by b,
// from the hashes of its words: splitmix64 (rankHash) of a rotated by 32
// bits, XOR b. Pairs are signature terms of their own (see Params.PairK).
func pairHash(a, b uint64) uint64 { return rankHash(bits.RotateLeft64(a, 32) ^ b) }

// PairRows appends to dst the shared rows of the word pair (a, b), from the
// hashes of its words (tokenize.Hash), a directly before b; or nothing when
// the segment indexes no pairs. Pairs are only indexed where both words have
// private rows (PairsIndexed).
func (s *Segment) PairRows(dst []int, a, b uint64) []int {
	if s.hdr.PairK == 0 {
		return dst
	}
	return termRows(dst, pairHash(a, b), s.hdr.PairK, 0, 1+s.hdr.PrivateRows, &s.place0, &s.placeH)
}

// PairsIndexed reports whether the segment set the pair rows of two words
// with these treatments: it indexes pairs, and at least one of the words
// has a private row. A pair of two common words cuts a phrase's candidates
// from the documents holding both words to those holding the pair; a pair
// of a common word and a rarer one cuts them from the rarer word's
// documents that hold the common one. Pairs of two words without private
// rows are not indexed: their documents are fewer, and such pairs are so
// many that the rows would have to grow manyfold to keep their density
// (twentyfold on the Go source tree).
func (s *Segment) PairsIndexed(a, b Treatment) bool {
	return s.hdr.PairK > 0 && (a.Private || b.Private)
}

// pairSet finds the word pairs of the documents of a segment being built:
// two kept tokens at consecutive positions at least one of whose terms has
// a private row (PairsIndexed).
type pairSet struct {
	docs     []*Doc
	docStart []int
	docLi    []int32
	hashOf   []uint64 // by local index: the term's hash
	private  []bool   // by local index: the term has a private row
	k        int

	hashes            []uint64
	locals, positions []uint32
	marks             []uint32
}

func newPairSet(docs []*Doc, docStart []int, docLi []int32, terms []string, idOf, treat []uint32, k int) *pairSet {
	ps := &pairSet{docs: docs, docStart: docStart, docLi: docLi, k: k}
	if k == 0 {
		return ps
	}
	ps.hashOf = make([]uint64, len(terms))
	ps.private = make([]bool, len(terms))
	for li, t := range terms {
		ps.private[li] = treat[idOf[li]]&privateFlag != 0
		ps.hashOf[li] = termHash(t)
	}
	return ps
}

// of returns the distinct pair hashes of document doc, sorted.
func (ps *pairSet) of(doc int) []uint64 {
	ps.hashes = ps.hashes[:0]
	if ps.k == 0 {
		return nil
	}
	d := ps.docs[doc]
	li := ps.docLi[ps.docStart[doc]:ps.docStart[doc+1]]
	// The entry was encoded by the writer from the document's own terms; a
	// failure here would be a bug, caught when Build decodes it.
	ps.locals, ps.positions, ps.marks, _ = decodeTokens(d.Pos, len(li), ps.locals[:0], ps.positions[:0], ps.marks[:0])
	for i := 1; i < len(ps.locals); i++ {
		a, b := li[ps.locals[i-1]], li[ps.locals[i]]
		if ps.positions[i] == ps.positions[i-1]+1 && (ps.private[a] || ps.private[b]) {
			ps.hashes = append(ps.hashes, pairHash(ps.hashOf[a], ps.hashOf[b]))
		}
	}
	slices.Sort(ps.hashes)
	return slices.Compact(ps.hashes)
}

// count returns the number of (document, pair) postings and the pairs of
// each document (nil without pairs).
func (ps *pairSet) count() (int64, []int32) {
	if ps.k == 0 {
		return 0, nil
	}
	per := make([]int32, len(ps.docs))
	var total int64
	for doc := range ps.docs {
		per[doc] = int32(len(ps.of(doc)))
		total += int64(per[doc])
	}
	return total, per
}

// each calls fn with every distinct pair hash of document doc.
func (ps *pairSet) each(doc int, fn func(h uint64)) {
	for _, h := range ps.of(doc) {
		fn(h)
	}
}

// tfsOf fills *buf with the tfs of a forward entry's postings, in order.
func tfsOf(post []Posting, buf *[]uint32) []uint32 {
	*buf = (*buf)[:0]
	for _, p := range post {
		*buf = append(*buf, p.TF)
	}
	return *buf
}
