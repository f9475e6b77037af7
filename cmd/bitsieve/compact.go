package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/spf13/pflag"
	"io"

	"github.com/bitsieve/bitsieve/index"
)

func init() {
	register(command{name: "compact", args: "", summary: "merge small segments and drop deleted documents", define: runCompact})
}

func runCompact(fs *pflag.FlagSet) runFunc {
	dir := fs.String("index", "", "index directory (default $BITSIEVE_INDEX or ~/.local/share/bitsieve/index)")
	policy := fs.Bool("policy", false, "merge only what the automatic policy would (small segments of one size tier, segments with many deletions)")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	return func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			return fail(stderr, "compact takes no arguments (got %q); the index is chosen with --index", args[0])
		}
		if *dir == "" {
			*dir = defaultIndexDir()
		}
		st, err := index.Compact(*dir, index.CompactOptions{All: !*policy})
		if err != nil {
			if errors.Is(err, index.ErrNoIndex) {
				return fail(stderr, "no index in %s", *dir)
			}
			return fail(stderr, "%v (the index is unchanged)", err)
		}
		if *asJSON {
			json.NewEncoder(stdout).Encode(map[string]any{
				"index": *dir, "merges": st.Merges, "segments_in": st.SegmentsIn, "segments_out": st.SegmentsOut,
				"documents": st.Docs, "dropped": st.Dropped, "bytes_in": st.BytesIn, "bytes_out": st.BytesOut,
				"generation": st.Generation, "seconds": st.Elapsed.Seconds(),
			})
			return exitOK
		}
		if st.Merges == 0 {
			fmt.Fprintf(stdout, "%s: nothing to compact (generation %d)\n", *dir, st.Generation)
			return exitOK
		}
		fmt.Fprintf(stdout, "compacted %s: %d segments (%s) merged into %d (%s), %d documents kept, %d deleted documents dropped, in %.2fs (generation %d)\n",
			*dir, st.SegmentsIn, humanBytes(st.BytesIn), st.SegmentsOut, humanBytes(st.BytesOut), st.Docs, st.Dropped, st.Elapsed.Seconds(), st.Generation)
		return exitOK
	}
}
