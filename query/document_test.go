package query

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
)

// TestDocumentWindows: a long document read a window at a time, from the
// start by Next, gives back its whole text, its line numbers, and exactly
// the highlights that analysing the whole text gives; the window a query
// opens on holds its first match. English and code, words, phrases,
// prefixes and ORs, multi-byte characters at window edges.
func TestDocumentWindows(t *testing.T) {
	for _, lang := range []string{"english", "code"} {
		t.Run(lang, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(len(lang))))
			words := []string{"lorem", "ipsum", "dolor", "café", "naïve", "whale", "white", "sea", "ship", "waitGroup", "x_y", "ünï", "the", "of"}
			text := func(n int) []byte {
				var b bytes.Buffer
				for b.Len() < n {
					b.WriteString(words[r.IntN(len(words))])
					switch r.IntN(12) {
					case 0:
						b.WriteString("\n")
					case 1:
						b.WriteString(".\n\n")
					default:
						b.WriteString(" ")
					}
				}
				return b.Bytes()
			}
			long := func(n int, rare string, at int) []byte {
				t := text(n)
				return slices.Concat(t[:at], []byte(" "+rare+" white whale "), t[at:])
			}
			docs := []index.Document{
				{Key: "short", Text: text(5000)},
				{Key: "late", Text: long(3*DocumentWindow, "kraken", 2*DocumentWindow+1000)},
				{Key: "mid", Text: long(2*DocumentWindow, "kraken", DocumentWindow+5000)},
				{Key: "edge", Text: long(2*DocumentWindow+77, "kraken", DocumentWindow-6)},
				{Key: "early", Text: long(DocumentWindow+3, "kraken", 10)},
			}
			dir := createIndex(t, docs, index.WriterOptions{Analyzer: lang})
			_, s := openSearcher(t, dir)
			an := tokenize.MustNew(lang)
			for _, q := range []string{"", "kraken", "whale", `"white whale"`, "wh*", "kraken OR sea", `"sea ship" OR kraken`, "waitgroup", "caf*"} {
				for _, d := range docs {
					name := fmt.Sprintf("%s %q", d.Key, q)
					var want []Range
					if q != "" {
						c, err := s.compile(q)
						if err != nil {
							t.Fatal(err)
						}
						want = newHighlighter(c).ranges(an.Analyze(nil, validUTF8(bytes.Clone(d.Text))))
					}
					// From the start, window by window.
					var got []Range
					var all strings.Builder
					lines := 1
					for from, n := 0, 0; ; n++ {
						v, err := s.Document(d.Key, q, from)
						if err != nil {
							t.Fatalf("%s from %d: %v", name, from, err)
						}
						if v.Offset != all.Len() || v.Line != lines || v.Length != len(d.Text) {
							t.Fatalf("%s window %d: offset %d line %d length %d, want %d %d %d", name, n, v.Offset, v.Line, v.Length, all.Len(), lines, len(d.Text))
						}
						if len(v.Text) > DocumentWindow+4 {
							t.Fatalf("%s window %d: %d bytes", name, n, len(v.Text))
						}
						all.WriteString(v.Text)
						lines += strings.Count(v.Text, "\n")
						for _, h := range v.Highlights {
							h.Start, h.End = h.Start+v.Offset, h.End+v.Offset
							if k := len(got); k > 0 && got[k-1].End == h.Start && h.Start == v.Offset {
								got[k-1].End = h.End // one range cut by the window's edge
								continue
							}
							got = append(got, h)
						}
						if v.Next == nil {
							break
						}
						if (*v.Next-v.Offset)%DocumentWindow > 4 || v.Prev == nil && v.Offset > 0 {
							t.Fatalf("%s window %d: next %d prev %v", name, n, *v.Next, v.Prev)
						}
						from = *v.Next
					}
					if all.String() != string(validUTF8(bytes.Clone(d.Text))) { // invalid bytes become spaces
						a, b := all.String(), string(validUTF8(bytes.Clone(d.Text)))
						i := 0
						for i < len(a) && i < len(b) && a[i] == b[i] {
							i++
						}
						t.Fatalf("%s: the windows do not give back the text: %d, %d bytes, first difference at %d: %q, %q", name, len(a), len(b), i, a[max(0, i-10):min(len(a), i+10)], b[max(0, i-10):min(len(b), i+10)])
					}
					if !slices.Equal(got, want) {
						t.Fatalf("%s: highlights %v, want %v", name, got, want)
					}
					// The window a query opens on holds its first match.
					v, err := s.Document(d.Key, q, -1)
					if err != nil {
						t.Fatal(err)
					}
					if len(want) > 0 && (want[0].Start < v.Offset || want[0].Start >= v.Offset+len(v.Text) || len(v.Highlights) == 0 || v.Highlights[0].Start+v.Offset != want[0].Start) {
						t.Fatalf("%s: opens at %d (%d bytes), first match at %d", name, v.Offset, len(v.Text), want[0].Start)
					}
					if len(want) == 0 && v.Offset != 0 {
						t.Fatalf("%s: no match, opens at %d", name, v.Offset)
					}
				}
			}
		})
	}
}
