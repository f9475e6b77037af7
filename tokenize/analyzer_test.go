package tokenize

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/segment"
	"github.com/klauspost/compress/zstd"
	"github.com/kljensen/snowball/english"
)

// tok is a Token written compactly in tables: term, position, start, end.
func tok(term string, pos, start, end int) Token {
	return Token{Term: term, Pos: pos, Start: start, End: end}
}

// TestAnalyzeEnglish pins the english analyzer's output on tricky input. The
// analyzer is part of the index format: a change here changes which
// documents a query finds in an existing index.
func TestAnalyzeEnglish(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Token
	}{
		{"empty", "", nil},
		{"spaces and punctuation only", " \t\n.,;!? -- ... ", nil},
		{"stemming", "The running foxes", []Token{tok("run", 1, 4, 11), tok("fox", 2, 12, 17)}},
		{"mixed case", "MiXeD CaSe RUNNING", []Token{tok("mix", 0, 0, 5), tok("case", 1, 6, 10), tok("run", 2, 11, 18)}},

		// Stop words are dropped but keep their position.
		{"stop words count", "the quick brown fox of the year", []Token{
			tok("quick", 1, 4, 9), tok("brown", 2, 10, 15), tok("fox", 3, 16, 19), tok("year", 6, 27, 31)}},
		{"all stop words", "to be or not to be", nil},
		{"single letters", "a b i s t x", []Token{tok("b", 1, 2, 3), tok("x", 5, 10, 11)}},

		// Apostrophes: stop words are checked before stemming, so it's is a
		// term (the stemmer then strips 's) while it is a stop word.
		{"it's", "it's it", []Token{tok("it", 0, 0, 4)}},
		{"curly apostrophe", "it’s O’Neil's", []Token{tok("it", 0, 0, 6), tok("o'neil", 1, 7, 17)}},
		{"contractions", "don't can't I'M you're he's", []Token{
			tok("don't", 0, 0, 5), tok("can't", 1, 6, 11), tok("i'm", 2, 12, 15), tok("you'r", 3, 16, 22), tok("he", 4, 23, 27)}},
		{"elision", "l'homme", []Token{tok("l'homm", 0, 0, 7)}},
		{"quotes around a word", "'quoted'", []Token{tok("quot", 0, 1, 7)}},

		// Hyphens split words; underscores and a colon or a dot between
		// letters join them.
		{"hyphen", "foo-bar foo--bar", []Token{tok("foo", 0, 0, 3), tok("bar", 1, 4, 7), tok("foo", 2, 8, 11), tok("bar", 3, 13, 16)}},
		{"underscore", "mutex_unlock __init__ _x", []Token{tok("mutex_unlock", 0, 0, 12), tok("__init__", 1, 13, 21), tok("_x", 2, 22, 24)}},
		{"colon between letters", "a:b foo:bar :foo foo:", []Token{tok("a:b", 0, 0, 3), tok("foo:bar", 1, 4, 11), tok("foo", 2, 13, 16), tok("foo", 3, 17, 20)}},
		{"colon between digits", "12:30", []Token{tok("12", 0, 0, 2), tok("30", 1, 3, 5)}},
		{"dots", "e.g. U.S.A. x.y", []Token{tok("e.g", 0, 0, 3), tok("u.s.a", 1, 5, 10), tok("x.i", 2, 12, 15)}},

		// Numbers keep their inner separators.
		{"numbers", "3.14 1,000 1.000,5 v1.2.3 .5 $5 50% -3", []Token{
			tok("3.14", 0, 0, 4), tok("1,000", 1, 5, 10), tok("1.000,5", 2, 11, 18), tok("v1.2.3", 3, 19, 25),
			tok("5", 4, 27, 28), tok("5", 5, 30, 31), tok("50", 6, 32, 34), tok("3", 7, 37, 38)}},
		{"letters and digits", "12abc abc12 3rd", []Token{tok("12abc", 0, 0, 5), tok("abc12", 1, 6, 11), tok("3rd", 2, 12, 15)}},

		// Ideographs and hiragana are one segment per character; katakana
		// and hangul runs are one segment.
		{"han", "日本語", []Token{tok("日", 0, 0, 3), tok("本", 1, 3, 6), tok("語", 2, 6, 9)}},
		{"hiragana", "ひらがな", []Token{tok("ひ", 0, 0, 3), tok("ら", 1, 3, 6), tok("が", 2, 6, 9), tok("な", 3, 9, 12)}},
		{"katakana", "カタカナ ﾃｽﾄ", []Token{tok("カタカナ", 0, 0, 12), tok("ﾃｽﾄ", 1, 13, 22)}},
		{"han and kana", "漢字かな", []Token{tok("漢", 0, 0, 3), tok("字", 1, 3, 6), tok("か", 2, 6, 9), tok("な", 3, 9, 12)}},
		{"hangul", "한국어", []Token{tok("한국어", 0, 0, 9)}},

		// Other scripts and Unicode details.
		{"accents", "naïve Café résumé", []Token{tok("naïv", 0, 0, 6), tok("café", 1, 7, 12), tok("résumé", 2, 13, 21)}},
		{"combining accent", "e\u0301", []Token{tok("e\u0301", 0, 0, 3)}},
		{"lowercase", "ÉCOLE Straße ẞ İstanbul", []Token{tok("école", 0, 0, 6), tok("straße", 1, 7, 14), tok("ß", 2, 15, 18), tok("istanbul", 3, 19, 28)}},
		{"hebrew gershayim", `צה"ל`, []Token{tok(`צה"ל`, 0, 0, 7)}},
		{"emoji", "😀 emoji👍ok", []Token{tok("emoji", 0, 5, 10), tok("ok", 1, 14, 16)}},
		{"line breaks", "foo\r\nbar\u2028baz", []Token{tok("foo", 0, 0, 3), tok("bar", 1, 5, 8), tok("baz", 2, 11, 14)}},
		{"zero width joiner", "foo\u200dbar", []Token{tok("foo\u200dbar", 0, 0, 9)}},

		// Quirks of segment v0.9.1, kept because documents and queries
		// share them: full-width digits and Thai are not word characters.
		{"full-width", "ＡＢＣ１２３ x", []Token{tok("ａｂｃ", 0, 0, 9), tok("x", 1, 19, 20)}},
		{"thai", "สวัสดี x", []Token{tok("x", 0, 19, 20)}},
	}
	a := MustNew("english")
	for _, tt := range tests {
		got := a.Analyze(nil, []byte(tt.text))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: Analyze(%q) =\n\t%v\nwant\n\t%v", tt.name, tt.text, got, tt.want)
		}
		// A fresh analyzer (cold cache) must agree with the warm one.
		if cold := MustNew("english").Analyze(nil, []byte(tt.text)); !slices.Equal(cold, got) {
			t.Errorf("%s: a fresh analyzer gives %v, a used one %v", tt.name, cold, got)
		}
	}
}

func TestAnalyzeLongTokens(t *testing.T) {
	a := MustNew("english")
	x64, x65 := strings.Repeat("x", MaxTokenBytes), strings.Repeat("x", MaxTokenBytes+1)
	text := x64 + " " + x65 + " foo"
	want := []Token{tok(x64, 0, 0, 64), tok("foo", 2, 131, 134)}
	if got := a.Analyze(nil, []byte(text)); !slices.Equal(got, want) {
		t.Errorf("Analyze(64 x, 65 x, foo) = %v", got)
	}

	// The limit is on bytes, after lowercasing: 32 é are 64 bytes, 33 are
	// 66; 30 Ⱥ are 60 bytes but lowercase to 30 ⱥ, 90 bytes.
	e32, e33, a30 := strings.Repeat("é", 32), strings.Repeat("é", 33), strings.Repeat("Ⱥ", 30)
	text = e32 + " " + e33 + " " + a30 + " y"
	want = []Token{tok(e32, 0, 0, 64), tok("y", 3, len(text)-1, len(text))}
	if got := a.Analyze(nil, []byte(text)); !slices.Equal(got, want) {
		t.Errorf("Analyze(32 é, 33 é, 30 Ⱥ, y) = %v", got)
	}
}

func TestAnalyzeInvalidUTF8(t *testing.T) {
	a := MustNew("english")
	// Bytes that are not UTF-8 separate words like spaces; the rest of the
	// text is still analyzed and offsets index the original text.
	text := "foo\xffbar baz \xc3 qux \xe6\x97 end\xed\xa0\x80ing"
	want := []Token{
		tok("foo", 0, 0, 3), tok("bar", 1, 4, 7), tok("baz", 2, 8, 11), tok("qux", 3, 14, 17),
		tok("end", 4, 21, 24), tok("ing", 5, 27, 30),
	}
	got := a.Analyze(nil, []byte(text))
	if !slices.Equal(got, want) {
		t.Errorf("Analyze(%q) =\n\t%v\nwant\n\t%v", text, got, want)
	}
	// A valid encoding of U+FFFD is text, not an invalid byte.
	if got := a.Analyze(nil, []byte("a\uFFFDb")); len(got) != 1 || got[0].Term != "b" {
		t.Errorf("Analyze(a U+FFFD b) = %v", got)
	}
	// A long text with invalid bytes throughout loses nothing.
	var b strings.Builder
	for i := range 5000 {
		b.WriteString("word")
		b.WriteByte(byte(0x80 + i%64))
	}
	if got := a.Analyze(nil, []byte(b.String())); len(got) != 5000 || got[4999].Pos != 4999 {
		t.Errorf("5000 words separated by invalid bytes: %d tokens", len(got))
	}
}

func TestAnalyzeAppends(t *testing.T) {
	a := MustNew("english")
	dst := []Token{tok("keep", 7, 0, 4)}
	got := a.Analyze(dst, []byte("running fox"))
	want := []Token{tok("keep", 7, 0, 4), tok("run", 0, 0, 7), tok("fox", 1, 8, 11)}
	if !slices.Equal(got, want) {
		t.Errorf("Analyze appended to %v: %v", dst, got)
	}
	terms := a.Terms([]string{"keep"}, []byte("The running foxes run"))
	if want := []string{"keep", "run", "fox", "run"}; !slices.Equal(terms, want) {
		t.Errorf("Terms = %q, want %q", terms, want)
	}
}

func TestTerm(t *testing.T) {
	a := MustNew("english")
	tests := []struct {
		word string
		term string
		ok   bool
	}{
		{"running", "run", true},
		{"Running", "run", true},
		{"it's", "it", true},
		{"mutex_unlock", "mutex_unlock", true},
		{"the", "", true}, // one word, a stop word
		{strings.Repeat("x", MaxTokenBytes+1), "", true},
		{"foo.", "foo", true}, // one word and punctuation
		{"foo-bar", "bar", false},
		{"日本", "本", false},
		{"", "", false},
		{"...", "", false},
	}
	for _, tt := range tests {
		term, ok := a.Term(tt.word)
		if term != tt.term || ok != tt.ok {
			t.Errorf("Term(%q) = %q, %v; want %q, %v", tt.word, term, ok, tt.term, tt.ok)
		}
	}
}

// TestStemNotIdempotent records why queries are analyzed from the user's
// words and never from stored terms: stemming a stem can change it again.
func TestStemNotIdempotent(t *testing.T) {
	a := MustNew("english")
	got := a.Terms(nil, []byte("allocs alloc parse pars par"))
	if want := []string{"alloc", "alloc", "pars", "par", "par"}; !slices.Equal(got, want) {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

func TestLanguages(t *testing.T) {
	samples := map[string]struct {
		text string
		want []Token
	}{
		"code":      {"sync.WaitGroup", []Token{tok("sync", 0, 0, 4), tok("waitgroup", 1, 5, 14), tok("wait", 2, 5, 9), tok("group", 3, 9, 14)}},
		"english":   {"The running foxes", []Token{tok("run", 1, 4, 11), tok("fox", 2, 12, 17)}},
		"french":    {"Les chats mangeaient", []Token{tok("le", 0, 0, 3), tok("chat", 1, 4, 9), tok("mang", 2, 10, 20)}},
		"hungarian": {"A kutyák futottak", []Token{tok("kutya", 1, 2, 9), tok("futott", 2, 10, 18)}},
		"norwegian": {"Og hundene løper", []Token{tok("hund", 1, 3, 10), tok("løp", 2, 11, 17)}},
		"russian":   {"И собаки бегали", []Token{tok("собак", 1, 3, 15), tok("бега", 2, 16, 28)}},
		"spanish":   {"El perros corriendo", []Token{tok("perr", 1, 3, 9), tok("corr", 2, 10, 19)}},
		"swedish":   {"Och hundarna springer", []Token{tok("hund", 1, 4, 12), tok("spring", 2, 13, 21)}},
	}
	names := Languages()
	if !slices.IsSorted(names) {
		t.Errorf("Languages() = %q, not sorted", names)
	}
	for _, name := range names {
		a, err := New(name)
		if err != nil {
			t.Errorf("New(%q): %v", name, err)
			continue
		}
		if a.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, a.Name())
		}
		s, ok := samples[name]
		if !ok {
			t.Errorf("language %q has no sample in this test", name)
			continue
		}
		if got := a.Analyze(nil, []byte(s.text)); !slices.Equal(got, s.want) {
			t.Errorf("%s: Analyze(%q) = %v, want %v", name, s.text, got, s.want)
		}
	}
	if len(samples) != len(names) {
		t.Errorf("samples for %d languages, Languages() has %d", len(samples), len(names))
	}

	a, err := New("")
	if err != nil || a.Name() != DefaultLanguage {
		t.Errorf(`New("") = %v, %v; want the %s analyzer`, a, err, DefaultLanguage)
	}
	for _, bad := range []string{"klingon", "English", "en"} {
		_, err := New(bad)
		if err == nil {
			t.Errorf("New(%q) succeeded", bad)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, `"`+bad+`"`) || !strings.Contains(msg, strings.Join(names, ", ")) {
			t.Errorf("New(%q): %q does not name the language and the known ones", bad, msg)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MustNew(klingon) did not panic")
		}
	}()
	MustNew("klingon")
}

// TestHash pins term hashes: they choose signature rows on disk.
func TestHash(t *testing.T) {
	for _, tt := range []struct {
		term string
		want uint64
	}{
		{"", 0xef46db3751d8e999}, // xxhash64 of nothing, seed 0
		{"a", 0xd24ec4f1a98c6e5b},
	} {
		if got := Hash(tt.term); got != tt.want {
			t.Errorf("Hash(%q) = %#x, want %#x", tt.term, got, tt.want)
		}
	}
}

// TestAnalyzeRandom checks the contract on random text.
func TestAnalyzeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a := MustNew("english")
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		checkAnalyze(t, a, randomText(r))
	}
}

// FuzzAnalyze runs the same checks on fuzzed bytes.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"The running foxes, it's mutex_unlock a:b 3.14 1,000",
		"日本語 カタカナ ひらがな 한국어 ＡＢＣ１２３ สวัสดี",
		"foo\xffbar \xc3 e\u0301 İ ẞ \u200d",
		strings.Repeat("x", 65) + " " + strings.Repeat("é", 33),
	} {
		f.Add([]byte(s))
	}
	a := MustNew("english")
	f.Fuzz(func(t *testing.T, text []byte) {
		checkAnalyze(t, a, text)
	})
}

// checkAnalyze asserts, for any text: tokens are in order and in range; each
// token's surface is valid UTF-8 taken from the text as it was, and
// lowercases and stems to the token's term; invalid bytes act as spaces; the
// analyzer's cache changes nothing; Terms agrees with Analyze; and a token's
// surface analyzed alone gives the token's term (queries rely on it).
func checkAnalyze(t *testing.T, a *Analyzer, text []byte) {
	t.Helper()
	orig := bytes.Clone(text)
	toks := a.Analyze(nil, text)
	if !bytes.Equal(text, orig) {
		t.Fatalf("Analyze(%q) modified its input", orig)
	}
	prevEnd, prevPos := 0, -1
	for _, tk := range toks {
		if tk.Start < prevEnd || tk.End <= tk.Start || tk.End > len(text) || tk.Pos <= prevPos {
			t.Fatalf("Analyze(%q): token %v after end %d, pos %d", text, tk, prevEnd, prevPos)
		}
		prevEnd, prevPos = tk.End, tk.Pos
		surface := text[tk.Start:tk.End]
		if !utf8.Valid(surface) {
			t.Fatalf("Analyze(%q): token %v spans invalid UTF-8 %q", text, tk, surface)
		}
		lower := string(bytes.ToLower(surface))
		if len(lower) > MaxTokenBytes || english.IsStopWord(lower) || tk.Term != english.Stem(lower, false) {
			t.Fatalf("Analyze(%q): token %v from %q", text, tk, surface)
		}
		if term, ok := a.Term(string(surface)); term != tk.Term || !ok {
			t.Fatalf("Analyze(%q): token %v, but Term(%q) = %q, %v", text, tk, surface, term, ok)
		}
	}

	// Invalid bytes are spaces: the text with them replaced analyzes the same.
	clean := bytes.Clone(text)
	for i := 0; i < len(clean); {
		r, size := utf8.DecodeRune(clean[i:])
		if r == utf8.RuneError && size == 1 {
			clean[i] = ' '
		}
		i += size
	}
	if got := a.Analyze(nil, clean); !reflect.DeepEqual(got, toks) {
		t.Fatalf("Analyze(%q) = %v, but with invalid bytes as spaces %v", text, toks, got)
	}
	if got := MustNew("english").Analyze(nil, text); !reflect.DeepEqual(got, toks) {
		t.Fatalf("Analyze(%q) = %v with a used analyzer, %v with a fresh one", text, toks, got)
	}
	terms := a.Terms(nil, text)
	if len(terms) != len(toks) {
		t.Fatalf("Analyze(%q): %d tokens but %d terms", text, len(toks), len(terms))
	}
	for i, term := range terms {
		if term != toks[i].Term {
			t.Fatalf("Analyze(%q): Terms = %q, tokens %v", text, terms, toks)
		}
	}
}

// randomText mixes the characters that matter to segmentation and analysis:
// word joiners, apostrophes, stop words, scripts, marks, long runs and bytes
// that are not UTF-8.
func randomText(r *rand.Rand) []byte {
	pieces := []string{
		"the", "of", "it", "it's", "running", "Foxes", "mutex_unlock", "e.g", "3.14", "1,000",
		"a", "b", " ", " ", " ", "\n", "\t", "'", "’", ".", ",", ":", "_", "-", "\"", "(", "*",
		"é", "e\u0301", "İ", "ẞ", "Ⱥ", "ß", "日", "本", "カ", "ひ", "한", "ﾃ", "１", "ก",
		"צ", "\u05d4\"\u05dc", "\u200d", "\u00ad", "\ufeff", "😀", "\U0001F1FA", "\u0660",
		"\xff", "\xc3", "\xe6\x97", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	}
	var b []byte
	for range r.IntN(40) {
		switch r.IntN(20) {
		case 0:
			b = utf8.AppendRune(b, rune(r.IntN(0x30000)))
		case 1:
			b = append(b, strings.Repeat("x", 60+r.IntN(8))...)
		case 2:
			b = append(b, byte(r.IntN(256)))
		default:
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
	}
	return b
}

// TestWordsAgreeWithAnalyze: Words numbers and places every word segment as
// Analyze does, stop words and dropped words included.
func TestWordsAgreeWithAnalyze(t *testing.T) {
	a := MustNew("english")
	text := []byte("The quick brown fox — it's 3.14 jumps\xffover the lazy dog's back; 日本語 and " + strings.Repeat("x", 70) + " end")
	at := map[int][2]int{}
	n := 0
	a.Words(text, func(pos, start, end int) {
		if pos != n {
			t.Fatalf("word %d has position %d", n, pos)
		}
		n++
		at[pos] = [2]int{start, end}
	})
	for _, tok := range a.Analyze(nil, text) {
		if r := at[tok.Pos]; r != [2]int{tok.Start, tok.End} {
			t.Errorf("token %q at position %d: Words has %v, Analyze %d–%d", tok.Term, tok.Pos, r, tok.Start, tok.End)
		}
	}
	if toks := a.Analyze(nil, text); n <= len(toks) {
		t.Errorf("Words saw %d words, Analyze kept %d: stop words are missing", n, len(toks))
	}
}

// TestWindowsSegmentAsOnePiece: a text longer than a window is segmented
// exactly as it is in one piece, whatever lies around the line feeds where
// the windows are cut (CR LF pairs, combining marks, joiners, words).
func TestWindowsSegmentAsOnePiece(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 4 {
		var text []byte
		for len(text) < 3*windowBytes+round*1000 {
			text = append(text, randomText(r)...)
			switch r.IntN(4) {
			case 0:
				text = append(text, "\r\n"...)
			case 1:
				text = append(text, "\n\u0301x"...)
			case 2:
				text = append(text, "\n\u200d😀"...)
			}
		}
		if round == 3 {
			// One line longer than a window: it is segmented whole.
			text = append(text, bytes.Repeat([]byte("long line "), windowBytes/5)...)
		}
		a := MustNew("english")
		type seg struct{ start, end int }
		var got []seg
		a.Words(text, func(_, start, end int) { got = append(got, seg{start, end}) })
		// The reference: the segmenter given the whole text at once.
		var want []seg
		data := a.validUTF8(text)
		for off := 0; off < len(data); {
			rest := data[off:]
			segs, types, n, _ := segment.SegmentWordsDirect(rest, nil, nil)
			for i, s := range segs {
				if types[i] != segment.None {
					start := off + cap(rest) - cap(s)
					want = append(want, seg{start, start + len(s)})
				}
			}
			if n <= 0 {
				_, n = utf8.DecodeRune(rest)
			}
			off += n
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: %d segments in windows, %d in one piece", round, len(got), len(want))
		}
		if len(want) < 1000 {
			t.Fatalf("round %d: only %d segments", round, len(want))
		}
	}
}

// TestAlnumWordsAreOneSegment checks the premise of the analyzer's fast
// path against the segmenter itself: a run of ASCII letters and digits is
// one word segment, never None, so a text that is one such run analyzes
// as the segmenter would have it.
func TestAlnumWordsAreOneSegment(t *testing.T) {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"a", "Z", "7", "2024", "x86", "3d", "abc123def", "IPv6", strings.Repeat("q", MaxTokenBytes), strings.Repeat("q", MaxTokenBytes+1), "the", "running"}
	for range 5000 {
		b := make([]byte, 1+r.IntN(80))
		for i := range b {
			b[i] = alnum[r.IntN(len(alnum))]
		}
		words = append(words, string(b))
	}
	a := MustNew("english")
	for _, w := range words {
		if !alnumWord([]byte(w)) {
			t.Fatalf("alnumWord(%q) = false", w)
		}
		segs, types, n, err := segment.SegmentWordsDirect([]byte(w), nil, nil)
		if err != nil || n != len(w) || len(segs) != 1 || string(segs[0]) != w || types[0] == segment.None {
			t.Fatalf("the segmenter splits %q as %q (types %v, %d bytes, %v): not one word", w, segs, types, n, err)
		}
		var want []Token
		if lower := strings.ToLower(w); len(lower) <= MaxTokenBytes && !english.IsStopWord(lower) {
			want = []Token{{Term: english.Stem(lower, false), Pos: 0, Start: 0, End: len(w)}}
		}
		if got := a.Analyze(nil, []byte(w)); !reflect.DeepEqual(got, want) {
			t.Fatalf("Analyze(%q) = %v, want %v", w, got, want)
		}
	}
	for _, s := range []string{"", "a b", "a-b", "a_b", "a.b", "a'b", "é", "a\n"} {
		if alnumWord([]byte(s)) {
			t.Fatalf("alnumWord(%q) = true", s)
		}
	}
}

// TestASCIIFastPathEqualsSegmenter: for ASCII text, asciiSegments gives
// the segmenter's words, byte for byte, on random strings over every ASCII
// byte (most draws from the letters, digits and the punctuation that joins
// them) and on the lines of this package's sources and the sample corpus.
func TestASCIIFastPathEqualsSegmenter(t *testing.T) {
	a := MustNew("english")
	type seg struct {
		term       string
		start, end int
	}
	collect := func(f func([]byte, bool, func(string, int, int)), text []byte) []seg {
		var out []seg
		f(text, true, func(term string, start, end int) { out = append(out, seg{term, start, end}) })
		return out
	}
	check := func(text []byte) {
		t.Helper()
		if !ascii(text) {
			return
		}
		got, want := collect(a.asciiSegments, text), collect(a.segmenterSegments, text)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fast path %v, segmenter %v", text, got, want)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	const common = "abcXYZ019_:.,;'\" -/()\t\n\r "
	for range 200000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			if r.IntN(8) == 0 {
				b[i] = byte(r.IntN(128))
			} else {
				b[i] = common[r.IntN(len(common))]
			}
		}
		check(b)
	}
	for _, s := range []string{"", " ", "don't", "3.14", "e.g.", "a_b", "_a", "a_", "1,000.5", "x:y", "'quoted'", "end.", ".5", "a..b", "a.'b", "foo\r\nbar", "tab\there", "a\x00b", "\x7fz"} {
		check([]byte(s))
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatal("no sources", err)
	}
	var texts [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, data)
	}
	zst, err := os.ReadFile("../corpus/sample/sample.jsonl.zst")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	jsonl, err := dec.DecodeAll(zst, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range bytes.Split(jsonl, []byte("\n")) {
		var doc struct{ Title, Body string }
		if json.Unmarshal(line, &doc) == nil {
			texts = append(texts, []byte(doc.Title), []byte(doc.Body))
			n++
		}
	}
	if n < 100 {
		t.Fatalf("only %d documents in the sample corpus", n)
	}
	checked := 0
	for _, text := range texts {
		for _, line := range bytes.Split(text, []byte("\n")) {
			check(line)
		}
		if ascii(text) {
			checked++
		}
		check(text)
	}
	t.Logf("%d texts of %d in ASCII checked whole and by line", checked, len(texts))
}

// TestSharedStemCache checks that analyzers sharing a StemCache, used at
// once from several goroutines (run with -race), analyze every text as an
// analyzer with a cache of its own does.
func TestSharedStemCache(t *testing.T) {
	if _, err := NewStemCache("klingon"); err == nil {
		t.Fatal("NewStemCache accepted an unknown language")
	}
	for _, lang := range []string{"english", "code"} {
		c, err := NewStemCache(lang)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		texts := make([][]byte, 300)
		want := make([][]Token, len(texts))
		own := MustNew(lang)
		for i := range texts {
			texts[i] = randomText(r)
			want[i] = own.Analyze(nil, texts[i])
		}
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := NewShared(c)
				if a.Name() != lang {
					t.Errorf("NewShared: analyzer %q, want %q", a.Name(), lang)
				}
				for pass := 0; pass < 2; pass++ {
					for i := range texts {
						j := (i + 37*g) % len(texts)
						if got := a.Analyze(nil, texts[j]); !reflect.DeepEqual(got, want[j]) {
							t.Errorf("%s, goroutine %d: Analyze(%q) = %v, want %v", lang, g, texts[j], got, want[j])
							return
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}
