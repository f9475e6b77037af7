package index

import (
	"bytes"
	"container/heap"
	"fmt"

	"github.com/bitsieve/bitsieve/internal/segment"
)

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
