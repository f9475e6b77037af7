package main

import (
	"encoding/json"
	"fmt"
	"github.com/spf13/pflag"
	"io"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
)

func init() {
	register(command{name: "check", args: "", summary: "verify every checksum and invariant of an index", define: runCheck})
}

func runCheck(fs *pflag.FlagSet) runFunc {
	dir := fs.String("index", "", "index directory (default $BITSIEVE_INDEX or ~/.local/share/bitsieve/index)")
	asJSON := fs.Bool("json", false, "print the report as JSON: {index, ok, documents, deleted, segments, bytes, postings_files, problems}")
	return func(args []string, stdout, stderr io.Writer) int {
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
		if *asJSON {
			problems := make([]string, len(rep.Problems))
			for i, p := range rep.Problems {
				problems[i] = p.Error()
			}
			json.NewEncoder(stdout).Encode(map[string]any{
				"index": *dir, "ok": len(problems) == 0, "documents": rep.Docs, "deleted": rep.Deleted,
				"segments": rep.Segments, "bytes": rep.Bytes, "postings_files": inv, "problems": problems,
			})
			if len(problems) > 0 {
				return exitNoMatch
			}
			return exitOK
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
}
