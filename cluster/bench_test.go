package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/query"
)

// The distributed benchmarks run a real cluster on loopback: three NATS
// servers and the nodes in this process, each with its own connection and
// directory. On one machine they measure what the cluster adds to a
// search (the fan-out, the two rounds, the encoding, the merge), not what
// many machines would gain: every node shares the same cores.

// benchDocsPerNode is how many documents each node holds: the data a
// node serves stays fixed as nodes are added.
const benchDocsPerNode = 10000

// BenchmarkClusterSearch is a top-10 search with snippets over a cluster
// of 1, 2 and 4 nodes, two shards a node, one owner a shard, against the
// same shard copies searched in this process as the cluster searches them
// (query.Stats summed, then query.Merge) without the network: the two
// alternate query by query, with a count of a word no shard holds: one
// round of requests that do nothing, the fan-out's own cost. It reports
// the median and 95th percentile of each, in µs, and the ratio of the
// searches' medians.
func BenchmarkClusterSearch(b *testing.B) {
	for _, nodes := range []int{1, 2, 4} {
		b.Run(strconv.Itoa(nodes)+"-nodes", func(b *testing.B) {
			tc, docs := benchCluster(b, nodes, 2*nodes, 1)
			c := tc.client(b)
			local := localShards(b, tc)
			o := indextest.NewOracle(docs[:min(len(docs), 5000)], "english")
			r := rand.New(rand.NewPCG(1, 2))
			queries := make([]string, 500)
			for i := range queries {
				queries[i] = kit.GenQuery(r, o)
			}
			ctx := context.Background()
			var remote, inproc, floor []time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				req := query.Request{Query: queries[i%len(queries)], Snippets: true}
				t0 := time.Now()
				_, err := c.Search(ctx, req)
				t1 := time.Now()
				_, lerr := local.search(ctx, req)
				t2 := time.Now()
				if _, ferr := c.Search(ctx, query.Request{Query: "zzzabsent", CountOnly: true}); ferr != nil {
					b.Fatal(ferr)
				}
				t3 := time.Now()
				if (err == nil) != (lerr == nil) {
					b.Fatalf("%q: cluster %v, in process %v", req.Query, err, lerr)
				}
				remote = append(remote, t1.Sub(t0))
				inproc = append(inproc, t2.Sub(t1))
				floor = append(floor, t3.Sub(t2))
			}
			b.StopTimer()
			rp50, rp95 := percentiles(remote)
			lp50, lp95 := percentiles(inproc)
			fp50, _ := percentiles(floor)
			b.ReportMetric(fp50, "fanout-p50-µs")
			b.ReportMetric(rp50, "cluster-p50-µs")
			b.ReportMetric(rp95, "cluster-p95-µs")
			b.ReportMetric(lp50, "inproc-p50-µs")
			b.ReportMetric(lp95, "inproc-p95-µs")
			b.ReportMetric(rp50/lp50, "p50-ratio")
		})
	}
}

// BenchmarkClusterThroughput is searches a second over a cluster of 1, 2
// and 4 nodes, from eight concurrent clients.
func BenchmarkClusterThroughput(b *testing.B) {
	for _, nodes := range []int{1, 2, 4} {
		b.Run(strconv.Itoa(nodes)+"-nodes", func(b *testing.B) {
			tc, docs := benchCluster(b, nodes, 2*nodes, 1)
			c := tc.client(b)
			o := indextest.NewOracle(docs[:min(len(docs), 5000)], "english")
			r := rand.New(rand.NewPCG(3, 4))
			queries := make([]string, 500)
			for i := range queries {
				queries[i] = kit.GenQuery(r, o)
			}
			b.SetParallelism(4) // 8 clients on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := rand.IntN(len(queries))
				for pb.Next() {
					c.Search(context.Background(), query.Request{Query: queries[i%len(queries)], Snippets: true})
					i++
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "searches/s")
		})
	}
}

// BenchmarkClusterTakeover measures how long a cluster of three nodes,
// two owners a shard, takes to be whole again after a node is cut off at
// once (its connection closed: its key lapses, nothing is handed over):
// until every shard is served by two live owners at its published
// generation.
func BenchmarkClusterTakeover(b *testing.B) {
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tc, _ := benchCluster(b, 3, 6, 2)
		victim := tc.nodes[i%3]
		b.StartTimer()
		t0 := time.Now()
		victim.c.nc.Close()
		tc.waitWhole(b, 2, 60*time.Second)
		total += time.Since(t0)
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "takeover-s")
}

// benchCluster starts a cluster of nodes nodes and shards shards, each
// shard owned by replicas nodes, and writes benchDocsPerNode documents a
// node into it.
func benchCluster(b *testing.B, nodes, shards, replicas int) (*testCluster, []index.Document) {
	b.Helper()
	tc := startCluster(b, shards, replicas, nodes)
	docs := indextest.Corpus(benchDocsPerNode*nodes, 7)
	write(b, tc.client(b), docs, nil)
	tc.waitHealthy(b, time.Minute)
	return tc, docs
}

// waitWhole waits until cluster status finds live nodes and nothing
// wrong.
func (tc *testCluster) waitWhole(tb testing.TB, live int, timeout time.Duration) {
	tb.Helper()
	c := tc.client(tb)
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := c.Status(ctx)
		cancel()
		if err == nil && st.Healthy && len(st.Nodes) == live {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("cluster not whole after %s: %v %+v", timeout, err, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// inProcess is a cluster's shard copies searched in one process, as the
// cluster searches them.
type inProcess struct {
	shards []*query.Searcher
}

// localShards opens the copy of each shard that its primary holds.
func localShards(b *testing.B, tc *testCluster) *inProcess {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := tc.client(b)
	live, err := c.liveNodes(ctx)
	if err != nil {
		b.Fatal(err)
	}
	p := &inProcess{}
	for s := range c.cfg.Shards {
		owner := Owners(live, s, c.cfg.Replicas)[0]
		var dir string
		for _, n := range tc.nodes {
			if n.id == owner {
				dir = filepath.Join(n.dir, fmt.Sprintf("shard-%d", s))
			}
		}
		ix, err := index.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ix.Close() })
		sr, err := query.NewSearcher(ix)
		if err != nil {
			b.Fatal(err)
		}
		p.shards = append(p.shards, sr)
	}
	return p
}

// search is Cluster.Search's work in one process.
func (p *inProcess) search(ctx context.Context, req query.Request) (*query.Result, error) {
	var sum query.Stats
	for _, s := range p.shards {
		st, err := s.Stats(req.Query)
		if err != nil {
			return nil, err
		}
		sum.Add(st)
	}
	parts := make([]*query.Result, len(p.shards))
	for i, s := range p.shards {
		r := req
		r.Limit, r.Stats = query.DefaultLimit, &sum
		var err error
		if parts[i], err = s.Search(ctx, r); err != nil {
			return nil, err
		}
	}
	return query.Merge(req, parts), nil
}

// percentiles are the median and the 95th percentile of ds, in µs.
func percentiles(ds []time.Duration) (p50, p95 float64) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) float64 { return float64(s[int(q*float64(len(s)-1))].Nanoseconds()) / 1e3 }
	return at(0.5), at(0.95)
}
