package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"strings"
	"text/tabwriter"
)

func init() {
	register(command{name: "explain", args: "QUERY", summary: "show how the signature answers a query, term by term", define: runExplain})
}

func runExplain(fs *pflag.FlagSet) runFunc {
	dir := indexFlag(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	steps := fs.Bool("steps", false, "also show the AND steps in every segment")
	return func(args []string, stdout, stderr io.Writer) int {
		q := strings.Join(args, " ")
		if strings.TrimSpace(q) == "" {
			return fail(stderr, "the query is empty: give the words to explain")
		}
		s, closeIx, err := openSearcher(*dir, stderr)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		defer closeIx()
		ex, err := s.Explain(context.Background(), q)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		if *asJSON {
			json.NewEncoder(stdout).Encode(ex)
			return exitOK
		}
		fmt.Fprintf(stdout, "query   %s\nparsed  %s\n", ex.Query, ex.Parsed)
		fmt.Fprintf(stdout, "%d documents: %d candidates, %d verified hits, %d false positives\n", ex.Docs, ex.Candidates, ex.Hits, ex.FalsePositives)
		fmt.Fprintf(stdout, "estimated cost %d units (at most %d candidates, %d phrase position reads, %d row blocks)\n\n",
			ex.CostUnits, ex.Cost.Candidates, ex.Cost.Positions, ex.Cost.RowBlocks)
		tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "word\tterm\tdf\tprivate\tshared\tlist\tabsent\trows\tdensity\tpredicted fp\tobserved fp\t")
		for _, t := range ex.Terms {
			word := t.Word
			if t.Negated {
				word = "-" + word
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.3f\t%.1f\t%d\t\n", word, t.Term, t.DF, t.Private, t.Shared, t.Lists, t.Absent, t.Rows, t.Density, t.PredictedFP, t.ObservedFP)
		}
		tw.Flush()
		fmt.Fprintln(stdout, "\n(private/shared/list/absent: segments where the term has an exact row, k shared rows, an exact list of its documents, or is missing;")
		fmt.Fprintln(stdout, " fp: documents the term's rows admit without holding the term)")
		for _, ph := range ex.Phrases {
			var at, pairs []string
			for i, t := range ph.Terms {
				at = append(at, fmt.Sprintf("%s@%d", t, ph.Offsets[i]))
			}
			for _, p := range ph.Pairs {
				pairs = append(pairs, fmt.Sprintf("%s %s in %d of %d segments", p.First, p.Second, p.Segments, len(ex.Segments)))
			}
			if len(pairs) == 0 {
				pairs = []string{"none (no adjacent terms)"}
			}
			fmt.Fprintf(stdout, "\nphrase %q: %s, checked on stored positions\n  word pairs in shared rows: %s\n", ph.Text, strings.Join(at, " "), strings.Join(pairs, "; "))
		}
		if *steps {
			for _, sg := range ex.Segments {
				fmt.Fprintf(stdout, "\n%s (class %d, %d docs)\n", sg.Segment, sg.Class, sg.Docs)
				for _, st := range sg.Steps {
					var rows []string
					for _, r := range st.Rows {
						if r.List {
							rows = append(rows, fmt.Sprintf("list:%.4f", r.Density))
							continue
						}
						if r.Rank > 0 {
							rows = append(rows, fmt.Sprintf("r%d@rank%d:%.2f", r.Row, r.Rank, r.Density))
							continue
						}
						rows = append(rows, fmt.Sprintf("r%d:%.2f", r.Row, r.Density))
					}
					fmt.Fprintf(stdout, "  AND %-16s %-40s → %d\n", st.Term, strings.Join(rows, " "), st.Survivors)
				}
			}
		}
		return exitOK
	}
}
