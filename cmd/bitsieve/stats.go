package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/bitsieve/bitsieve/index"
)

func init() {
	register(command{"stats", "documents, segments, rows, densities and bytes by section", runStats})
}

func runStats(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("stats", "", stderr)
	dir := indexFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	ix, err := openIndex(*dir, stderr)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer ix.Close()
	st := ix.Stats()
	if *asJSON {
		json.NewEncoder(stdout).Encode(struct {
			Dir string `json:"dir"`
			index.Stats
		}{ix.Dir(), st})
		return exitOK
	}
	fmt.Fprintf(stdout, "index %s (analyzer %s, generation %d)\n", ix.Dir(), st.Analyzer, st.Generation)
	fmt.Fprintf(stdout, "%d documents in %d segments, %d postings, %s\n", st.Docs, len(st.Segments), st.Postings, humanBytes(st.Bytes))
	fmt.Fprintf(stdout, "signature: %.1f bits per posting (%s of rows, %s of lists)\n\n", st.BitsPerPost, humanBytes(st.RowBits/8), humanBytes(st.ListBits/8))
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "segment\tclass\tdocs\tlive\tterms\tprivate rows\tshared rows\tlists\tshared density\tbytes\t")
	for _, s := range st.Segments {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.3f\t%s\t\n", s.File, s.Class, s.Docs, s.Live, s.Terms, s.PrivateRows, s.SharedRows, s.Lists, s.SharedDensity, humanBytes(s.Bytes))
	}
	tw.Flush()
	fmt.Fprintln(stdout, "\nbytes by section:")
	tw = tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	for _, name := range []string{"params", "terms", "rows", "rowstats", "forward", "docs", "blocks", "store"} {
		fmt.Fprintf(tw, "  %s\t%s\t%.1f%%\t\n", name, humanBytes(st.Sections[name]), 100*float64(st.Sections[name])/float64(max(1, st.Bytes)))
	}
	tw.Flush()
	return exitOK
}
