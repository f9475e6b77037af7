// Command querytime times the queries of files in process, on one worker,
// as the peers harness does: every query's count, then its top ten (no
// snippets), each the median of three runs, after a pass that warms up. It
// prints each file's p50, p95 and mean, and a hash of the answers (totals,
// keys and scores), so that two builds compared on one index are seen to
// answer alike. With -or, the words of each line are ORed (operator
// characters dropped), as PEERS_MODE=union makes them.
//
// To compare two revisions, build it from each checkout and run the two
// binaries alternately on one index:
//
//	go build -o /tmp/qt-new ./tools/querytime
//	/tmp/qt-new -or /var/tmp/bitsieve-prose-index bench/queries/wordnet-2term.txt bench/queries/debian-titles.txt
package main

import (
	"bufio"
	"context"
	"crypto/sha1"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
)

// operators are what -or drops from a line before joining its words.
var operators = regexp.MustCompile(`[\s"()*:+\-]+`)

func main() {
	or := flag.Bool("or", false, "OR the words of each line")
	flag.Parse()
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: querytime [-or] INDEX QUERYFILE...")
		os.Exit(2)
	}
	ix, err := index.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "querytime:", err)
		os.Exit(2)
	}
	s, err := query.NewSearcher(ix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "querytime:", err)
		os.Exit(2)
	}
	s.SetWorkers(1)
	for _, f := range flag.Args()[1:] {
		fh, err := os.Open(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "querytime:", err)
			os.Exit(2)
		}
		var qs []string
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			q := sc.Text()
			if *or {
				var ws []string
				for _, w := range operators.Split(q, -1) {
					if w != "" && w != "OR" && w != "AND" && w != "NOT" {
						ws = append(ws, w)
					}
				}
				q = strings.Join(ws, " OR ")
			}
			if q != "" {
				qs = append(qs, q)
			}
		}
		fh.Close()
		for _, mode := range []string{"count", "top10"} {
			h := sha1.New()
			var ts []time.Duration
			for pass := 0; pass < 2; pass++ { // the first pass warms up
				ts = ts[:0]
				for _, q := range qs {
					var runs []time.Duration
					var res *query.Result
					for range 3 {
						t0 := time.Now()
						res, err = s.Search(context.Background(), query.Request{Query: q, Limit: 10, CountOnly: mode == "count"})
						runs = append(runs, time.Since(t0))
					}
					if err != nil {
						continue
					}
					slices.Sort(runs)
					ts = append(ts, runs[1])
					if pass == 1 {
						fmt.Fprint(h, q, res.Total)
						for _, hit := range res.Hits {
							fmt.Fprintf(h, " %s %.9g", hit.Key, hit.Score)
						}
					}
				}
			}
			slices.Sort(ts)
			var sum time.Duration
			for _, t := range ts {
				sum += t
			}
			fmt.Printf("%-28s %-6s n=%d p50=%6.1fµs p95=%7.1fµs mean=%7.1fµs hash=%x\n", f[len(f)-min(len(f), 28):], mode, len(ts),
				float64(ts[len(ts)/2].Nanoseconds())/1e3, float64(ts[len(ts)*95/100].Nanoseconds())/1e3, float64(sum.Nanoseconds())/1e3/float64(len(ts)), h.Sum(nil)[:6])
		}
	}
}
