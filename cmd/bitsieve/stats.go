package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
)

func init() {
	register(command{name: "stats", args: "", summary: "documents, segments, rows, densities and bytes by section", define: runStats})
}

func runStats(fs *pflag.FlagSet) runFunc {
	dir := indexFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	quality := fs.Bool("quality", false, "also measure each segment's shared rows: density and false positives against the theory, per-document fill (reads every shared row once per term)")
	return func(args []string, stdout, stderr io.Writer) int {
		// Statistics read the small sections only, whose checksums OpenMeta
		// checks; the quality measure reads rows and the forward index too.
		open := index.OpenMeta
		if *quality {
			open = index.Open
		}
		ix, err := openIndexWith(*dir, stderr, open)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		defer ix.Close()
		st := ix.Stats()
		var qs []segment.SignatureQuality
		if *quality {
			for _, seg := range ix.Segments() {
				q, err := seg.Quality()
				if err != nil {
					return fail(stderr, "%v", err)
				}
				qs = append(qs, q)
			}
		}
		if *asJSON {
			json.NewEncoder(stdout).Encode(struct {
				Dir string `json:"dir"`
				index.Stats
				Quality []segment.SignatureQuality `json:"quality,omitempty"`
			}{ix.Dir(), st, qs})
			return exitOK
		}
		fmt.Fprintf(stdout, "index %s (analyzer %s, generation %d)\n", ix.Dir(), st.Analyzer, st.Generation)
		fmt.Fprintf(stdout, "%d documents in %d segments, %d postings, %s\n", st.Docs, len(st.Segments), st.Postings, humanBytes(st.Bytes))
		fmt.Fprintf(stdout, "lexicon: %d words in %s\n", st.Words, humanBytes(st.Sections["lexicon"]))
		fmt.Fprintf(stdout, "signature: %.1f bits per posting (%s of rows, %s of lists; the rows also hold %d word pair postings)\n", st.BitsPerPost, humanBytes(st.RowBits/8), humanBytes(st.ListBits/8), st.PairPostings)
		fmt.Fprintf(stdout, "positions: %s, %.1f bits per token (%d tokens)\n", humanBytes(st.Sections["positions"]), 8*float64(st.Sections["positions"])/float64(max(1, st.Tokens)), st.Tokens)
		pct := func(n int64) float64 { return 100 * float64(n) / float64(max(1, st.Postings)) }
		fmt.Fprintf(stdout, "postings: %.1f%% in private rows, %.1f%% in shared rows, %.1f%% in lists\n\n", pct(st.PrivatePostings), pct(st.SharedPostings), pct(st.ListPostings))
		tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "segment\tclass\tdocs\tlive\tterms\tprivate rows\tshared rows\trank\thigh rows\tlists\tshared density\thigh density\tbytes\t")
		for _, s := range st.Segments {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.3f\t%s\t\n", s.File, s.Class, s.Docs, s.Live, s.Terms, s.PrivateRows, s.SharedRows, s.Rank, s.HighRows, s.Lists, s.SharedDensity, s.HighDensity, humanBytes(s.Bytes))
		}
		tw.Flush()
		if len(qs) > 0 {
			fmt.Fprintln(stdout, "\nshared rows against the theory (density 1 − e^(−Σk·df/(m·n)); false positives Σ over shared terms):")
			tw = tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "segment\tshared terms\tdensity\ttheory\thigh density\ttheory\tfalse positives\tpredicted\tworst fill\tmean fill\t")
			for _, q := range qs {
				fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%.0f\t%.3f\t%.3f\t\n", q.File, q.SharedTerms, q.Density, q.Theory, q.HighDensity, q.HighTheory, q.MeasuredFP, q.PredictedFP, q.WorstFill, q.MeanFill)
			}
			tw.Flush()
		}
		fmt.Fprintln(stdout, "\nbytes by section:")
		tw = tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
		for _, name := range []string{"lexicon", "params", "rows", "rowstats", "lists", "impacts", "frequencies", "falsepositives", "lengths", "forward", "positions", "docs", "blocks", "store"} {
			fmt.Fprintf(tw, "  %s\t%s\t%.1f%%\t\n", name, humanBytes(st.Sections[name]), 100*float64(st.Sections[name])/float64(max(1, st.Bytes)))
		}
		tw.Flush()
		return exitOK
	}
}
