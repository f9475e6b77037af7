package query

import (
	"context"
	"math/bits"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
)

// Matches is the exact set of documents a query matches, segment by
// segment, with what the engine read to find it. It exists to compare the
// two engines: the sets must be equal, and the counters show the cost of
// each.
type Matches struct {
	// Docs lists each segment's matching local document ids, ascending, in
	// the order of Index().Segments().
	Docs  [][]uint32
	Total int
	// Candidates is what the signature stage proposed before verification;
	// the inverted engine's are exact but for phrases, whose positions are
	// checked on the stored text.
	Candidates int
	// Rows is the number of signature rows the per-segment plans AND,
	// summed over segments; RowBlocks is the number of 64-byte row blocks
	// (cache lines) the matcher loaded, the live row's included.
	Rows      int64
	RowBlocks int64
	// PostingsBytes is the serialized size of the bitmaps the inverted
	// engine decoded.
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
	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	segs := s.ix.Segments()
	m := &Matches{Docs: make([][]uint32, len(segs))}
	for i, seg := range segs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var docs []uint32
		if s.inv != nil {
			e := newInvEval(seg, s.inv.Segments()[i], an)
			hits, cands, err := e.run(c)
			if err != nil {
				return nil, err
			}
			if hits != nil {
				docs = hits.ToArray()
			}
			m.Candidates += cands
			m.PostingsBytes += e.bytes
		} else {
			docs, err = s.signatureMatches(seg, c, an, m)
			if err != nil {
				return nil, err
			}
		}
		m.Docs[i] = docs
		m.Total += len(docs)
	}
	return m, nil
}

// signatureMatches is searchSegment's match and verify stages, counting the
// rows and row blocks read.
func (s *Searcher) signatureMatches(seg *index.Segment, q *compiled, an *tokenize.Analyzer, m *Matches) ([]uint32, error) {
	p, err := s.plan(seg, q.root, q)
	if err != nil || p.root.kind == kNone {
		return nil, err
	}
	m.Rows += int64(p.root.rowCount())
	var cands []uint32
	live := seg.Live()
	var acc block
	for b := 0; b < len(live)/index.BlockWords; b++ {
		if !p.root.evalCounted(b, &acc, &m.RowBlocks) {
			continue
		}
		m.RowBlocks++ // the live row's block
		base := b * index.BlockWords
		for i, w := range acc {
			for w &= live[base+i]; w != 0; w &= w - 1 {
				cands = append(cands, uint32((base+i)*64+bits.TrailingZeros64(w)))
			}
		}
	}
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

// rowCount is the number of rows the node's leaves AND.
func (n *pnode) rowCount() int {
	c := len(n.rows)
	for _, k := range n.kids {
		c += k.rowCount()
	}
	for _, k := range n.negs {
		c += k.rowCount()
	}
	return c
}

// evalCounted is eval (match.go) adding to *blocks every 64-byte row block it
// loads. It must follow eval's early exits exactly; TestMatchesCountsLikeEval
// holds the two together.
func (n *pnode) evalCounted(b int, out *block, blocks *int64) bool {
	base := b * index.BlockWords
	switch n.kind {
	case kNone:
		*out = block{}
		return false
	case kAll:
		for i := range out {
			out[i] = ^uint64(0)
		}
		return true
	case kRows:
		return andRowsCounted(n.rows, base, out, blocks)
	case kAnd:
		if len(n.kids) == 0 {
			for i := range out {
				out[i] = ^uint64(0)
			}
		} else if !n.kids[0].evalCounted(b, out, blocks) {
			return false
		}
		for _, k := range n.kids[1:] {
			if !k.evalCounted(b, &n.scratch, blocks) || !andInto(out, &n.scratch) {
				*out = block{}
				return false
			}
		}
		for _, k := range n.negs {
			if k.evalCounted(b, &n.scratch, blocks) && !andNotInto(out, &n.scratch) {
				return false
			}
		}
		return true
	case kOr:
		any := false
		*out = block{}
		for _, k := range n.kids {
			if k.evalCounted(b, &n.scratch, blocks) {
				any = true
				for i := range out {
					out[i] |= n.scratch[i]
				}
			}
		}
		return any
	case kNot:
		if !n.kids[0].exact {
			for i := range out {
				out[i] = ^uint64(0)
			}
			return true
		}
		n.kids[0].evalCounted(b, &n.scratch, blocks)
		var acc uint64
		for i := range out {
			out[i] = ^n.scratch[i]
			acc |= out[i]
		}
		return acc != 0
	}
	return false
}

// andRowsCounted is andRows counting the row blocks it loads.
func andRowsCounted(rows [][]uint64, base int, out *block, blocks *int64) bool {
	if len(rows) == 0 {
		for i := range out {
			out[i] = ^uint64(0)
		}
		return true
	}
	*blocks++
	copy(out[:], rows[0][base:base+index.BlockWords])
	for _, r := range rows[1:] {
		*blocks++
		w := r[base : base+index.BlockWords : base+index.BlockWords]
		for i := range out {
			out[i] &= w[i]
		}
		if out[0]|out[1]|out[2]|out[3]|out[4]|out[5]|out[6]|out[7] == 0 {
			return false
		}
	}
	return out[0]|out[1]|out[2]|out[3]|out[4]|out[5]|out[6]|out[7] != 0
}
