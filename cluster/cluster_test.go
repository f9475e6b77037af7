package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/natstest"
	"github.com/bitsieve/bitsieve/query"
)

// testCluster is a JetStream cluster of three servers and nodes of a
// bitsieve cluster on it, each with its own connection and directory, as
// on machines of their own.
type testCluster struct {
	nats  *natstest.Cluster
	name  string
	nodes []*Node
	dir   string
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// startCluster starts three NATS servers, creates a cluster of shards
// shards, and joins nodes nodes.
func startCluster(t testing.TB, shards, replicas, nodes int) *testCluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a JetStream cluster")
	}
	tc := &testCluster{nats: natstest.Start(t, 3), name: "test", dir: t.TempDir()}
	c := tc.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Create(ctx, c.nc, Config{Shards: shards, Replicas: replicas, Analyzer: "english"}, Options{Name: tc.name, Logger: quietLogger()}); err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		tc.join(t, i)
	}
	tc.waitHealthy(t, 60*time.Second)
	return tc
}

// client opens the cluster over a connection of its own.
func (tc *testCluster) client(t testing.TB) *Cluster {
	t.Helper()
	nc, err := Connect(ConnOptions{URLs: tc.nats.URLs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Open(ctx, nc, Options{Name: tc.name, Logger: quietLogger()})
	if err != nil && strings.Contains(err.Error(), "no such cluster") {
		return &Cluster{nc: nc}
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// join starts node i on its own directory.
func (tc *testCluster) join(t testing.TB, i int) *Node {
	t.Helper()
	c := tc.client(t)
	n, err := c.Join(NodeOptions{Dir: filepath.Join(tc.dir, fmt.Sprintf("node%d", i))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	for len(tc.nodes) <= i {
		tc.nodes = append(tc.nodes, nil)
	}
	tc.nodes[i] = n
	return n
}

// waitHealthy waits until cluster status finds nothing wrong.
func (tc *testCluster) waitHealthy(t testing.TB, timeout time.Duration) *Status {
	t.Helper()
	c := tc.client(t)
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := c.Status(ctx)
		cancel()
		if err == nil && st.Healthy {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster not healthy after %s: %v %+v", timeout, err, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// write writes docs through a Writer and waits until they are indexed.
func write(t testing.TB, c *Cluster, docs []index.Document, deletes []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w := c.NewWriter(ctx, WriterOptions{AllSources: true})
	for _, d := range docs {
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range deletes {
		if err := w.Delete(k); err != nil {
			t.Fatal(err)
		}
	}
	acked, err := w.Flush()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(ctx, acked); err != nil {
		t.Fatal(err)
	}
}

// testDocs makes n documents over a Zipfian vocabulary.
func testDocs(n int, seed uint64) []index.Document {
	r := rand.New(rand.NewPCG(seed, 3))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sta", "tor", "vin", "qua", "ber"}
	vocab := make([]string, 800)
	for i := range vocab {
		var b strings.Builder
		for range 2 + r.IntN(2) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = b.String()
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	docs := make([]index.Document, n)
	for i := range docs {
		var b strings.Builder
		for range 1 + r.IntN(60) {
			b.WriteString(vocab[zipf.Uint64()])
			b.WriteByte(" \n"[r.IntN(2)])
		}
		docs[i] = index.Document{Key: fmt.Sprintf("doc/%05d", i), Title: vocab[r.IntN(50)], Text: []byte(b.String())}
	}
	return docs
}

// testQueries draws queries from docs: words, pairs, phrases, ORs, NOTs
// and prefixes.
func testQueries(docs []index.Document, n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 5))
	word := func() string {
		f := strings.Fields(string(docs[r.IntN(len(docs))].Text))
		if len(f) == 0 {
			return "kalo"
		}
		return f[r.IntN(len(f))]
	}
	var out []string
	for len(out) < n {
		switch r.IntN(6) {
		case 0:
			out = append(out, word())
		case 1:
			out = append(out, word()+" "+word())
		case 2:
			out = append(out, `"`+word()+" "+word()+`"`)
		case 3:
			out = append(out, word()+" OR "+word())
		case 4:
			out = append(out, word()+" -"+word())
		default:
			w := word()
			out = append(out, w[:min(len(w), 3)]+"*")
		}
	}
	return out
}

// TestClusterEqualsOneIndex: a cluster of three nodes over three NATS
// servers, written through the stream, answers every query as one index
// of the same documents does: totals, pages (keys, scores), snippets,
// errors; documents and counts too.
func TestClusterEqualsOneIndex(t *testing.T) {
	tc := startCluster(t, 3, 2, 3)
	c := tc.client(t)
	docs := testDocs(3000, 1)
	write(t, c, docs, nil)
	// Some replaced, some deleted: the shards apply them in order.
	var deletes []string
	for i := 0; i < len(docs); i += 37 {
		deletes = append(deletes, docs[i].Key)
	}
	repl := testDocs(300, 2)
	for i := range repl {
		repl[i].Key = docs[i*7+1].Key
	}
	write(t, c, repl, deletes)
	want := map[string]index.Document{}
	for _, d := range docs {
		want[d.Key] = d
	}
	for _, d := range repl {
		want[d.Key] = d
	}
	for _, k := range deletes {
		delete(want, k)
	}
	var all []index.Document
	for _, d := range want {
		all = append(all, d)
	}
	one, err := query.NewSearcher(indextest.Open(t, t.TempDir(), all, index.WriterOptions{Capacity: 1000}))
	if err != nil {
		t.Fatal(err)
	}
	tc.waitHealthy(t, 30*time.Second)
	ctx := context.Background()
	matched := 0
	for _, q := range testQueries(docs, 300, 9) {
		for _, req := range []query.Request{{Query: q, Snippets: true}, {Query: q, Limit: 5, Offset: 20, Snippets: true}, {Query: q, CountOnly: true}} {
			w, werr := one.Search(ctx, req)
			g, gerr := c.Search(ctx, req)
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Fatalf("%q: one index: %v; cluster: %v", q, werr, gerr)
			}
			if werr != nil {
				break
			}
			if w.Total > 0 {
				matched++
			}
			if g.Partial || g.Total != w.Total || len(g.Hits) != len(w.Hits) || len(g.Shards) != 3 {
				t.Fatalf("%q %+v: cluster %d of %d (partial %v, %d shards), one index %d of %d", q, req, len(g.Hits), g.Total, g.Partial, len(g.Shards), len(w.Hits), w.Total)
			}
			for i, h := range g.Hits {
				x := w.Hits[i]
				if h.Key != x.Key || h.Score != x.Score || h.Snippet != x.Snippet || h.Line != x.Line || h.Title != x.Title {
					t.Fatalf("%q %+v: hit %d is %s (%v) on the cluster, %s (%v) on one index", q, req, i, h.Key, h.Score, x.Key, x.Score)
				}
			}
		}
	}
	if matched < 300 {
		t.Fatalf("only %d of 900 requests matched anything: the test tests too little", matched)
	}
	t.Logf("%d requests with matches, all equal to one index", matched)
	for _, d := range all[:20] {
		v, err := c.Document(ctx, d.Key, "", 0)
		if err != nil || v.Text != string(d.Text) {
			t.Fatalf("document %s: %v", d.Key, err)
		}
	}
	if _, err := c.Document(ctx, deletes[0], "", 0); err == nil {
		t.Fatalf("deleted document %s found", deletes[0])
	}
	ex, err := c.Explain(ctx, "kalo OR mine")
	if err != nil || ex.Docs != len(all) {
		t.Fatalf("explain: %v, %+v", err, ex)
	}

	// The client's own writes are seen by its next searches, whatever it
	// learned of the shards before.
	more := testDocs(200, 3)
	for i := range more {
		more[i].Key = fmt.Sprintf("more/%04d", i)
	}
	write(t, c, more, nil)
	one, err = query.NewSearcher(indextest.Open(t, t.TempDir(), append(all, more...), index.WriterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range testQueries(more, 100, 11) {
		req := query.Request{Query: q, Limit: 5}
		w, werr := one.Search(ctx, req)
		g, gerr := c.Search(ctx, req)
		if werr != nil || gerr != nil {
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Fatalf("%q after more writes: %v; cluster %v", q, werr, gerr)
			}
			continue
		}
		if g.Total != w.Total || len(g.Hits) != len(w.Hits) || (len(g.Hits) > 0 && g.Hits[0].Score != w.Hits[0].Score) {
			t.Fatalf("%q after more writes: cluster %d hits, one index %d", q, g.Total, w.Total)
		}
	}
}

// TestClusterSample writes the embedded sample corpus into a cluster of
// three nodes and compares the first hundred queries of each query set of
// bench/queries, ranked and counted, with one index of the sample.
func TestClusterSample(t *testing.T) {
	tc := startCluster(t, 4, 2, 3)
	c := tc.client(t)
	var docs []index.Document
	if _, err := corpus.Sample(func(d corpus.Document) error {
		docs = append(docs, index.Document(d))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	write(t, c, docs, nil)
	tc.waitHealthy(t, time.Minute)
	one, err := query.NewSearcher(indextest.Open(t, t.TempDir(), docs, index.WriterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	n, matched := 0, 0
	for _, name := range []string{"wordnet-2term.txt", "wordnet-3term.txt", "debian-titles.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "bench", "queries", name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for _, q := range lines[:min(100, len(lines))] {
			for _, req := range []query.Request{{Query: q, Snippets: true}, {Query: q, CountOnly: true}} {
				w, werr := one.Search(ctx, req)
				g, gerr := c.Search(ctx, req)
				if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
					t.Fatalf("%q: one index %v, cluster %v", q, werr, gerr)
				}
				if werr != nil {
					continue
				}
				if g.Partial || g.Total != w.Total || len(g.Hits) != len(w.Hits) {
					t.Fatalf("%q: cluster %d of %d, one index %d of %d", q, len(g.Hits), g.Total, len(w.Hits), w.Total)
				}
				for i, h := range g.Hits {
					x := w.Hits[i]
					if h.Key != x.Key || h.Score != x.Score || h.Snippet != x.Snippet {
						t.Fatalf("%q: hit %d is %s (%v) on the cluster, %s (%v) on one index", q, i, h.Key, h.Score, x.Key, x.Score)
					}
				}
				n++
				if w.Total > 0 {
					matched++
				}
			}
		}
	}
	t.Logf("%d requests over the sample (%d with matches), all equal to one index", n, matched)
}
