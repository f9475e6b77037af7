package query

import (
	"context"
	"slices"
	"time"

	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// SegmentEngine finds the exact matches of a query in one segment, in
// place of the signature rows: another index of the same segments (the
// roaring baseline of index/inverted) plugs in here. The Searcher does
// everything else around it, as it does for its own engine: it parses the
// query, looks its words up in the lexicon, gathers their statistics,
// scores the matches with BM25 from the forward index, keeps the page and
// cuts its snippets. So two engines give the same totals, scores and pages
// to the last bit, and differ only in how they match.
//
// Match may be called for several segments at once, from several
// goroutines.
type SegmentEngine interface {
	// Name names the engine in reports ("inverted").
	Name() string
	// Match finds the live documents of the query's segment that match it
	// exactly, into m (whose Docs it may reuse).
	Match(q SegmentQuery, m *SegmentMatches) error
}

// SegmentQuery is a compiled query as a SegmentEngine sees it in one
// segment: the parsed tree and what the compilation looked up.
type SegmentQuery struct {
	c   *compiled
	seg *segment.Segment
	si  int
}

// Root is the parsed query.
func (q SegmentQuery) Root() Node { return q.c.root }

// Segment is the segment to match.
func (q SegmentQuery) Segment() *segment.Segment { return q.seg }

// Index is the position of the segment in the snapshot's Segments.
func (q SegmentQuery) Index() int { return q.si }

// Entry is an analyzed term's lexicon entry in the segment, and whether
// the segment holds it. Every term of the query (a prefix's words too)
// was looked up when the query was compiled; another string is absent.
func (q SegmentQuery) Entry(term string) (segment.Entry, bool) {
	i, ok := q.c.termIdx[term]
	if !ok {
		return segment.Entry{}, false
	}
	return q.c.entry(i, q.si)
}

// Expansions are the words of the index that a prefix of the query
// stands for, in the lexicon's order.
func (q SegmentQuery) Expansions(prefix string) []string { return q.c.prefixes[prefix] }

// SegmentMatches is what a SegmentEngine found in one segment.
type SegmentMatches struct {
	Docs       []uint32      // the live documents that match, ascending
	Candidates int           // documents examined before the last exact check (Docs, or more for phrases)
	Bytes      int64         // bytes of the engine's index structures decoded
	Verify     time.Duration // of the time Match took, what went to exact checks (a phrase's positions)
}

// searchSegmentEngine is searchSegment for a SegmentEngine: the engine
// matches, and the matches are scored as a plan scores them.
func (s *Searcher) searchSegmentEngine(seg *segment.Segment, si int, q *compiled, k int, avgdl float64, an *tokenize.Analyzer, top *topK, m *SegmentMatches) segResult {
	var r segResult
	t0 := time.Now()
	m.Docs, m.Candidates, m.Bytes, m.Verify = m.Docs[:0], 0, 0, 0
	if r.err = s.engine.Match(SegmentQuery{c: q, seg: seg, si: si}, m); r.err != nil {
		return r
	}
	r.hits, r.candidates = len(m.Docs), m.Candidates
	t1 := time.Now()
	r.verify = m.Verify
	r.match = t1.Sub(t0) - m.Verify
	if k == 0 || r.hits == 0 {
		return r
	}
	p := scoringPlan(seg, si, q)
	v := newVerifier(p, an)
	for _, doc := range m.Docs {
		if r.err = v.load(int(doc)); r.err != nil {
			return r
		}
		r.scored++
		top.push(scored{score: p.bm25(v.tf, q, seg.DocTokens(int(doc)), avgdl), seg: int32(si), doc: int32(doc)})
	}
	r.rank = time.Since(t1)
	return r
}

// scoringPlan is the part of a plan that ranks: the termIDs of the query's
// positive terms that segment si holds, ascending, and their score slots
// in the query's order. A plan scores exactly these terms, whatever its
// shape (a term of an OR branch that does not match adds a zero), so
// matches scored from it score as the plan's do, to the last bit.
func scoringPlan(seg *segment.Segment, si int, q *compiled) *plan {
	p := &plan{seg: seg}
	for ti := range q.terms {
		if e, ok := q.entry(ti, si); ok && q.positive[ti] {
			p.ids = append(p.ids, e.ID)
			p.score = append(p.score, scoreSlot{term: ti})
		}
	}
	order := make([]int, len(p.ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(p.ids[a]) - int(p.ids[b]) })
	ids := make([]segment.TermID, len(order))
	for slot, i := range order {
		ids[slot] = p.ids[i]
		p.score[i].slot = slot
	}
	p.ids = ids
	sortScore(p.score)
	return p
}

// engineMatches is Matches for a SegmentEngine.
func (s *Searcher) engineMatches(ctx context.Context, c *compiled) (*Matches, error) {
	segs := s.ix.Segments()
	m := &Matches{Docs: make([][]uint32, len(segs))}
	var sm SegmentMatches
	for i := range segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sm = SegmentMatches{}
		if err := s.engine.Match(SegmentQuery{c: c, seg: segs[i], si: i}, &sm); err != nil {
			return nil, err
		}
		m.Docs[i] = sm.Docs
		m.Total += len(sm.Docs)
		m.Candidates += sm.Candidates
		m.PostingsBytes += sm.Bytes
	}
	return m, nil
}
