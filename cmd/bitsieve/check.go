package main

import (
	"fmt"
	"io"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
)

func init() {
	register(command{"check", "verify every checksum and invariant of an index", runCheck})
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", "", stderr)
	dir := fs.String("index", "", "index directory (default $BITSIEVE_INDEX or ~/.local/share/bitsieve/index)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *dir == "" {
		*dir = defaultIndexDir()
	}
	rep, err := index.Check(*dir)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	inv := 0
	if len(rep.Problems) == 0 {
		// The roaring baseline's postings files, where bench left them.
		ix, err := index.Open(*dir)
		if err != nil {
			rep.Problems = append(rep.Problems, err)
		} else {
			var probs []error
			inv, probs = inverted.CheckFiles(ix)
			rep.Problems = append(rep.Problems, probs...)
			ix.Close()
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(stdout, "problem: %v\n", p)
	}
	if len(rep.Problems) > 0 {
		fmt.Fprintf(stdout, "%s: %d problems found\n", *dir, len(rep.Problems))
		return exitNoMatch
	}
	deleted := ""
	if rep.Deleted > 0 {
		deleted = fmt.Sprintf(" and %d deleted", rep.Deleted)
	}
	postings := ""
	if inv > 0 {
		postings = fmt.Sprintf(", and %d postings files of the roaring baseline", inv)
	}
	fmt.Fprintf(stdout, "%s: ok (%d documents%s in %d segments, %s%s; every checksum and invariant holds)\n",
		*dir, rep.Docs, deleted, rep.Segments, humanBytes(rep.Bytes), postings)
	return exitOK
}
