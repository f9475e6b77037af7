package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/bitsieve/bitsieve/cluster"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/bitsieve/bitsieve/web"
)

// clusterBackend serves a cluster index over HTTP (web.Backend): this
// process is a node of the cluster, and each request it coordinates goes
// to the shards' owners.
type clusterBackend struct {
	c    *cluster.Cluster
	node *cluster.Node
	done func()

	mu      sync.Mutex
	summary web.Summary
	at      time.Time
}

var _ web.Backend = (*clusterBackend)(nil)

func (b *clusterBackend) Parse(q string) (query.Node, error) { return b.c.Parse(q) }

// Search runs req over the shards. The server's admission takes a slot
// for the coordination, which costs little here: each node admits its
// own shards' work.
func (b *clusterBackend) Search(ctx context.Context, req query.Request) (*query.Result, web.Served, error) {
	if req.Admit != nil {
		_, release, err := req.Admit(query.Cost{})
		if err != nil {
			return nil, web.Served{}, err
		}
		defer release()
	}
	r, err := b.c.Search(ctx, req)
	if err != nil {
		return nil, web.Served{}, err
	}
	return r.Result, served(r.Shards, r.Partial, r.Missing), nil
}

func served(reads []cluster.ShardRead, partial bool, missing []int) web.Served {
	s := web.Served{Partial: partial, Missing: missing}
	for _, r := range reads {
		s.Shards = append(s.Shards, web.ShardServed{Shard: r.Shard, Node: r.Node, Generation: r.Generation})
	}
	return s
}

func (b *clusterBackend) Explain(ctx context.Context, q string, admit func(query.Cost) (int, func(), error)) (*query.Explanation, web.Served, error) {
	_, release, err := admit(query.Cost{})
	if err != nil {
		return nil, web.Served{}, err
	}
	defer release()
	ex, err := b.c.Explain(ctx, q)
	if err != nil {
		return nil, web.Served{}, err
	}
	return ex.Explanation, served(ex.Shards, ex.Partial, ex.Missing), nil
}

func (b *clusterBackend) Document(ctx context.Context, key, q string, from int) (*query.DocumentView, error) {
	return b.c.Document(ctx, key, q, from)
}

// summaryEvery is how often the pages' document and segment counts are
// read again from the nodes' keys.
const summaryEvery = 2 * time.Second

// Summary adds up the documents and segments the shards' primaries serve.
func (b *clusterBackend) Summary() web.Summary {
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Since(b.at) < summaryEvery {
		return b.summary
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	nodes, err := b.c.Nodes(ctx)
	if err != nil {
		return b.summary
	}
	var sum web.Summary
	counted := map[int]bool{}
	for _, primaries := range []bool{true, false} {
		for _, n := range nodes {
			for _, s := range n.Shards {
				if s.Primary == primaries && !counted[s.Shard] && s.Generation > 0 {
					counted[s.Shard] = true
					sum.Docs += s.Docs
					sum.Segments += s.Segments
				}
			}
		}
	}
	b.summary, b.at = sum, time.Now()
	return sum
}

func (b *clusterBackend) Stats(ctx context.Context) (any, error) { return b.c.Status(ctx) }

func (b *clusterBackend) Ready(context.Context) (web.Summary, error) {
	return b.Summary(), b.node.Ready()
}

// visibleWithin is how long a write through the API waits for the shards
// to index it before it answers that it is stored but pending.
const visibleWithin = 5 * time.Second

// Write stores the documents and deletions in the cluster's stream and
// returns once the stream has acknowledged them, after waiting a little
// for the shards to index them.
func (b *clusterBackend) Write(ctx context.Context, docs []index.Document, deletes []string) (web.WriteResult, error) {
	for _, k := range deletes {
		if _, err := b.c.Document(ctx, k, "", 0); err != nil {
			return web.WriteResult{}, err
		}
	}
	w := b.c.NewWriter(ctx, cluster.WriterOptions{})
	for _, d := range docs {
		if err := w.Add(d); err != nil {
			return web.WriteResult{}, err
		}
	}
	for _, k := range deletes {
		if err := w.Delete(k); err != nil {
			return web.WriteResult{}, err
		}
	}
	acked, err := w.Flush()
	if err != nil {
		return web.WriteResult{}, err
	}
	st := w.Stats()
	res := web.WriteResult{Added: st.Added, Deleted: st.Deleted}
	wctx, cancel := context.WithTimeout(ctx, visibleWithin)
	defer cancel()
	if err := b.c.Wait(wctx, acked); err != nil {
		if ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			return res, err
		}
		res.Pending = true
	}
	b.mu.Lock()
	b.at = time.Time{}
	b.mu.Unlock()
	res.Documents = b.Summary().Docs
	return res, nil
}

func (b *clusterBackend) Reload() {}

func (b *clusterBackend) Close() error {
	err := b.node.Close()
	b.done()
	return err
}
