package query

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// Searcher answers queries over one index snapshot. It is safe for
// concurrent use.
type Searcher struct {
	ix        *index.Index
	analyzers sync.Pool     // *tokenize.Analyzer, all sharing one tokenize.StemCache
	states    sync.Pool     // *queryState
	workers   atomic.Int64  // goroutines per query (SetWorkers)
	engine    SegmentEngine // nil: the signature rows (WithEngine)
	plansOnly bool          // every segment planned: no words visits (for the tests that compare the two)
	segIdx    map[*segment.Segment]int
	order     []int          // the segments in the order they are searched (segmentOrder)
	divisors  *boundDivisors // for the snapshot's average document length
}

// Option configures a Searcher.
type Option func(*Searcher)

// WithEngine makes the Searcher match each segment with e instead of the
// signature rows; everything else is the same (SegmentEngine).
func WithEngine(e SegmentEngine) Option { return func(s *Searcher) { s.engine = e } }

// NewSearcher returns a Searcher over ix, analyzing queries with the
// analyzer the index was built with.
func NewSearcher(ix *index.Index, opts ...Option) (*Searcher, error) {
	stems, err := tokenize.NewStemCache(ix.Analyzer())
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", ix.Dir(), err)
	}
	s := &Searcher{ix: ix, segIdx: map[*segment.Segment]int{}, divisors: newBoundDivisors(ix.AvgDocLen())}
	s.workers.Store(int64(runtime.GOMAXPROCS(0)))
	s.analyzers.New = func() any { return tokenize.NewShared(stems) }
	for i, seg := range ix.Segments() {
		s.segIdx[seg] = i
	}
	s.order = segmentOrder(nil, ix.Segments())
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Engine names the Searcher's match stage: "signature", or the name of
// its SegmentEngine.
func (s *Searcher) Engine() string {
	if s.engine != nil {
		return s.engine.Name()
	}
	return "signature"
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

// segResult is one segment's part of an answer (its best hits go to the
// heap of the worker that searched it).
type segResult struct {
	candidates, hits int
	scored           int
	match, verify    time.Duration
	rank             time.Duration
	err              error
	later            segRest // what a ranked search left for match's second round
}

// segRest is a segment of a ranked search whose plan is ranked by blocks
// (rankBlock), between the two rounds of match: its plan, held until
// rankAllBlocks releases it, the plan's verifier and the blocks left to
// rank, best bound first.
type segRest struct {
	p     *plan
	v     *verifier
	queue blockQueue
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
	order   []int        // the segments the query can match, in the order they are searched
	next    atomic.Int64 // the next position in order
	wg      sync.WaitGroup
	floor   scoreFloor
	// segQueue is the segments whose blocks are left to rank, by their
	// best bound (rankAllBlocks), guarded by mu; lo is a segment's index.
	segQueue  blockQueue
	mu        sync.Mutex
	blockRank atomic.Int64        // nanoseconds the workers of rankAllBlocks took, together
	pause     func(time.Duration) // Request.Pause
}

// gaveWay calls the request's Pause, if any, with the time since *since,
// and sets *since to the time it returns: a worker's call between two
// pieces of work.
func (st *queryState) gaveWay(since *time.Duration) {
	if st.pause == nil {
		return
	}
	now := clock()
	st.pause(now - *since)
	*since = clock()
}

// begin takes a query state and compiles q into it (compileInto).
func (s *Searcher) begin(q string, rank bool, stats *Stats) (*queryState, error) {
	st, _ := s.states.Get().(*queryState)
	if st == nil {
		st = new(queryState)
	}
	an := s.analyzers.Get().(*tokenize.Analyzer)
	err := s.compileInto(&st.c, &st.p, an, q, rank, stats)
	s.analyzers.Put(an)
	if err != nil {
		s.states.Put(st)
		return nil, err
	}
	st.workers = int(s.workers.Load())
	st.pause = nil
	return st, nil
}

// prefetchHeads asks for the first bytes that the visits of the segments
// in order (those the query can match) will read of the query's words
// (segment.PrefetchTerm), before the first visit. A visit reads little of
// a segment, but each read waits on a cache miss, and the next read
// depends on it: with the words' lists and private rows asked for all at
// once, the first misses of every segment overlap, where visit after visit
// would wait for them one at a time. (Asked for one segment ahead only,
// they arrive too late: a visit takes a microsecond or two.)
func (q *compiled) prefetchHeads(segs []*segment.Segment, order []int) {
	for _, si := range order {
		for ti := range q.terms {
			segs[si].PrefetchTerm(q.ents[ti][si])
		}
	}
}

// match runs the compiled query of st over every segment (keeping the k best
// of each; k = 0 counts), into st.parts.
//
// A ranked search goes in two rounds, so that the floor of the top k rises
// as early as it can:
//
//  1. searchSegment searches each segment, except that where the plan is
//     ranked by blocks (byBlock) it only bounds the blocks, and leaves
//     the plan for
//  2. rankAllBlocks, which ranks the blocks of all those segments
//     together, best bound first, as if they were one segment.
//
// In each round workers take the next segment (or block) as they finish
// one; with one worker the caller's goroutine does it all.
func (s *Searcher) match(ctx context.Context, st *queryState, k int) error {
	segs := s.ix.Segments()
	st.parts = slices.Grow(st.parts[:0], len(segs))[:len(segs)]
	clear(st.parts)
	st.order = st.order[:0]
	for _, si := range s.order {
		if st.c.canMatch(si) {
			st.order = append(st.order, si)
		}
	}
	st.floor.reset()
	st.blockRank.Store(0)
	workers := max(1, min(st.workers, len(segs)))
	st.tops = slices.Grow(st.tops[:0], workers)[:workers]
	for w := range st.tops {
		st.tops[w] = topK{k: k, segs: segs, items: st.tops[w].items[:0]}
	}
	st.next.Store(0)
	if _, one := st.c.root.(*Term); s.engine == nil && !(one && k == 0) {
		st.c.prefetchHeads(segs, st.order)
	}
	s.inRound(ctx, st, k, workers, roundSearch, len(st.order))
	if n := st.queueSegments(); n > 0 {
		s.inRound(ctx, st, k, workers, roundBlocks, n)
	}
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

// The rounds of a search (match).
const (
	roundSearch = iota // searchSegment over st.order
	roundBlocks        // rankAllBlocks over st.segQueue
)

// inRound runs round of a search on at most workers goroutines, at most
// one for each of its n items, and waits for them.
func (s *Searcher) inRound(ctx context.Context, st *queryState, k, workers, round, n int) {
	workers = min(workers, n)
	for w := 1; w < workers; w++ {
		st.wg.Add(1)
		go func() {
			defer st.wg.Done()
			var cands []int32
			s.work(ctx, st, k, round, &cands, &st.tops[w])
		}()
	}
	s.work(ctx, st, k, round, &st.cands, &st.tops[0])
	st.wg.Wait()
}

// work is a worker of a round of a search: it keeps the k best hits of all
// it ranks in top, and lists candidates in cands.
func (s *Searcher) work(ctx context.Context, st *queryState, k, round int, cands *[]int32, top *topK) {
	switch round {
	case roundSearch:
		s.searchSegments(ctx, st, k, cands, top)
	case roundBlocks:
		s.rankAllBlocks(ctx, st, top)
	}
}

// segmentOrder appends the indices of segs to dst, shortest documents
// first: by length class, then as the index lists them. BM25 scores a
// short document above a long one with the same frequencies, so the top
// k's shared floor rises early and the segments ranked by their
// candidates (rankCandidates) skip more of their blocks. Results do not
// depend on the order.
func segmentOrder(dst []int, segs []*segment.Segment) []int {
	for i := range segs {
		dst = append(dst, i)
	}
	slices.SortStableFunc(dst, func(a, b int) int { return segs[a].LengthClass() - segs[b].LengthClass() })
	return dst
}

// searchSegments searches segments in st.order until none is left (the
// first round of match).
func (s *Searcher) searchSegments(ctx context.Context, st *queryState, k int, cands *[]int32, top *topK) {
	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	var visit *wordsVisit // taken at the first segment searched word by word
	defer func() {
		if visit != nil {
			wordsVisits.Put(visit)
		}
	}()
	var em *SegmentMatches // a SegmentEngine's, for all the segments searched
	segs, q, avgdl := s.ix.Segments(), &st.c, st.c.avgdl
	now := clock() // where the next segment's time starts
	worked := now  // since the last pause
	for first := true; ; first = false {
		if !first {
			st.gaveWay(&worked)
		}
		n := int(st.next.Add(1) - 1)
		if n >= len(st.order) || ctx.Err() != nil {
			return
		}
		i := st.order[n]
		if t, ok := q.root.(*Term); ok && k == 0 {
			// One word: its live document frequency is the exact count,
			// straight from its lexicon entry, with nothing to plan.
			e, _ := q.lookup(segs[i], t.Term)
			st.parts[i] = segResult{hits: segs[i].LiveDFOf(e), candidates: segs[i].LiveDFOf(e)}
			continue
		}
		if s.engine != nil {
			if em == nil {
				em = new(SegmentMatches)
			}
			st.parts[i] = s.searchSegmentEngine(segs[i], i, q, k, avgdl, an, top, em)
			continue
		}
		if q.words && !s.plansOnly && q.listIn(i) {
			if visit == nil {
				visit = wordsVisits.Get().(*wordsVisit)
			}
			st.parts[i], now = s.searchWords(ctx, visit, segs[i], i, q, k, avgdl, top, &st.floor, now)
			continue
		}
		st.parts[i], now = s.searchSegment(ctx, segs[i], i, q, k, avgdl, an, cands, top, &st.floor, now)
	}
}

// queueSegments puts the segments whose blocks are left to rank in
// st.segQueue, best block first, and returns how many there are.
func (st *queryState) queueSegments() int {
	st.segQueue = st.segQueue[:0]
	for i := range st.parts {
		if r := &st.parts[i].later; len(r.queue) > 0 {
			st.segQueue = append(st.segQueue, candBlock{lo: i, bound: r.queue[0].bound})
		}
	}
	st.segQueue.init()
	return len(st.segQueue)
}

// rankAllBlocks ranks blocks of the segments ranked by blocks, best bound
// first across all of them, until no block left can reach the floor: the
// floor rises on the best blocks of the whole index, not only on those of
// the segments ranked first. A worker takes the segment with the best
// block left from st.segQueue (so that one worker at a time ranks a
// segment), ranks that block and gives the segment back. It releases the
// segments' plans.
func (s *Searcher) rankAllBlocks(ctx context.Context, st *queryState, top *topK) {
	q, avgdl := &st.c, st.c.avgdl
	t0 := time.Now() // once a round: a block may take only a few clock reads
	defer func() { st.blockRank.Add(int64(time.Since(t0))) }()
	worked := clock()
	for first := true; ; first = false {
		if !first {
			st.gaveWay(&worked)
		}
		st.mu.Lock()
		if len(st.segQueue) == 0 {
			st.mu.Unlock()
			return
		}
		i := st.segQueue.pop().lo
		st.mu.Unlock()

		r := &st.parts[i]
		queue, err := s.rankBlock(ctx, r.later.p, r.later.v, r.later.queue, q, i, avgdl, top, &st.floor, r)
		if err != nil || len(queue) == 0 {
			r.err = err
			r.later.p.release()
			r.later = segRest{}
			continue
		}
		r.later.queue = queue
		st.mu.Lock()
		st.segQueue.push(candBlock{lo: i, bound: queue[0].bound})
		st.mu.Unlock()
	}
}

// Count returns the number of documents matching q: Search with CountOnly,
// without the Result.
func (s *Searcher) Count(ctx context.Context, q string) (int, error) {
	st, err := s.begin(q, false, nil)
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
	start := clock()
	if req.Limit <= 0 {
		req.Limit = DefaultLimit
	}
	req.Offset = max(0, req.Offset)
	st, err := s.begin(req.Query, !req.CountOnly, req.Stats)
	if err != nil {
		return nil, err
	}
	defer s.states.Put(st)
	if req.Admit != nil {
		parsed := clock() - start
		workers, release, err := req.Admit(s.costOf(&st.c))
		if err != nil {
			return nil, err
		}
		defer release()
		if workers > 0 {
			st.workers = workers
		}
		st.pause = req.Pause
		start = clock() - parsed // the wait for admission is not the search's time
	}
	q := &st.c
	res := &Result{Query: req.Query, Hits: []Hit{}}
	res.Stages.Parse = clock() - start

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
	res.Stages.Rank += time.Duration(st.blockRank.Load())
	n := 0
	for i := range st.tops {
		n += len(st.tops[i].items)
	}
	all := topK{segs: segs, items: make([]scored, 0, n)}
	for i := range st.tops {
		all.items = append(all.items, st.tops[i].items...)
	}
	res.FalsePositives = res.Candidates - res.Total
	if !req.CountOnly {
		t := clock()
		ranked := page(all.sorted(), req.Offset, req.Limit)
		for _, sc := range ranked {
			segs[sc.seg].PrefetchDoc(int(sc.doc))
		}
		strs := 0
		for _, sc := range ranked {
			strs += segs[sc.seg].PrefetchDocStrings(int(sc.doc))
		}
		var hl *highlighter
		if req.Snippets {
			hl = newHighlighter(q)
		}
		// The page's keys and titles are copied into one string, which
		// every hit's key and title slice.
		var sb strings.Builder
		sb.Grow(strs)
		for _, sc := range ranked {
			key, title := segs[sc.seg].DocStrings(int(sc.doc))
			sb.Write(key)
			sb.Write(title)
		}
		all, at := sb.String(), 0
		res.Hits = make([]Hit, 0, len(ranked))
		for _, sc := range ranked {
			seg := segs[sc.seg]
			key, title := seg.DocStrings(int(sc.doc))
			h := Hit{Key: all[at : at+len(key)], Title: all[at+len(key) : at+len(key)+len(title)], Score: sc.score}
			at += len(key) + len(title)
			if req.Snippets {
				if err := s.snippet(&h, seg, int(sc.seg), int(sc.doc), q, hl); err != nil {
					return nil, err
				}
			}
			res.Hits = append(res.Hits, h)
		}
		res.Stages.Snip = clock() - t
	}
	res.Took = clock() - start
	res.TookMicros = res.Took.Microseconds()
	return res, nil
}

// searchSegment matches, verifies and ranks one segment, except a plan
// ranked by blocks: of that it bounds the blocks and leaves the plan and
// its blocks in r.later, for match's second round to rank; its total is
// known (quickCount).
//
// Verification and ranking check ctx every deadlineStride candidates, so a
// query past its deadline stops inside a segment, not only between two.
//
// Its time starts at t0, a clock reading at the end of the segment searched
// before (the clock is read once between two segments: a segment skipped
// meanwhile, or one that matches nothing, counts in the next one's first
// stage), and it returns the reading at its own end.
func (s *Searcher) searchSegment(ctx context.Context, seg *segment.Segment, si int, q *compiled, k int, avgdl float64, an *tokenize.Analyzer, cands *[]int32, top *topK, floor *scoreFloor, t0 time.Duration) (segResult, time.Duration) {
	var r segResult
	p, err := s.plan(seg, si, q.root, q)
	if err != nil {
		r.err = err
		return r, t0
	}
	if k > 0 && byBlock(p) {
		r.hits, _ = quickCount(p)
		r.candidates = r.hits
		if queue := queueBlocks(p, q); len(queue) > 0 {
			r.later = segRest{p: p, v: newVerifier(p, an), queue: queue}
		} else {
			p.release()
		}
		end := clock()
		r.rank = end - t0
		return r, end
	}
	defer p.release()
	if p.root.kind == kNone {
		return r, t0
	}
	if k == 0 {
		if n, ok := quickCount(p); ok {
			r.hits, r.candidates = n, n
			end := clock()
			r.match = end - t0
			return r, end
		}
	}
	c := (*cands)[:0]
	p.match(func(doc int) { c = append(c, int32(doc)) })
	*cands = c
	r.candidates = len(c)
	t1 := clock()
	r.match = t1 - t0

	v := newVerifier(p, an)
	if k == 0 {
		r.err = countCandidates(ctx, p, v, c, &r)
	} else {
		r.err = s.rankCandidates(ctx, p, v, c, q, si, avgdl, top, floor, &r)
	}
	end := clock()
	if k > 0 && p.root.exact {
		r.rank = end - t1
	} else {
		r.verify = end - t1
	}
	return r, end
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
// terms verification needs, or only the plan's false positives when they
// decide (plan.falsePositives) and there are enough candidates for them to
// cost less (falseFrom), and counts the hits into r.
func countCandidates(ctx context.Context, p *plan, v *verifier, c []int32, r *segResult) error {
	if len(c) >= falseFrom*len(p.root.vslots) {
		if fps, ok := p.falsePositives(); ok {
			r.hits += len(c) - falseIn(c, fps)
			return nil
		}
	}
	for i, doc := range c {
		if i%deadlineStride == deadlineStride-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		if p.orWords != nil {
			if hit, decided := p.orHit(int(doc)); decided {
				if hit {
					r.hits++
				}
				continue
			}
		}
		v.ahead(c, i, false)
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

// falseFrom is how many candidates for each word with shared rows a count
// must have before it reads the words' false positives instead of each
// candidate's forward entry: a word's false positives cost two cache
// misses, one after the other (the directory, then the list), and a
// candidate's entry about two, overlapped with the next candidates'.
const falseFrom = 4

// deadlineStride is how many candidates a segment verifies between two
// looks at the query's deadline.
const deadlineStride = 256

// epoch is where clock counts from.
var epoch = time.Now()

// clock reads the monotonic clock alone, as a duration since epoch: one
// clock read where time.Now makes two (wall and monotonic time), for Search
// and searchSegment, which reads it once or twice for every segment a query
// visits.
func clock() time.Duration { return time.Since(epoch) }
