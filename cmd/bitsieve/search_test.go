package main

import (
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/query"
)

// TestPrintHits: a hit's key reads path:line: when its line is known, as
// grep prints it, and stays bare otherwise.
func TestPrintHits(t *testing.T) {
	res := &query.Result{Total: 3, Hits: []query.Hit{
		{Key: "src/sync/waitgroup.go", Score: 2.5, Snippet: "type WaitGroup struct {", Highlights: []query.Range{{Start: 5, End: 14}}, Line: 23},
		{Key: "notes.txt", Title: "Notes", Score: 1.25, Snippet: "a WaitGroup", Line: 1},
		{Key: "no/snippet.go", Score: 1},
	}}
	var b strings.Builder
	printHits(&b, res, 0, false)
	want := []string{
		"  1. src/sync/waitgroup.go:23:  (2.50)",
		"     type WaitGroup struct {",
		"  2. Notes — notes.txt:1:  (1.25)",
		"     a WaitGroup",
		"  3. no/snippet.go  (1.00)",
	}
	got := strings.Split(b.String(), "\n")
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Fatalf("printHits wrote\n%s\nwant line %d: %q", b.String(), i+1, w)
		}
	}
}
