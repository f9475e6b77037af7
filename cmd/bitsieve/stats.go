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

// IndexStats summarises an index for people and scripts.
type IndexStats struct {
	Dir         string           `json:"dir"`
	Analyzer    string           `json:"analyzer"`
	Generation  uint64           `json:"generation"`
	Docs        int              `json:"documents"`
	Segments    []SegmentStats   `json:"segments"`
	Postings    int64            `json:"postings"`
	RowBits     int64            `json:"row_bits"`
	BitsPerPost float64          `json:"bits_per_posting"`
	Sections    map[string]int64 `json:"bytes_by_section"`
	Bytes       int64            `json:"bytes"`
}

// SegmentStats describes one segment.
type SegmentStats struct {
	File          string  `json:"file"`
	Class         int     `json:"class"`
	Docs          int     `json:"documents"`
	Terms         int     `json:"terms"`
	PrivateRows   int     `json:"private_rows"`
	SharedRows    int     `json:"shared_rows"`
	SharedDensity float64 `json:"shared_density"`
	Postings      int64   `json:"postings"`
	Bytes         int64   `json:"bytes"`
}

func collectStats(ix *index.Index) IndexStats {
	st := IndexStats{Dir: ix.Dir(), Analyzer: ix.Analyzer(), Generation: ix.Generation(), Docs: ix.NumDocs(), Sections: map[string]int64{}}
	for _, s := range ix.Segments() {
		ss := SegmentStats{File: s.Name(), Class: s.LengthClass(), Docs: s.NumDocs(), Terms: s.NumTerms(),
			PrivateRows: s.PrivateRows(), SharedRows: s.SharedRows(), Postings: s.Postings(), Bytes: s.FileBytes()}
		set := 0
		for r := 1 + s.PrivateRows(); r < s.NumRows(); r++ {
			set += s.RowCount(r)
		}
		if s.SharedRows() > 0 {
			ss.SharedDensity = float64(set) / float64(s.SharedRows()*s.NumDocs())
		}
		st.Segments = append(st.Segments, ss)
		st.Postings += ss.Postings
		st.RowBits += int64(s.NumRows()-1) * int64(s.RowWords()) * 64
		st.Bytes += ss.Bytes
		for _, sec := range s.Sections() {
			st.Sections[sec.Name] += sec.Bytes
		}
	}
	if st.Postings > 0 {
		st.BitsPerPost = float64(st.RowBits) / float64(st.Postings)
	}
	return st
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
	st := collectStats(ix)
	if *asJSON {
		json.NewEncoder(stdout).Encode(st)
		return exitOK
	}
	fmt.Fprintf(stdout, "index %s (analyzer %s, generation %d)\n", st.Dir, st.Analyzer, st.Generation)
	fmt.Fprintf(stdout, "%d documents in %d segments, %d postings, %s\n", st.Docs, len(st.Segments), st.Postings, humanBytes(st.Bytes))
	fmt.Fprintf(stdout, "signature: %.1f bits per posting (%s of rows)\n\n", st.BitsPerPost, humanBytes(st.RowBits/8))
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "segment\tclass\tdocs\tterms\tprivate rows\tshared rows\tshared density\tbytes\t")
	for _, s := range st.Segments {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%.3f\t%s\t\n", s.File, s.Class, s.Docs, s.Terms, s.PrivateRows, s.SharedRows, s.SharedDensity, humanBytes(s.Bytes))
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
