package query

import (
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/tokenize"
)

func TestSnippetHighlights(t *testing.T) {
	a := tokenize.MustNew("english")
	text := []byte(strings.Repeat("filler words here.\n", 40) + "A Bloom\n\n   filter\tis a set.\n" + strings.Repeat("more filler text. ", 40))
	hl := map[string]bool{"bloom": true, "filter": true}
	snip, rs := makeSnippet(text, a.Analyze(nil, text), hl, SnippetBytes)
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
	snip, rs := makeSnippet(text, a.Analyze(nil, text), map[string]bool{"tabl": true}, SnippetBytes)
	if snip != "Hash tables" || len(rs) != 1 || snip[rs[0].Start:rs[0].End] != "tables" {
		t.Fatalf("got %q %v", snip, rs)
	}
}

// TestSnippetLongText: matches far into a long text are found, and offsets
// stay right across analysis chunks.
func TestSnippetLongText(t *testing.T) {
	a := tokenize.MustNew("english")
	text := []byte(strings.Repeat("lorem ipsum dolor sit amet ", 20000) + "the Bloom filter here")
	snip, rs := makeSnippet(text, snippetTokens(a, text, map[string]bool{"bloom": true}), map[string]bool{"bloom": true}, SnippetBytes)
	if len(rs) != 1 || snip[rs[0].Start:rs[0].End] != "Bloom" {
		t.Fatalf("got %q %v", snip, rs)
	}
}
