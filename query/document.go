package query

import (
	"bytes"
	"unicode/utf8"

	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// DocumentWindow is the most text of a document Document returns at once:
// a longer text is read a window at a time, so that a request's memory is
// bounded whatever the document's size. It is a whole number of store
// blocks, so that a window's first line number comes from the block table.
const DocumentWindow = 64 * segment.StoreBlockSize

// windowSlack is how far before and after a window its text is analyzed,
// so that a word or phrase that crosses its edge is still recognised.
const windowSlack = 256

// DocumentView is part of a stored document, with the ranges a query
// highlights in it. Offsets are bytes of the stored text; a text of at most
// DocumentWindow bytes is returned whole.
type DocumentView struct {
	Key    string `json:"key"`
	Title  string `json:"title"`
	Size   int64  `json:"size"`   // the source's size
	Length int    `json:"length"` // bytes of the stored text
	Offset int    `json:"offset"` // where Text starts in the stored text
	Line   int    `json:"line"`   // the line Text starts on, from 1
	Text   string `json:"text"`
	// Highlights are the byte ranges of Text that the query matches.
	Highlights []Range `json:"highlights"`
	// Prev and Next are the offsets of the windows before and after this
	// one, when there are any.
	Prev *int `json:"prev_offset,omitempty"`
	Next *int `json:"next_offset,omitempty"`
}

// Document returns a window of the stored text of the document with the
// given key: the one that holds byte from (rounded down to a store block),
// or, when from is negative, the one that holds the first match of q (the
// start of the text when q is empty or matches nothing there). When q is
// not empty, the view highlights every word its positive terms match and
// every occurrence of its positive phrases. Only the window's store blocks
// are decompressed and only its text (and a little around it) analyzed; the
// first match is found from the stored positions. Only indexed documents
// are reachable. q is compiled before the key is looked up, so a query
// Search would refuse is refused whatever the key.
func (s *Searcher) Document(key, q string, from int) (*DocumentView, error) {
	var c *compiled
	if q != "" {
		var err error
		if c, err = s.compile(q); err != nil {
			return nil, err
		}
	}
	ref, ok := s.ix.Find(key)
	if !ok {
		return nil, ErrNotFound
	}
	seg := s.ix.Segments()[ref.Seg]
	info := seg.Doc(ref.Doc)
	n := info.TextLen
	var hl *highlighter
	if c != nil {
		hl = newHighlighter(c)
	}
	if from < 0 {
		from = 0
		if hl != nil && n > DocumentWindow {
			at, err := s.firstMatch(seg, ref.Seg, ref.Doc, c, hl)
			if err != nil {
				return nil, err
			}
			if at >= DocumentWindow {
				from = at
			}
		}
	}
	// A window starts on a store block: a text longer than a block is
	// stored in whole blocks from the start of one.
	start := 0
	if n > DocumentWindow {
		start = min(from, n-1) / segment.StoreBlockSize * segment.StoreBlockSize
	}
	end := min(n, start+DocumentWindow)
	v := &DocumentView{Key: info.Key, Title: info.Title, Size: info.Size, Length: n, Highlights: []Range{}}
	lines, err := seg.NewlinesBefore(ref.Doc, start)
	if err != nil {
		return nil, err
	}
	v.Line = lines + 1
	if start > 0 {
		p := max(0, start-DocumentWindow)
		v.Prev = &p
	}
	if end < n {
		v.Next = &end
	}
	err = seg.WithTextRange(ref.Doc, max(0, start-windowSlack), min(n, end+windowSlack), func(text []byte, at int) error {
		// The window's edges move forward to the start of a character, so
		// that the next window starts where this one ends.
		lo, hi := runeStart(text, at, start), runeStart(text, at, end)
		v.Offset = lo
		v.Text = string(validUTF8(bytes.Clone(text[lo-at : hi-at])))
		if hl != nil {
			v.Highlights = s.windowHighlights(text, at, n, lo, hi, hl)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// runeStart returns the first offset at or after x (at most the end of
// text, which holds the document from offset at on) that starts a
// character.
func runeStart(text []byte, at, x int) int {
	for x-at < len(text) && !utf8.RuneStart(text[x-at]) {
		x++
	}
	return x
}

// windowHighlights returns the highlights of the window [lo, hi) of a text
// of n bytes, relative to lo: text holds the document from offset at on,
// with up to windowSlack bytes on either side of the window. The analysis
// starts after the first space of the slack before the window (at the
// start of the text, if it is there), so that it never starts inside a
// word, and ends at the first space after the window.
func (s *Searcher) windowHighlights(text []byte, at, n, lo, hi int, hl *highlighter) []Range {
	a := max(at, lo-windowSlack)
	if a > 0 {
		for a < lo && !isSpace(text[a-at]) {
			a++
		}
	}
	b := hi
	for b < at+len(text) && b < n && !isSpace(text[b-at]) {
		b++
	}
	an := s.analyzers.Get().(*tokenize.Analyzer)
	toks := an.Analyze(nil, validUTF8(bytes.Clone(text[a-at:b-at])))
	s.analyzers.Put(an)
	out := []Range{}
	for _, r := range hl.ranges(toks) {
		r.Start, r.End = max(r.Start+a, lo)-lo, min(r.End+a, hi)-lo
		if r.Start < r.End {
			out = append(out, r)
		}
	}
	return out
}

// firstMatch returns the byte offset of a point at or a little before the
// first match of the query in document doc of segment si: the mark before
// the earliest position of a word hl marks or of a phrase occurrence. Only
// the lists of those terms are read, each as far as its first occurrence.
func (s *Searcher) firstMatch(seg *segment.Segment, si, doc int, q *compiled, hl *highlighter) (int, error) {
	ids := appendSnippetTerms(nil, q, si, hl)
	if len(ids) == 0 {
		return 0, nil
	}
	r := seg.NewPositionReader()
	lists := make([]segment.PosList, len(ids))
	if err := r.ReadLists(doc, ids, lists); err != nil {
		return 0, err
	}
	first := -1
	earlier := func(p int) {
		if p >= 0 && (first < 0 || p < first) {
			first = p
		}
	}
	for w := range hl.words {
		if sl := snippetSlot(q, si, ids, w); sl >= 0 && lists[sl].Len() > 0 {
			it := lists[sl].Iter()
			p, ok := it.Next()
			if !ok {
				return 0, r.Corrupt(doc)
			}
			earlier(int(p))
		}
	}
	var its []segment.PosIter
	for _, ph := range hl.phrases {
		slots := make([]int, len(ph.Terms))
		ok := true
		for j, t := range ph.Terms {
			if slots[j] = snippetSlot(q, si, ids, t); slots[j] < 0 || lists[slots[j]].Len() == 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		p, bad := firstPhrase(lists, slots, ph.Offsets, &its)
		if bad {
			return 0, r.Corrupt(doc)
		}
		earlier(p)
	}
	if first < 0 {
		return 0, nil
	}
	return seg.MarkBefore(doc, first)
}
