package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"

	"github.com/bitsieve/bitsieve/query"
)

func init() {
	register(command{name: "demo", args: "", summary: "index the embedded sample and run a few example searches", define: runDemo})
}

// demoQueries show the query language on the embedded sample.
var demoQueries = []string{
	`white whale`,
	`"hash table"`,
	`exception OR error handling`,
	`compil* -java`,
}

func runDemo(fs *pflag.FlagSet) runFunc {
	return func(args []string, stdout, stderr io.Writer) int {
		ix, err := openSample(stderr)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		defer ix.Close()
		s, err := query.NewSearcher(ix)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		fmt.Fprintf(stdout, "embedded sample: %d documents in %d segments (%s)\n", ix.NumDocs(), len(ix.Segments()), ix.Dir())
		color := isTerminalWriter(stdout)
		for _, q := range demoQueries {
			res, err := s.Search(context.Background(), query.Request{Query: q, Limit: 3, Snippets: true})
			if err != nil {
				return fail(stderr, "%v", err)
			}
			fmt.Fprintf(stdout, "\n$ bitsieve search '%s' --limit 3\n", q)
			printHits(stdout, res, 0, color)
		}
		fmt.Fprintln(stdout, "\nTry your own: bitsieve index ~/notes && bitsieve search 'some words'")
		return exitOK
	}
}
