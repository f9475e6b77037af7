package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"strings"

	"github.com/bitsieve/bitsieve/cluster"
	"github.com/bitsieve/bitsieve/query"
)

func init() {
	register(command{name: "search", args: "QUERY", summary: "search the index: ranked hits with highlighted snippets", define: runSearch})
}

func runSearch(fs *pflag.FlagSet) runFunc {
	dir := indexFlag(fs)
	limit := fs.Int("limit", query.DefaultLimit, "number of hits to show")
	offset := fs.Int("offset", 0, "hits to skip (for paging)")
	count := fs.Bool("count", false, "print only the exact number of matching documents")
	asJSON := fs.Bool("json", false, "print one JSON object per query")
	queries := fs.String("queries", "", "run every query of this file (one per line; - for stdin), printing one JSON line each")
	color := fs.String("color", "auto", "highlight matches with colour: auto (when stdout is a terminal and $NO_COLOR is empty), always or never")
	nf := addNATSFlags(fs)
	return func(args []string, stdout, stderr io.Writer) int {
		if *color != "auto" && *color != "always" && *color != "never" {
			return fail(stderr, "--color wants auto, always or never, not %q", *color)
		}
		q := strings.Join(args, " ")
		if *queries == "" && strings.TrimSpace(q) == "" {
			return fail(stderr, "the query is empty: give some words to search for, e.g. bitsieve search 'bloom filter'")
		}
		if *limit < 0 || *offset < 0 {
			return fail(stderr, "--limit and --offset must not be negative")
		}
		if nf.set() && *dir != "" {
			return fail(stderr, "give --index or --nats, not both")
		}
		search, done, err := openSearch(*dir, nf, stderr)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		defer done()
		ctx := context.Background()
		req := query.Request{Limit: *limit, Offset: *offset, CountOnly: *count, Snippets: true}

		if *queries != "" {
			return searchFile(ctx, search, *queries, req, stdout, stderr)
		}
		req.Query = q
		res, out, err := search(ctx, req)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		switch {
		case *asJSON:
			json.NewEncoder(stdout).Encode(out)
		case *count:
			fmt.Fprintln(stdout, res.Total)
		default:
			useColor := *color == "always" || (*color == "auto" && os.Getenv("NO_COLOR") == "" && isTerminalWriter(stdout))
			printHits(stdout, res, *offset, useColor)
		}
		if cr, ok := out.(*cluster.SearchResult); ok && cr.Partial {
			return fail(stderr, "the answer is partial: no owner of shard %s answered, and the total counts only the other shards", missingShards(cr.Missing))
		}
		if res.Total == 0 {
			return exitNoMatch
		}
		return exitOK
	}
}

// searchFunc runs one search: the result, and what --json prints of it.
type searchFunc func(ctx context.Context, req query.Request) (*query.Result, any, error)

// openSearch opens what the search command searches: the index in dir
// (or the default one), or the cluster of nf.
func openSearch(dir string, nf *natsFlags, stderr io.Writer) (searchFunc, func(), error) {
	if nf.set() {
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		c, done, err := nf.open(ctx, quietLogger())
		if err != nil {
			return nil, nil, err
		}
		return func(ctx context.Context, req query.Request) (*query.Result, any, error) {
			r, err := c.Search(ctx, req)
			if err != nil {
				return nil, nil, err
			}
			return r.Result, r, nil
		}, done, nil
	}
	s, closeIx, err := openSearcher(dir, stderr)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, req query.Request) (*query.Result, any, error) {
		r, err := s.Search(ctx, req)
		return r, r, err
	}, closeIx, nil
}

// searchFile runs one query per line, printing a JSON line for each; a bad
// query prints {"query", "error"} and the run goes on, to exit with
// exitError at the end.
func searchFile(ctx context.Context, search searchFunc, path string, req query.Request, stdout, stderr io.Writer) int {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return fail(stderr, "cannot read queries: %v", err)
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	enc := json.NewEncoder(stdout)
	failed := 0
	for {
		line, err := br.ReadString('\n')
		if q := strings.TrimSpace(line); q != "" {
			req.Query = q
			_, out, qerr := search(ctx, req)
			if cr, ok := out.(*cluster.SearchResult); ok && cr.Partial && qerr == nil {
				qerr = fmt.Errorf("the answer is partial: no owner of shard %s answered", missingShards(cr.Missing))
			}
			if qerr != nil {
				failed++
				enc.Encode(map[string]string{"query": q, "error": qerr.Error()})
			} else {
				enc.Encode(out)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(stderr, "reading queries from %s: %v", path, err)
		}
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "bitsieve: %d queries had errors (each has an \"error\" line)\n", failed)
		return exitError
	}
	return exitOK
}

func printHits(w io.Writer, res *query.Result, offset int, color bool) {
	for i, h := range res.Hits {
		// The key reads as grep's path:line: when the snippet's line is known.
		key := displayName(h.Key)
		if h.Line > 0 {
			key = fmt.Sprintf("%s:%d:", key, h.Line)
		}
		title := displayName(h.Title)
		if title == "" {
			title = key
		} else {
			title = fmt.Sprintf("%s — %s", title, key)
		}
		fmt.Fprintf(w, "%3d. %s  (%.2f)\n", offset+i+1, title, h.Score)
		if h.Snippet != "" {
			fmt.Fprintf(w, "     %s\n", highlight(h.Snippet, h.Highlights, color))
		}
	}
	fmt.Fprintf(w, "%d %s (%d candidates, %d false positives) in %.2f ms\n",
		res.Total, plural(res.Total, "hit", "hits"), res.Candidates, res.FalsePositives, float64(res.TookMicros)/1000)
}

// highlight marks ranges with bold red on a terminal; elsewhere the text is
// left as it is.
func highlight(s string, rs []query.Range, color bool) string {
	if !color || len(rs) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, r := range rs {
		if r.Start < at || r.End > len(s) {
			continue
		}
		b.WriteString(s[at:r.Start])
		b.WriteString("\x1b[1;31m")
		b.WriteString(s[r.Start:r.End])
		b.WriteString("\x1b[0m")
		at = r.End
	}
	b.WriteString(s[at:])
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}
