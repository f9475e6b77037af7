package query

import (
	"unicode/utf8"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
)

// SnippetBytes is the target length of a snippet.
const SnippetBytes = 240

// highlightSet is the set of terms to highlight: every positive term of the
// query, prefix expansions included.
func highlightSet(q *compiled) map[string]bool {
	hl := make(map[string]bool, len(q.terms))
	for i, t := range q.terms {
		if q.positive[i] {
			hl[t] = true
		}
	}
	return hl
}

// snippet fills h.Snippet and h.Highlights from the stored text of doc.
func (s *Searcher) snippet(h *Hit, seg *index.Segment, doc int, hl map[string]bool) error {
	text, err := seg.Text(nil, doc)
	if err != nil {
		return err
	}
	an := s.analyzers.Get().(*tokenize.Analyzer)
	toks := snippetTokens(an, text, hl)
	s.analyzers.Put(an)
	h.Snippet, h.Highlights = makeSnippet(text, toks, hl, SnippetBytes)
	return nil
}

const (
	// snippetChunk is how much text is analyzed at a time for a snippet.
	snippetChunk = 8 << 10
	// snippetScan is how far a snippet looks for more of the query's terms
	// once it has found one: analysis costs far more than the rest of a
	// search, and documents can be megabytes long.
	snippetScan = 32 << 10
)

// snippetTokens analyzes text a chunk at a time (cut at whitespace, so no
// word is split) until it has seen every highlighted term, or has seen one
// and scanned snippetScan bytes. Token offsets index text; positions restart
// in every chunk (snippets do not use them).
func snippetTokens(an *tokenize.Analyzer, text []byte, hl map[string]bool) []tokenize.Token {
	var toks []tokenize.Token
	seen := map[string]bool{}
	for start := 0; start < len(text); {
		end := min(len(text), start+snippetChunk)
		for end < len(text) && !isSpace(text[end]) && end-start < 2*snippetChunk {
			end++
		}
		n := len(toks)
		toks = an.Analyze(toks, text[start:end])
		for i := n; i < len(toks); i++ {
			toks[i].Start += start
			toks[i].End += start
			if hl[toks[i].Term] {
				seen[toks[i].Term] = true
			}
		}
		start = end
		if len(seen) == len(hl) || (len(seen) > 0 && start >= snippetScan) {
			break
		}
	}
	return toks
}

// Highlights returns the byte ranges of toks whose term is in hl.
func highlights(toks []tokenize.Token, hl map[string]bool) []Range {
	var out []Range
	for _, t := range toks {
		if hl[t.Term] {
			out = append(out, Range{t.Start, t.End})
		}
	}
	return out
}

// makeSnippet picks the window of about width bytes that holds the most
// distinct highlighted terms (the earliest such window), widens it to word
// boundaries, and returns it with the highlight ranges inside it. Whitespace
// and control characters collapse to single spaces; "…" marks cut ends.
func makeSnippet(text []byte, toks []tokenize.Token, hl map[string]bool, width int) (string, []Range) {
	marks := highlights(toks, hl)
	ws := 0
	if len(marks) > 0 {
		best, bestAt := -1, 0
		for i := range marks {
			seen := map[string]bool{}
			for j := i; j < len(marks) && marks[j].End-marks[i].Start <= width; j++ {
				seen[string(lowerASCII(text[marks[j].Start:marks[j].End]))] = true
			}
			if len(seen) > best {
				best, bestAt = len(seen), i
			}
		}
		// Start a little before the first mark so it reads in context.
		ws = max(0, marks[bestAt].Start-width/4)
	}
	we := min(len(text), ws+width)
	// Snap to word boundaries and rune starts.
	if ws > 0 {
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
	// spaces into one; at[i] is where text[ws+i] lands in the snippet.
	var out []byte
	if ws > 0 {
		out = append(out, "…"...)
	}
	at := make([]int, we-ws+1)
	space := false
	for i, c := range text[ws:we] {
		at[i] = len(out)
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
	at[we-ws] = len(out)
	if we < len(text) {
		out = append(out, "…"...)
	}
	var rs []Range
	for _, m := range marks {
		if m.Start >= ws && m.End <= we {
			rs = append(rs, Range{at[m.Start-ws], at[m.End-ws]})
		}
	}
	return string(validUTF8(out)), rs
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

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
// match. Only indexed documents are reachable.
func (s *Searcher) Document(key, q string) (*DocumentView, error) {
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
	if q != "" {
		c, err := s.compile(q)
		if err != nil {
			return nil, err
		}
		an := s.analyzers.Get().(*tokenize.Analyzer)
		toks := an.Analyze(nil, text)
		s.analyzers.Put(an)
		if hs := highlights(toks, highlightSet(c)); hs != nil {
			v.Highlights = hs
		}
	}
	return v, nil
}
