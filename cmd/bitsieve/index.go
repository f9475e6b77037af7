package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/bitsieve/bitsieve/bench"
	"github.com/bitsieve/bitsieve/cluster"
	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/ingest"
	"github.com/bitsieve/bitsieve/tokenize"
)

func init() {
	register(command{name: "index", args: "PATH...", summary: "index directories, .jsonl files or files", define: runIndex})
}

func runIndex(fs *pflag.FlagSet) runFunc {
	dir := fs.String("index", "", "index directory (default $BITSIEVE_INDEX or ~/.local/share/bitsieve/index)")
	lang := fs.String("lang", tokenize.DefaultLanguage, "analyzer language: "+strings.Join(tokenize.Languages(), ", ")+" (an existing index keeps its own)")
	includeFlag := fs.StringArray("include", nil, "index only files matching this glob (repeatable; ** crosses directories)")
	excludeFlag := fs.StringArray("exclude", nil, "skip files and directories matching this glob (repeatable)")
	maxSize := fs.Int64("max-file-size", corpus.DefaultMaxFileSize, "skip files larger than this many bytes")
	hidden := fs.Bool("hidden", false, "also index hidden files and directories (.git and other VCS directories are always skipped)")
	prune := fs.Bool("prune", false, "also delete documents of other sources (other directories, JSONL files, the write API) that this run did not see: the index then holds exactly the PATHs given")
	noIgnore := fs.Bool("no-ignore", false, "index files that .gitignore files exclude")
	rebuild := fs.Bool("rebuild", false, "build the index afresh instead of updating it (the old index serves until the new one is complete)")
	watch := fs.Bool("watch", false, "after indexing, keep following the directory (one PATH) until interrupted")
	verbose := fs.Bool("verbose", false, "list every skipped file with its reason")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	withInverted := fs.Bool("with-inverted", false, "also write the inverted baseline's postings beside the segments (see bitsieve bench)")
	def := index.DefaultParams
	density := fs.Float64("density", def.Density, "signature parameter of the segments this run writes: target density of shared rows, at every rank; a term whose private row would be no larger than its shared rows gets the private row")
	snr := fs.Float64("snr", def.SNR, "signature parameter: a term's expected false positives are at most df/SNR (more shared rows for rarer terms)")
	listDensity := fs.Float64("list-density", def.ListDensity, "signature parameter: a term in fewer than this fraction of a segment's documents is stored as an exact list of them (0: no lists; segments over 65,536 documents have none)")
	rank := fs.Int("rank", def.Rank, "signature parameter: the higher rank of shared rows, 3 to 6 (a bit per 2^rank documents; 0: rank-0 rows only)")
	pairK := fs.Int("pair-rows", def.PairK, "signature parameter: shared rows of each pair of adjacent words one of which is common, which phrases match on (0: no pairs)")
	memory := fs.Int("memory", index.DefaultMemoryBudget>>20, "MiB of analyzed documents held, buffered or being written as segments (Go's heap limit is set to three times this); less makes more, smaller segments")
	nf := addNATSFlags(fs)
	shards := fs.Int("shards", 0, fmt.Sprintf("with --nats: the shard count of a cluster this run creates (default %d; an existing cluster keeps its own)", cluster.DefaultShards))
	replicas := fs.Int("replicas", 0, fmt.Sprintf("with --nats: how many nodes serve each shard of a cluster this run creates (default %d)", cluster.DefaultReplicas))
	wait := fs.Duration("wait", 2*time.Minute, "with --nats: how long to wait for the shards to index the writes (0: return once they are stored)")
	return func(args []string, stdout, stderr io.Writer) int {
		paths := args
		if len(paths) == 0 {
			return fail(stderr, "give the directories, JSONL files or files to index, e.g. bitsieve index ~/notes")
		}
		include, exclude := *includeFlag, *excludeFlag
		for _, p := range paths {
			if _, err := os.Stat(p); err != nil {
				return fail(stderr, "cannot index %s: %v", p, errText(err))
			}
		}
		if nf.set() {
			for _, name := range []string{"index", "rebuild", "watch", "with-inverted", "density", "snr", "list-density", "rank", "pair-rows", "memory"} {
				if fs.Changed(name) {
					return fail(stderr, "--%s is for a local index, not a cluster (--nats): a cluster's nodes index its shards", name)
				}
			}
			job := clusterJob{nats: nf, paths: paths, prune: *prune, shards: *shards, replicas: *replicas, wait: *wait,
				walk: corpus.WalkOptions{MaxFileSize: *maxSize, IncludeHidden: *hidden, NoIgnore: *noIgnore, Include: include, Exclude: exclude}}
			if fs.Changed("lang") {
				job.lang = *lang
			}
			return job.run(stdout, stderr, *asJSON, *verbose)
		}
		if fs.Changed("shards") || fs.Changed("replicas") || fs.Changed("wait") {
			return fail(stderr, "--shards, --replicas and --wait are for a cluster: give its servers with --nats")
		}
		if *watch && *withInverted {
			return fail(stderr, "--with-inverted builds postings once; it cannot be combined with --watch")
		}
		if *watch {
			if fi, err := os.Stat(paths[0]); len(paths) != 1 || err != nil || !fi.IsDir() {
				return fail(stderr, "--watch follows one directory; give exactly one")
			}
		}
		params := index.Params{Density: *density, SNR: *snr, KMin: def.KMin, KMax: def.KMax, ListDensity: *listDensity, Rank: *rank, PairK: *pairK}
		if err := params.Validate(); err != nil {
			return fail(stderr, "bad --density, --snr, --list-density, --rank or --pair-rows: %v", strings.TrimPrefix(err.Error(), "index: "))
		}
		if *dir == "" {
			*dir = defaultIndexDir()
		}
		// An index kept inside a directory it indexes is not a document of it.
		for _, p := range paths {
			if rel, ok := within(*dir, p); ok {
				exclude = append(exclude, globEscape(rel))
			}
		}
		job := &indexJob{
			dir:     *dir,
			paths:   paths,
			walk:    corpus.WalkOptions{MaxFileSize: *maxSize, IncludeHidden: *hidden, NoIgnore: *noIgnore, Include: include, Exclude: exclude},
			rebuild: *rebuild,
			prune:   *prune,
			stderr:  stderr,
		}
		if *memory < 16 {
			return fail(stderr, "--memory %d is too small: give at least 16 (MiB)", *memory)
		}
		job.writer.Params = params
		job.writer.MemoryBudget = int64(*memory) << 20
		if os.Getenv("GOMEMLIMIT") == "" {
			// The budget bounds the documents held; the rest of what is live
			// is the analyzers' caches, a segment being built, and about a
			// hundred bytes per key. Garbage would otherwise let the heap
			// grow to twice what is live, however large that is.
			debug.SetMemoryLimit(3 * job.writer.MemoryBudget)
		}
		if fs.Changed("lang") || *rebuild {
			job.writer.Analyzer = *lang
		}
		if *watch {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			f := &follower{job: job, out: stdout, log: stderr, verbose: *verbose}
			if _, err := f.start(); err != nil {
				return fail(stderr, "%v", err)
			}
			fmt.Fprintf(stderr, "bitsieve: watching %s for changes (Ctrl-C to stop)\n", paths[0])
			if err := f.loop(ctx); err != nil {
				return fail(stderr, "%v", err)
			}
			return exitOK
		}
		ws, total, err := job.run(nil)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		var inv *postingsSummary
		if *withInverted {
			if inv, err = writePostings(*dir); err != nil {
				return fail(stderr, "the index is committed, but its inverted postings are not: %v", err)
			}
		}
		if *asJSON {
			secs := ws.Elapsed.Seconds()
			out := map[string]any{
				"index": *dir, "documents": ws.Docs, "added": ws.Added, "replaced": ws.Replaced,
				"deleted": ws.Deleted, "unchanged": ws.Unchanged, "bytes": ws.Bytes, "seconds": secs,
				"mb_per_s": float64(ws.Bytes) / 1e6 / secs, "index_bytes": ws.IndexBytes,
				"segments": ws.IndexSegments, "segments_written": ws.Segments, "generation": ws.Generation, "skipped": skipCounts(total.Counts),
				"compaction": ws.Compaction, "bad_lines": badLines(total),
			}
			if inv != nil {
				out["inverted"] = inv
			}
			json.NewEncoder(stdout).Encode(out)
		} else {
			printIndexSummary(stdout, *dir, ws, total, *verbose)
			if inv != nil {
				fmt.Fprintf(stdout, "inverted postings: %s in %d files, %d built in %.2fs\n", humanBytes(inv.Bytes), inv.Files, inv.Built, inv.Seconds)
			}
		}
		if ws.CompactErr != nil {
			fmt.Fprintf(stderr, "bitsieve: the update is committed, but compacting the index failed: %v\n", ws.CompactErr)
		}
		return exitOK
	}
}

// indexJob is one run of the indexer over its sources: a rebuild, or an
// update that adds new documents, replaces changed ones, leaves unchanged
// ones alone and deletes the ones that are gone.
type indexJob struct {
	dir     string // the index directory
	paths   []string
	walk    corpus.WalkOptions
	writer  index.WriterOptions
	rebuild bool
	prune   bool      // delete every document the run did not see, whatever its source
	stderr  io.Writer // for the progress bar, when it is a terminal
}

// run indexes the sources. With only, it re-reads just those paths of the
// (single, directory) source, and deletes just the documents under them
// that are gone. Nothing changes unless the whole run succeeds.
func (j *indexJob) run(only []string) (index.WriteStats, corpus.Stats, error) {
	var w *index.Writer
	var err error
	if j.rebuild {
		w, err = index.Create(j.dir, j.writer)
	} else {
		w, err = index.OpenWriter(j.dir, j.writer)
	}
	if err != nil {
		return index.WriteStats{}, corpus.Stats{}, err
	}
	prog := startProgress(j.stderr, w.Progress)
	defer prog.stop()
	run := ingest.Run{Paths: j.paths, Walk: j.walk, Only: only, Prune: j.prune, Fresh: j.rebuild}
	total, err := run.Into(w)
	if err != nil {
		w.Abort()
		if se, ok := errors.AsType[*ingest.SourceError](err); ok {
			return index.WriteStats{}, total, fmt.Errorf("indexing %s failed, the index is unchanged: %w", se.Path, se.Err)
		}
		return index.WriteStats{}, total, err
	}
	ws, err := w.Commit()
	if err != nil {
		return ws, total, fmt.Errorf("indexing failed, the index is unchanged: %w", err)
	}
	return ws, total, nil
}

// within reports whether path lies inside the directory root, and where.
func within(path, root string) (string, bool) {
	ap, err1 := filepath.Abs(path)
	ar, err2 := filepath.Abs(root)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(ar, ap)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// globEscape quotes the glob metacharacters of a path.
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// printIndexSummary prints what a run did: documents indexed, the changes
// by kind, the index size, and the skipped files by reason.
func printIndexSummary(stdout io.Writer, dir string, ws index.WriteStats, total corpus.Stats, verbose bool) {
	secs := ws.Elapsed.Seconds()
	fmt.Fprintf(stdout, "indexed %d documents, %s in %.2fs (%.1f MB/s) into %s\n",
		ws.Docs, humanBytes(ws.Bytes), secs, float64(ws.Bytes)/1e6/secs, dir)
	fmt.Fprintf(stdout, "changes: added %d, replaced %d, deleted %d, unchanged %d\n",
		ws.Added, ws.Replaced, ws.Deleted, ws.Unchanged)
	if c := ws.Compaction; c.Merges > 0 {
		fmt.Fprintf(stdout, "compacted: %d segments merged into %d, %d deleted documents dropped\n", c.SegmentsIn, c.SegmentsOut, c.Dropped)
	}
	fmt.Fprintf(stdout, "index: %s in %d segments (generation %d)\n", humanBytes(ws.IndexBytes), ws.IndexSegments, ws.Generation)
	printSkipped(stdout, total, verbose)
}

// printSkipped prints the skipped files by reason, and with verbose each
// one. The lines of JSONL files that are not documents are listed without
// verbose too, up to maxBadLines: they are the user's data, not routine
// skips like binary or hidden files.
func printSkipped(stdout io.Writer, total corpus.Stats, verbose bool) {
	if len(total.Skipped) > 0 {
		reasons := make([]string, 0, len(total.Counts))
		for r, n := range total.Counts {
			if n > 0 {
				reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
			}
		}
		slices.Sort(reasons)
		fmt.Fprintf(stdout, "skipped %d: %s\n", len(total.Skipped), strings.Join(reasons, ", "))
		if verbose {
			for _, s := range total.Skipped {
				fmt.Fprintf(stdout, "  %s\n", s)
			}
			return
		}
		bad := badLines(total)
		for _, s := range bad {
			fmt.Fprintf(stdout, "  %s\n", s)
		}
		if len(bad) < len(total.Skipped) {
			fmt.Fprintln(stdout, "(--verbose lists them)")
		}
	}
}

// maxBadLines is how many bad JSONL lines a summary lists.
const maxBadLines = 20

// badLines returns the first maxBadLines skipped JSONL lines of total.
func badLines(total corpus.Stats) []corpus.Skip {
	out := []corpus.Skip{}
	for _, s := range total.Skipped {
		if s.Line > 0 && len(out) < maxBadLines {
			out = append(out, s)
		}
	}
	return out
}

// skipCounts keys the counts of skipped files by reason in snake_case, as
// every JSON field is.
func skipCounts(counts map[corpus.SkipReason]int) map[string]int {
	out := make(map[string]int, len(counts))
	for r, n := range counts {
		out[strings.ReplaceAll(string(r), "-", "_")] = n
	}
	return out
}

// errText strips Go's "op path:" prefix from file errors for a one-line message.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// humanBytes formats a byte count with binary units, as the bench reports do.
func humanBytes(n int64) string { return bench.HumanBytes(n) }

// progress draws a one-line progress report on a terminal.
type progress struct {
	done chan struct{}
	quit chan struct{}
}

func startProgress(stderr io.Writer, read func() (int64, int64)) *progress {
	p := &progress{done: make(chan struct{}), quit: make(chan struct{})}
	f, ok := stderr.(*os.File)
	if !ok || !isTerminal(f) {
		close(p.done)
		return p
	}
	start := time.Now()
	go func() {
		defer close(p.done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				fmt.Fprint(stderr, "\r\x1b[K")
				return
			case <-t.C:
				docs, bytes := read()
				el := time.Since(start).Seconds()
				fmt.Fprintf(stderr, "\r\x1b[Kindexing: %d documents, %s, %.1f MB/s, %.0fs", docs, humanBytes(bytes), float64(bytes)/1e6/el, el)
			}
		}
	}()
	return p
}

func (p *progress) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	close(p.quit)
	<-p.done
}
