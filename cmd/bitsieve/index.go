package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
)

func init() {
	register(command{"index", "index directories, .jsonl files or files", runIndex})
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func runIndex(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("index", "PATH...", stderr)
	dir := fs.String("index", "", "index directory (default $BITSIEVE_INDEX or ~/.local/share/bitsieve/index)")
	lang := fs.String("lang", tokenize.DefaultLanguage, "analyzer language: "+strings.Join(tokenize.Languages(), ", "))
	var include, exclude multiFlag
	fs.Var(&include, "include", "index only files matching this glob (repeatable; ** crosses directories)")
	fs.Var(&exclude, "exclude", "skip files and directories matching this glob (repeatable)")
	maxSize := fs.Int64("max-file-size", corpus.DefaultMaxFileSize, "skip files larger than this many bytes")
	hidden := fs.Bool("hidden", false, "also index hidden files and directories (.git and other VCS directories are always skipped)")
	verbose := fs.Bool("verbose", false, "list every skipped file with its reason")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	paths := fs.Args()
	if len(paths) == 0 {
		fs.Usage()
		return exitError
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fail(stderr, "cannot index %s: %v", p, errText(err))
		}
	}
	if *dir == "" {
		*dir = defaultIndexDir()
	}
	w, err := index.Create(*dir, index.WriterOptions{Analyzer: *lang})
	if err != nil {
		return fail(stderr, "%v", err)
	}
	prog := startProgress(stderr, w.Progress)
	opt := corpus.WalkOptions{MaxFileSize: *maxSize, IncludeHidden: *hidden, Include: include, Exclude: exclude}
	var total corpus.Stats
	for _, p := range paths {
		prefix := ""
		if len(paths) > 1 {
			prefix = filepath.Base(filepath.Clean(p)) + "/"
		}
		st, err := corpus.Read(p, opt, func(d corpus.Document) error {
			d.Key = prefix + d.Key
			return w.Add(index.Document(d))
		})
		merge(&total, st)
		if err != nil {
			prog.stop()
			w.Abort()
			return fail(stderr, "indexing %s failed, the previous index is unchanged: %v", p, err)
		}
	}
	ws, err := w.Commit()
	prog.stop()
	if err != nil {
		return fail(stderr, "indexing failed, the previous index is unchanged: %v", err)
	}
	for _, k := range ws.Duplicates {
		total.Skipped = append(total.Skipped, corpus.Skip{Path: k, Reason: corpus.SkipDuplicateID, Detail: "key already indexed"})
		if total.Counts == nil {
			total.Counts = map[corpus.SkipReason]int{}
		}
		total.Counts[corpus.SkipDuplicateID]++
	}
	secs := ws.Elapsed.Seconds()
	if *asJSON {
		json.NewEncoder(stdout).Encode(map[string]any{
			"index": *dir, "documents": ws.Docs, "bytes": ws.Bytes, "seconds": secs,
			"mb_per_s": float64(ws.Bytes) / 1e6 / secs, "index_bytes": ws.IndexBytes,
			"segments": ws.Segments, "skipped": total.Counts,
		})
		return exitOK
	}
	fmt.Fprintf(stdout, "indexed %d documents, %s in %.2fs (%.1f MB/s) into %s\n",
		ws.Docs, humanBytes(ws.Bytes), secs, float64(ws.Bytes)/1e6/secs, *dir)
	fmt.Fprintf(stdout, "index: %s in %d segments\n", humanBytes(ws.IndexBytes), ws.Segments)
	if len(total.Skipped) > 0 {
		reasons := make([]string, 0, len(total.Counts))
		for r, n := range total.Counts {
			reasons = append(reasons, fmt.Sprintf("%s %d", r, n))
		}
		slices.Sort(reasons)
		fmt.Fprintf(stdout, "skipped %d: %s\n", len(total.Skipped), strings.Join(reasons, ", "))
		if *verbose {
			for _, s := range total.Skipped {
				fmt.Fprintf(stdout, "  %s\n", s)
			}
		} else {
			fmt.Fprintln(stdout, "(--verbose lists them)")
		}
	}
	return exitOK
}

func merge(dst *corpus.Stats, st corpus.Stats) {
	dst.Docs += st.Docs
	dst.Bytes += st.Bytes
	dst.Skipped = append(dst.Skipped, st.Skipped...)
	for r, n := range st.Counts {
		if dst.Counts == nil {
			dst.Counts = map[corpus.SkipReason]int{}
		}
		dst.Counts[r] += n
	}
}

// errText strips Go's "op path:" prefix from file errors for a one-line message.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

func humanBytes(n int64) string {
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
