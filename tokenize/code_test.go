package tokenize

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAnalyzeCode pins the code analyzer's output: how identifiers split,
// where the whole word and its parts sit, and what it keeps that english
// drops.
func TestAnalyzeCode(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Token
	}{
		{"empty", "", nil},
		{"punctuation only", " .:: -> / () _ __ ", nil},
		{"qualified name", "sync.WaitGroup", []Token{
			tok("sync", 0, 0, 4), tok("waitgroup", 1, 5, 14), tok("wait", 2, 5, 9), tok("group", 3, 9, 14)}},
		{"one part is one token", "go waitgroup HTTP", []Token{
			tok("go", 0, 0, 2), tok("waitgroup", 1, 3, 12), tok("http", 2, 13, 17)}},
		{"separators", "a::b->c/d.e", []Token{
			tok("a", 0, 0, 1), tok("b", 1, 3, 4), tok("c", 2, 6, 7), tok("d", 3, 8, 9), tok("e", 4, 10, 11)}},
		{"underscores", "mutex_unlock __init__", []Token{
			tok("mutex_unlock", 0, 0, 12), tok("mutex", 1, 0, 5), tok("unlock", 2, 6, 12),
			tok("__init__", 3, 13, 21), tok("init", 4, 15, 19)}},
		{"lower camel", "wg.Add(1)", []Token{tok("wg", 0, 0, 2), tok("add", 1, 3, 6), tok("1", 2, 7, 8)}},
		{"acronym then word", "HTTPServer", []Token{
			tok("httpserver", 0, 0, 10), tok("http", 1, 0, 4), tok("server", 2, 4, 10)}},
		{"acronym plural and short tail", "URLs IPv4 ABc", []Token{
			tok("urls", 0, 0, 4), tok("ipv4", 1, 5, 9), tok("abc", 2, 10, 13)}},
		{"digits stay with their part", "parseURL2 utf8String Int64Slice", []Token{
			tok("parseurl2", 0, 0, 9), tok("parse", 1, 0, 5), tok("url2", 2, 5, 9),
			tok("utf8string", 3, 10, 20), tok("utf8", 4, 10, 14), tok("string", 5, 14, 20),
			tok("int64slice", 6, 21, 31), tok("int64", 7, 21, 26), tok("slice", 8, 26, 31)}},
		{"number literals stay whole", "0x1F 1e9 1_000 x86_64", []Token{
			tok("0x1f", 0, 0, 4), tok("1e9", 1, 5, 8), tok("1_000", 2, 9, 14),
			tok("x86_64", 3, 15, 21), tok("x86", 4, 15, 18), tok("64", 5, 19, 21)}},
		{"no stop words, no stemming", "if for return running the", []Token{
			tok("if", 0, 0, 2), tok("for", 1, 3, 6), tok("return", 2, 7, 13), tok("running", 3, 14, 21), tok("the", 4, 22, 25)}},
		{"unicode", "CaféBar Größe 日本語Foo", []Token{
			tok("cafébar", 0, 0, 8), tok("café", 1, 0, 5), tok("bar", 2, 5, 8),
			tok("größe", 3, 9, 16),
			tok("日本語foo", 4, 17, 29), tok("日本語", 5, 17, 26), tok("foo", 6, 26, 29)}},
		{"combining mark before a capital", "Cafe\u0301Bar", []Token{
			tok("cafe\u0301bar", 0, 0, 9), tok("cafe\u0301", 1, 0, 6), tok("bar", 2, 6, 9)}},
		{"invalid bytes separate", "foo\xffBar", []Token{tok("foo", 0, 0, 3), tok("bar", 1, 4, 7)}},
	}
	a := MustNew("code")
	for _, tt := range tests {
		if got := a.Analyze(nil, []byte(tt.text)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Analyze(%q) =\n  %v\nwant\n  %v", tt.name, tt.text, got, tt.want)
		}
	}
}

// TestAnalyzeCodeLong: a term longer than MaxTokenBytes is dropped and
// keeps its position, so a long identifier is still found by its parts.
func TestAnalyzeCodeLong(t *testing.T) {
	a := MustNew("code")
	long := strings.Repeat("Ab", 40) // 80 bytes, 40 parts
	got := a.Analyze(nil, []byte(long+" end"))
	if len(got) != 41 {
		t.Fatalf("Analyze(%d-byte identifier) = %d tokens, want its 40 parts and end", len(long), len(got))
	}
	for i, tk := range got[:40] {
		if want := tok("ab", i+1, 2*i, 2*i+2); tk != want {
			t.Errorf("part %d = %v, want %v", i, tk, want)
		}
	}
	if want := tok("end", 41, 81, 84); got[40] != want {
		t.Errorf("after the identifier: %v, want %v", got[40], want)
	}
	huge := strings.Repeat("x", 200)
	if got := a.Analyze(nil, []byte(huge+" y")); !slices.Equal(got, []Token{tok("y", 1, 201, 202)}) {
		t.Errorf("Analyze(200 x, y) = %v, want y at position 1", got)
	}
}

// TestCodeQueriesAnalyzeLikeText: every way of writing an identifier that
// a query may use analyzes to terms the text holds at the same relative
// positions.
func TestCodeQueriesAnalyzeLikeText(t *testing.T) {
	a := MustNew("code")
	doc := a.Analyze(nil, []byte("var wg sync.WaitGroup\nwg.Add(1)"))
	at := map[int]string{}
	for _, tk := range doc {
		at[tk.Pos] = tk.Term
	}
	found := func(q string) bool {
		qt := a.Analyze(nil, []byte(q))
		for _, s := range doc {
			if s.Term != qt[0].Term {
				continue
			}
			ok := true
			for _, x := range qt[1:] {
				ok = ok && at[s.Pos+x.Pos-qt[0].Pos] == x.Term
			}
			if ok {
				return true
			}
		}
		return false
	}
	for _, q := range []string{"WaitGroup", "waitgroup", "sync.WaitGroup", "wait group", "wg.Add", "Add(1)", "var wg"} {
		if !found(q) {
			t.Errorf("%q, analyzed as %v, is not in the text's tokens %v", q, a.Analyze(nil, []byte(q)), doc)
		}
	}
	for _, q := range []string{"sync.Wait", "wg.AddAll", "wait_group", "group sync"} {
		if found(q) {
			t.Errorf("%q is found at adjacent positions, but the text does not hold it", q)
		}
	}
	if a.Restartable() || !MustNew("english").Restartable() {
		t.Error("Restartable: code must not be, english must be")
	}
}

// TestAnalyzeCodeRandom checks the code analyzer's contract on random text:
// positions ascend one token each; each token's term is its surface
// lowercased; a word's first token starts where analysis of the word alone
// starts and gives the same terms; Words and Terms agree with Analyze.
func TestAnalyzeCodeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := MustNew("code")
	pieces := []string{"sync", ".", "WaitGroup", "HTTPServer", "_", "__", "x86_64", "URLs", "::", "->", "/", " ", "\n",
		"parseURL2", "0x1F", "if", "é", "e\u0301", "Ö", "日本", "ǅ", "İ", "\xff", "\xe6\x97", "A", "b", "9", "(", ")"}
	for range 5000 {
		var b []byte
		for range r.IntN(30) {
			if r.IntN(30) == 0 {
				b = append(b, strings.Repeat("Ab", 30+r.IntN(4))...)
			} else {
				b = append(b, pieces[r.IntN(len(pieces))]...)
			}
		}
		checkAnalyzeCode(t, a, b)
	}
}

func checkAnalyzeCode(t *testing.T, a *Analyzer, text []byte) {
	t.Helper()
	toks := a.Analyze(nil, text)
	prevPos, prevStart := -1, 0
	for _, tk := range toks {
		if tk.Pos <= prevPos || tk.Start < prevStart || tk.End <= tk.Start || tk.End > len(text) {
			t.Fatalf("Analyze(%q): token %v after position %d, start %d", text, tk, prevPos, prevStart)
		}
		prevPos, prevStart = tk.Pos, tk.Start
		surface := text[tk.Start:tk.End]
		if !utf8.Valid(surface) || tk.Term != string(bytes.ToLower(surface)) || len(tk.Term) > MaxTokenBytes {
			t.Fatalf("Analyze(%q): token %v from %q", text, tk, surface)
		}
	}
	// Every word analyzed alone gives the terms the text has there.
	pos := map[int]Token{}
	for _, tk := range toks {
		pos[tk.Pos] = tk
	}
	for _, tk := range toks {
		if prev, ok := pos[tk.Pos-1]; ok && prev.Start <= tk.Start && tk.End <= prev.End {
			continue // a part of the word before
		}
		alone := a.Analyze(nil, text[tk.Start:tk.End])
		for _, x := range alone {
			if got := pos[tk.Pos+x.Pos-alone[0].Pos]; got.Term != x.Term {
				t.Fatalf("Analyze(%q): word %q alone gives %v, the text %v", text, text[tk.Start:tk.End], alone, toks)
			}
		}
	}
	n := 0
	a.Words(text, func(p, start, end int) {
		if tk, ok := pos[p]; ok && (tk.Start != start || tk.End != end) {
			t.Fatalf("Analyze(%q): Words has %d at %d–%d, Analyze %v", text, p, start, end, tk)
		}
		n++
	})
	if len(toks) > 0 && n < toks[len(toks)-1].Pos+1 {
		t.Fatalf("Analyze(%q): Words saw %d positions, Analyze reached %d", text, n, toks[len(toks)-1].Pos)
	}
	if got := MustNew("code").Analyze(nil, text); !reflect.DeepEqual(got, toks) {
		t.Fatalf("Analyze(%q) = %v with a used analyzer, %v with a fresh one", text, toks, got)
	}
	if terms := a.Terms(nil, text); len(terms) != len(toks) {
		t.Fatalf("Analyze(%q): %d tokens, %d terms", text, len(toks), len(terms))
	}
}
