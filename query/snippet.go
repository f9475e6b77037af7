package query

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
)

// SnippetBytes is the target length of a snippet.
const SnippetBytes = 240

// highlighter marks what a query matches in analyzed text: every word of
// its positive terms and prefixes, and every whole occurrence of its
// positive phrases (a phrase's words alone are not marked).
type highlighter struct {
	words   map[string]bool
	phrases []*Phrase
}

func newHighlighter(q *compiled) *highlighter {
	h := &highlighter{words: map[string]bool{}}
	Walk(q.root, func(n Node, negated bool) bool {
		if negated {
			return true // a double negation below may be positive again
		}
		switch x := n.(type) {
		case *Term:
			h.words[x.Term] = true
		case *Prefix:
			for _, w := range q.prefixes[x.Prefix] {
				h.words[w] = true
			}
		case *Phrase:
			if !slices.ContainsFunc(h.phrases, func(p *Phrase) bool { return slices.Equal(p.Terms, x.Terms) && slices.Equal(p.Offsets, x.Offsets) }) {
				h.phrases = append(h.phrases, x)
			}
		}
		return true
	})
	return h
}

// ranges returns the byte ranges of toks (in position order) that the query
// matches, ascending, overlapping ones merged: a phrase occurrence is one
// range from its first word to its last.
func (h *highlighter) ranges(toks []tokenize.Token) []Range {
	var out []Range
	for i, t := range toks {
		if h.words[t.Term] {
			out = append(out, Range{t.Start, t.End})
		}
		for _, ph := range h.phrases {
			if t.Term != ph.Terms[0] {
				continue
			}
			last := i
			for j := 1; j < len(ph.Terms) && last >= 0; j++ {
				if k := tokenAt(toks, i, t.Pos+ph.Offsets[j]); k >= 0 && toks[k].Term == ph.Terms[j] {
					last = k
				} else {
					last = -1
				}
			}
			if last >= 0 {
				out = append(out, Range{t.Start, toks[last].End})
			}
		}
	}
	return mergeRanges(out)
}

// mergeRanges sorts ranges and merges those that overlap.
func mergeRanges(rs []Range) []Range {
	slices.SortFunc(rs, func(a, b Range) int { return a.Start - b.Start })
	merged := rs[:0]
	for _, r := range rs {
		if n := len(merged); n > 0 && r.Start < merged[n-1].End {
			merged[n-1].End = max(merged[n-1].End, r.End)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// tokenAt returns the index of the token at position pos, searching forward
// from toks[from] (positions increase with the index), or -1.
func tokenAt(toks []tokenize.Token, from, pos int) int {
	for k := from; k < len(toks) && toks[k].Pos <= pos; k++ {
		if toks[k].Pos == pos {
			return k
		}
	}
	return -1
}

// snippetSpan is the number of positions a snippet window is chosen over:
// about SnippetBytes of English text.
const snippetSpan = 32

// snipEvent is a match the positions show: a word (key < number of words)
// or a phrase occurrence starting at pos.
type snipEvent struct {
	pos uint32
	key int
}

// snippet fills h.Snippet and h.Highlights for document doc of segment si.
// The document's positions place the window: the span of snippetSpan
// positions that holds the most distinct words and phrases of the query
// (the earliest such). Only the text from the mark before it is analyzed,
// to find the window's bytes and highlights; the rest of the document is
// never analyzed.
func (s *Searcher) snippet(h *Hit, seg *index.Segment, si, doc int, q *compiled, hl *highlighter) error {
	// The termIDs of the words and phrase terms, and each key's slots.
	var ids []index.TermID
	id := func(t string) (index.TermID, bool) {
		i, ok := q.termIdx[t]
		if !ok || q.ents[i][si].DF == 0 {
			return 0, false
		}
		return q.ents[i][si].ID, true
	}
	for w := range hl.words {
		if x, ok := id(w); ok {
			ids = append(ids, x)
		}
	}
	for _, ph := range hl.phrases {
		for _, t := range ph.Terms {
			if x, ok := id(t); ok {
				ids = append(ids, x)
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	pos := make([][]uint32, len(ids))
	r := seg.NewPositionReader()
	if err := r.Read(doc, ids, pos); err != nil {
		return err
	}
	slot := func(t string) int {
		x, ok := id(t)
		if !ok {
			return -1
		}
		i, _ := slices.BinarySearch(ids, x)
		return i
	}
	var events []snipEvent
	keys := 0
	for w := range hl.words {
		if sl := slot(w); sl >= 0 {
			for _, p := range pos[sl] {
				events = append(events, snipEvent{p, keys})
			}
		}
		keys++
	}
	nWords := keys
	var starts []uint32
	for _, ph := range hl.phrases {
		slots := make([]int, len(ph.Terms))
		ok := true
		for j, t := range ph.Terms {
			if slots[j] = slot(t); slots[j] < 0 {
				ok = false
			}
		}
		if starts = starts[:0]; ok && phraseAt(pos, slots, ph.Offsets, &starts) {
			for _, p := range starts {
				events = append(events, snipEvent{p, keys})
			}
		}
		keys++
	}
	slices.SortFunc(events, func(a, b snipEvent) int { return int(a.pos) - int(b.pos) })

	// The window with the most distinct keys, by two pointers.
	anchor, best := -1, 0
	count := make([]int, keys)
	distinct := 0
	for i, j := 0, 0; i < len(events); i++ {
		for ; j < len(events) && events[j].pos < events[i].pos+snippetSpan; j++ {
			if count[events[j].key]++; count[events[j].key] == 1 {
				distinct++
			}
		}
		if distinct > best {
			best, anchor = distinct, i
		}
		if count[events[i].key]--; count[events[i].key] == 0 {
			distinct--
		}
	}

	// Analyze from the mark before the one that precedes the window (from
	// the start of the text when the analyzer cannot start at a token);
	// read only the part of the text that analysis and the window need.
	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	textLen := seg.Doc(doc).TextLen
	from, base, to := 0, 0, textLen
	if anchor >= 0 {
		if err := r.ReadMarks(doc); err != nil {
			return err
		}
	}
	if anchor >= 0 && r.Marks() > 0 {
		c := 0
		for c+1 < r.Marks() {
			if _, p := r.Mark(c + 1); p > int(events[anchor].pos) {
				break
			}
			c++
		}
		if an.Restartable() {
			from, base = r.Mark(max(0, c-1))
		}
		if c+1 < r.Marks() {
			to, _ = r.Mark(c + 1)
		}
	}
	to = min(textLen, to+SnippetBytes+64)
	// The first highlight's offset in the document, and the newlines before
	// it in the text read from textAt on, for Hit.Line.
	hlAt, textAt, lines := -1, 0, 0
	err := seg.WithTextRange(doc, from, min(textLen, to+256), func(text []byte, at int) error {
		// text holds the document's bytes from at on: offsets below are the
		// document's, text[x-at] its byte x.
		end := min(at+len(text), to+256)
		for to < end && !isSpace(text[to-at]) {
			to++
		}
		// The words of the region by position; the matches are known by
		// position already, so nothing is stemmed.
		var words []Range // words[i]: the word at position base+i (End 0: none)
		an.Words(text[from-at:to-at], func(p, start, end int) {
			for len(words) < p {
				words = append(words, Range{})
			}
			words = append(words, Range{from + start, from + end})
		})
		word := func(p uint32) (Range, bool) {
			if i := int(p) - base; i >= 0 && i < len(words) && words[i].End > 0 {
				return words[i], true
			}
			return Range{}, false
		}
		ws := from
		if anchor >= 0 {
			if w, ok := word(events[anchor].pos); ok {
				// Start a little before the first match so it reads in context.
				ws = max(from, w.Start-SnippetBytes/4)
			}
		}
		var marks []Range
		for _, e := range events {
			first, ok := word(e.pos)
			if !ok {
				continue
			}
			last := first
			if e.key >= nWords {
				ph := hl.phrases[e.key-nWords]
				if last, ok = word(e.pos + uint32(ph.Offsets[len(ph.Offsets)-1])); !ok {
					continue
				}
			}
			marks = append(marks, Range{first.Start, last.End})
		}
		h.Snippet, h.Highlights, hlAt = makeSnippet(text, at, textLen, ws, mergeRanges(marks), SnippetBytes)
		if hlAt >= 0 {
			textAt, lines = at, bytes.Count(text[:hlAt-at], []byte{'\n'})
		}
		return nil
	})
	if err != nil || hlAt < 0 {
		return err
	}
	h.Line = 1 + lines
	if textAt > 0 {
		// A long text read from a later block: count the blocks before.
		err = seg.WithTextRange(doc, 0, textAt, func(text []byte, at int) error {
			h.Line += bytes.Count(text[:textAt-at], []byte{'\n'})
			return nil
		})
	}
	return err
}

// makeSnippet cuts the window of about width bytes from ws, widened to word
// boundaries, and returns it with the ranges (ascending) that lie inside
// it, and the document offset of the first of those ranges (-1 when none
// is). text holds bytes at.. of a document of textLen bytes; ws and the
// ranges are offsets in the document. Whitespace and control characters
// collapse to single spaces; "…" marks cut ends.
func makeSnippet(text []byte, at, textLen, ws int, marks []Range, width int) (string, []Range, int) {
	ws -= at
	we := min(len(text), ws+width)
	// Snap to word boundaries and rune starts.
	if ws > 0 && !isSpace(text[ws-1]) {
		for i := ws; i < min(len(text), ws+24); i++ {
			if isSpace(text[i]) {
				ws = i + 1
				break
			}
		}
	}
	if we < len(text) {
		for i := we; i > max(ws, we-24); i-- {
			if isSpace(text[i-1]) {
				we = i - 1
				break
			}
		}
	}
	for ws < len(text) && !utf8.RuneStart(text[ws]) {
		ws++
	}
	for we > ws && we < len(text) && !utf8.RuneStart(text[we]) {
		we--
	}
	// Copy the window, turning control characters into spaces and runs of
	// spaces into one; lands[i] is where text[ws+i] lands in the snippet.
	var out []byte
	if at+ws > 0 {
		out = append(out, "…"...)
	}
	lands := make([]int, we-ws+1)
	space := false
	for i, c := range text[ws:we] {
		lands[i] = len(out)
		if c < 0x20 || c == 0x7f || c == ' ' {
			if !space && len(out) > 0 {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		space = false
		out = append(out, c)
	}
	lands[we-ws] = len(out)
	if at+we < textLen {
		out = append(out, "…"...)
	}
	var rs []Range
	first := -1
	for _, m := range marks {
		if s, e := m.Start-at, m.End-at; s >= ws && e <= we {
			if first < 0 {
				first = m.Start
			}
			rs = append(rs, Range{lands[s-ws], lands[e-ws]})
		}
	}
	return string(validUTF8(out)), rs, first
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// validUTF8 replaces invalid bytes with spaces, keeping offsets.
func validUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			b[i] = ' '
		}
		i += n
	}
	return b
}

// DocumentView is a stored document with the ranges a query highlights.
type DocumentView struct {
	Key        string  `json:"key"`
	Title      string  `json:"title"`
	Size       int64   `json:"size"`
	Text       string  `json:"text"`
	Highlights []Range `json:"highlights"`
}

// Document returns the stored text of the document with the given key and,
// when q is not empty, the byte ranges of every word that q's positive terms
// match. Only indexed documents are reachable. q is compiled before the key
// is looked up, so a query Search would refuse is refused whatever the key.
func (s *Searcher) Document(key, q string) (*DocumentView, error) {
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
	text, err := seg.Text(nil, ref.Doc)
	if err != nil {
		return nil, err
	}
	info := seg.Doc(ref.Doc)
	text = validUTF8(text)
	v := &DocumentView{Key: info.Key, Title: info.Title, Size: info.Size, Text: string(text), Highlights: []Range{}}
	if c != nil {
		an := s.analyzers.Get().(*tokenize.Analyzer)
		toks := an.Analyze(nil, text)
		s.analyzers.Put(an)
		if hs := newHighlighter(c).ranges(toks); hs != nil {
			v.Highlights = hs
		}
	}
	return v, nil
}
