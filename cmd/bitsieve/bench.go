package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	iofs "io/fs"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/bench"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/query"
)

func init() {
	register(command{name: "bench", args: "[QUERYFILE...]", summary: "benchmark the signature engine against an inverted index", define: runBench})
}

func runBench(fs *pflag.FlagSet) runFunc {
	dir := indexFlag(fs)
	buildFlag := fs.StringArray("build", nil, "first index this directory, .jsonl file or file into --index, timing it (repeatable)")
	queriesFlag := fs.StringArray("queries", nil, "a file of queries, one per line (repeatable; files may also follow the flags)")
	sample := fs.Int("sample", 0, "also draw this many df-stratified queries of 1–4 words from the index itself")
	seed := fs.Uint64("seed", 1, "seed of --sample")
	maxQ := fs.Int("max-queries", 0, "use only the first N queries of each file (0: all)")
	reps := fs.Int("reps", 3, "timed runs per query and engine (a query's latency is their median)")
	qpsPasses := fs.Int("qps-passes", 3, "throughput passes per engine (the median is reported)")
	rounds := fs.Int("build-rounds", 3, "times each engine's own structure is rebuilt from the forward index to time it (the median is reported)")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of tables")
	report := fs.String("report", "", "also write a self-contained HTML report to this file")
	quiet := fs.Bool("quiet", false, "no progress lines on stderr")
	render := fs.String("render", "", "render a report saved with --json (tables, or --report FILE.html) instead of running")
	sweep := fs.String("sweep", "", "instead of the full benchmark, a parameter sweep: reseal the index with each `SPEC` set in turn and time both engines on it, 1 thread\n"+
		"(sets separated by ';', each key=value pairs separated by ',': density, snr, list (list density, 0: no lists), kmin, kmax, pairs (rows of each word pair, 0: none),\n"+
		"order (kept, shuffled or minhash: the order of documents within segments);\n"+
		"values are numbers or fractions like 1/64; keys left out take the defaults, and the defaults are always measured),\n"+
		"e.g. 'density=0.1,snr=10,list=0;density=0.2,snr=5,list=1/64'")
	return func(args []string, stdout, stderr io.Writer) int {
		if *render != "" {
			return renderReport(*render, *report, *asJSON, stdout, stderr)
		}
		builds := *buildFlag
		files := append(*queriesFlag, args...)
		if len(files) == 0 && *sample <= 0 {
			return fail(stderr, "no queries: give query files (--queries FILE) and/or --sample N")
		}
		var sets []bench.SweepSet
		if *sweep != "" {
			var err error
			if sets, err = bench.ParseSweep(*sweep); err != nil {
				return fail(stderr, "--sweep: %v", err)
			}
		}
		if len(builds) > 0 && *dir == "" {
			return fail(stderr, "--build needs --index DIR: the index built there replaces any index in DIR")
		}
		texts := make([][]string, len(files))
		for i, f := range files {
			qs, err := bench.ReadQueries(f)
			if err != nil {
				return fail(stderr, "%v", err)
			}
			if *maxQ > 0 && len(qs) > *maxQ {
				qs = qs[:*maxQ]
			}
			texts[i] = qs
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		var progress io.Writer = stderr
		if *quiet {
			progress = nil
		}
		say := func(format string, a ...any) {
			if progress != nil {
				fmt.Fprintf(progress, "bench: "+format+"\n", a...)
			}
		}

		var build bench.Build
		if len(builds) > 0 {
			say("indexing %s into %s", strings.Join(builds, ", "), *dir)
			if err := bench.IndexCorpus(*dir, builds, &build); err != nil {
				return fail(stderr, "%v", err)
			}
			build.Source = strings.Join(builds, ", ")
			say("indexed %d documents in %.1f s", build.Documents, build.IndexSeconds)
		}
		ix, err := openIndex(*dir, stderr)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		defer ix.Close()
		if sets != nil {
			return benchSweep(ctx, ix, sets, files, texts, *sample, *seed, bench.Options{Reps: *reps, Progress: progress},
				*asJSON, *report, "bitsieve bench "+strings.Join(args, " "), stdout, stderr)
		}
		say("building postings from the forward index")
		post, err := bench.BuildPostings(ix, ix.Dir(), &build)
		if errors.Is(err, iofs.ErrPermission) {
			say("cannot write postings beside the index (%v); keeping them in memory", err)
			post, err = bench.BuildPostings(ix, "", &build)
		}
		if err != nil {
			return fail(stderr, "%v", err)
		}
		defer post.Close()
		say("postings written in %.2f s; timing rows and postings from the forward index, %d rounds", build.PostingsWriteSeconds, *rounds)
		if err := bench.TimeParts(ix, *rounds, &build); err != nil {
			return fail(stderr, "%v", err)
		}
		say("signature rows %.2f s, postings %.2f s (medians)", build.RowsSeconds, build.PostingsSeconds)
		if build.Documents == 0 {
			build.Documents = ix.NumDocs()
		}
		build.TextBytes = max(build.TextBytes, textBytes(ix))

		sig, err := query.NewSearcher(ix)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		inv, err := inverted.NewSearcher(ix, post)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		var w bench.Workload
		for i, f := range files {
			w.Add(sig, texts[i], bench.SourceName(f))
		}
		if *sample > 0 {
			qs, err := bench.Sample(ix, *sample, *seed)
			if err != nil {
				return fail(stderr, "sampling queries: %v", err)
			}
			w.Add(sig, qs, "sample")
		}
		say("%d queries (%d refused by the parser)", len(w.Queries), len(w.Refused))
		rep, err := bench.Run(ctx, sig, inv, w, bench.Options{Reps: *reps, QPSPasses: *qpsPasses, Progress: progress})
		if err != nil {
			return fail(stderr, "%v", err)
		}
		build.Measured = build.IndexSeconds > 0
		rep.Build = build
		rep.Build.Finish()
		rep.Size = bench.Sizes(ix, post)
		rep.Command = "bitsieve bench " + strings.Join(args, " ")

		if err := emitReport(rep, *asJSON, *report, stdout); err != nil {
			return fail(stderr, "%v", err)
		}
		if *report != "" {
			say("wrote %s", *report)
		}
		if !rep.Equality.OK() {
			fmt.Fprintf(stderr, "bitsieve: the engines answered %d of %d queries differently (listed above)\n", rep.Equality.Different, rep.Equality.Queries)
			return exitNoMatch
		}
		return exitOK
	}
}

// benchSweep runs the parameter sweep of bench --sweep on the index ix and
// reports it.
func benchSweep(ctx context.Context, ix *index.Index, sets []bench.SweepSet, files []string, texts [][]string, sample int, seed uint64,
	opt bench.Options, asJSON bool, report, command string, stdout, stderr io.Writer) int {
	sig, err := query.NewSearcher(ix)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	var w bench.Workload
	for i, f := range files {
		w.Add(sig, texts[i], bench.SourceName(f))
	}
	if sample > 0 {
		qs, err := bench.Sample(ix, sample, seed)
		if err != nil {
			return fail(stderr, "sampling queries: %v", err)
		}
		w.Add(sig, qs, "sample")
	}
	if opt.Progress != nil {
		fmt.Fprintf(opt.Progress, "bench: %d queries (%d refused by the parser); %d parameter sets\n", len(w.Queries), len(w.Refused), len(sets))
	}
	rep, err := bench.RunSweep(ctx, ix.Dir(), w, sets, bench.SweepOptions{Options: opt})
	if err != nil {
		return fail(stderr, "%v", err)
	}
	rep.Command = command
	if err := emitReport(rep, asJSON, report, stdout); err != nil {
		return fail(stderr, "%v", err)
	}
	if report != "" && opt.Progress != nil {
		fmt.Fprintf(opt.Progress, "bench: wrote %s\n", report)
	}
	if !rep.SweepOK() {
		fmt.Fprintln(stderr, "bitsieve: the engines answered some queries differently (listed above)")
		return exitNoMatch
	}
	return exitOK
}

// renderReport prints a saved report again, and writes its HTML page.
func renderReport(path, html string, asJSON bool, stdout, stderr io.Writer) int {
	f, err := os.Open(path)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	rep, err := bench.ReadReport(f)
	f.Close()
	if err != nil {
		return fail(stderr, "%s: %v", path, err)
	}
	if err := emitReport(rep, asJSON, html, stdout); err != nil {
		return fail(stderr, "%v", err)
	}
	return exitOK
}

// textBytes is the stored text of every document of ix.
func textBytes(ix *index.Index) int64 {
	var n int64
	for _, s := range ix.Segments() {
		for d := 0; d < s.NumDocs(); d++ {
			n += int64(s.Doc(d).TextLen)
		}
	}
	return n
}

// emitReport prints rep as JSON or as text tables, then writes its HTML page
// to html unless html is "".
func emitReport(rep *bench.Report, asJSON bool, html string, stdout io.Writer) error {
	var err error
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if html != "" {
		if err := writeReport(html, rep); err != nil {
			return fmt.Errorf("cannot write the report: %w", err)
		}
	}
	return nil
}

func writeReport(path string, rep *bench.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteHTML(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// postingsSummary describes the postings `bitsieve index --with-inverted`
// wrote.
type postingsSummary struct {
	Bytes   int64   `json:"bytes"`
	Files   int     `json:"files"`
	Built   int     `json:"built"` // files built; the others were still valid
	Seconds float64 `json:"seconds"`
}

// writePostings writes the inverted baseline's postings beside the index in
// dir, keeping the files of segments that already have valid ones.
func writePostings(dir string) (*postingsSummary, error) {
	start := time.Now()
	ix, err := index.Open(dir)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	post, err := inverted.Build(ix, inverted.BuildOptions{Dir: dir, Reuse: true})
	if err != nil {
		return nil, err
	}
	defer post.Close()
	return &postingsSummary{Bytes: post.FileBytes(), Files: len(post.Segments()), Built: post.Built(), Seconds: time.Since(start).Seconds()}, nil
}
