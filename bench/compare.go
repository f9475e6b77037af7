package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bitsieve/bitsieve/query"
)

// compare runs one query through both engines' Matches and first pages.
func (r *Report) compare(ctx context.Context, engines [2]*query.Searcher, p *perQuery, opt Options) error {
	sig, inv := engines[0], engines[1]
	sm, serr := sig.Matches(ctx, p.q.Text)
	im, ierr := inv.Matches(ctx, p.q.Text)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	diff := func(detail string) {
		r.Equality.Different++
		if len(r.Equality.Differences) < opt.MaxDiffs {
			r.Equality.Differences = append(r.Equality.Differences, Difference{p.q.Text, p.q.Source, detail})
		}
	}
	switch {
	case serr != nil && ierr != nil && serr.Error() == ierr.Error():
		p.skip = true
		r.refuse(p.q, serr)
		return nil
	case serr != nil || ierr != nil:
		r.Equality.Queries++
		diff(fmt.Sprintf("signature error: %v; inverted error: %v", serr, ierr))
		return nil
	}
	r.Equality.Queries++
	p.cands, p.hits, p.rows, p.blocks, p.postB = sm.Candidates, sm.Total, sm.Rows, sm.RowBlocks, im.PostingsBytes
	if d := setDiff(sig, sm, im); d != "" {
		diff(d)
		return nil
	}
	r.Equality.Identical++
	req := query.Request{Query: p.q.Text, Limit: opt.Limit}
	sr, serr := sig.Search(ctx, req)
	ir, ierr := inv.Search(ctx, req)
	if serr != nil || ierr != nil {
		diff(fmt.Sprintf("first page: signature error %v, inverted error %v", serr, ierr))
		return nil
	}
	same := sr.Total == ir.Total && slices.EqualFunc(sr.Hits, ir.Hits, func(a, b query.Hit) bool { return a.Key == b.Key && a.Score == b.Score })
	if !same {
		diff(fmt.Sprintf("first pages differ: signature %s; inverted %s", pageString(sr), pageString(ir)))
		return nil
	}
	r.Equality.PagesIdentical++
	return nil
}

func (r *Report) refuse(q Query, err error) {
	if len(r.Queries.Refused) < 20 {
		r.Queries.Refused = append(r.Queries.Refused, Refused{q.Text, q.Source, err.Error()})
	}
	for i := range r.Queries.Sources {
		if r.Queries.Sources[i].Name == q.Source {
			r.Queries.Sources[i].Refused++
			return
		}
	}
	r.Queries.Sources = append(r.Queries.Sources, SourceCount{Name: q.Source, Refused: 1})
}

// setDiff describes how two match sets differ ("" when equal).
func setDiff(s *query.Searcher, a, b *query.Matches) string {
	if len(a.Docs) != len(b.Docs) {
		return fmt.Sprintf("%d segments against %d", len(a.Docs), len(b.Docs))
	}
	var onlyA, onlyB []string
	segs := s.Index().Segments()
	for si := range a.Docs {
		x, y := a.Docs[si], b.Docs[si]
		for i, j := 0, 0; i < len(x) || j < len(y); {
			switch {
			case j == len(y) || (i < len(x) && x[i] < y[j]):
				onlyA = append(onlyA, segs[si].DocKey(int(x[i])))
				i++
			case i == len(x) || y[j] < x[i]:
				onlyB = append(onlyB, segs[si].DocKey(int(y[j])))
				j++
			default:
				i++
				j++
			}
		}
	}
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return ""
	}
	return fmt.Sprintf("signature %d matches, inverted %d; only signature: %s; only inverted: %s",
		a.Total, b.Total, firstKeys(onlyA), firstKeys(onlyB))
}

func firstKeys(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	s := strings.Join(keys[:min(5, len(keys))], ", ")
	if len(keys) > 5 {
		s += fmt.Sprintf(" (and %d more)", len(keys)-5)
	}
	return s
}

func pageString(r *query.Result) string {
	parts := make([]string, len(r.Hits))
	for i, h := range r.Hits {
		parts[i] = fmt.Sprintf("%s %.6g", h.Key, h.Score)
	}
	return fmt.Sprintf("%d total [%s]", r.Total, strings.Join(parts, ", "))
}
