package query

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
)

func TestSnippetHighlights(t *testing.T) {
	a := tokenize.MustNew("english")
	text := []byte(strings.Repeat("filler words here.\n", 40) + "A Bloom\n\n   filter\tis a set.\n" + strings.Repeat("more filler text. ", 40))
	hl := &highlighter{words: map[string]bool{"bloom": true, "filter": true}}
	rs := hl.ranges(a.Analyze(nil, text))
	snip, rs, _ := makeSnippet(text, 0, len(text), rs[0].Start-SnippetBytes/4, rs, SnippetBytes)
	if len(rs) != 2 {
		t.Fatalf("%d highlights in %q, want 2", len(rs), snip)
	}
	if got := snip[rs[0].Start:rs[0].End] + " " + snip[rs[1].Start:rs[1].End]; got != "Bloom filter" {
		t.Errorf("highlighted %q, want %q", got, "Bloom filter")
	}
	if !strings.Contains(snip, "A Bloom filter is a set.") {
		t.Errorf("whitespace not collapsed: %q", snip)
	}
	if !strings.HasPrefix(snip, "…") || !strings.HasSuffix(snip, "…") {
		t.Errorf("cut ends are not marked: %q", snip)
	}
	if len(snip) > SnippetBytes+8 {
		t.Errorf("snippet is %d bytes", len(snip))
	}
}

func TestSnippetShortText(t *testing.T) {
	a := tokenize.MustNew("english")
	text := []byte("Hash tables")
	hl := &highlighter{words: map[string]bool{"tabl": true}}
	snip, rs, first := makeSnippet(text, 0, len(text), 0, hl.ranges(a.Analyze(nil, text)), SnippetBytes)
	if snip != "Hash tables" || len(rs) != 1 || snip[rs[0].Start:rs[0].End] != "tables" || first != 5 {
		t.Fatalf("got %q %v", snip, rs)
	}
}

// TestHighlightPhrase: a phrase is marked where it occurs, as one range,
// and its words are not marked alone; a stop word inside a phrase holds a
// position that any stop word fills, as the analyzer contract has it.
func TestHighlightPhrase(t *testing.T) {
	a := tokenize.MustNew("english")
	text := []byte("whales and a whale; the white whale; Bank of America, bank in America")
	hl := &highlighter{words: map[string]bool{}, phrases: []*Phrase{
		{Terms: []string{"white", "whale"}, Offsets: []int{0, 1}},
		{Terms: []string{"bank", "america"}, Offsets: []int{0, 2}},
	}}
	var got []string
	for _, r := range hl.ranges(a.Analyze(nil, text)) {
		got = append(got, string(text[r.Start:r.End]))
	}
	if want := []string{"white whale", "Bank of America", "bank in America"}; !slices.Equal(got, want) {
		t.Fatalf("highlighted %q, want %q", got, want)
	}
}

// TestSnippetsFromPositions: snippets found through the positions of long
// documents, far from their start and across many marks, highlight exactly
// the query's words and phrases, and prefer the window where the phrase
// occurs.
func TestSnippetsFromPositions(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet, whale ", 3000)
	docs := []index.Document{
		{Key: "a", Text: []byte(filler + "Call me Ishmael. The white whale swam on. " + filler)},
		{Key: "b", Text: []byte("Über naïve café — " + strings.Repeat("ünïcödé wörds ", 500) + "the WHITE   Whale\tagain, white whales")},
		{Key: "c", Text: []byte("white whale at the very start")},
	}
	dir := createIndex(t, docs, index.WriterOptions{})
	_, s := openSearcher(t, dir)
	for _, q := range []string{`"white whale"`, `"white whale" ishmael`, `ishmael OR café`} {
		res, err := s.Search(context.Background(), Request{Query: q, Snippets: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if len(h.Highlights) == 0 {
				t.Errorf("%q: %s has no highlight in %q", q, h.Key, h.Snippet)
			}
			for _, r := range h.Highlights {
				w := strings.ToLower(strings.Join(strings.Fields(h.Snippet[r.Start:r.End]), " "))
				switch w {
				case "white whale", "white whales", "ishmael", "café":
				default:
					t.Errorf("%q: %s highlights %q in %q", q, h.Key, w, h.Snippet)
				}
			}
		}
	}
}

// TestSnippetLongText: matches far into a long text are found, and offsets
// stay right across analysis chunks.
func TestSnippetLongText(t *testing.T) {
	docs := []index.Document{{Key: "long", Text: []byte(strings.Repeat("lorem ipsum dolor sit amet ", 20000) + "the Bloom filter here")}}
	_, s := openSearcher(t, createIndex(t, docs, index.WriterOptions{}))
	res, err := s.Search(context.Background(), Request{Query: "bloom", Snippets: true})
	if err != nil || len(res.Hits) != 1 {
		t.Fatal(res, err)
	}
	h := res.Hits[0]
	if len(h.Highlights) != 1 || h.Snippet[h.Highlights[0].Start:h.Highlights[0].End] != "Bloom" {
		t.Fatalf("got %q %v", h.Snippet, h.Highlights)
	}
}

// TestHitLine: a hit gives the line of its snippet's first highlight, in
// short texts, in long ones read from a later store block, and with the
// code analyzer, whose snippets are analyzed from the text's start.
func TestHitLine(t *testing.T) {
	lines := func(n int, s string) string { return strings.Repeat(s+"\n", n) }
	tests := []struct {
		lang, text, query, highlight string
		line                         int
	}{
		{"english", "Bloom filter", "bloom", "Bloom", 1},
		{"english", lines(4, "lorem ipsum") + "a Bloom\nfilter", `"bloom filter"`, "Bloom filter", 5},
		{"english", lines(3000, "lorem ipsum dolor sit amet") + "the Bloom filter", "bloom", "Bloom", 3001},
		{"english", lines(20, "lorem") + "whale\n" + lines(3000, "lorem ipsum dolor sit amet") + "white whale", `"white whale"`, "white whale", 3022},
		{"code", "package sync\n\ntype WaitGroup struct{}", "waitgroup", "WaitGroup", 3},
	}
	// Seven tokens a line (x, y, foobarbaz, foo, bar, baz, z), a mark every
	// 32 tokens: with five more lines each time (35 tokens), the mark
	// analysis would start from falls on each of the seven in turn.
	for n := 2000; n < 2035; n += 5 {
		text := lines(n, "x := y.FooBarBaz(z)") + "var wg sync.WaitGroup\nwg.Add(1)"
		tests = append(tests, []struct {
			lang, text, query, highlight string
			line                         int
		}{
			{"code", text, `"sync.WaitGroup"`, "sync.WaitGroup", n + 1},
			{"code", text, `"wait group"`, "WaitGroup", n + 1},
			{"code", text, "wg.Add", "wg", n + 1},
		}...)
	}
	for _, tt := range tests {
		docs := []index.Document{{Key: "d", Text: []byte(tt.text)}}
		_, s := openSearcher(t, createIndex(t, docs, index.WriterOptions{Analyzer: tt.lang}))
		res, err := s.Search(context.Background(), Request{Query: tt.query, Snippets: true})
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("%s %q: %v %v", tt.lang, tt.query, res, err)
		}
		h := res.Hits[0]
		if len(h.Highlights) == 0 {
			t.Fatalf("%s %q: no highlight in %q", tt.lang, tt.query, h.Snippet)
		}
		if got := h.Snippet[h.Highlights[0].Start:h.Highlights[0].End]; got != tt.highlight || h.Line != tt.line {
			t.Errorf("%s %q: first highlight %q at line %d, want %q at line %d (snippet %q)", tt.lang, tt.query, got, h.Line, tt.highlight, tt.line, h.Snippet)
		}
	}
}
