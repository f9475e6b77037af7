package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bitsieve/bitsieve/query"
	"github.com/bitsieve/bitsieve/tokenize"
	"github.com/nats-io/nats.go"
)

// SearchResult is the answer of a search over the cluster: the merged
// result, as one index holding every shard's documents would give it, and
// what it read. A shard that no owner answered in time is missing: the
// result is then Partial, its totals count only the shards that answered,
// and Missing names the others.
type SearchResult struct {
	*query.Result
	Shards  []ShardRead `json:"shards"`
	Partial bool        `json:"partial"`
	Missing []int       `json:"missing_shards,omitempty"`
}

// ShardRead is the generation of one shard a search read, and the node
// that served it.
type ShardRead struct {
	Shard      int    `json:"shard"`
	Node       string `json:"node"`
	Generation uint64 `json:"generation"`
}

// inlineSnippets is the largest page end (offset + limit) for which each
// shard cuts the snippets of all its best hits with its answer; a deeper
// page has its snippets cut afterwards, of its own hits only, by the
// shards that hold them.
const inlineSnippets = 20

// searchAttempts is how many times a search starts again when a shard's
// generation changed between its two rounds on every owner tried.
const searchAttempts = 3

// Search runs req over every shard and merges the answers (query.Merge):
// totals, pages (order and scores) and snippets equal those of one index
// holding the same documents. Request.Admit and Request.Stats are not
// used: each node admits its own work, and the statistics are the
// shards'.
func (c *Cluster) Search(ctx context.Context, req query.Request) (*SearchResult, error) {
	start := time.Now()
	if req.Limit <= 0 {
		req.Limit = query.DefaultLimit
	}
	req.Offset = max(0, req.Offset)
	root, err := c.Parse(req.Query)
	if err != nil {
		return nil, err
	}
	var res *SearchResult
	for attempt := 0; ; attempt++ {
		if req.CountOnly {
			res, err = c.count(ctx, req)
		} else {
			res, err = c.rank(ctx, req, root)
		}
		if !errors.Is(err, errRestart) || attempt+1 == searchAttempts {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	res.Took = time.Since(start)
	res.TookMicros = res.Took.Microseconds()
	return res, nil
}

// errRestart is the error of a search round that must start again: a
// shard's generation changed between its rounds.
var errRestart = errors.New("a shard's generation changed during the search")

// count counts over every shard, in one round.
func (c *Cluster) count(ctx context.Context, req query.Request) (*SearchResult, error) {
	f := c.fanOut(ctx, req.Query)
	parts := f.each(func(s int, g *shardCall) (*reply, error) {
		return g.ask(&request{Op: opSearch, Shard: s, Query: req.Query, CountOnly: true})
	})
	if err := f.err(); err != nil {
		return nil, err
	}
	return f.result(req, parts), nil
}

// rank ranks over every shard in two rounds (statistics, then the search
// with their sum), or in one when the statistics of every word are known
// (statsCache), and cuts the page's snippets in a third when the page is
// deep.
func (c *Cluster) rank(ctx context.Context, req query.Request, root query.Node) (*SearchResult, error) {
	words, prefixes := queryWords(root)
	if sum, gens, ok := c.stats.sum(c.cfg.Shards, words, prefixes); ok {
		if res, ok := c.rankPinned(ctx, req, sum, gens); ok {
			return res, nil
		}
	}
	f := c.fanOut(ctx, req.Query)
	stats := f.each(func(s int, g *shardCall) (*reply, error) {
		return g.ask(&request{Op: opStats, Shard: s, Query: req.Query})
	})
	if err := f.err(); err != nil {
		return nil, err
	}
	var sum query.Stats
	for s, r := range stats {
		if r != nil {
			sum.Add(r.Stats)
			c.stats.learn(c.cfg.Shards, s, r.Generation, r.Stats, prefixes)
		}
	}
	return f.search(req, &sum)
}

// rankPinned is the second round alone, with statistics known for the
// generations gens: each shard's owners are asked once, for its
// generation. Any failure (a generation no longer kept, a node lost)
// gives up, for the two rounds to run.
func (c *Cluster) rankPinned(ctx context.Context, req query.Request, sum *query.Stats, gens []uint64) (*SearchResult, bool) {
	f := c.fanOut(ctx, req.Query)
	k := req.Offset + req.Limit
	inline := req.Snippets && k <= inlineSnippets
	parts := make([]*reply, len(gens))
	failed := make([]bool, len(gens))
	var wg sync.WaitGroup
	for s, g := range f.calls {
		wg.Go(func() {
			rep, err := c.call(ctx, shardSubject(c.cfg.Name, s), &request{Op: opSearch, Shard: s, Generation: gens[s],
				Query: req.Query, Limit: k, Snippets: inline, Stats: sum}, req.Query)
			if err != nil || rep.Generation != gens[s] {
				failed[s] = true
				c.stats.served(s, 0)
				return
			}
			c.stats.served(s, rep.Current)
			g.node, g.gen = rep.Node, rep.Generation
			parts[s] = rep
		})
	}
	wg.Wait()
	for _, bad := range failed {
		if bad {
			return nil, false
		}
	}
	res := f.result(req, parts)
	if req.Snippets && !inline && len(res.Hits) > 0 {
		if err := f.snippets(req.Query, res.Hits); err != nil {
			return nil, false
		}
	}
	return res, true
}

// search is the second round of a ranked search: every shard searched
// with the summed statistics, on the node and generation of the first.
func (f *fanOut) search(req query.Request, sum *query.Stats) (*SearchResult, error) {
	k := req.Offset + req.Limit
	inline := req.Snippets && k <= inlineSnippets
	parts := f.each(func(s int, g *shardCall) (*reply, error) {
		// The same node, for the same generation: it keeps a replaced
		// generation a while for this round.
		return g.again(&request{Op: opSearch, Shard: s, Generation: g.gen, Query: req.Query,
			Limit: k, Snippets: inline, Stats: sum})
	})
	if err := f.err(); err != nil {
		return nil, err
	}
	res := f.result(req, parts)
	if req.Snippets && !inline && len(res.Hits) > 0 {
		if err := f.snippets(req.Query, res.Hits); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// fanOut is one search's requests to every shard: for each, the node and
// generation that answered its first round.
type fanOut struct {
	c     *Cluster
	ctx   context.Context
	q     string
	calls []*shardCall

	mu      sync.Mutex
	failure error // an error the whole search returns (a refused query, a restart)
	live    []string
}

// shardCall is one shard's side of a fanOut.
type shardCall struct {
	f       *fanOut
	s       int
	node    string // the node that answered the first round ("": none yet)
	gen     uint64
	tried   []string // nodes tried for the first round
	missing bool     // no owner answered
}

func (c *Cluster) fanOut(ctx context.Context, q string) *fanOut {
	f := &fanOut{c: c, ctx: ctx, q: q}
	for s := range c.cfg.Shards {
		f.calls = append(f.calls, &shardCall{f: f, s: s})
	}
	return f
}

// each runs fn for every shard not missing, at once, and returns their
// replies by shard (nil for a shard missing).
func (f *fanOut) each(fn func(s int, g *shardCall) (*reply, error)) []*reply {
	out := make([]*reply, len(f.calls))
	var wg sync.WaitGroup
	for s, g := range f.calls {
		if g.missing {
			continue
		}
		wg.Go(func() {
			r, err := fn(s, g)
			switch {
			case err == nil:
				out[s] = r
			case isUnavailable(err):
				g.missing = true
			default:
				f.fail(err)
			}
		})
	}
	wg.Wait()
	return out
}

func (f *fanOut) fail(err error) {
	f.mu.Lock()
	if f.failure == nil {
		f.failure = err
	}
	f.mu.Unlock()
}

func (f *fanOut) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failure
}

// errUnavailable marks a shard no owner answered.
var errUnavailable = errors.New("no owner answered")

func isUnavailable(err error) bool { return errors.Is(err, errUnavailable) }

// ask sends a first-round request to the shard's owners: on its subject
// (one owner of the queue group answers), and on failure to each owner in
// turn, until one answers or the search's context ends.
func (g *shardCall) ask(req *request) (*reply, error) {
	f := g.f
	subject := shardSubject(f.c.cfg.Name, g.s)
	for {
		rep, err := f.c.call(f.ctx, subject, req, f.q)
		if err == nil {
			g.node, g.gen = rep.Node, rep.Generation
			return rep, nil
		}
		if !retryable(err) {
			return nil, err
		}
		if rep != nil && rep.Node != "" {
			g.tried = append(g.tried, rep.Node)
		}
		next, ok := f.nextOwner(g)
		if !ok {
			return nil, fmt.Errorf("shard %d: %w: %v", g.s, errUnavailable, err)
		}
		g.tried = append(g.tried, next)
		subject = nodeSubject(f.c.cfg.Name, next)
	}
}

// again sends a later-round request to the node that answered the first,
// for its generation. If that node cannot answer, the first round is
// asked again of the other owners: one serving the same generation takes
// the round over; another generation restarts the search.
func (g *shardCall) again(req *request) (*reply, error) {
	f := g.f
	rep, err := f.c.call(f.ctx, nodeSubject(f.c.cfg.Name, g.node), req, f.q)
	if err == nil && rep.Generation != g.gen {
		// Never merged: an answer of another generation than the first
		// round's would mix two generations of the shard.
		return nil, errRestart
	}
	if err == nil || !retryable(err) {
		return rep, err
	}
	gen := g.gen
	g.tried = append(g.tried, g.node)
	if _, err := g.ask(&request{Op: opStats, Shard: g.s, Query: f.q}); err != nil {
		return nil, err
	}
	if g.gen != gen {
		return nil, errRestart
	}
	rep, err = f.c.call(f.ctx, nodeSubject(f.c.cfg.Name, g.node), req, f.q)
	if err == nil && rep.Generation != g.gen {
		return nil, errRestart
	}
	return rep, err
}

// nextOwner is an owner of the shard not yet tried, from the live nodes.
func (f *fanOut) nextOwner(g *shardCall) (string, bool) {
	f.mu.Lock()
	live := f.live
	f.mu.Unlock()
	if live == nil {
		ctx, cancel := context.WithTimeout(f.ctx, f.c.opt.Timeout)
		l, err := f.c.liveNodes(ctx)
		cancel()
		if err != nil {
			return "", false
		}
		f.mu.Lock()
		f.live, live = l, l
		f.mu.Unlock()
	}
	for _, id := range Owners(live, g.s, f.c.cfg.Replicas) {
		if !slices.Contains(g.tried, id) {
			return id, true
		}
	}
	return "", false
}

// retryable reports whether another owner may answer where one failed.
func retryable(err error) bool {
	return errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, errGeneration) || errors.Is(err, errNotOwner) || errors.Is(err, nats.ErrConnectionReconnecting)
}

// call sends req on subject and waits for the reply, at most the
// cluster's request timeout; q is the query, for the errors it returns.
func (c *Cluster) call(ctx context.Context, subject string, req *request, q string) (*reply, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	cctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	msg, err := c.nc.RequestWithContext(cctx, subject, encode(req))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = nats.ErrTimeout
		}
		return nil, fmt.Errorf("shard %d: %w", req.Shard, err)
	}
	rep, err := decodeReply(msg)
	if err != nil {
		return nil, fmt.Errorf("shard %d: %w", req.Shard, err)
	}
	if rep.Error != nil {
		return rep, rep.Error.toError(q)
	}
	return rep, nil
}

// result merges the replies of the shards into the page req asks for.
func (f *fanOut) result(req query.Request, parts []*reply) *SearchResult {
	res := &SearchResult{}
	var results []*query.Result
	for s, r := range parts {
		if r == nil {
			res.Partial = true
			res.Missing = append(res.Missing, s)
			continue
		}
		results = append(results, r.Result)
		res.Shards = append(res.Shards, ShardRead{Shard: s, Node: r.Node, Generation: r.Generation})
	}
	res.Result = query.Merge(req, results)
	return res
}

// snippets cuts the snippets of the page's hits on the shards that hold
// them, from the generations the page was ranked on.
func (f *fanOut) snippets(q string, hits []query.Hit) error {
	byShard := map[int][]int{}
	for i, h := range hits {
		s := ShardOf(h.Key, len(f.calls))
		byShard[s] = append(byShard[s], i)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for s, idx := range byShard {
		g := f.calls[s]
		wg.Go(func() {
			mine := make([]query.Hit, len(idx))
			for j, i := range idx {
				mine[j] = hits[i]
			}
			rep, err := g.again(&request{Op: opSnippets, Shard: s, Generation: g.gen, Query: q, Hits: mine})
			if err == nil && (rep.Result == nil || len(rep.Result.Hits) != len(mine)) {
				err = fmt.Errorf("shard %d: the snippets of %d hits came back as %d", s, len(mine), len(rep.Result.Hits))
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			for j, i := range idx {
				hits[i] = rep.Result.Hits[j]
			}
		})
	}
	wg.Wait()
	return first
}

// Parse parses q as every shard does, with the cluster's analyzer: a
// query that one index would refuse is refused before any request.
func (c *Cluster) Parse(q string) (query.Node, error) {
	an := c.analyzer()
	defer c.analyzers.Put(an)
	return query.Parse(q, an)
}

func (c *Cluster) analyzer() *tokenize.Analyzer {
	if an, ok := c.analyzers.Get().(*tokenize.Analyzer); ok {
		return an
	}
	return tokenize.MustNew(c.cfg.Analyzer)
}
