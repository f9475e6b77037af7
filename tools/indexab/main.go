// Command indexab times the same queries on two indexes in one process,
// alternating between them, so that the noise of a shared machine falls on
// both alike. It compares what a whole-process run cannot separate from
// that noise: two copies of one index in different page-cache states (4 KiB
// pages against huge ones, see internal/mmap), or two builds of one corpus.
//
//	go run ./tools/indexab -rounds 8 INDEX_A INDEX_B QUERIES.txt
//
// A round runs the query file once on each index, in alternating order: a
// count of every query, then its top ten, timed. It prints each index's p50
// and p95 of the top-ten times, round by round, and the median over the
// rounds of B's p50 over A's. A query must give the same total on both
// indexes, or the run stops: they must hold the same documents. Query lines
// are made conjunctive as the peers' harness makes them, and those of stop
// words alone are left out.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
)

func main() {
	rounds := flag.Int("rounds", 8, "rounds of one pass over the queries on each index")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: indexab [-rounds n] INDEX_A INDEX_B QUERIES.txt")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 3 || *rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	var ss [2]*query.Searcher
	for i := range ss {
		ix, err := index.Open(flag.Arg(i))
		if err != nil {
			log.Fatal(err)
		}
		defer ix.Close()
		if ss[i], err = query.NewSearcher(ix); err != nil {
			log.Fatal(err)
		}
		ss[i].SetWorkers(1)
	}
	raw, err := os.ReadFile(flag.Arg(2))
	if err != nil {
		log.Fatal(err)
	}
	r, err := compare(context.Background(), ss, queries(string(raw)), *rounds)
	if err != nil {
		log.Fatal(err)
	}
	for i := range r.p50[0] {
		fmt.Printf("round %d: A p50 %.1f p95 %.1f µs, B p50 %.1f p95 %.1f µs, B/A %.3f\n",
			i+1, r.p50[0][i], r.p95[0][i], r.p50[1][i], r.p95[1][i], r.p50[1][i]/r.p50[0][i])
	}
	fmt.Printf("median over %d rounds: A p50 %.1f µs, B p50 %.1f µs, B/A p50 %.3f, p95 %.3f\n",
		len(r.ratio), median(r.p50[0]), median(r.p50[1]), median(r.ratio), median(r.p95[1])/median(r.p95[0]))
}

// queries reads one query a line, made conjunctive: operator characters
// become spaces, as the peers harness makes them.
func queries(s string) []string {
	ops := strings.NewReplacer("\"", " ", "(", " ", ")", " ", "*", " ")
	var qs []string
	for _, l := range strings.Split(s, "\n") {
		var words []string
		for _, w := range strings.Fields(ops.Replace(l)) {
			switch w = strings.TrimLeft(w, "-"); w {
			case "":
			case "OR", "AND", "NOT":
				words = append(words, strings.ToLower(w))
			default:
				words = append(words, w)
			}
		}
		if len(words) > 0 {
			qs = append(qs, strings.Join(words, " "))
		}
	}
	return qs
}

// result holds, by index (A, B) and round, the p50 and p95 of the top-ten
// times in µs, and each round's ratio of B's p50 to A's.
type result struct {
	p50, p95 [2][]float64
	ratio    []float64
}

// compare runs rounds rounds, after one untimed, alternating which index
// goes first. A query that A refuses (stop words alone) is left out, as
// the peers' harness leaves out a query without a searchable word.
func compare(ctx context.Context, ss [2]*query.Searcher, qs []string, rounds int) (result, error) {
	var r result
	var kept []string
	for _, q := range qs {
		if _, err := ss[0].Search(ctx, query.Request{Query: q, CountOnly: true}); err == nil {
			kept = append(kept, q)
		}
	}
	if len(kept) == 0 {
		return r, fmt.Errorf("none of the %d queries can be searched", len(qs))
	}
	qs = kept
	totals := make([]int, len(qs))
	times := make([]float64, len(qs))
	for round := 0; round <= rounds; round++ {
		var p50 [2]float64
		for k := range 2 {
			side := k ^ round&1
			for i, q := range qs {
				res, err := ss[side].Search(ctx, query.Request{Query: q, CountOnly: true})
				if err != nil {
					return r, fmt.Errorf("%q: %w", q, err)
				}
				if round == 0 && k == 0 {
					totals[i] = res.Total
				} else if res.Total != totals[i] {
					return r, fmt.Errorf("%q: %d hits on one index, %d on the other: they do not hold the same documents", q, totals[i], res.Total)
				}
			}
			for i, q := range qs {
				t := time.Now()
				if _, err := ss[side].Search(ctx, query.Request{Query: q, Limit: 10}); err != nil {
					return r, fmt.Errorf("%q: %w", q, err)
				}
				times[i] = float64(time.Since(t).Nanoseconds()) / 1e3
			}
			if round > 0 {
				p50[side] = quantile(times, 0.5)
				r.p50[side] = append(r.p50[side], p50[side])
				r.p95[side] = append(r.p95[side], quantile(times, 0.95))
			}
		}
		if round > 0 {
			r.ratio = append(r.ratio, p50[1]/p50[0])
		}
	}
	return r, nil
}

// quantile is the q-quantile of v (nearest rank).
func quantile(v []float64, q float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

func median(v []float64) float64 { return quantile(v, 0.5) }
