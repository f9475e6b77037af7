package query

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/impact"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// Searcher answers queries over one index snapshot. It is safe for
// concurrent use.
type Searcher struct {
	ix        *index.Index
	analyzers sync.Pool
	states    sync.Pool       // *queryState
	workers   atomic.Int64    // goroutines per query (SetWorkers)
	inv       *inverted.Index // non-nil: match from postings (NewInvertedSearcher)
	segIdx    map[*segment.Segment]int
}

// NewSearcher returns a Searcher over ix, analyzing queries with the
// analyzer the index was built with.
func NewSearcher(ix *index.Index) (*Searcher, error) {
	if _, err := tokenize.New(ix.Analyzer()); err != nil {
		return nil, fmt.Errorf("index %s: %w", ix.Dir(), err)
	}
	s := &Searcher{ix: ix, segIdx: map[*segment.Segment]int{}}
	s.workers.Store(int64(runtime.GOMAXPROCS(0)))
	s.analyzers.New = func() any { return tokenize.MustNew(ix.Analyzer()) }
	for i, seg := range ix.Segments() {
		s.segIdx[seg] = i
	}
	return s, nil
}

// SetWorkers sets how many goroutines match segments in parallel (at least 1).
func (s *Searcher) SetWorkers(n int) { s.workers.Store(int64(max(1, n))) }

// Index is the snapshot the Searcher reads.
func (s *Searcher) Index() *index.Index { return s.ix }

// Parse parses a query with the index's analyzer.
func (s *Searcher) Parse(q string) (Node, error) {
	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	return Parse(q, an)
}

// compiled is a parsed query with its global term statistics.
type compiled struct {
	root     Node
	terms    []string // every term (prefix expansions included), negated ones too
	termIdx  map[string]int
	positive []bool // by term: it occurs outside a negation (scored, highlighted)
	idf      []float64
	// ents[termIdx[t]][segment] is t's lexicon entry in each segment (DF 0:
	// absent), and hashes[termIdx[t]] its hash: each word is looked up once,
	// in the index's lexicon, at compile time.
	ents     [][]segment.Entry
	entSlab  []segment.Entry // the ents, one block of segments per term
	es       []segment.Entry // scratch for lookups
	hashes   []uint64
	prefixes map[string][]string // the words of each prefix, expanded once
	segIdx   map[*segment.Segment]int
	required []int // indexes of the terms every match contains (requiredTerms)
}

// lookup returns a term's entry in a segment, from the compile-time lookups.
func (q *compiled) lookup(seg *segment.Segment, t string) (segment.Entry, bool) {
	i, ok := q.termIdx[t]
	if !ok {
		return segment.Entry{}, false
	}
	return q.entry(i, q.segIdx[seg])
}

// entry returns the entry of term i (an index into terms) in segment si.
func (q *compiled) entry(i, si int) (segment.Entry, bool) {
	e := q.ents[i][si]
	return e, e.DF > 0
}

// hash is the hash (tokenize.Hash) of a compiled term.
func (q *compiled) hash(t string) uint64 { return q.hashes[q.termIdx[t]] }

func (q *compiled) termIndex(t string) int { return q.termIdx[t] }

func (q *compiled) addTerm(t string, positive bool) {
	i, ok := q.termIdx[t]
	if !ok {
		i = len(q.terms)
		q.termIdx[t] = i
		q.terms = append(q.terms, t)
		q.positive = append(q.positive, false)
	}
	q.positive[i] = q.positive[i] || positive
}

// compile parses q and gathers the global document frequency of every
// positive term, summed over segments, for BM25.
func (s *Searcher) compile(q string) (*compiled, error) { return s.compileFor(q, true) }

// compileFor is compile; without ranking (a count) it skips the document
// frequencies, which only BM25 needs.
func (s *Searcher) compileFor(q string, rank bool) (*compiled, error) {
	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	c := &compiled{}
	if err := s.compileInto(c, new(parser), an, q, rank); err != nil {
		return nil, err
	}
	return c, nil
}

// compileInto parses q with p and compiles it into c, reusing the memory of
// both: in steady state it allocates nothing.
func (s *Searcher) compileInto(c *compiled, p *parser, an *tokenize.Analyzer, q string, rank bool) error {
	root, err := p.parse(q, an)
	if err != nil {
		return err
	}
	c.reset(root, s.segIdx)
	if err := c.gather(s.ix, root); err != nil {
		return err
	}
	// Each term is hashed once and looked up once, in the lexicon; the
	// planners and the segment filter reuse the answers.
	segs := s.ix.Segments()
	n := len(c.terms) * len(segs)
	c.entSlab = slices.Grow(c.entSlab[:0], n)[:n]
	clear(c.entSlab)
	for i, t := range c.terms {
		c.hashes = append(c.hashes, tokenize.Hash(t))
		c.ents = append(c.ents, c.entSlab[i*len(segs):(i+1)*len(segs)])
		if c.es, err = s.ix.Lookup(t, c.es[:0]); err != nil {
			return err
		}
		for _, e := range c.es {
			c.ents[i][e.Seg] = e
		}
	}
	c.required = requiredTerms(root, c, c.required[:0])
	if !rank {
		return nil
	}
	docs := float64(s.ix.NumDocs())
	for i := range c.terms {
		df := 0
		for si, e := range c.ents[i] {
			if e.DF > 0 {
				df += segs[si].LiveDFOf(e)
			}
		}
		c.idf = append(c.idf, bm25IDF(docs, float64(df)))
	}
	return nil
}

// reset empties c for a new query, keeping its memory.
func (c *compiled) reset(root Node, segIdx map[*segment.Segment]int) {
	c.root, c.segIdx = root, segIdx
	if c.termIdx == nil {
		c.termIdx = map[string]int{}
	}
	clear(c.termIdx)
	clear(c.prefixes)
	c.terms, c.positive, c.idf = c.terms[:0], c.positive[:0], c.idf[:0]
	c.ents, c.hashes, c.required = c.ents[:0], c.hashes[:0], c.required[:0]
}

// gather adds the terms of n to c, expanding prefixes once.
func (c *compiled) gather(ix *index.Index, n Node) error {
	var err error
	Walk(n, func(n Node, negated bool) bool {
		if err != nil {
			return false // stop at the first error
		}
		switch x := n.(type) {
		case *Term:
			c.addTerm(x.Term, !negated)
		case *Phrase:
			for _, t := range x.Terms {
				c.addTerm(t, !negated)
			}
		case *Prefix:
			words, ok := c.prefixes[x.Prefix]
			if !ok {
				if words, err = expandPrefix(ix, x.Prefix); err != nil {
					return false
				}
				if c.prefixes == nil {
					c.prefixes = map[string][]string{}
				}
				c.prefixes[x.Prefix] = words
			}
			for _, w := range words {
				c.addTerm(w, !negated)
			}
		}
		return true
	})
	return err
}

// requiredTerms appends the indexes (into c.terms) of the terms every match
// of n must contain: a term, a phrase's terms, and those of each child of an
// AND. A segment without one of them cannot match (canMatch).
func requiredTerms(n Node, c *compiled, dst []int) []int {
	Walk(n, func(n Node, _ bool) bool {
		switch x := n.(type) {
		case *Term:
			dst = append(dst, c.termIdx[x.Term])
		case *Phrase:
			for _, t := range x.Terms {
				dst = append(dst, c.termIdx[t])
			}
		case *And:
			return true
		}
		return false
	})
	return dst
}

// canMatch reports whether segment si holds every required term of the
// query: a segment that lacks one is skipped before it is planned.
func (q *compiled) canMatch(si int) bool {
	for _, t := range q.required {
		if q.ents[t][si].DF == 0 {
			return false
		}
	}
	return true
}

// segResult is one segment's part of an answer (its best hits go to the
// heap of the worker that searched it).
type segResult struct {
	candidates, hits int
	scored           int
	match, verify    time.Duration
	rank             time.Duration
	err              error
}

// queryState is the memory one query works in: the parser's arenas, the
// compiled query, the per-segment results and a candidate buffer. A
// Searcher keeps them in a pool, so that a query in steady state allocates
// nothing of its own.
type queryState struct {
	p       parser
	c       compiled
	workers int // goroutines for this query
	parts   []segResult
	tops    []topK // each worker's k best, over the segments it searched
	cands   []int32
	order   []int        // the segments in the order they are searched (segmentOrder)
	next    atomic.Int64 // the next position in order
	wg      sync.WaitGroup
	floor   scoreFloor
}

// begin takes a query state and compiles q into it.
func (s *Searcher) begin(q string, rank bool) (*queryState, error) {
	st, _ := s.states.Get().(*queryState)
	if st == nil {
		st = new(queryState)
	}
	an := s.analyzers.Get().(*tokenize.Analyzer)
	err := s.compileInto(&st.c, &st.p, an, q, rank)
	s.analyzers.Put(an)
	if err != nil {
		s.states.Put(st)
		return nil, err
	}
	st.workers = int(s.workers.Load())
	return st, nil
}

// match runs the compiled query of st over every segment (keeping the k best
// of each; k = 0 counts), into st.parts.
func (s *Searcher) match(ctx context.Context, st *queryState, k int) error {
	segs := s.ix.Segments()
	st.parts = slices.Grow(st.parts[:0], len(segs))[:len(segs)]
	clear(st.parts)
	st.order = segmentOrder(st.order[:0], segs)
	st.next.Store(0)
	st.floor.reset()
	workers := max(1, min(st.workers, len(segs)))
	st.tops = slices.Grow(st.tops[:0], workers)[:workers]
	for w := range st.tops {
		st.tops[w] = topK{k: k, segs: segs, items: st.tops[w].items[:0]}
	}
	// Workers take the next segment as they finish one; with one worker the
	// caller's goroutine does it all.
	for w := 1; w < workers; w++ {
		st.wg.Add(1)
		go func() {
			defer st.wg.Done()
			var cands []int32
			s.work(ctx, st, k, &cands, &st.tops[w])
		}()
	}
	s.work(ctx, st, k, &st.cands, &st.tops[0])
	st.wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for i := range st.parts {
		if err := st.parts[i].err; err != nil {
			return err
		}
	}
	return nil
}

// segmentOrder appends the indices of segs to dst, shortest documents
// first: by length class, then as the index lists them. BM25 scores a
// short document above a long one with the same frequencies, so the top
// k's shared floor rises early and later segments skip more of their
// blocks (on the prose mix a one-word top-10 takes 12 % less time than in
// the index's order, whose segments are in the order they were sealed).
// Results do not depend on the order.
func segmentOrder(dst []int, segs []*segment.Segment) []int {
	for i := range segs {
		dst = append(dst, i)
	}
	slices.SortStableFunc(dst, func(a, b int) int { return segs[a].LengthClass() - segs[b].LengthClass() })
	return dst
}

// work searches segments until none is left, keeping the k best hits of
// all it searched in top.
func (s *Searcher) work(ctx context.Context, st *queryState, k int, cands *[]int32, top *topK) {
	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	segs, q, avgdl := s.ix.Segments(), &st.c, s.ix.AvgDocLen()
	for {
		n := int(st.next.Add(1) - 1)
		if n >= len(segs) || ctx.Err() != nil {
			return
		}
		i := st.order[n]
		if !q.canMatch(i) {
			continue
		}
		if t, ok := q.root.(*Term); ok && k == 0 {
			// One word: its live document frequency is the exact count,
			// straight from its lexicon entry, with nothing to plan.
			e, _ := q.lookup(segs[i], t.Term)
			st.parts[i] = segResult{hits: segs[i].LiveDFOf(e), candidates: segs[i].LiveDFOf(e)}
			continue
		}
		if s.inv != nil {
			st.parts[i] = s.searchSegmentInverted(segs[i], i, q, k, avgdl, an, top)
			continue
		}
		st.parts[i] = s.searchSegment(ctx, segs[i], i, q, k, avgdl, an, cands, top, &st.floor)
	}
}

// Count returns the number of documents matching q: Search with CountOnly,
// without the Result.
func (s *Searcher) Count(ctx context.Context, q string) (int, error) {
	st, err := s.begin(q, false)
	if err != nil {
		return 0, err
	}
	defer s.states.Put(st)
	if err := s.match(ctx, st, 0); err != nil {
		return 0, err
	}
	n := 0
	for i := range st.parts {
		n += st.parts[i].hits
	}
	return n, nil
}

// Search runs a query: match, verify, rank, and snippets for the page.
func (s *Searcher) Search(ctx context.Context, req Request) (*Result, error) {
	start := time.Now()
	if req.Limit <= 0 {
		req.Limit = DefaultLimit
	}
	req.Offset = max(0, req.Offset)
	st, err := s.begin(req.Query, !req.CountOnly)
	if err != nil {
		return nil, err
	}
	defer s.states.Put(st)
	if req.Admit != nil {
		parsed := time.Since(start)
		workers, release, err := req.Admit(s.costOf(&st.c))
		if err != nil {
			return nil, err
		}
		defer release()
		if workers > 0 {
			st.workers = workers
		}
		start = time.Now().Add(-parsed) // the wait for admission is not the search's time
	}
	q := &st.c
	res := &Result{Query: req.Query, Hits: []Hit{}}
	res.Stages.Parse = time.Since(start)

	segs := s.ix.Segments()
	k := 0
	if !req.CountOnly {
		k = req.Offset + req.Limit
	}
	if err := s.match(ctx, st, k); err != nil {
		return nil, err
	}
	for i := range st.parts {
		p := &st.parts[i]
		res.Candidates += p.candidates
		res.Total += p.hits
		res.Scored += p.scored
		res.Stages.Match += p.match
		res.Stages.Verify += p.verify
		res.Stages.Rank += p.rank
	}
	all := topK{segs: segs}
	for i := range st.tops {
		all.items = append(all.items, st.tops[i].items...)
	}
	res.FalsePositives = res.Candidates - res.Total
	if !req.CountOnly {
		t := time.Now()
		ranked := all.sorted()
		if req.Offset < len(ranked) {
			ranked = ranked[req.Offset:min(len(ranked), req.Offset+req.Limit)]
		} else {
			ranked = nil
		}
		hl := newHighlighter(q)
		for _, sc := range ranked {
			seg := segs[sc.seg]
			info := seg.Doc(int(sc.doc))
			h := Hit{Key: info.Key, Title: info.Title, Score: sc.score}
			if req.Snippets {
				if err := s.snippet(&h, seg, int(sc.seg), int(sc.doc), q, hl); err != nil {
					return nil, err
				}
			}
			res.Hits = append(res.Hits, h)
		}
		res.Stages.Snip = time.Since(t)
	}
	res.Took = time.Since(start)
	res.TookMicros = res.Took.Microseconds()
	return res, nil
}

// searchSegment matches, verifies and ranks one segment.
//
// Verification and ranking check ctx every deadlineStride candidates, so a
// query past its deadline stops inside a segment, not only between two.
func (s *Searcher) searchSegment(ctx context.Context, seg *segment.Segment, si int, q *compiled, k int, avgdl float64, an *tokenize.Analyzer, cands *[]int32, top *topK, floor *scoreFloor) segResult {
	var r segResult
	t0 := time.Now()
	p, err := s.plan(seg, q.root, q)
	if err != nil {
		r.err = err
		return r
	}
	defer p.release()
	if p.root.kind == kNone {
		return r
	}
	if k == 0 {
		if n, ok := quickCount(p); ok {
			r.hits, r.candidates = n, n
			r.match = time.Since(t0)
			return r
		}
	}
	if byBlock(p) {
		r.hits, _ = quickCount(p)
		r.candidates = r.hits
		r.err = s.rankBlocks(ctx, p, newVerifier(p, an), q, si, avgdl, top, floor, &r)
		r.rank = time.Since(t0)
		return r
	}
	c := (*cands)[:0]
	p.match(func(doc int) { c = append(c, int32(doc)) })
	*cands = c
	r.candidates = len(c)
	t1 := time.Now()
	r.match = t1.Sub(t0)

	v := newVerifier(p, an)
	if k == 0 {
		if r.err = countCandidates(ctx, p, v, c, &r); r.err == nil {
			r.verify = time.Since(t1)
		}
		return r
	}
	if r.err = s.rankCandidates(ctx, p, v, c, q, si, avgdl, top, floor, &r); r.err != nil {
		return r
	}
	if p.root.exact {
		r.rank = time.Since(t1)
	} else {
		r.verify = time.Since(t1)
	}
	return r
}

// quickCount is the count of a plan that needs no candidate listed: one
// term's live document frequency, or an exact plan's popcount.
func quickCount(p *plan) (int, bool) {
	switch {
	case p.root.kind == kRows && len(p.root.slots) == 1 && p.root.phrase == nil:
		return p.seg.LiveDFOf(p.ents[p.root.slots[0]]), true
	case p.root.exact:
		return p.count(), true
	}
	return 0, false
}

// countCandidates verifies the candidates c of a count, reading only the
// terms verification needs, and counts the hits into r.
func countCandidates(ctx context.Context, p *plan, v *verifier, c []int32, r *segResult) error {
	for i, doc := range c {
		if i%deadlineStride == deadlineStride-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := countIfMatch(p, v, int(doc), r); err != nil {
			return err
		}
	}
	return nil
}

// countIfMatch verifies doc, reading only the terms verification needs, and
// counts it into r if it matches.
func countIfMatch(p *plan, v *verifier, doc int, r *segResult) error {
	if err := v.loadVerify(doc); err != nil {
		return err
	}
	ok, err := v.check(p.root)
	if err != nil {
		return err
	}
	if ok {
		r.hits++
	}
	return nil
}

// rankCandidates verifies and scores the candidates c of segment si for a
// ranked search, keeping the best in top (which holds the best of the
// segments searched before by the same worker).
//
// Ranking reads every query term of a candidate once, for verification
// and BM25 together, except in the blocks (and for the documents) whose
// score bound is below the floor: there an exact plan's candidates are
// hits as they are, an inexact plan's are only verified, and a one-word
// query's are not even verified (its total is its live df), so the total
// stays exact. Blocks are taken best bound first, so that the floor
// rises fast. With few candidates and no floor yet (the first segments
// searched), bounds would cost more than they save, and every candidate
// is scored (boundless); once a floor is set, even a few candidates are
// bounded against it.
func (s *Searcher) rankCandidates(ctx context.Context, p *plan, v *verifier, c []int32, q *compiled, si int, avgdl float64, top *topK, floor *scoreFloor, r *segResult) error {
	seg := p.seg
	bound := &p.planner.bound
	bound.reset(p, q, avgdl, len(c) < boundFrom && math.IsInf(floor.get(), -1))
	one, oneWord := q.root.(*Term)
	counted := 0
	if oneWord {
		e, _ := q.lookup(seg, one.Term)
		counted = seg.LiveDFOf(e)
	}
	for _, bl := range orderBlocks(p, c) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if bl.bound < floor.get() {
			for _, doc := range c[bl.lo:bl.hi] {
				if err := s.skipped(p, v, int(doc), oneWord, r); err != nil {
					return err
				}
			}
			continue
		}
		if !bound.boundless {
			bound.of(int(c[bl.lo]) / bitrow.BlockDocs)
		}
		for _, doc := range c[bl.lo:bl.hi] {
			if !bound.boundless && bound.docBound(seg.DocTokens(int(doc))) < floor.get() {
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
// first, without listing its candidates (rankBlocks): one word in rows,
// whose total is its live df, or an exact conjunction of rows, whose total
// is a popcount (quickCount); without lists, the matcher evaluates their
// blocks in any order.
func byBlock(p *plan) bool {
	n := p.root
	return n.kind == kRows && (len(n.slots) == 1 || n.exact) && n.phrase == nil && len(n.lists) == 0
}

// rankBlocks ranks a byBlock plan: it bounds every block the matcher does
// not rule out, then evaluates and scores blocks best bound first, and
// stops at the first whose bound is below the floor. The blocks it never
// reaches cost a bound each: no row of them is read past the high-rank
// rows, and no candidate of them is listed.
func (s *Searcher) rankBlocks(ctx context.Context, p *plan, v *verifier, q *compiled, si int, avgdl float64, top *topK, floor *scoreFloor, r *segResult) error {
	seg := p.seg
	bound := &p.planner.bound
	bound.reset(p, q, avgdl, false)
	live := seg.Live()
	nb := len(live) / bitrow.BlockWords
	blocks := p.planner.blocks[:0]
	for b := p.root.next(0); b < nb; b = p.root.next(b + 1) {
		blocks = append(blocks, candBlock{lo: b, bound: bound.of(b)})
	}
	slices.SortFunc(blocks, func(a, b candBlock) int {
		if c := cmp.Compare(b.bound, a.bound); c != 0 {
			return c
		}
		return a.lo - b.lo
	})
	p.planner.blocks = blocks
	var acc block
	for _, bl := range blocks {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if bl.bound < floor.get() {
			break
		}
		if !p.root.eval(bl.lo, &acc) {
			continue
		}
		bound.of(bl.lo)
		base := bl.lo * bitrow.BlockWords
		for i, w := range acc {
			w &= live[base+i]
			for ; w != 0; w &= w - 1 {
				doc := (base+i)*64 + bits.TrailingZeros64(w)
				if bound.docBound(seg.DocTokens(doc)) < floor.get() {
					continue
				}
				ok, err := score(p, v, doc, q, si, avgdl, top, floor)
				if err != nil {
					return err
				}
				if ok {
					r.scored++
				}
			}
		}
	}
	return nil
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
// documents, each with its score bound, best bound first (one block of all
// when the plan's bound is boundless).
func orderBlocks(p *plan, c []int32) []candBlock {
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
	slices.SortFunc(blocks, func(a, b candBlock) int {
		if c := cmp.Compare(b.bound, a.bound); c != 0 {
			return c
		}
		return a.lo - b.lo
	})
	p.planner.blocks = blocks
	return blocks
}

// deadlineStride is how many candidates a segment verifies between two
// looks at the query's deadline.
const deadlineStride = 256

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

func bm25IDF(n, df float64) float64 {
	df = min(df, n)
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// bm25 scores a document from the frequencies of the plan's terms.
func (p *plan) bm25(tf []uint32, q *compiled, dl int, avgdl float64) float64 {
	norm := bm25K1 * (1 - bm25B + bm25B*float64(dl)/max(avgdl, 1e-9))
	score := 0.0
	for _, sl := range p.score {
		if f := float64(tf[sl.slot]); f > 0 {
			score += q.idf[sl.term] * f * (bm25K1 + 1) / (f + norm)
		}
	}
	return score
}

// scoreFloor is a score every page of the query reaches: the lowest of the k
// best scores of some worker's heap, once it has k. A document that scores
// below it cannot enter the top k of the whole index (k documents score at
// least that), so workers share it, and a block whose bound is below it is
// not scored.
type scoreFloor struct{ bits atomic.Uint64 }

func (f *scoreFloor) reset()       { f.bits.Store(math.Float64bits(math.Inf(-1))) }
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
// plan is exact, after verification otherwise, and not at all for a query
// of one word, whose total is its live df.
func (s *Searcher) skipped(p *plan, v *verifier, doc int, oneWord bool, r *segResult) error {
	switch {
	case oneWord:
	case p.root.exact:
		r.hits++
	default:
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
	boundless bool
	a, b      float64 // k1·(1−b) and k1·b/avgdl
	rowBuf    []int
	s, tf     []float64 // by scored term, in the block last bounded: the bound of s, the largest tf (+Inf: unknown)
}

// boundFrom is the fewest candidates of a segment for which ranking bounds
// its blocks before the query has a floor.
const boundFrom = 64

// reset prepares bb for a plan, keeping its memory; a boundless bound is
// +Inf everywhere.
func (bb *blockBound) reset(p *plan, q *compiled, avgdl float64, boundless bool) {
	bb.a, bb.b, bb.boundless = bm25K1*(1-bm25B), bm25K1*bm25B/max(avgdl, 1e-9), boundless
	bb.idf, bb.rows, bb.imps = bb.idf[:0], bb.rows[:0], bb.imps[:0]
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
	for i, idf := range bb.idf {
		s, tf := 1.0, math.Inf(1)
		for _, imp := range bb.imps[bb.rows[i][0]:bb.rows[i][1]] {
			t, ratio := imp[2*blk], imp[2*blk+1]
			switch {
			case t == 0:
				s, tf = 0, 0
			case t < impact.Max:
				s = min(s, 1/(1+bb.a/float64(t)+bb.b/impact.Ratio(ratio)))
				tf = min(tf, float64(t))
			default:
				s = min(s, 1/(1+bb.b/impact.Ratio(ratio)))
			}
		}
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
func (bb *blockBound) docBound(dl int) float64 {
	if bb.boundless {
		return math.Inf(1)
	}
	bound := 0.0
	for i, idf := range bb.idf {
		s := bb.s[i]
		if tf := bb.tf[i]; !math.IsInf(tf, 1) {
			s = min(s, tf/(tf+bb.a+bb.b*float64(dl)))
		}
		bound += idf * (bm25K1 + 1) * s
	}
	return bound * (1 + 1e-9)
}

// scored is a ranked candidate.
type scored struct {
	score float64
	seg   int32
	doc   int32
}

// topK keeps the k best results of the segments segs (of any of them) in
// a min-heap: the higher score first, ties to the smaller key, as the final
// order (sorted) has it, so that the first page does not depend on which
// ties a heap kept.
type topK struct {
	k     int
	segs  []*segment.Segment
	items []scored
}

// less orders worse results first: lower score, then larger key.
func (t *topK) less(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return t.compareKeys(a, b) > 0
}

// compareKeys compares the keys of two results, as strings.Compare would.
func (t *topK) compareKeys(a, b scored) int {
	return t.segs[a.seg].CompareKeys(int(a.doc), t.segs[b.seg], int(b.doc))
}

func (t *topK) push(x scored) {
	if len(t.items) < t.k {
		t.items = append(t.items, x)
		for i := len(t.items) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.less(t.items[i], t.items[p]) {
				break
			}
			t.items[i], t.items[p] = t.items[p], t.items[i]
			i = p
		}
		return
	}
	if !t.less(t.items[0], x) {
		return
	}
	t.items[0] = x
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(t.items) && t.less(t.items[l], t.items[m]) {
			m = l
		}
		if r := l + 1; r < len(t.items) && t.less(t.items[r], t.items[m]) {
			m = r
		}
		if m == i {
			return
		}
		t.items[i], t.items[m] = t.items[m], t.items[i]
		i = m
	}
}

// sorted returns the results best first; ties go to the smaller key so the
// order does not depend on how documents were split into segments.
func (t *topK) sorted() []scored {
	out := slices.Clone(t.items)
	slices.SortFunc(out, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return t.compareKeys(a, b)
	})
	return out
}

// expandPrefix returns the words of the index that start with prefix, looked
// up once in the lexicon; more than MaxPrefixTerms is an error.
func expandPrefix(ix *index.Index, prefix string) ([]string, error) {
	var words []string
	broad := false
	err := ix.Prefix(prefix, func(w string, _ []segment.Entry) bool {
		if len(words) == MaxPrefixTerms {
			broad = true
			return false
		}
		words = append(words, w)
		return true
	})
	if err != nil {
		return nil, err
	}
	if broad {
		return nil, prefixTooBroad(prefix)
	}
	return words, nil
}
