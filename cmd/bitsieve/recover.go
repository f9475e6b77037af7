package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"strings"

	"github.com/bitsieve/bitsieve/index"
)

func init() {
	register(command{name: "recover", args: "", summary: "write a new MANIFEST for an index whose MANIFEST is missing or damaged, from its files", define: runRecover})
}

func runRecover(fs *pflag.FlagSet) runFunc {
	dir := fs.String("index", "", "index directory (default $BITSIEVE_INDEX or ~/.local/share/bitsieve/index)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			return fail(stderr, "recover takes no arguments (got %q); the index is chosen with --index", args[0])
		}
		if *dir == "" {
			*dir = defaultIndexDir()
		}
		rep, err := index.Recover(*dir)
		if err != nil {
			if errors.Is(err, index.ErrNoIndex) {
				return fail(stderr, "no index in %s: nothing to recover", *dir)
			}
			return fail(stderr, "%v", err)
		}
		if *asJSON {
			json.NewEncoder(stdout).Encode(map[string]any{
				"index": *dir, "lexicon": rep.Lexicon, "segments": rep.Segments, "documents": rep.Docs,
				"tombstones": rep.Tombstones, "duplicates": rep.Duplicates, "generation": rep.Generation,
			})
			return exitOK
		}
		fmt.Fprintf(stdout, "recovered %s: %d segments of lexicon %s, %d live documents", *dir, rep.Segments, rep.Lexicon, rep.Docs)
		if len(rep.Tombstones) > 0 {
			fmt.Fprintf(stdout, ", tombstones %s", strings.Join(rep.Tombstones, " "))
		}
		if rep.Duplicates > 0 {
			fmt.Fprintf(stdout, ", %d keys live in two segments kept in the newest", rep.Duplicates)
		}
		fmt.Fprintf(stdout, " (generation %d); run bitsieve check to verify it\n", rep.Generation)
		return exitOK
	}
}
