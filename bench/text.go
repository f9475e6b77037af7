package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report as tables for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	if r.Sweep != nil {
		r.writeSweepText(ew)
		return ew.err
	}
	r.writeText(ew)
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (r *Report) writeText(w io.Writer) {
	m := r.Machine
	fmt.Fprintf(w, "bitsieve bench: %s\n", r.Index.Dir)
	fmt.Fprintf(w, "  %s documents in %d segments, %s postings\n", commas(int64(r.Index.Documents)), r.Index.Segments, commas(r.Index.Postings))
	fmt.Fprintf(w, "  machine: %s, %d cores (GOMAXPROCS %d), %s RAM, L2 %s, LLC %s; %s %s\n",
		orUnknown(m.CPU), m.Cores, m.GOMAXPROCS, HumanBytes(m.MemoryBytes), HumanBytes(m.L2Bytes), HumanBytes(m.LLCBytes), m.Go, m.OS)
	if m.Revision != "" {
		fmt.Fprintf(w, "  bitsieve built from revision %s\n", m.Revision)
	}
	var src []string
	refused := 0
	for _, s := range r.Queries.Sources {
		src = append(src, fmt.Sprintf("%s %s", s.Name, commas(int64(s.Queries))))
		refused += s.Refused
	}
	fmt.Fprintf(w, "  queries: %s run (%s)", commas(int64(r.Queries.Total)), strings.Join(src, ", "))
	if refused > 0 {
		fmt.Fprintf(w, "; %d refused by the parser (no searchable term)", refused)
	}
	fmt.Fprintf(w, "\n  method: a warm-up pass, then each query through both engines interleaved %d times; a query's latency is the median of its runs\n\n", r.Reps)

	e := r.Equality
	verdict := "OK"
	if !e.OK() {
		verdict = "DIFFERENT"
	}
	fmt.Fprintf(w, "equality: %s — %s of %s queries have identical match sets (%.2f%%), %s identical first pages\n",
		verdict, commas(int64(e.Identical)), commas(int64(e.Queries)), e.Share(), commas(int64(e.PagesIdentical)))
	for _, d := range e.Differences {
		fmt.Fprintf(w, "  DIFFERENT %q (%s): %s\n", d.Query, d.Source, d.Detail)
	}
	if e.Different > len(e.Differences) {
		fmt.Fprintf(w, "  ... and %d more\n", e.Different-len(e.Differences))
	}
	fmt.Fprintln(w)

	b := r.Build
	if !b.Measured || len(b.Engines) != 2 {
		fmt.Fprintln(w, "build: the whole index was not built by this run (bench --build PATH builds and times it)")
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "build\tsignature\tinverted\t")
	if b.Measured && len(b.Engines) == 2 {
		s, i := b.Engines[0], b.Engines[1]
		fmt.Fprintf(tw, "  whole index (%s of text)\t%.1f s, %.2f MB/s\t%.1f s, %.2f MB/s (estimated)\t\n", HumanBytes(b.TextBytes), s.Seconds, s.MBps, i.Seconds, i.MBps)
	}
	fmt.Fprintf(tw, "  own structure from the forward index (median of %d)\t%.2f s (rows)\t%.2f s (postings)\t\n", b.Rounds, b.RowsSeconds, b.PostingsSeconds)
	fmt.Fprintf(tw, "  postings files for this run (built, written)\t\t%.2f s, peak RSS %s\t\n", b.PostingsWriteSeconds, HumanBytes(b.PostingsPeakRSS))
	if b.Measured {
		fmt.Fprintf(tw, "  peak memory of the index build (RSS)\t%s\t\t\n", HumanBytes(b.IndexPeakRSS))
	}
	fmt.Fprintln(tw, "\t\t\t")

	sz := r.Size
	fmt.Fprintln(tw, "size\tsignature\tinverted\t")
	for _, c := range sz.Components {
		sv, iv := HumanBytes(c.Bytes), HumanBytes(c.Bytes)
		switch c.Engine {
		case Signature:
			iv = "—"
		case Inverted:
			sv = "—"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t\n", c.Name, sv, iv)
	}
	fmt.Fprintf(tw, "  total\t%s\t%s\t\n", HumanBytes(sz.SignatureBytes), HumanBytes(sz.InvertedBytes))
	fmt.Fprintf(tw, "  bits per posting (own structure)\t%.2f\t%.2f\t\n", sz.SignatureBitsPerPosting, sz.InvertedBitsPerPosting)
	tw.Flush()
	fmt.Fprintln(w)

	classes := r.classes()
	for _, mode := range []string{ModeMatch, ModeTop10} {
		for _, th := range r.Threads {
			what := "match (exact set, counted)"
			if mode == ModeTop10 {
				what = fmt.Sprintf("top-%d (BM25, snippets)", r.Limit)
			}
			fmt.Fprintf(w, "latency µs, %s, %s\n", what, threadsLabel(th))
			tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "class\tqueries\tsig p50\tp95\tp99\tmean\tinv p50\tp95\tp99\tmean\tp50 ratio\t")
			for _, c := range classes {
				s, i := r.LatencyOf(mode, th, c, Signature), r.LatencyOf(mode, th, c, Inverted)
				if s.N == 0 {
					continue
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c, s.N,
					us(s.P50), us(s.P95), us(s.P99), us(s.Mean), us(i.P50), us(i.P95), us(i.P99), us(i.Mean), ratio(s.P50, i.P50))
			}
			tw.Flush()
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w, "(p50 ratio: signature p50 / inverted p50; below 1 the signature engine is faster)")
	fmt.Fprintln(w)

	fmt.Fprintln(w, "throughput, queries/s (each Search on one goroutine)")
	tw = tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tclients\tsignature\tinverted\t")
	for _, q := range r.QPS {
		if q.Engine != Signature {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t\n", q.Mode, q.Threads, q.QPS, r.qpsOf(q.Mode, q.Threads, Inverted))
	}
	tw.Flush()
	fmt.Fprintln(w)

	fmt.Fprintln(w, "signature quality (means per query; match stage of ranked searches, single-threaded)")
	tw = tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\tqueries\tcandidates\thits\tfalse pos.\tFP share\tFP per doc\trows\trow blocks\tbytes touched\tmatch µs\tGB/s\tinv. postings bytes\t")
	for _, c := range classes {
		q := r.QualityOf(c)
		if q.Queries == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.2f%%\t%.2g\t%.1f\t%.0f\t%s\t%.1f\t%.2f\t%s\t\n", c, q.Queries, q.Candidates, q.Hits, q.FalsePositives,
			100*q.FPRate, q.FPPerDoc, q.Rows, q.RowBlocks, HumanBytes(int64(q.RowBytes)), q.MatchMicros, q.GBps, HumanBytes(int64(q.PostingsBytes)))
	}
	tw.Flush()
	fmt.Fprintln(w)
	bw := r.Bandwidth
	fmt.Fprintf(w, "bandwidth: streaming AND probe %.1f GB/s over %s (> LLC), %.1f GB/s over 256 KiB (in L2), one thread; signature match stage achieved %.2f GB/s\n",
		bw.ColdGBps, HumanBytes(bw.ProbeBytes), bw.HotGBps, bw.AchievedGBps)
	fmt.Fprintf(w, "run took %.1f s; load average at its end %s (1, 5, 15 min; %d cores)\n", r.Seconds, r.LoadAverage, r.Machine.Cores)
}

func (r *Report) qpsOf(mode string, threads int, engine string) float64 {
	for _, q := range r.QPS {
		if q.Mode == mode && q.Threads == threads && q.Engine == engine {
			return q.QPS
		}
	}
	return 0
}

func threadsLabel(th int) string {
	if th == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads (all cores)", th)
}

func us(x float64) string {
	switch {
	case x >= 1000:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func ratio(a, b float64) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

// HumanBytes formats a byte count with binary units.
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// commas formats n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
