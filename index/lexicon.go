package index

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/prefetch"
	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// The lexicon is the index-wide term table of one generation: every word of
// every segment the manifest names, once, with where each segment keeps it.
// A query looks a word up once, whatever the number of segments, and a
// segment that lacks a word costs nothing. Segments hold no dictionary of
// their own; a commit that changes the set of segments writes a new lexicon
// (merging the old one with the dictionaries of the new segments), and one
// that only deletes documents keeps the old.
//
// File NNNNNNNN.vF.lex (F the format version), kind "LEX\0", laid out
// like a segment file (header, sections, section table, tail):
//
//	section 1, params (64 bytes): words W uint32, blocks NB uint32,
//	  segments S uint32, zero uint32, entries E uint64, 40 zero bytes
//	section 2, segments: S uint64, the sequence number of each segment file,
//	  in manifest order (the ordinal an entry names is a position here)
//	section 3, index: NB+1 uint32 block offsets into section 4 (the last is
//	  its length), NB+1 uint32 offsets into the key bytes (the last is their
//	  length), then the key bytes: the first word of every block
//	section 4, blocks: the W words in ascending byte order, lexBlockWords to a
//	  block. A word is: uvarint prefix (bytes shared with the word before it
//	  in the block, 0 for the first), uvarint suffix length, the suffix
//	  bytes, uvarint n (the bytes of what follows for this word, so that a
//	  scan skips it in one step), uvarint c ≥ 1 (segments holding it), then
//	  c entries in ascending ordinal, each uvarint ordinal delta (from the
//	  previous entry's ordinal + 1, the first from 0), uvarint termID,
//	  uvarint df, uvarint treatment code
//
// The treatment code is kind | value<<2: kind 0 a private row (value the
// row, 1..P), 1 shared rows (value k | kr<<6), 2 a plain list and 3 a
// chunked list (value the list's byte offset in the lists section / 2).
//
// A lookup binary-searches the keys for the last block whose first word is
// not above the word, then decodes that block's words in order. Front coding
// and varints keep a word's bytes and its entries in about half the space of
// per-segment dictionaries, which repeated the word in every segment.

const (
	lexiconKind = "LEX\x00"

	secLexParams   = 1
	secLexSegments = 2
	secLexIndex    = 3
	secLexBlocks   = 4

	lexParamsSize = 64
	lexBlockWords = 32
)

var lexiconSectionNames = map[uint32]string{
	secLexParams: "params", secLexSegments: "segments", secLexIndex: "index", secLexBlocks: "blocks",
}

// lexiconFileName is the name of the lexicon file with sequence number seq.
func lexiconFileName(seq uint64) string { return fmt.Sprintf("%08d.v%d.lex", seq, formatVersion) }

// lexicon is an opened lexicon file, read in place from an mmap.
type lexicon struct {
	name     string
	data     []byte
	words    int
	entries  int64
	segSeq   []uint64
	blockOff []uint32
	keyOff   []uint32
	keys     []byte
	body     []byte
	segs     []*segment.Segment // by ordinal, for validating entries (attach)

	manifestBytes int64 // the size the manifest gives (-1: not from a manifest)

	headsOnce sync.Once
	heads     []lexHead // by block (block)
	top       []uint64  // the head8 of every lexTopStride-th block (block)

	// checked has a bit for every word, by its rank in the lexicon, set
	// once a Lookup has checked all of the word's entries against their
	// segments (entry). The file and the segments are immutable while they
	// are open, so the same bytes decode to the same entries and need no
	// second check: a word looked up again skips the bounds of its entries,
	// and above all the walk over the chunks of each chunked list.
	checked []atomic.Uint64
}

// openLexicon maps and validates a lexicon file: its structure, its
// checksums (those of the small sections only at segment.VerifyMeta: not the
// blocks) and the block index. A word's entries are checked against the
// segments attached with attach as they are decoded, the first time the
// word is looked up (lexicon.checked).
func openLexicon(dir, name string, verify segment.Verify, huge bool) (*lexicon, error) {
	data, err := mmap.Map(filepath.Join(dir, name), huge)
	if err != nil {
		return nil, fmt.Errorf("open lexicon: %w", err)
	}
	lx, err := newLexicon(name, data, verify)
	if err != nil {
		mmap.Unmap(data)
		return nil, err
	}
	return lx, nil
}

func newLexicon(name string, data []byte, verify segment.Verify) (*lexicon, error) {
	secs, err := readSections(name, data, lexiconKind)
	if err != nil {
		return nil, err
	}
	lx := &lexicon{name: name, data: data, manifestBytes: -1}
	get := func(id uint32) ([]byte, error) {
		sec, ok := secs[id]
		if !ok {
			return nil, &CorruptError{File: name, Section: sectionName(lexiconKind, id), Detail: "section is missing"}
		}
		if verify == segment.VerifyData || verify == segment.VerifyMeta && id != secLexBlocks {
			if err := sec.Check(name, data); err != nil {
				return nil, err
			}
		}
		return data[sec.Offset : sec.Offset+sec.Length], nil
	}
	bad := func(id uint32, format string, a ...any) error {
		return &CorruptError{File: name, Section: sectionName(lexiconKind, id), Detail: fmt.Sprintf(format, a...)}
	}
	p, err := get(secLexParams)
	if err != nil {
		return nil, err
	}
	if len(p) != lexParamsSize || binary.LittleEndian.Uint32(p[12:]) != 0 || !sectioned.AllZero(p[24:]) {
		return nil, bad(secLexParams, "malformed parameters")
	}
	lx.words = int(binary.LittleEndian.Uint32(p))
	nb := int(binary.LittleEndian.Uint32(p[4:]))
	ns := int(binary.LittleEndian.Uint32(p[8:]))
	lx.entries = int64(binary.LittleEndian.Uint64(p[16:]))
	if nb != (lx.words+lexBlockWords-1)/lexBlockWords || lx.entries < int64(lx.words) {
		return nil, bad(secLexParams, "%d blocks for %d words, %d entries", nb, lx.words, lx.entries)
	}
	segs, err := get(secLexSegments)
	if err != nil {
		return nil, err
	}
	if len(segs) != 8*ns {
		return nil, bad(secLexSegments, "%d bytes for %d segments", len(segs), ns)
	}
	lx.segSeq = make([]uint64, ns)
	for i := range lx.segSeq {
		lx.segSeq[i] = binary.LittleEndian.Uint64(segs[8*i:])
	}
	idx, err := get(secLexIndex)
	if err != nil {
		return nil, err
	}
	if len(idx) < 8*(nb+1) {
		return nil, bad(secLexIndex, "too short for %d blocks", nb)
	}
	lx.blockOff = inplace.Uint32s(idx[:4*(nb+1)])
	lx.keyOff = inplace.Uint32s(idx[4*(nb+1) : 8*(nb+1)])
	lx.keys = idx[8*(nb+1):]
	if lx.body, err = get(secLexBlocks); err != nil {
		return nil, err
	}
	if lx.blockOff[0] != 0 || int(lx.blockOff[nb]) != len(lx.body) || lx.keyOff[0] != 0 || int(lx.keyOff[nb]) != len(lx.keys) {
		return nil, bad(secLexIndex, "offsets do not cover the blocks and keys")
	}
	// Every offset first (so that each key lies inside the key bytes), then
	// the keys' order.
	for b := 0; b < nb; b++ {
		if lx.blockOff[b] >= lx.blockOff[b+1] || lx.keyOff[b] > lx.keyOff[b+1] {
			return nil, bad(secLexIndex, "block %d is out of order", b)
		}
	}
	for b := 1; b < nb; b++ {
		if bytes.Compare(lx.key(b-1), lx.key(b)) >= 0 {
			return nil, bad(secLexIndex, "block %d is out of order", b)
		}
	}
	return lx, nil
}

func (lx *lexicon) close() error {
	err := mmap.Unmap(lx.data)
	lx.data = nil
	return err
}

// attach records the bounds of the segments, in ordinal order, that entries
// are checked against, after checking that they are the lexicon's.
func (lx *lexicon) attach(segs []*segment.Segment) error {
	if lx.manifestBytes >= 0 && int64(len(lx.data)) != lx.manifestBytes {
		return &CorruptError{File: lx.name, Detail: fmt.Sprintf("is %d bytes, the manifest says %d", len(lx.data), lx.manifestBytes)}
	}
	if len(segs) != len(lx.segSeq) {
		return &CorruptError{File: lx.name, Section: "segments", Detail: fmt.Sprintf("names %d segments, the manifest %d", len(lx.segSeq), len(segs))}
	}
	for i, s := range segs {
		if seq, _ := fileSeq(s.Name()); seq != lx.segSeq[i] {
			return &CorruptError{File: lx.name, Section: "segments", Detail: fmt.Sprintf("segment %d is number %d, the manifest names %s", i, lx.segSeq[i], s.Name())}
		}
	}
	lx.segs = segs
	lx.checked = make([]atomic.Uint64, (lx.words+63)/64)
	return nil
}

// lendDict has segment s, at ordinal ord, load its dictionary from lx when
// it needs it (segment.Segment.SetDict).
func (lx *lexicon) lendDict(s *segment.Segment, ord int) {
	s.SetDict(func() (*segment.Dict, error) { return lx.dict(ord, s.NumTerms()) })
}

// numWords is the number of distinct words in the index.
func (lx *lexicon) numWords() int { return lx.words }

// Bytes is the size of the lexicon file.
func (lx *lexicon) Bytes() int64 { return int64(len(lx.data)) }

// Name is the lexicon's file name.
func (lx *lexicon) Name() string { return lx.name }

func (lx *lexicon) key(b int) []byte { return lx.keys[lx.keyOff[b]:lx.keyOff[b+1]] }

// lexHead is a block's place in the in-memory index of the blocks: head8
// of its first word, and where its bytes lie in the blocks section, side by
// side so that the offsets come in the cache line of the head that found
// them.
type lexHead struct {
	head     uint64
	from, to uint32
}

// lexTopStride is how many blocks one head of the top level stands for:
// the blocks a search narrows to are lexTopStride heads of 16 bytes, two
// cache lines.
const lexTopStride = 8

// block returns the last block whose first word is at most word, or -1.
//
// It searches the heads, in two levels: top, every lexTopStride-th head
// (13 KiB for 400,000 words, small enough to stay in cache between
// queries), then the lexTopStride heads between two of them, which are
// asked for together. Only among the blocks whose head is the word's own
// (rare: their first words share 8 bytes) are the keys' bytes read.
func (lx *lexicon) block(word string) int {
	lx.headsOnce.Do(lx.buildHeads)
	w := head8(word)
	top, heads := lx.top, lx.heads
	j, hi := 0, len(top) // j: the first top head ≥ w
	for j < hi {
		if mid := int(uint(j+hi) >> 1); top[mid] < w {
			j = mid + 1
		} else {
			hi = mid
		}
	}
	// Every head before block (j-1)·stride is below w, and the head of
	// block j·stride (when there is one) is not: the first head ≥ w is
	// among the stride blocks up to it.
	lo := 0
	if j > 0 {
		lo = (j-1)*lexTopStride + 1
		prefetch.Slice(heads[lo:min(lo+lexTopStride, len(heads))])
	}
	for lo < len(heads) && heads[lo].head < w {
		lo++
	}
	end := lo // the first head > w
	for end < len(heads) && heads[end].head == w {
		end++
	}
	for lo < end { // blocks before lo start below word, from end on above it
		if mid := int(uint(lo+end) >> 1); string(lx.key(mid)) <= word {
			lo = mid + 1
		} else {
			end = mid
		}
	}
	return lo - 1
}

// span is where block b's bytes lie in the blocks section, for a caller of
// block.
func (lx *lexicon) span(b int) (from, to int) {
	h := &lx.heads[b]
	return int(h.from), int(h.to)
}

// buildHeads fills heads and top from the block index.
func (lx *lexicon) buildHeads() {
	lx.heads = make([]lexHead, len(lx.blockOff)-1)
	for b := range lx.heads {
		lx.heads[b] = lexHead{head: head8(string(lx.key(b))), from: lx.blockOff[b], to: lx.blockOff[b+1]}
	}
	lx.top = make([]uint64, 0, (len(lx.heads)+lexTopStride-1)/lexTopStride)
	for b := 0; b < len(lx.heads); b += lexTopStride {
		lx.top = append(lx.top, lx.heads[b].head)
	}
}

// head8 is the first 8 bytes of s as a big-endian number, zero-padded:
// head8(a) < head8(b) implies a < b, and a < b implies head8(a) ≤ head8(b).
func head8(s string) uint64 {
	var h uint64
	for i := 0; i < 8; i++ {
		h <<= 8
		if i < len(s) {
			h |= uint64(s[i])
		}
	}
	return h
}

// lexReader decodes the words of one block.
type lexReader struct {
	lx      *lexicon
	p, end  int
	block   []byte // the blocks section up to end
	word    []byte
	inBlock int
	err     error
	checked bool // the current word's entries were checked before (lexicon.checked)
}

func (lx *lexicon) reader(b int) *lexReader {
	r := newLexReader(lx, int(lx.blockOff[b]), int(lx.blockOff[b+1]))
	return &r
}

// newLexReader reads the blocks section from p up to end.
func newLexReader(lx *lexicon, p, end int) lexReader {
	return lexReader{lx: lx, p: p, end: end, block: lx.body[:end]}
}

// uvarint decodes the next uvarint.
func (r *lexReader) uvarint() int {
	if v, p := uv12(r.block, r.p); p > 0 {
		r.p = p
		return v
	}
	v, n := binary.Uvarint(r.block[r.p:])
	if n <= 0 || v > 1<<40 {
		r.fail("bad varint")
		return 0
	}
	r.p += n
	return int(v)
}

// uvarintAt is uvarint from offset p, returning the offset after it (the
// block's end on damage, r.err).
func (r *lexReader) uvarintAt(p int) (v, next int) {
	r.p = p
	v = r.uvarint()
	return v, r.p
}

// uv12 decodes the uvarint at b[p:] when it takes one or two bytes, as
// nearly all of a block's do (word lengths, ordinals, termIDs, dfs), and
// returns it with the offset after it; otherwise next is -1, and
// binary.Uvarint decides (uvarint). It is small enough to be inlined, so
// that a lookup, which decodes dozens of varints one after another, keeps
// its offset in a register instead of in the reader.
func uv12(b []byte, p int) (v, next int) {
	if p+1 < len(b) {
		if c := b[p]; c < 0x80 {
			return int(c), p + 1
		}
		if c := b[p+1]; c < 0x80 {
			return int(b[p]&0x7f) | int(c)<<7, p + 2
		}
	}
	return 0, -1
}

func (r *lexReader) fail(detail string) {
	if r.err == nil {
		r.err = &CorruptError{File: r.lx.name, Section: "blocks", Detail: fmt.Sprintf("%s at byte %d", detail, r.p)}
	}
	r.p = r.end
}

// next decodes the next word of the block into r.word; it returns false at
// the block's end or on damage (r.err).
func (r *lexReader) next() bool {
	w, ok := r.decode(r.word)
	r.word = w
	return ok
}

// decode decodes the next word of the block, given the one before it (in
// its own buffer, which need not be r's: a lookup keeps it on the stack).
func (r *lexReader) decode(word []byte) ([]byte, bool) {
	if r.p >= r.end || r.err != nil {
		return word, false
	}
	pre := r.uvarint()
	suf := r.uvarint()
	if r.err != nil || pre > len(word) || (r.inBlock == 0 && pre != 0) || suf > r.end-r.p || (suf == 0 && r.inBlock > 0) {
		r.fail("bad word")
		return word, false
	}
	word = append(word[:pre], r.lx.body[r.p:r.p+suf]...)
	r.p += suf
	r.inBlock++
	return word, true
}

// entries decodes the current word's entries, appending them to dst, and
// checks each against its segment's bounds unless r.checked.
func (r *lexReader) entries(dst []segment.Entry) []segment.Entry {
	n := r.uvarint()
	if n > r.end-r.p {
		r.fail("entries past the block")
		return dst
	}
	end := r.p + n
	c := r.uvarint()
	if c < 1 || c > len(r.lx.segSeq) {
		r.fail("bad entry count")
		return dst
	}
	ord, b, p := 0, r.block, r.p
	for i := 0; i < c; i++ {
		var f [4]int // ordinal delta, termID, df, treatment code
		for k := range f {
			v, q := uv12(b, p)
			if q < 0 {
				v, q = r.uvarintAt(p)
			}
			f[k], p = v, q
		}
		if r.err != nil {
			return dst
		}
		r.p = p
		ord += f[0]
		id, df, code := f[1], f[2], f[3]
		e, ok := r.lx.entry(ord, id, df, code, !r.checked)
		if !ok {
			r.fail(fmt.Sprintf("entry of segment %d (term %d, df %d, treatment %d) is out of range", ord, id, df, code))
			return dst
		}
		dst = append(dst, e)
		ord++
	}
	if r.p != end {
		r.fail("entries do not fill their length")
	}
	return dst
}

// skip passes over the current word's entries.
func (r *lexReader) skip() {
	n := r.uvarint()
	if n > r.end-r.p {
		r.fail("entries past the block")
		return
	}
	r.p += n
}

// entry builds an entry and, with bounds, checks it against its
// segment's bounds.
func (lx *lexicon) entry(ord, id, df, code int, bounds bool) (segment.Entry, bool) {
	if ord >= len(lx.segSeq) {
		return segment.Entry{}, false
	}
	e, ok := segment.EntryOf(ord, segment.TermID(id), df, uint64(code))
	// Without segments attached (the writer merging into a new lexicon)
	// there are no bounds to check.
	if !ok || !bounds || lx.segs == nil {
		return e, ok
	}
	return e, lx.segs[ord].Admits(e)
}

// Lookup appends the entries of word to dst, in segment order; none when no
// segment holds it. It allocates nothing when dst has room.
//
// It scans the block without rebuilding its words. Below word, it keeps m,
// the bytes the word just read shares with word: the next word, sharing
// pre bytes with that one, is still below word when pre > m, is above it
// when pre < m (it differs from the word before at byte pre, upwards, where
// that one and word agree), and only when pre = m are its suffix's bytes
// compared with word's from m.
func (lx *lexicon) Lookup(word string, dst []segment.Entry) ([]segment.Entry, error) {
	b := lx.block(word)
	if b < 0 {
		return dst, nil
	}
	from, to := lx.span(b)
	prefetch.Range(lx.body[from:to]) // the whole block's misses at once
	return lx.lookupIn(b, word, dst)
}

// lookupIn is Lookup of word in block b, the block that lx.block gives it
// (b ≥ 0).
func (lx *lexicon) lookupIn(b int, word string, dst []segment.Entry) ([]segment.Entry, error) {
	from, to := lx.span(b)
	r := newLexReader(lx, from, to)
	blk := r.block
	m, prev := 0, 0 // prev: the length of the word before
	for p := from; p < to; {
		pre, q := uv12(blk, p)
		if q < 0 {
			pre, q = r.uvarintAt(p)
		}
		suf, q2 := uv12(blk, q)
		if q2 < 0 {
			suf, q2 = r.uvarintAt(q)
		}
		p = q2
		if r.err != nil || pre > prev || (r.inBlock == 0 && pre != 0) || suf > to-p || (suf == 0 && r.inBlock > 0) {
			r.p = p
			r.fail("bad word")
			break
		}
		tail := blk[p : p+suf]
		p += suf
		r.inBlock++
		prev = pre + suf
		switch {
		case pre > m:
		case pre < m:
			return dst, nil
		default:
			c, k := compareTail(tail, word[m:])
			switch {
			case c == 0:
				r.p = p
				return lx.wordEntries(&r, b*lexBlockWords+r.inBlock-1, dst)
			case c > 0:
				return dst, nil
			}
			m += k
		}
		// Skip the word's entries.
		n, q3 := uv12(blk, p)
		if q3 < 0 {
			n, q3 = r.uvarintAt(p)
		}
		if n > to-q3 {
			r.p = q3
			r.fail("entries past the block")
			break
		}
		p = q3 + n
	}
	return dst, r.err
}

// wordEntries decodes the entries of the word r stands at, the w-th of the
// lexicon, appending them to dst: checked against their segments the first
// time, decoded alone afterwards (lexicon.checked).
func (lx *lexicon) wordEntries(r *lexReader, w int, dst []segment.Entry) ([]segment.Entry, error) {
	if lx.checked == nil || w >= 64*len(lx.checked) {
		dst = r.entries(dst)
		return dst, r.err
	}
	bit := uint64(1) << (w % 64)
	r.checked = lx.checked[w/64].Load()&bit != 0
	from := len(dst)
	dst = r.entries(dst)
	if !r.checked && r.err == nil && len(dst) > from {
		lx.checked[w/64].Or(bit)
	}
	return dst, r.err
}

// compareTail compares b and s like bytes.Compare, and returns the length
// of their common prefix too.
func compareTail(b []byte, s string) (c, k int) {
	n := min(len(b), len(s))
	for k < n && b[k] == s[k] {
		k++
	}
	switch {
	case k < n && b[k] < s[k]:
		return -1, k
	case k < n:
		return 1, k
	}
	return cmp.Compare(len(b), len(s)), k
}

// LookupWords looks every word of words up, as Lookup does, and calls fn
// with each word's index in words and its entries (appended to dst[:0],
// valid until fn returns), in order; it returns dst, grown, and stops at
// the first error.
//
// It first finds every word's block and asks for all of them, then decodes
// them: the words' cache misses overlap instead of following one another,
// and each block is searched for once.
func (lx *lexicon) LookupWords(words []string, dst []segment.Entry, fn func(i int, es []segment.Entry)) ([]segment.Entry, error) {
	var small [16]int
	blocks := small[:0]
	if len(words) > len(small) {
		blocks = make([]int, 0, len(words))
	}
	for _, w := range words {
		b := lx.block(w)
		if b >= 0 {
			from, to := lx.span(b)
			prefetch.Range(lx.body[from:to])
		}
		blocks = append(blocks, b)
	}
	for i, w := range words {
		dst = dst[:0]
		if b := blocks[i]; b >= 0 {
			var err error
			if dst, err = lx.lookupIn(b, w, dst); err != nil {
				return dst, err
			}
		}
		fn(i, dst)
	}
	return dst, nil
}

// Prefix calls fn for every word starting with prefix, in ascending order,
// with its entries, until fn returns false. The entries are reused between
// calls.
func (lx *lexicon) Prefix(prefix string, fn func(word string, es []segment.Entry) bool) error {
	b := max(lx.block(prefix), 0)
	var es []segment.Entry
	for ; b < len(lx.blockOff)-1; b++ {
		r := lx.reader(b)
		for r.next() {
			if !bytes.HasPrefix(r.word, []byte(prefix)) {
				if string(r.word) > prefix {
					return nil
				}
				r.skip()
				continue
			}
			es = r.entries(es[:0])
			if r.err != nil {
				return r.err
			}
			if !fn(string(r.word), es) {
				return nil
			}
		}
		if r.err != nil {
			return r.err
		}
	}
	return nil
}

// each calls fn for every word and its entries in ascending order; word and
// es are reused between calls.
func (lx *lexicon) each(fn func(word []byte, es []segment.Entry) error) error {
	var es []segment.Entry
	var prev []byte
	words := 0
	for b := 0; b < len(lx.blockOff)-1; b++ {
		r := lx.reader(b)
		for r.next() {
			if r.inBlock == 1 && !bytes.Equal(r.word, lx.key(b)) {
				r.fail("first word differs from the index key")
			} else if words > 0 && bytes.Compare(prev, r.word) >= 0 {
				r.fail("words out of order")
			}
			prev = append(prev[:0], r.word...)
			es = r.entries(es[:0])
			if r.err != nil {
				return r.err
			}
			words++
			if err := fn(r.word, es); err != nil {
				return err
			}
		}
		if r.err != nil {
			return r.err
		}
		if r.inBlock != min(lexBlockWords, lx.words-b*lexBlockWords) {
			return &CorruptError{File: lx.name, Section: "blocks", Detail: fmt.Sprintf("block %d holds %d words", b, r.inBlock)}
		}
	}
	if words != lx.words {
		return &CorruptError{File: lx.name, Section: "blocks", Detail: fmt.Sprintf("%d words, the params say %d", words, lx.words)}
	}
	return nil
}

// dict gathers the dictionary of the segment at ordinal ord, of terms
// terms, checking that its termIDs are each used once.
func (lx *lexicon) dict(ord, terms int) (*segment.Dict, error) {
	d := &segment.Dict{Info: make([]uint32, 2*terms)}
	seen := make([]bool, terms)
	var entries int64
	err := lx.each(func(word []byte, es []segment.Entry) error {
		entries += int64(len(es))
		for _, e := range es {
			if e.Seg != ord {
				continue
			}
			if int(e.ID) >= terms || seen[e.ID] {
				return &CorruptError{File: lx.name, Section: "blocks", Detail: fmt.Sprintf("word %q has term %d of segment %d twice or out of range", word, e.ID, ord)}
			}
			seen[e.ID] = true
			d.Add(string(word), e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(d.Words) != terms {
		return nil, &CorruptError{File: lx.name, Section: "blocks", Detail: fmt.Sprintf("%d words of segment %d, it holds %d terms", len(d.Words), ord, terms)}
	}
	if entries != lx.entries {
		return nil, &CorruptError{File: lx.name, Section: "blocks", Detail: fmt.Sprintf("%d entries, the params say %d", entries, lx.entries)}
	}
	return d, nil
}

// lexBuilder encodes a lexicon from words added in ascending order.
type lexBuilder struct {
	body, keys       []byte
	ents, rec        []byte // scratch: one word's entries, and its record
	blockOff, keyOff []uint32
	prev             []byte
	words            int
	entries          int64
}

func (b *lexBuilder) add(word []byte, es []segment.Entry) error {
	b.ents = binary.AppendUvarint(b.ents[:0], uint64(len(es)))
	next := 0
	for _, e := range es {
		b.ents = binary.AppendUvarint(b.ents, uint64(e.Seg-next))
		b.ents = binary.AppendUvarint(b.ents, uint64(e.ID))
		b.ents = binary.AppendUvarint(b.ents, uint64(e.DF))
		b.ents = binary.AppendUvarint(b.ents, e.Code())
		next = e.Seg + 1
	}
	rec := binary.AppendUvarint(b.rec[:0], uint64(len(b.ents)))
	b.rec = append(rec, b.ents...)
	return b.addRecord(word, b.rec, len(es))
}

// addRecord adds a word with its record as a lexicon holds it (length, count,
// entries), of c entries.
func (b *lexBuilder) addRecord(word, rec []byte, c int) error {
	if b.words > 0 && bytes.Compare(b.prev, word) >= 0 {
		return fmt.Errorf("lexicon: word %q after %q", word, b.prev)
	}
	pre := 0
	if b.words%lexBlockWords == 0 {
		b.blockOff = append(b.blockOff, uint32(len(b.body)))
		b.keyOff = append(b.keyOff, uint32(len(b.keys)))
		b.keys = append(b.keys, word...)
	} else {
		for pre < len(word) && pre < len(b.prev) && word[pre] == b.prev[pre] {
			pre++
		}
	}
	b.body = binary.AppendUvarint(b.body, uint64(pre))
	b.body = binary.AppendUvarint(b.body, uint64(len(word)-pre))
	b.body = append(b.body, word[pre:]...)
	b.body = append(b.body, rec...)
	b.prev = append(b.prev[:0], word...)
	b.words++
	b.entries += int64(c)
	if len(b.body) >= 1<<32-1 || len(b.keys) >= 1<<32-1 {
		return fmt.Errorf("lexicon: more than 4 GiB of words")
	}
	return nil
}

// encode writes the lexicon file for the segments with sequence numbers
// segSeq to w.
func (b *lexBuilder) encode(w io.Writer, segSeq []uint64) error {
	p := make([]byte, lexParamsSize)
	binary.LittleEndian.PutUint32(p, uint32(b.words))
	binary.LittleEndian.PutUint32(p[4:], uint32(len(b.blockOff)))
	binary.LittleEndian.PutUint32(p[8:], uint32(len(segSeq)))
	binary.LittleEndian.PutUint64(p[16:], uint64(b.entries))
	seqs := make([]byte, 0, 8*len(segSeq))
	for _, s := range segSeq {
		seqs = binary.LittleEndian.AppendUint64(seqs, s)
	}
	var body [][]byte
	for rest := b.body; len(rest) > 0; { // in pieces, so a failing disk shows between them
		n := min(len(rest), 1<<20)
		body, rest = append(body, rest[:n]), rest[n:]
	}
	return sectioned.WriteFile(w, lexiconKind, formatVersion, []sectioned.Part{
		{ID: secLexParams, Bytes: [][]byte{p}},
		{ID: secLexSegments, Bytes: [][]byte{seqs}},
		{ID: secLexIndex, Bytes: [][]byte{
			inplace.Uint32Bytes(append(b.blockOff, uint32(len(b.body)))),
			inplace.Uint32Bytes(append(b.keyOff, uint32(len(b.keys)))),
			b.keys,
		}},
		{ID: secLexBlocks, Bytes: body},
	})
}

// lexSource is one input of a lexicon merge: an old lexicon whose segments
// are renumbered (or dropped), or the dictionary of a new segment.
type lexSource struct {
	// an old lexicon
	lx       *lexicon
	remap    []int // old ordinal → new ordinal, -1 when dropped
	identity bool  // remap keeps every ordinal: records are copied as they are
	block    int
	r        *lexReader
	old      []segment.Entry // scratch
	// raw, for an identity remap: the current word's record in lx.body
	// (decoded only when another source holds the word too)
	rawAt, rawEnd, rawCount int
	// a new segment's dictionary, in memory or read from its spill
	dict  *segment.Dict
	spill *dictReader
	ord   int
	pos   int

	word []byte
	es   []segment.Entry
}

// start moves to the source's first word with at least one entry, opening
// a spilled dictionary; it returns false when there is none.
func (s *lexSource) start() (bool, error) {
	s.block, s.pos = -1, -1
	if s.dict != nil && s.dict.Spill != "" {
		var err error
		if s.spill, err = openSpill(s.dict); err != nil {
			return false, err
		}
		s.es = make([]segment.Entry, 1)
	}
	return s.advance()
}

// advance moves to the source's next word with at least one entry; it
// returns false at the end.
func (s *lexSource) advance() (bool, error) {
	if s.spill != nil {
		s.es = s.es[:1]
		ok, err := s.spill.next(&s.word, &s.es[0])
		s.es[0].Seg = s.ord
		return ok, err
	}
	if s.dict != nil {
		if s.pos++; s.pos >= len(s.dict.Words) {
			return false, nil
		}
		s.word = append(s.word[:0], s.dict.Words[s.pos]...)
		s.es = append(s.es[:0], s.dict.Entry(s.ord, s.pos))
		return true, nil
	}
	for {
		for s.r == nil || !s.r.next() {
			if s.r != nil && s.r.err != nil {
				return false, s.r.err
			}
			if s.block++; s.block >= len(s.lx.blockOff)-1 {
				return false, nil
			}
			s.r = s.lx.reader(s.block)
		}
		if s.identity {
			r := s.r
			s.rawAt = r.p
			n := r.uvarint()
			if r.err != nil || n > r.end-r.p {
				r.fail("entries past the block")
				return false, r.err
			}
			s.rawEnd = r.p + n
			s.rawCount = r.uvarint()
			r.p = s.rawEnd
			s.es = s.es[:0]
			s.word = append(s.word[:0], r.word...)
			return true, nil
		}
		s.old = s.r.entries(s.old[:0])
		if s.r.err != nil {
			return false, s.r.err
		}
		s.es = s.es[:0]
		for _, e := range s.old {
			if n := s.remap[e.Seg]; n >= 0 {
				e.Seg = n
				s.es = append(s.es, e)
			}
		}
		if len(s.es) > 0 {
			s.word = append(s.word[:0], s.r.word...)
			return true, nil
		}
	}
}

type lexHeap []*lexSource

func (h lexHeap) Len() int           { return len(h) }
func (h lexHeap) Less(i, j int) bool { return bytes.Compare(h[i].word, h[j].word) < 0 }
func (h lexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lexHeap) Push(x any)        { *h = append(*h, x.(*lexSource)) }
func (h *lexHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeLexicon builds the lexicon of the segments segSeq from sources whose
// ordinals are already those of segSeq.
func mergeLexicon(sources []*lexSource) (*lexBuilder, error) {
	h := lexHeap{}
	var b lexBuilder
	size := mergedSize(sources) // so the body grows once
	b.body = make([]byte, 0, size+size/8)
	defer closeSpills(sources)
	for _, s := range sources {
		ok, err := s.start()
		if err != nil {
			return nil, err
		}
		if ok {
			h = append(h, s)
		}
	}
	heap.Init(&h)
	// step moves the source with the least word to its next word.
	step := func() error {
		ok, err := h[0].advance()
		switch {
		case err != nil:
			return err
		case ok:
			heap.Fix(&h, 0)
		default:
			heap.Pop(&h)
		}
		return nil
	}
	var word []byte
	var es []segment.Entry
	for len(h) > 0 {
		word = append(word[:0], h[0].word...)
		es = es[:0]
		if s := h[0]; s.identity && (len(h) == 1 || !bytes.Equal(h[1].word, word) && (len(h) == 2 || !bytes.Equal(h[2].word, word))) {
			// The word is only in the old lexicon, whose ordinals stand:
			// its record is copied as it is.
			if err := b.addRecord(word, s.lx.body[s.rawAt:s.rawEnd], s.rawCount); err != nil {
				return nil, err
			}
			if err := step(); err != nil {
				return nil, err
			}
			continue
		}
		for len(h) > 0 && bytes.Equal(h[0].word, word) {
			s := h[0]
			if s.identity {
				r := newLexReader(s.lx, s.rawAt, s.rawEnd)
				if es = r.entries(es); r.err != nil {
					return nil, r.err
				}
			}
			es = append(es, s.es...)
			if err := step(); err != nil {
				return nil, err
			}
		}
		sortEntries(es)
		for i := 1; i < len(es); i++ {
			if es[i].Seg == es[i-1].Seg {
				return nil, fmt.Errorf("lexicon: word %q twice in segment %d", word, es[i].Seg)
			}
		}
		if err := b.add(word, es); err != nil {
			return nil, err
		}
	}
	return &b, nil
}

// mergedSize is about the bytes of the words the sources hold.
func mergedSize(sources []*lexSource) int {
	size := 0
	for _, s := range sources {
		if s.lx != nil {
			size += len(s.lx.body)
		} else {
			size += 16 * s.dict.Size()
		}
	}
	return size
}

// closeSpills closes the spilled dictionaries the sources opened.
func closeSpills(sources []*lexSource) {
	for _, s := range sources {
		if s.spill != nil {
			s.spill.close()
		}
	}
}

func sortEntries(es []segment.Entry) {
	for i := 1; i < len(es); i++ { // insertion sort: a handful, mostly in order
		for j := i; j > 0 && es[j].Seg < es[j-1].Seg; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// writeLexicon writes the lexicon of manifest m and names it there. Each
// segment of m is one of the snapshot the commit started from (old, with
// manifest oldM; both nil when there is none), whose entries are carried
// over, or one this commit wrote, whose dictionary is in fresh by file name.
// When m has the old segments in the same order the old lexicon is named
// again. It returns the name of the file it wrote ("" when none): the
// caller removes it if the commit fails.
func writeLexicon(dir string, m *Manifest, old *lexicon, oldM *Manifest, fresh map[string]*segment.Dict) (string, error) {
	m.Lexicon, m.LexiconBytes = "", 0
	if len(m.Segments) == 0 {
		return "", nil
	}
	pos := make(map[string]int, len(m.Segments))
	seqs := make([]uint64, len(m.Segments))
	for i, s := range m.Segments {
		pos[s.File] = i
		seqs[i], _ = fileSeq(s.File)
	}
	covered := make([]bool, len(m.Segments))
	var sources []*lexSource
	if old != nil && oldM != nil {
		remap := make([]int, len(oldM.Segments))
		same, kept := len(oldM.Segments) == len(m.Segments), false
		for i, s := range oldM.Segments {
			j, ok := pos[s.File]
			if !ok {
				j, same = -1, false
			} else {
				covered[j], kept = true, true
				same = same && i == j
			}
			remap[i] = j
		}
		if same {
			m.Lexicon, m.LexiconBytes = oldM.Lexicon, oldM.LexiconBytes
			return "", nil
		}
		if kept {
			identity := true
			for i, j := range remap {
				identity = identity && i == j
			}
			sources = append(sources, &lexSource{lx: old, remap: remap, identity: identity})
		}
	}
	for i, s := range m.Segments {
		if covered[i] {
			continue
		}
		d, ok := fresh[s.File]
		if !ok {
			return "", fmt.Errorf("write lexicon: no dictionary for segment %s", s.File)
		}
		sources = append(sources, &lexSource{dict: d, ord: i})
	}
	b, err := mergeLexicon(sources)
	if err != nil {
		return "", fmt.Errorf("write lexicon: %w", err)
	}
	name := lexiconFileName(m.NextFile)
	m.NextFile++
	t, err := createTemp(dir, name)
	if err != nil {
		return "", fmt.Errorf("write lexicon %s: %w", name, err)
	}
	bw := bufio.NewWriterSize(t, 1<<20)
	err = b.encode(bw, seqs)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		t.abort()
		return "", fmt.Errorf("write lexicon %s: %w", name, err)
	}
	size := t.n
	if err := t.commit(); err != nil {
		return "", fmt.Errorf("write lexicon %s: %w", name, err)
	}
	m.Lexicon, m.LexiconBytes = name, size
	return name, nil
}
