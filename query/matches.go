package query

import (
	"context"

	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// Matches is the exact set of documents a query matches, segment by
// segment, with what the engine read to find it. It exists to compare
// engines (the signature rows and a SegmentEngine): the sets must be
// equal, and the counters show the cost of each.
type Matches struct {
	// Docs lists each segment's matching local document ids, ascending, in
	// the order of Index().Segments().
	Docs  [][]uint32
	Total int
	// Candidates is what the signature stage proposed before verification,
	// or what a SegmentEngine examined (SegmentMatches.Candidates).
	Candidates int
	// Rows is the number of signature rows the per-segment plans AND,
	// summed over segments; RowBlocks is the number of 64-byte row blocks
	// (cache lines) the matcher loaded, the live row's included.
	Rows      int64
	RowBlocks int64
	// PostingsBytes is what a SegmentEngine decoded of its own index
	// (SegmentMatches.Bytes).
	PostingsBytes int64
}

// Matches evaluates q and returns its exact matches in every segment, one
// segment after the other. It does the work Search does up to ranking, with
// counters the timed path does not keep: use Search to measure time.
func (s *Searcher) Matches(ctx context.Context, q string) (*Matches, error) {
	c, err := s.compile(q)
	if err != nil {
		return nil, err
	}
	if s.engine != nil {
		return s.engineMatches(ctx, c)
	}
	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	segs := s.ix.Segments()
	m := &Matches{Docs: make([][]uint32, len(segs))}
	for i, seg := range segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		docs, err := s.signatureMatches(seg, c, an, m)
		if err != nil {
			return nil, err
		}
		m.Docs[i] = docs
		m.Total += len(docs)
	}
	return m, nil
}

// signatureMatches is searchSegment's match and verify stages, counting the
// rows and row blocks read.
func (s *Searcher) signatureMatches(seg *segment.Segment, q *compiled, an *tokenize.Analyzer, m *Matches) ([]uint32, error) {
	p, err := s.plan(seg, q.segIdx[seg], q.root, q)
	if err != nil {
		return nil, err
	}
	defer p.release()
	if p.root.kind == kNone {
		return nil, nil
	}
	m.Rows += int64(p.root.rowCount())
	var cands []uint32
	p.root.countLoads(&m.RowBlocks)
	p.match(func(doc int) { cands = append(cands, uint32(doc)) })
	m.Candidates += len(cands)
	if p.root.exact {
		return cands, nil
	}
	v := newVerifier(p, an)
	hits := cands[:0]
	for _, doc := range cands {
		if err := v.load(int(doc)); err != nil {
			return nil, err
		}
		ok, err := v.check(p.root)
		if err != nil {
			return nil, err
		}
		if ok {
			hits = append(hits, doc)
		}
	}
	return hits, nil
}

// rowCount is the number of rows and lists the node's leaves AND.
func (n *pnode) rowCount() int {
	c := len(n.rows) + len(n.lists)
	for _, k := range n.kids {
		c += k.rowCount()
	}
	for _, k := range n.negs {
		c += k.rowCount()
	}
	return c
}
