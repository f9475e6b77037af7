package query

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/impact"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// rankCandidates verifies and scores the candidates c of segment si for a
// ranked search, keeping the best in top (which holds the best of the
// segments searched before by the same worker).
//
// Ranking reads every query term of a candidate once, for verification
// and BM25 together, except in the blocks (and for the documents) whose
// score bound is below the floor: there an exact plan's candidates are
// hits as they are, an inexact plan's are only verified (a conjunction of
// words against its words' false positives, plan.falsePositives), and a one-word
// query's are not even verified (its total is its live df), so the total
// stays exact. Blocks are taken best bound first, so that the floor
// rises fast. With few candidates and no floor yet (the first segments
// searched), bounds would cost more than they save, and every candidate
// is scored (boundless); once a floor is set, even a few candidates are
// bounded against it.
func (s *Searcher) rankCandidates(ctx context.Context, p *plan, v *verifier, c []int32, q *compiled, si int, avgdl float64, top *topK, floor *scoreFloor, r *segResult) error {
	seg := p.seg
	bound := &p.planner.bound
	bound.reset(p, q, len(c) < boundFrom && math.IsInf(floor.get(), -1))
	one, oneWord := q.root.(*Term)
	counted := 0
	if oneWord {
		e, _ := q.lookup(seg, one.Term)
		counted = seg.LiveDFOf(e)
	}
	// A candidate not scored is verified (skipped) against its forward
	// entry, unless the plan's false positives decide it.
	verify := !oneWord && !p.root.exact && !p.knowsFalsePositives() && !p.orDecides()
	blocks := orderBlocks(p, c)
	for len(blocks) > 0 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if blocks[0].bound < floor.get() {
			// The floor only rises: no block left can enter the page.
			for _, bl := range blocks {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				for i, doc := range c[bl.lo:bl.hi] {
					if verify {
						v.ahead(c[bl.lo:bl.hi], i, false)
					}
					if err := s.skipped(p, v, int(doc), oneWord, r); err != nil {
						return err
					}
				}
			}
			break
		}
		bl := blocks.pop()
		if !bound.boundless {
			bound.of(int(c[bl.lo]) / bitrow.BlockDocs)
		}
		docs := c[bl.lo:bl.hi]
		if !verify && !bound.boundless {
			// Set aside first the documents that are counted unread, so
			// that only those scored are prefetched.
			kept := p.planner.docs[:0]
			for i, doc := range docs {
				prefetchLengthsAhead(seg, docs, i)
				if bound.docBoundAt(int(doc), seg.DocTokens(int(doc))) >= floor.get() {
					kept = append(kept, doc)
				} else if err := s.skipped(p, v, int(doc), oneWord, r); err != nil {
					return err
				}
			}
			p.planner.docs, docs = kept, kept
		}
		for i, doc := range docs {
			if !p.direct {
				v.ahead(docs, i, true)
			}
			if !bound.boundless && bound.docBoundAt(int(doc), seg.DocTokens(int(doc))) < floor.get() {
				if err := s.skipped(p, v, int(doc), oneWord, r); err != nil {
					return err
				}
				continue
			}
			ok, err := score(p, v, int(doc), q, si, avgdl, top, floor)
			if err != nil {
				return err
			}
			if ok {
				r.hits++
				r.scored++
			}
		}
	}
	if oneWord {
		r.hits = counted
	}
	return nil
}

// byBlock reports whether a plan is ranked block by block, best bound
// first, without listing its candidates (rankBlock): one word in rows,
// whose total is its live df, or an exact conjunction of rows, whose total
// is a popcount (quickCount); without lists, the matcher evaluates their
// blocks in any order.
func byBlock(p *plan) bool {
	n := p.root
	return n.kind == kRows && (len(n.slots) == 1 || n.exact) && n.phrase == nil && len(n.lists) == 0
}

// rankBlock ranks the best block of a byBlock plan's queue (queueBlocks):
// it evaluates the block and scores its documents, unless its bound is
// below the floor. It returns the blocks left, none when no block left can
// reach the floor. The blocks never ranked cost a bound each: no row of
// them is read past the high-rank rows, and no candidate of them is
// listed. A search ranks its segments' blocks one at a time, best bound
// first across all of them (Searcher.rankAllBlocks).
func (s *Searcher) rankBlock(ctx context.Context, p *plan, v *verifier, queue blockQueue, q *compiled, si int, avgdl float64, top *topK, floor *scoreFloor, r *segResult) (blockQueue, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(queue) == 0 || queue[0].bound < floor.get() {
		return nil, nil
	}
	seg, bound, live := p.seg, &p.planner.bound, p.seg.Live()
	var acc block
	bl := queue.pop()
	if len(queue) > 0 {
		p.root.prefetch(queue[0].lo) // most likely the next block of this segment ranked
	}
	if p.root.eval(bl.lo, &acc) {
		bound.of(bl.lo)
		base := bl.lo * bitrow.BlockWords
		docs := p.planner.docs[:0]
		for i, w := range acc {
			w &= live[base+i]
			for ; w != 0; w &= w - 1 {
				doc := (base+i)*64 + bits.TrailingZeros64(w)
				if bound.docBound(seg.DocTokens(doc)) >= floor.get() {
					docs = append(docs, int32(doc))
				}
			}
		}
		p.planner.docs = docs
		for i, doc := range docs {
			if i > 0 && bound.docBound(seg.DocTokens(int(doc))) < floor.get() {
				continue // the floor rose past it
			}
			if !p.direct {
				v.ahead(docs, i, true)
			}
			ok, err := score(p, v, int(doc), q, si, avgdl, top, floor)
			if err != nil {
				return nil, err
			}
			if ok {
				r.scored++
			}
		}
	}
	if len(queue) == 0 || queue[0].bound < floor.get() {
		return nil, nil
	}
	return queue, nil
}

// queueBlocks bounds every block of a byBlock plan that the matcher does
// not rule out, in a queue that gives the best bound first.
func queueBlocks(p *plan, q *compiled) blockQueue {
	bound := &p.planner.bound
	bound.reset(p, q, false)
	nb := len(p.seg.Live()) / bitrow.BlockWords
	blocks := p.planner.blocks[:0]
	for b := p.root.next(0); b < nb; b = p.root.next(b + 1) {
		blocks = append(blocks, candBlock{lo: b, bound: bound.of(b)})
	}
	p.planner.blocks = blocks
	queue := blockQueue(blocks)
	queue.init()
	return queue
}

// score verifies candidate doc of segment si of a ranked search and, when
// it is a hit, scores it with BM25 and keeps it in top if it is among the
// best (raising the floor once top is full).
func score(p *plan, v *verifier, doc int, q *compiled, si int, avgdl float64, top *topK, floor *scoreFloor) (hit bool, err error) {
	if !p.direct || !v.loadDirect(doc) {
		if err := v.load(doc); err != nil {
			return false, err
		}
	}
	if !p.root.exact {
		if ok, err := v.check(p.root); err != nil || !ok {
			return false, err
		}
	}
	top.push(scored{score: p.bm25(v.tf, q, p.seg.DocTokens(doc), avgdl), seg: int32(si), doc: int32(doc)})
	if len(top.items) == top.k {
		floor.raise(top.items[0].score)
	}
	return true, nil
}

// orderBlocks groups the candidates c by block of bitrow.BlockDocs
// documents, each with its score bound, in a queue that gives the best
// bound first (one block of all when the plan's bound is boundless).
func orderBlocks(p *plan, c []int32) blockQueue {
	bound := &p.planner.bound
	blocks := p.planner.blocks[:0]
	if bound.boundless {
		blocks = append(blocks, candBlock{lo: 0, hi: len(c), bound: math.Inf(1)})
	}
	for lo := 0; lo < len(c) && !bound.boundless; {
		b := int(c[lo]) / bitrow.BlockDocs
		hi := lo + 1
		for hi < len(c) && int(c[hi])/bitrow.BlockDocs == b {
			hi++
		}
		blocks = append(blocks, candBlock{lo: lo, hi: hi, bound: bound.of(b)})
		lo = hi
	}
	p.planner.blocks = blocks
	queue := blockQueue(blocks)
	queue.init()
	return queue
}

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

func bm25IDF(n, df float64) float64 {
	df = min(df, n)
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// sortScore orders a plan's scored terms as the query has them (by their
// index in it), so that bm25 adds the same terms in the same order
// whichever order a plan compiled them in: a document's score, to the last
// bit, does not depend on how its segment planned the query.
func sortScore(score []scoreSlot) {
	if len(score) > 16 { // a broad prefix's expansions
		slices.SortFunc(score, func(a, b scoreSlot) int { return a.term - b.term })
		return
	}
	for i := 1; i < len(score); i++ {
		for j := i; j > 0 && score[j].term < score[j-1].term; j-- {
			score[j], score[j-1] = score[j-1], score[j]
		}
	}
}

// bm25 scores a document from the frequencies of the plan's terms, in the
// query's order (sortScore).
func (p *plan) bm25(tf []uint32, q *compiled, dl int, avgdl float64) float64 {
	norm := bm25Norm(dl, avgdl)
	score := 0.0
	for _, sl := range p.score {
		score += bm25Term(q.idf[sl.term], tf[sl.slot], norm)
	}
	return score
}

// bm25Norm is the part of BM25's divisor that a document's length dl
// makes: k1·(1 − b + b·dl/avgdl).
func bm25Norm(dl int, avgdl float64) float64 {
	return bm25K1 * (1 - bm25B + bm25B*float64(dl)/max(avgdl, 1e-9))
}

// bm25Term is one term's part of a BM25 score, of frequency tf in a
// document of norm bm25Norm. Every scorer adds these, in the query's
// order, so that a document scores the same to the last bit whichever way
// it was found.
func bm25Term(idf float64, tf uint32, norm float64) float64 {
	if tf == 0 {
		return 0
	}
	f := float64(tf)
	return idf * f * (bm25K1 + 1) / (f + norm)
}

// scoreFloor is a score every page of the query reaches: the lowest of the k
// best scores of some worker's heap, once it has k. A document that scores
// below it cannot enter the top k of the whole index (k documents score at
// least that), so workers share it, and a block whose bound is below it is
// not scored.
type scoreFloor struct{ bits atomic.Uint64 }

func (f *scoreFloor) reset() { f.bits.Store(math.Float64bits(math.Inf(-1))) }

func (f *scoreFloor) get() float64 { return math.Float64frombits(f.bits.Load()) }

// raise lifts the floor to x if x is higher.
func (f *scoreFloor) raise(x float64) {
	for {
		old := f.bits.Load()
		if math.Float64frombits(old) >= x || f.bits.CompareAndSwap(old, math.Float64bits(x)) {
			return
		}
	}
}

// skipped counts a candidate that is not scored: a hit as it is when the
// plan is exact, unless it is a known false positive when the plan has
// them (plan.falsePositives), after verification otherwise, and not at all
// for a query of one word, whose total is its live df.
func (s *Searcher) skipped(p *plan, v *verifier, doc int, oneWord bool, r *segResult) error {
	switch {
	case oneWord:
	case p.root.exact:
		r.hits++
	default:
		if p.orWords != nil {
			if hit, decided := p.orHit(doc); decided {
				if hit {
					r.hits++
				}
				return nil
			}
		}
		if fps, ok := p.falsePositives(); ok {
			if !falsePositive(fps, doc) {
				r.hits++
			}
			return nil
		}
		return countIfMatch(p, v, doc, r)
	}
	return nil
}

// candBlock is the candidates of one 512-document block, c[lo:hi], with the
// block's score bound.
type candBlock struct {
	lo, hi int
	bound  float64
}

// blockQueue is a max-heap of blocks: the higher bound first, then the
// earlier block. Ranking takes blocks best bound first and mostly stops
// after a few, once the floor is above the rest, so a heap (built in
// O(n), O(log n) a block taken) costs less than ordering them all.
type blockQueue []candBlock

func (q blockQueue) before(i, j int) bool {
	if q[i].bound != q[j].bound {
		return q[i].bound > q[j].bound
	}
	return q[i].lo < q[j].lo
}

func (q blockQueue) init() {
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// push adds a block.
func (q *blockQueue) push(b candBlock) {
	*q = append(*q, b)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.before(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

// pop removes and returns the first block.
func (q *blockQueue) pop() candBlock {
	h := *q
	first, last := h[0], len(h)-1
	h[0] = h[last]
	*q = h[:last]
	q.down(0)
	return first
}

func (q blockQueue) down(i int) {
	for {
		m, l := i, 2*i+1
		if l < len(q) && q.before(l, m) {
			m = l
		}
		if r := l + 1; r < len(q) && q.before(r, m) {
			m = r
		}
		if m == i {
			return
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
}

// blockBound bounds the BM25 score of any document of a 512-document block
// of one segment for one plan: each scored term contributes at most its
// idf·(k1+1)·s, s bounded by the impacts of each of its rank-0 rows in the
// block (index.Impacts; the least bound of its rows holds) and by 1 for a
// term with a list. A slight margin covers rounding, so a block is skipped
// only when no document in it can reach the floor.
type blockBound struct {
	idf       []float64 // by scored term
	rows      [][2]int  // by scored term: its rank-0 rows' impacts, imps[from:to] (none for a list)
	imps      [][]byte
	bits      [][]uint64 // the rank-0 rows themselves, as imps
	boundless bool
	div       *boundDivisors // the query's (compiled.div)
	rowBuf    []int
	s, tf     []float64 // by scored term, in the block last bounded: the bound of s, the largest tf (+Inf: unknown)
}

// boundDivisors are, for one average document length, the two parts of the
// divisor 1 + k1·(1−b)/t + k1·b/(avgdl·r) of a row's bound on s in a block,
// by impact byte: so that a block's bound divides once a term, not twice a
// row. A Searcher keeps them for its snapshot's average length.
type boundDivisors struct {
	avgdl float64
	a, b  float64             // k1·(1−b) and k1·b/avgdl
	tf    [impact.Max]float64 // 1 + a/t, t = 1..Max−1
	ratio [256]float64        // b / Ratio(q)
}

func newBoundDivisors(avgdl float64) *boundDivisors {
	d := &boundDivisors{avgdl: avgdl, a: bm25K1 * (1 - bm25B), b: bm25K1 * bm25B / max(avgdl, 1e-9)}
	for t := 1; t < impact.Max; t++ {
		d.tf[t] = 1 + d.a/float64(t)
	}
	for q := range d.ratio {
		d.ratio[q] = d.b / impact.Ratio(byte(q))
	}
	return d
}

// boundFrom is the fewest candidates of a segment for which ranking bounds
// its blocks before the query has a floor.
const boundFrom = 64

// reset prepares bb for a plan, keeping its memory; a boundless bound is
// +Inf everywhere.
func (bb *blockBound) reset(p *plan, q *compiled, boundless bool) {
	bb.boundless, bb.div = boundless, q.div
	bb.idf, bb.rows, bb.imps, bb.bits = bb.idf[:0], bb.rows[:0], bb.imps[:0], bb.bits[:0]
	if boundless {
		return
	}
	for _, sl := range p.score {
		bb.idf = append(bb.idf, q.idf[sl.term])
		from := len(bb.imps)
		bb.rowBuf = p.seg.TermRowsOf(bb.rowBuf[:0], q.hashes[sl.term], p.ents[sl.slot].Treatment())
		for _, r := range bb.rowBuf {
			if p.seg.RowRank(r) == 0 {
				bb.imps = append(bb.imps, p.seg.Impacts(r))
				bb.bits = append(bb.bits, p.seg.Row(r))
			}
		}
		bb.rows = append(bb.rows, [2]int{from, len(bb.imps)})
	}
}

// of returns the bound of block blk, and keeps what docBound needs.
func (bb *blockBound) of(blk int) float64 {
	if bb.boundless {
		return math.Inf(1)
	}
	bound := 0.0
	bb.s, bb.tf = bb.s[:0], bb.tf[:0]
	div := bb.div
	for i, idf := range bb.idf {
		// s is at most 1/d for the divisor d of each row: 1/(the largest).
		d, tf := 1.0, math.Inf(1)
		for _, imp := range bb.imps[bb.rows[i][0]:bb.rows[i][1]] {
			t, ratio := imp[2*blk], imp[2*blk+1]
			switch {
			case t == 0:
				d, tf = math.Inf(1), 0
			case t < impact.Max:
				d = max(d, div.tf[t]+div.ratio[ratio])
				tf = min(tf, float64(t))
			default:
				d = max(d, 1+div.ratio[ratio])
			}
		}
		s := 1 / d
		bb.s, bb.tf = append(bb.s, s), append(bb.tf, tf)
		bound += idf * (bm25K1 + 1) * s
	}
	return bound * (1 + 1e-9)
}

// docBound bounds the score of a document of length dl in the block last
// given to of: with tf at most the block's largest, a term's s is at most
// tf/(tf + k1·(1−b) + k1·b·dl/avgdl), tighter than the block's bound for
// its longer documents. It costs a read of the document's length, where
// scoring reads its forward entry.
func (bb *blockBound) docBound(dl int) float64 { return bb.docBoundAt(-1, dl) }

// docBoundAt bounds the score of document doc, of length dl, in the block
// last given to of, as docBound does, but counting only the terms whose
// rank-0 rows all have doc's bit: a term that one of its rows rules out is
// not in the document and adds nothing to its score. A conjunction's
// candidates have every term's bits, so this is docBound; an OR's have
// only some, and a document that holds only its common, low-scoring words
// is bounded by them alone (MaxScore's essential terms, decided a document
// at a time by the rows instead of by the order of its postings). A term
// with a list, and no rows, always counts; with doc < 0, every term does.
func (bb *blockBound) docBoundAt(doc, dl int) float64 {
	if bb.boundless {
		return math.Inf(1)
	}
	w, bit := max(doc, 0)>>6, uint64(1)<<(max(doc, 0)&63)
	bound := 0.0
	for i, idf := range bb.idf {
		if doc >= 0 && !bb.admits(i, w, bit) {
			continue
		}
		s := bb.s[i]
		if tf := bb.tf[i]; !math.IsInf(tf, 1) {
			s = min(s, tf/(tf+bb.div.a+bb.div.b*float64(dl)))
		}
		bound += idf * (bm25K1 + 1) * s
	}
	return bound * (1 + 1e-9)
}

// admits reports whether every rank-0 row of scored term i has the bit of
// word w.
func (bb *blockBound) admits(i, w int, bit uint64) bool {
	for _, row := range bb.bits[bb.rows[i][0]:bb.rows[i][1]] {
		if row[w]&bit == 0 {
			return false
		}
	}
	return true
}

// scored is a ranked candidate.
type scored struct {
	score float64
	seg   int32
	doc   int32
}

// topK keeps the k best results of the segments segs (of any of them):
// the higher score first, ties to the smaller key, as the final order
// (sorted) has it, so that the first page does not depend on which ties a
// heap kept. The items are a min-heap by score alone; a key is read (a
// cache miss or two: the document's record, then its key) only to choose
// between results of the lowest score, when one of them must leave. In a
// dictionary many documents tie, and most of their ties never decide
// anything.
type topK struct {
	k     int
	segs  []*segment.Segment
	items []scored
}

// compareKeys compares the keys of two results, as strings.Compare would.
func (t *topK) compareKeys(a, b scored) int {
	return t.segs[a.seg].CompareKeys(int(a.doc), t.segs[b.seg], int(b.doc))
}

func (t *topK) push(x scored) {
	if len(t.items) < t.k {
		t.items = append(t.items, x)
		t.up(len(t.items) - 1)
		return
	}
	low := t.items[0].score
	if x.score < low {
		return
	}
	// The worst result kept: of those of the lowest score, the largest key.
	w := 0
	for i := 1; i < len(t.items); i++ {
		if t.items[i].score == low && t.compareKeys(t.items[i], t.items[w]) > 0 {
			w = i
		}
	}
	if x.score == low && t.compareKeys(x, t.items[w]) >= 0 {
		return
	}
	t.items[w] = x
	t.down(w)
}

// up moves item i towards the root while it scores below its parent.
func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if t.items[i].score >= t.items[p].score {
			return
		}
		t.items[i], t.items[p] = t.items[p], t.items[i]
		i = p
	}
}

// down moves item i away from the root while a child scores below it.
func (t *topK) down(i int) {
	for {
		l, m := 2*i+1, i
		if l < len(t.items) && t.items[l].score < t.items[m].score {
			m = l
		}
		if r := l + 1; r < len(t.items) && t.items[r].score < t.items[m].score {
			m = r
		}
		if m == i {
			return
		}
		t.items[i], t.items[m] = t.items[m], t.items[i]
		i = m
	}
}

// sorted sorts the results best first, in place, and returns them; ties go
// to the smaller key so the order does not depend on how documents were
// split into segments.
func (t *topK) sorted() []scored {
	out := t.items
	slices.SortFunc(out, func(a, b scored) int {
		return byRank(a.score, b.score, func() int { return t.compareKeys(a, b) })
	})
	return out
}
