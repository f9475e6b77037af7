package query

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/bitsieve/bitsieve/internal/segment"
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
func (s *Searcher) snippet(h *Hit, seg *segment.Segment, si, doc int, q *compiled, hl *highlighter) error {
	// Buffers that hold a typical query's terms and matches without
	// allocating: snippets are cut for every hit shown.
	var idBuf [8]segment.TermID
	var eventBuf [8]snipEvent
	ids := appendSnippetTerms(idBuf[:0], q, si, hl)
	pos := make([][]uint32, len(ids))
	r := seg.NewPositionReader()
	if err := r.Read(doc, ids, pos); err != nil {
		return err
	}
	events := appendSnippetEvents(eventBuf[:0], q, si, hl, ids, pos)
	anchor := bestWindow(events, len(hl.words)+len(hl.phrases))

	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	textLen := seg.DocTextLen(doc)
	reg, err := snippetRegionOf(r, an, doc, textLen, events, anchor)
	if err != nil {
		return err
	}
	// The first highlight's offset in the document, and the newlines before
	// it in the text read from textAt on, for Hit.Line.
	hlAt, textAt, lines := -1, 0, 0
	err = seg.WithTextRange(doc, reg.from, min(textLen, reg.to+snippetSlack), func(text []byte, at int) error {
		hlAt = cutSnippet(h, an, text, at, textLen, reg, events, anchor, hl)
		if hlAt >= 0 {
			textAt, lines = at, bytes.Count(text[:hlAt-at], []byte{'\n'})
		}
		return nil
	})
	if err != nil || hlAt < 0 {
		return err
	}
	h.Line, err = lineAt(seg, doc, textAt, lines)
	return err
}

// snippetSlack is how many bytes past the region's end are read, so that
// the word the region ends in can be completed.
const snippetSlack = 256

// termID returns the termID in segment si of the query term t, and false
// when the segment does not hold it.
func (q *compiled) termID(si int, t string) (segment.TermID, bool) {
	i, ok := q.termIdx[t]
	if !ok || q.ents[i][si].DF == 0 {
		return 0, false
	}
	return q.ents[i][si].ID, true
}

// appendSnippetTerms appends to dst the termIDs in segment si of the words
// and phrase terms hl marks, ascending and without repeats: the terms whose
// positions place a snippet.
func appendSnippetTerms(dst []segment.TermID, q *compiled, si int, hl *highlighter) []segment.TermID {
	for w := range hl.words {
		if x, ok := q.termID(si, w); ok {
			dst = append(dst, x)
		}
	}
	for _, ph := range hl.phrases {
		for _, t := range ph.Terms {
			if x, ok := q.termID(si, t); ok {
				dst = append(dst, x)
			}
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// snippetSlot returns the index in ids of the query term t's termID in
// segment si, or -1 when the segment does not hold t.
func snippetSlot(q *compiled, si int, ids []segment.TermID, t string) int {
	x, ok := q.termID(si, t)
	if !ok {
		return -1
	}
	i, _ := slices.BinarySearch(ids, x)
	return i
}

// appendSnippetEvents appends to dst the matches the positions show and
// returns them by position: each
// position of each word hl marks (keys 0 to len(hl.words)-1, one per word)
// and each start of each phrase (keys from len(hl.words) on, one per
// phrase, in the order of hl.phrases). pos[i] holds the positions of
// ids[i].
func appendSnippetEvents(dst []snipEvent, q *compiled, si int, hl *highlighter, ids []segment.TermID, pos [][]uint32) []snipEvent {
	events := dst
	key := 0
	for w := range hl.words {
		if sl := snippetSlot(q, si, ids, w); sl >= 0 {
			for _, p := range pos[sl] {
				events = append(events, snipEvent{p, key})
			}
		}
		key++
	}
	var starts []uint32
	for _, ph := range hl.phrases {
		slots := make([]int, len(ph.Terms))
		ok := true
		for j, t := range ph.Terms {
			if slots[j] = snippetSlot(q, si, ids, t); slots[j] < 0 {
				ok = false
			}
		}
		if starts = starts[:0]; ok && phraseStarts(pos, slots, ph.Offsets, &starts) {
			for _, p := range starts {
				events = append(events, snipEvent{p, key})
			}
		}
		key++
	}
	slices.SortFunc(events, func(a, b snipEvent) int { return int(a.pos) - int(b.pos) })
	return events
}

// phraseStarts appends to at every position where a phrase starts, and
// reports whether there is one: pos holds each slot's positions
// (ascending, decoded) and slots[j] is the slot of the phrase's term j.
// Verification, which needs only the first, decodes no further than that
// (phraseIn).
func phraseStarts(pos [][]uint32, slots []int, offsets []int, at *[]uint32) bool {
	// Anchor on the term with the fewest positions.
	a := 0
	for j := range slots {
		if len(pos[slots[j]]) < len(pos[slots[a]]) {
			a = j
		}
	}
	found := false
	next := make([]int, 0, 8)[:0]
	for range slots {
		next = append(next, 0)
	}
	for _, pa := range pos[slots[a]] {
		start := int(pa) - offsets[a]
		if start < 0 {
			continue
		}
		ok := true
		for j, sl := range slots {
			if j == a {
				continue
			}
			want, ps := uint32(start+offsets[j]), pos[sl]
			k := next[j]
			for k < len(ps) && ps[k] < want {
				k++
			}
			next[j] = k
			if k == len(ps) || ps[k] != want {
				ok = false
				break
			}
		}
		if ok {
			found = true
			*at = append(*at, uint32(start))
		}
	}
	return found
}

// bestWindow returns the index of the first event of the earliest span of
// snippetSpan positions that holds the most distinct keys (of keys), found
// by two pointers over events, or -1 when there are no events.
func bestWindow(events []snipEvent, keys int) int {
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
	return anchor
}

// snippetRegion is the part of a document analyzed to cut its snippet:
// bytes from to to, whose first word has position base.
type snippetRegion struct {
	from, base, to int
}

// snippetRegionOf returns the region to analyze for the window that starts
// at events[anchor] (the whole text when anchor is -1): from the mark
// before the one that precedes the window (from the start of the text when
// an cannot start at a token) to a snippet's length past the mark after it,
// so that only the part of the text that analysis and the window need is
// read. r has read document doc's positions.
func snippetRegionOf(r *segment.PositionReader, an *tokenize.Analyzer, doc, textLen int, events []snipEvent, anchor int) (snippetRegion, error) {
	reg := snippetRegion{0, 0, textLen}
	if anchor >= 0 {
		if err := r.ReadMarks(doc); err != nil {
			return reg, err
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
			reg.from, reg.base = r.Mark(max(0, c-1))
		}
		if c+1 < r.Marks() {
			reg.to, _ = r.Mark(c + 1)
		}
	}
	reg.to = min(textLen, reg.to+SnippetBytes+64)
	return reg, nil
}

// cutSnippet sets h.Snippet and h.Highlights from text, which holds the
// bytes of a document of textLen bytes from at on (offsets below are the
// document's, text[x-at] its byte x), and returns the document offset of
// the first highlight, or -1 when there is none. The region is extended to
// the end of the word it cuts, and the window starts a little before the
// match at events[anchor] so that it reads in context.
func cutSnippet(h *Hit, an *tokenize.Analyzer, text []byte, at, textLen int, reg snippetRegion, events []snipEvent, anchor int, hl *highlighter) int {
	end := min(at+len(text), reg.to+snippetSlack)
	for reg.to < end && !isSpace(text[reg.to-at]) {
		reg.to++
	}
	words := regionWords(an, text, at, reg)
	ws := reg.from
	if anchor >= 0 {
		if w, ok := wordAt(words, reg.base, events[anchor].pos); ok {
			ws = max(reg.from, w.Start-SnippetBytes/4)
		}
	}
	var markBuf [8]Range
	marks := mergeRanges(appendEventRanges(markBuf[:0], events, words, reg.base, hl))
	var hlAt int
	h.Snippet, h.Highlights, hlAt = makeSnippet(text, at, textLen, ws, marks, SnippetBytes)
	return hlAt
}

// regionWords analyzes the region's bytes of text (which holds the
// document from at on) and returns the document byte range of each word by
// position: element i is the word at position reg.base+i (End 0: none).
// The matches are known by position already, so nothing is stemmed.
func regionWords(an *tokenize.Analyzer, text []byte, at int, reg snippetRegion) []Range {
	var words []Range
	an.Words(text[reg.from-at:reg.to-at], func(p, start, end int) {
		for len(words) < p {
			words = append(words, Range{})
		}
		words = append(words, Range{reg.from + start, reg.from + end})
	})
	return words
}

// wordAt returns the word at position p of words, whose first element is
// position base, and false when the region holds no word there.
func wordAt(words []Range, base int, p uint32) (Range, bool) {
	if i := int(p) - base; i >= 0 && i < len(words) && words[i].End > 0 {
		return words[i], true
	}
	return Range{}, false
}

// appendEventRanges appends to dst the byte ranges of the events that lie
// in words (whose first element is position base): a word event is its
// word, a phrase event the range from its first word to its last.
func appendEventRanges(dst []Range, events []snipEvent, words []Range, base int, hl *highlighter) []Range {
	marks := dst
	nWords := len(hl.words)
	for _, e := range events {
		first, ok := wordAt(words, base, e.pos)
		if !ok {
			continue
		}
		last := first
		if e.key >= nWords {
			ph := hl.phrases[e.key-nWords]
			if last, ok = wordAt(words, base, e.pos+uint32(ph.Offsets[len(ph.Offsets)-1])); !ok {
				continue
			}
		}
		marks = append(marks, Range{first.Start, last.End})
	}
	return marks
}

// lineAt returns the line number of a highlight that has lines newlines
// before it in the text read from offset textAt of document doc: when
// textAt is not 0 (a long text read from a later block), the newlines of
// the blocks before are counted too, from the segment's block table.
func lineAt(seg *segment.Segment, doc, textAt, lines int) (int, error) {
	before, err := seg.NewlinesBefore(doc, textAt)
	return 1 + before + lines, err
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

// Snippets cuts the snippets of hits for query q, as Search cuts those of
// its page: each hit's document is found by its key, and its Snippet,
// Highlights and Line are set. It serves a search over several indexes,
// which cuts the snippets of the merged page only (Merge), each from the
// index that holds the hit. A key the snapshot does not hold is an error
// wrapping ErrNotFound.
func (s *Searcher) Snippets(q string, hits []Hit) error {
	c, err := s.compile(q)
	if err != nil {
		return err
	}
	hl := newHighlighter(c)
	for i := range hits {
		ref, ok := s.ix.Find(hits[i].Key)
		if !ok {
			return fmt.Errorf("%q: %w", hits[i].Key, ErrNotFound)
		}
		if err := s.snippet(&hits[i], s.ix.Segments()[ref.Seg], ref.Seg, ref.Doc, c, hl); err != nil {
			return err
		}
	}
	return nil
}
