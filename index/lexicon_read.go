package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"

	"github.com/bitsieve/bitsieve/internal/prefetch"
	"github.com/bitsieve/bitsieve/internal/segment"
)

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
