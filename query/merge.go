package query

import (
	"slices"
	"strings"
)

// Merge combines the results of one request over several indexes into the
// page req asks for, as one index holding all their documents would give
// it. Each part must come from the same query searched with the same
// Request.Stats (their sum over the indexes), for the first
// req.Offset+req.Limit hits from offset 0: its best hits, scored as that
// one index scores them. Totals and counters are summed, stage times too
// (the work of every index), and the hits are ordered by score, then key,
// as Search orders them, before the page is cut. Took is left to the
// caller, which knows what the parts cost it.
func Merge(req Request, parts []*Result) *Result {
	if req.Limit <= 0 {
		req.Limit = DefaultLimit
	}
	out := &Result{Query: req.Query, Hits: []Hit{}}
	n := 0
	for _, p := range parts {
		n += len(p.Hits)
	}
	hits := make([]Hit, 0, n)
	for _, p := range parts {
		out.Total += p.Total
		out.Candidates += p.Candidates
		out.FalsePositives += p.FalsePositives
		out.Scored += p.Scored
		out.Stages.Parse += p.Stages.Parse
		out.Stages.Match += p.Stages.Match
		out.Stages.Verify += p.Stages.Verify
		out.Stages.Rank += p.Stages.Rank
		out.Stages.Snip += p.Stages.Snip
		hits = append(hits, p.Hits...)
	}
	if req.CountOnly {
		return out
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		return byRank(a.Score, b.Score, func() int { return strings.Compare(a.Key, b.Key) })
	})
	out.Hits = append(out.Hits, page(hits, max(0, req.Offset), req.Limit)...)
	return out
}

// byRank orders two results best first: the higher score first, and of
// equal scores the smaller key (keys compares them), so that the order
// does not depend on how the documents were split into segments or
// indexes.
func byRank(a, b float64, keys func() int) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return keys()
}

// page is the part of ranked, best first, that a page of limit hits from
// offset shows.
func page[T any](ranked []T, offset, limit int) []T {
	if offset >= len(ranked) {
		return nil
	}
	return ranked[offset:min(len(ranked), offset+limit)]
}
