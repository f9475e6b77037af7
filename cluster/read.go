package cluster

import (
	"context"
	"fmt"
	"slices"

	"github.com/bitsieve/bitsieve/query"
)

// Document returns a window of the stored document with key from the
// shard that holds it, with the highlights of q's words when q is not
// empty: the window that holds byte from, or q's first match when from is
// negative (query.Searcher.Document).
func (c *Cluster) Document(ctx context.Context, key, q string, from int) (*query.DocumentView, error) {
	if q != "" {
		if _, err := c.Parse(q); err != nil {
			return nil, err
		}
	}
	f := c.fanOut(ctx, q)
	s := ShardOf(key, c.cfg.Shards)
	rep, err := f.calls[s].ask(&request{Op: opDocument, Shard: s, Key: key, Query: q, From: from})
	if err != nil {
		return nil, err
	}
	return rep.Document, nil
}

// Explanation is query.Explanation over the cluster: the shards'
// explanations added up (documents, candidates, hits, each term's
// document frequency and rows), each shard's segments named with their
// shard, and what was read.
type Explanation struct {
	*query.Explanation
	Shards  []ShardRead `json:"shards"`
	Partial bool        `json:"partial"`
	Missing []int       `json:"missing_shards,omitempty"`
}

// Explain explains q on every shard and adds the explanations up.
func (c *Cluster) Explain(ctx context.Context, q string) (*Explanation, error) {
	if _, err := c.Parse(q); err != nil {
		return nil, err
	}
	f := c.fanOut(ctx, q)
	parts := f.each(func(s int, g *shardCall) (*reply, error) {
		return g.ask(&request{Op: opExplain, Shard: s, Query: q})
	})
	if err := f.err(); err != nil {
		return nil, err
	}
	out := &Explanation{}
	for s, r := range parts {
		if r == nil {
			out.Partial = true
			out.Missing = append(out.Missing, s)
			continue
		}
		out.Shards = append(out.Shards, ShardRead{Shard: s, Node: r.Node, Generation: r.Generation})
		if out.Explanation == nil {
			out.Explanation = &query.Explanation{Query: r.Explain.Query, Parsed: r.Explain.Parsed}
		}
		addExplanation(out.Explanation, r.Explain, s)
	}
	if out.Explanation == nil {
		return nil, fmt.Errorf("no shard answered: %w", errUnavailable)
	}
	return out, nil
}

// addExplanation adds shard s's explanation e into sum.
func addExplanation(sum, e *query.Explanation, s int) {
	sum.Docs += e.Docs
	sum.Candidates += e.Candidates
	sum.Hits += e.Hits
	sum.FalsePositives += e.FalsePositives
	sum.Cost.Candidates += e.Cost.Candidates
	sum.Cost.Positions += e.Cost.Positions
	sum.Cost.RowBlocks += e.Cost.RowBlocks
	sum.CostUnits = sum.Cost.Units()
	for _, t := range e.Terms {
		i := slices.IndexFunc(sum.Terms, func(u query.TermExplanation) bool {
			return u.Word == t.Word && u.Term == t.Term && u.Negated == t.Negated
		})
		if i < 0 {
			sum.Terms = append(sum.Terms, t)
			continue
		}
		u := &sum.Terms[i]
		if rows := u.Rows + t.Rows; rows > 0 {
			u.Density = (u.Density*float64(u.Rows) + t.Density*float64(t.Rows)) / float64(rows)
		}
		u.DF += t.DF
		u.Private += t.Private
		u.Shared += t.Shared
		u.Lists += t.Lists
		u.Absent += t.Absent
		u.Rows += t.Rows
		u.PredictedFP += t.PredictedFP
		u.ObservedFP += t.ObservedFP
	}
	for _, p := range e.Phrases {
		i := slices.IndexFunc(sum.Phrases, func(u query.PhraseExplanation) bool { return u.Text == p.Text })
		if i < 0 {
			sum.Phrases = append(sum.Phrases, p)
			continue
		}
		for j := range min(len(p.Pairs), len(sum.Phrases[i].Pairs)) {
			sum.Phrases[i].Pairs[j].Segments += p.Pairs[j].Segments
		}
	}
	for _, sg := range e.Segments {
		sg.Segment = fmt.Sprintf("shard-%d/%s", s, sg.Segment)
		sum.Segments = append(sum.Segments, sg)
	}
}
