package tokenize

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bitsieve/bitsieve/internal/strcache"
	"github.com/blevesearch/segment"
	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// MaxTokenBytes is the longest token (in bytes, after lowercasing) that is
// indexed; longer ones are dropped but still advance the position counter.
const MaxTokenBytes = 64

// DefaultLanguage is the analyzer used when none is named.
const DefaultLanguage = "english"

// stemCacheSize is the size of each generation of the stem cache
// (internal/strcache): the words in use stay cached, while a corpus with an
// unbounded vocabulary cannot grow an analyzer's memory without end.
const stemCacheSize = 1 << 16

type language struct {
	isStop func(string) bool
	stem   func(string, bool) string
	code   bool // split identifiers (code.go) instead of segmenting UAX#29 words
}

var languages = map[string]language{
	"code":      {isStop: noStopWords, stem: unstemmed, code: true},
	"english":   {isStop: english.IsStopWord, stem: english.Stem},
	"french":    {isStop: french.IsStopWord, stem: french.Stem},
	"hungarian": {isStop: hungarian.IsStopWord, stem: hungarian.Stem},
	"norwegian": {isStop: norwegian.IsStopWord, stem: norwegian.Stem},
	"russian":   {isStop: russian.IsStopWord, stem: russian.Stem},
	"spanish":   {isStop: spanish.IsStopWord, stem: spanish.Stem},
	"swedish":   {isStop: swedish.IsStopWord, stem: swedish.Stem},
}

// Languages lists the analyzer names New accepts, sorted.
func Languages() []string {
	names := make([]string, 0, len(languages))
	for n := range languages {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Token is one indexed word of a text.
type Token struct {
	Term  string // the analyzed term (lowercased, stemmed)
	Pos   int    // word position: every kept segment counts, stop words too
	Start int    // byte offset of the surface word in the text
	End   int    // byte offset just past it
}

// Analyzer turns text into tokens. It keeps a stem cache and reusable buffers,
// so it is not safe for concurrent use; create one per goroutine.
type Analyzer struct {
	name  string
	lang  language
	cache stemCache // lowercased surface form → term, "" when dropped
	clean []byte
	lower []byte
	segs  [][]byte
	types []int
	parts []int // offsets of an identifier's parts, start and end in turn (code)
}

// stemCache maps lowercased surface forms to terms: an analyzer's own
// (strcache.Cache) or one that analyzers share (StemCache).
type stemCache interface {
	Get(k []byte) (string, bool)
	Put(k, v string)
}

// New returns an analyzer for the named snowball language, with a stem
// cache of its own.
func New(name string) (*Analyzer, error) {
	lang, name, err := languageOf(name)
	if err != nil {
		return nil, err
	}
	return &Analyzer{name: name, lang: lang, cache: strcache.New(stemCacheSize)}, nil
}

// A StemCache is a stem cache that analyzers of one language share, safe
// for concurrent use. A searcher analyzes each query with whichever of its
// analyzers is free; with a cache of their own, a query's words would be
// stemmed again by every analyzer that had not met them yet (one made for
// a new goroutine, or to replace one the runtime dropped from a pool),
// where a shared cache stems each word once.
type StemCache struct {
	name string
	c    *strcache.Shared
}

// NewStemCache returns an empty shared stem cache for the named language.
func NewStemCache(name string) (*StemCache, error) {
	_, name, err := languageOf(name)
	if err != nil {
		return nil, err
	}
	return &StemCache{name: name, c: strcache.NewShared(stemCacheSize)}, nil
}

// NewShared returns an analyzer for c's language that keeps its stems in
// c, shared with the other analyzers made with it.
func NewShared(c *StemCache) *Analyzer {
	lang, _, _ := languageOf(c.name)
	return &Analyzer{name: c.name, lang: lang, cache: c.c}
}

// languageOf finds the named language (DefaultLanguage when name is
// empty) and returns it with its name.
func languageOf(name string) (language, string, error) {
	if name == "" {
		name = DefaultLanguage
	}
	lang, ok := languages[name]
	if !ok {
		return language{}, "", fmt.Errorf("unknown analyzer language %q (known: %s)", name, strings.Join(Languages(), ", "))
	}
	return lang, name, nil
}

// MustNew is New for names known to be valid; it panics otherwise.
func MustNew(name string) *Analyzer {
	a, err := New(name)
	if err != nil {
		panic(err)
	}
	return a
}

// Name is the analyzer's language name, as stored in an index.
func (a *Analyzer) Name() string { return a.name }

// Restartable reports whether analysis that starts at any token's Start
// finds that token first and numbers every later token as analysis from
// the start of the text does, shifted by that token's position. Snippets
// rely on it to analyze a long text from a nearby mark (internal/segment/positions.go)
// rather than from its start. It holds for the snowball languages, whose
// tokens never overlap; it does not for code, where an identifier and its
// first part start at the same byte.
func (a *Analyzer) Restartable() bool { return !a.lang.code }

// Analyze appends the tokens of text to dst and returns it. Token offsets index
// text itself (invalid UTF-8 is replaced byte for byte, so lengths agree).
func (a *Analyzer) Analyze(dst []Token, text []byte) []Token {
	a.Tokens(text, func(t Token) { dst = append(dst, t) })
	return dst
}

// Tokens calls fn for every token of text, in order, as Analyze returns
// them, without collecting them: for a caller that keeps less of each token
// than a Token, on texts of millions of words.
func (a *Analyzer) Tokens(text []byte, fn func(Token)) {
	pos := 0
	a.each(text, func(term string, start, end int) {
		if term != "" {
			fn(Token{Term: term, Pos: pos, Start: start, End: end})
		}
		pos++
	})
}

// Terms appends the analyzed terms of text to dst, in text order, repeats
// included, and returns it.
func (a *Analyzer) Terms(dst []string, text []byte) []string {
	a.each(text, func(term string, _, _ int) {
		if term != "" {
			dst = append(dst, term)
		}
	})
	return dst
}

// Term analyzes a single query word. It returns "" when the word is a stop
// word, too long, or not a word at all; ok reports whether the text held
// exactly one word segment (so "foo-bar" is not a single word).
func (a *Analyzer) Term(word string) (term string, ok bool) {
	n := 0
	a.each([]byte(word), func(t string, _, _ int) {
		term = t
		n++
	})
	return term, n == 1
}

// Words calls fn for every word segment of text with its position and byte
// range, as Analyze numbers them, stop words included: it segments without
// mapping words to terms, so it is much cheaper than Analyze.
func (a *Analyzer) Words(text []byte, fn func(pos, start, end int)) {
	pos := 0
	a.segments(text, false, func(_ string, start, end int) {
		fn(pos, start, end)
		pos++
	})
}

// each calls fn for every kept segment of text with its term ("" for a dropped
// token) and byte range.
func (a *Analyzer) each(text []byte, fn func(term string, start, end int)) {
	a.segments(text, true, fn)
}

// segments calls fn for every word segment of text with its byte range and,
// when terms is set, its term ("" for a dropped token).
func (a *Analyzer) segments(text []byte, terms bool, fn func(term string, start, end int)) {
	data := a.validUTF8(text)
	if a.lang.code {
		a.identifiers(data, terms, fn)
		return
	}
	if ascii(data) {
		a.asciiSegments(data, terms, fn)
		return
	}
	a.segmenterSegments(data, terms, fn)
}

// segmenterSegments is segments by the UAX #29 segmenter, a window of
// text at a time.
func (a *Analyzer) segmenterSegments(data []byte, terms bool, fn func(term string, start, end int)) {
	off := 0
	for off < len(data) {
		rest := window(data[off:])
		segs, types, n, _ := segment.SegmentWordsDirect(rest, a.segs[:0], a.types[:0])
		a.segs, a.types = segs, types
		for i, seg := range segs {
			if types[i] == segment.None {
				continue
			}
			start := off + cap(rest) - cap(seg)
			term := ""
			if terms {
				term = a.term(seg)
			}
			fn(term, start, start+len(seg))
		}
		if n <= 0 {
			// The segmenter gave up before the end: skip one rune and go on,
			// so no text is ever silently lost.
			_, size := utf8.DecodeRune(rest)
			n = size
		}
		off += n
	}
	a.trim()
}

// asciiSegments is segments for a text of ASCII alone, giving the word
// segments UAX #29 gives without running the segmenter over most of it.
// In ASCII, the word-break rules join only letters and digits (WB5, WB8–
// WB10), the underscore to them (WB13a, WB13b), and a letter or digit to
// the next across one colon, full stop, comma, semicolon or apostrophe
// (WB6, WB7, WB11, WB12); every other byte breaks on both sides (WB999; a
// run of spaces or a CR LF is kept together, WB3 and WB3d, but is no
// word). So the text splits at those other bytes into runs that are
// segmented alone, exactly as in context. The punctuation a run starts or ends with joins nothing either
// (each rule needs a letter or digit beyond it) and is no word; what is
// left, when it is letters and digits alone, as most words are, is one
// word (alnumWord), and only the rest ("don't", "3.14", "snake_case") goes
// to the segmenter.
func (a *Analyzer) asciiSegments(data []byte, terms bool, fn func(term string, start, end int)) {
	for i := 0; i < len(data); {
		if !asciiJoins(data[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(data) && asciiJoins(data[j]) {
			j++
		}
		s, e := i, j
		for s < e && asciiMid(data[s]) {
			s++
		}
		for e > s && asciiMid(data[e-1]) {
			e--
		}
		switch {
		case s == e:
		case alnumWord(data[s:e]):
			term := ""
			if terms {
				term = a.term(data[s:e])
			}
			fn(term, s, e)
		default:
			a.segmenterSegments(data[s:e], terms, func(term string, start, end int) { fn(term, s+start, s+end) })
		}
		i = j
	}
}

// ascii reports whether b is all ASCII.
func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiJoins reports whether UAX #29 may join the ASCII byte c to a
// neighbour: a letter, a digit, '_' (ExtendNumLet) or asciiMid.
func asciiJoins(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || asciiMid(c)
}

// asciiMid reports whether c joins two letters or digits across it and
// nothing else: the colon (MidLetter), comma and semicolon (MidNum), full
// stop (MidNumLet) and apostrophe (Single_Quote).
func asciiMid(c byte) bool { return c == ':' || c == '.' || c == ',' || c == ';' || c == '\'' }

// alnumWord reports whether b is a non-empty run of ASCII letters and
// digits.
func alnumWord(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return len(b) > 0
}

// windowBytes is about how much text is segmented at a time.
const windowBytes = 64 << 10

// window returns the start of text that is segmented next: up to and
// including the last line feed within windowBytes, or the first one after
// it, or all of text. A word boundary always follows a line feed (UAX #29,
// WB3a), and no rule looks back across one, so the text is segmented
// exactly as in one piece, while the segments held at a time stay few
// however long the text is.
func window(text []byte) []byte {
	if len(text) <= windowBytes {
		return text
	}
	if i := bytes.LastIndexByte(text[:windowBytes], '\n'); i >= 0 {
		return text[:i+1]
	}
	if i := bytes.IndexByte(text[windowBytes:], '\n'); i >= 0 {
		return text[:windowBytes+i+1]
	}
	return text
}

// maxKeptSegments bounds the segment buffers an analyzer keeps between texts.
const maxKeptSegments = 1 << 16

// trim drops buffers that one very long text grew, so that an analyzer held
// for a whole corpus does not keep its longest document's worth of them.
func (a *Analyzer) trim() {
	if cap(a.segs) > maxKeptSegments {
		a.segs, a.types = nil, nil
	}
	if cap(a.clean) > 16*maxKeptSegments {
		a.clean = nil
	}
}

// validUTF8 returns text, or a copy with every invalid byte replaced by a space.
func (a *Analyzer) validUTF8(text []byte) []byte {
	if utf8.Valid(text) {
		return text
	}
	buf := append(a.clean[:0], text...)
	for i := 0; i < len(buf); {
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size == 1 {
			buf[i] = ' '
		}
		i += size
	}
	a.clean = buf
	return buf
}

// term maps one surface segment to its term through the cache.
func (a *Analyzer) term(seg []byte) string {
	a.lower = appendLower(a.lower[:0], seg)
	if t, ok := a.cache.Get(a.lower); ok {
		return t
	}
	surface := string(a.lower)
	t := ""
	if len(surface) <= MaxTokenBytes && !a.lang.isStop(surface) {
		t = a.lang.stem(surface, false)
	}
	a.cache.Put(surface, t)
	return t
}

// appendLower appends bytes.ToLower(b) to dst, without allocating for ASCII.
func appendLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return append(dst, bytes.ToLower(b)...)
		}
	}
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
