//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/cluster"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"github.com/bitsieve/bitsieve/internal/natstest"
	"github.com/bitsieve/bitsieve/query"
	"github.com/nats-io/nats.go/jetstream"
)

// A node of a cluster under test: a real `bitsieve serve --nats` process.
type testNode struct {
	t    *testing.T
	dir  string
	addr string
	urls string
	cmd  *exec.Cmd
	log  *os.File
}

const testToken = "cluster-test-token"

func startNode(t *testing.T, urls, dir string) *testNode {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	n := &testNode{t: t, dir: dir, addr: addr, urls: urls}
	n.start()
	t.Cleanup(func() {
		if t.Failed() && n.cmd != nil {
			n.cmd.Process.Signal(syscall.SIGQUIT) // the Go runtime prints every goroutine
			time.Sleep(500 * time.Millisecond)
			os.WriteFile(filepath.Join(os.TempDir(), "bitsieve-node-"+filepath.Base(n.dir)+".log"), must(os.ReadFile(n.dir+".log")), 0o644)
		}
		n.kill()
		if t.Failed() {
			b, _ := os.ReadFile(n.dir + ".log")
			var lines []string
			for _, l := range strings.Split(string(b), "\n") {
				if !strings.Contains(l, "msg=request") && !strings.Contains(l, "snapshot replaced") {
					lines = append(lines, l)
				}
			}
			t.Logf("node %s log:\n%s", filepath.Base(n.dir), strings.Join(lines[max(0, len(lines)-60):], "\n"))
		}
	})
	return n
}

func (n *testNode) start() {
	exe, err := os.Executable()
	if err != nil {
		n.t.Fatal(err)
	}
	log, err := os.OpenFile(n.dir+".log", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		n.t.Fatal(err)
	}
	cmd := exec.Command(exe, "serve", "--nats", n.urls, "--cluster", "chaos", "--data", n.dir, "--addr", n.addr, "--nats-timeout", "1s")
	cmd.Env = append(os.Environ(), "BITSIEVE_TEST_MAIN=1", "BITSIEVE_WRITE_TOKEN="+testToken)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // no node outlives a killed test
	if err := cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	n.cmd, n.log = cmd, log
}

// kill kills the node with SIGKILL.
func (n *testNode) kill() {
	if n.cmd == nil {
		return
	}
	n.cmd.Process.Signal(syscall.SIGKILL)
	n.cmd.Wait()
	n.log.Close()
	n.cmd = nil
}

func must(b []byte, _ error) []byte { return b }

// clusterDocs are documents of a vocabulary of their own: the base corpus
// (tag "base") and the writes under load (tag "load") never share a word
// but their tag's, so the base queries' totals stay fixed under load.
func clusterDocs(prefix, tag string, n int, seed uint64) []index.Document {
	r := rand.New(rand.NewPCG(seed, 11))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sta", "tor", "vin"}
	docs := make([]index.Document, n)
	for i := range docs {
		var b strings.Builder
		b.WriteString(tag)
		for range 3 + r.IntN(30) {
			b.WriteByte(' ')
			b.WriteString(tag)
			for range 2 {
				b.WriteString(syll[r.IntN(len(syll))])
			}
		}
		docs[i] = index.Document{Key: fmt.Sprintf("%s/%06d", prefix, i), Text: []byte(b.String())}
	}
	return docs
}

// lagless reports whether every shard's published generation holds every
// write the stream stored.
func lagless(st *cluster.Status) bool {
	for _, s := range st.Shards {
		if s.Lag > 0 {
			return false
		}
	}
	return true
}

// postDocs writes docs through a node's write API; it reports whether the
// write was acknowledged.
func postDocs(client *http.Client, addr string, docs []index.Document) bool {
	var body bytes.Buffer
	for _, d := range docs {
		json.NewEncoder(&body).Encode(map[string]string{"id": d.Key, "body": string(d.Text)})
	}
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/documents", &body)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// apiCount counts q through a node's search API: the total and whether
// the answer was partial; ok is false when the node did not answer.
func apiCount(client *http.Client, addr, q string) (total int, partial, ok bool, err error) {
	resp, err := client.Get("http://" + addr + "/api/search?limit=1&snippets=false&q=" + url.QueryEscape(q))
	if err != nil {
		return 0, false, false, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, false, false, nil
	}
	var r struct {
		Total   int  `json:"total"`
		Partial bool `json:"partial"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, false, false, err
	}
	return r.Total, r.Partial, true, nil
}

// TestClusterSurvivesKills runs a three-node cluster on three NATS
// servers under a load of writes (through the nodes' write API) and
// searches, kills one node with SIGKILL and then one NATS server, and
// checks that every acknowledged write is searchable afterwards, that
// every answer during the load was exact or marked partial, and how long
// the cluster took to be whole again. BITSIEVE_CLUSTER_TRIALS sets how
// many times it runs (default 1).
func TestClusterSurvivesKills(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster of processes")
	}
	trials := 1
	if v := os.Getenv("BITSIEVE_CLUSTER_TRIALS"); v != "" {
		trials, _ = strconv.Atoi(v)
	}
	for i := range trials {
		t.Run(fmt.Sprintf("trial%d", i), func(t *testing.T) { clusterKillTrial(t, uint64(i)) })
	}
}

func clusterKillTrial(t *testing.T, seed uint64) {
	ns := natstest.Start(t, 3)
	dir := t.TempDir()
	ctx := context.Background()
	// The cluster and its base corpus, written through the library.
	nc, err := cluster.Connect(cluster.ConnOptions{URLs: ns.URLs()})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := cluster.Create(ctx, nc, cluster.Config{Shards: 4, Replicas: 2, Analyzer: "english"}, cluster.Options{Name: "chaos", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*testNode
	for i := range 3 {
		nodes = append(nodes, startNode(t, ns.URLs(), filepath.Join(dir, fmt.Sprintf("node%d", i))))
	}
	base := clusterDocs("base", "zebra", 1500, seed)
	w := c.NewWriter(ctx, cluster.WriterOptions{AllSources: true})
	for _, d := range base {
		w.Add(d)
	}
	acked, err := w.Flush()
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	if err := c.Wait(wctx, acked); err != nil {
		t.Fatal(err)
	}
	cancel()
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		st, err := c.Status(sctx)
		cancel()
		if err == nil && st.Healthy && len(st.Nodes) == 3 {
			break
		}
		if time.Since(start) > 60*time.Second {
			t.Fatalf("the three nodes are not all live and serving: %v %+v", err, st)
		}
	}
	one, err := query.NewSearcher(indextest.Open(t, t.TempDir(), base, index.WriterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	// Queries of the base vocabulary, with their exact totals.
	queries := map[string]int{}
	r := rand.New(rand.NewPCG(seed, 3))
	for len(queries) < 40 {
		f := strings.Fields(string(base[r.IntN(len(base))].Text))
		q := f[1+r.IntN(len(f)-1)]
		if r.IntN(2) == 0 {
			q += " OR " + f[1+r.IntN(len(f)-1)]
		}
		n, err := one.Count(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		queries[q] = n
	}

	// The load: writers post batches of new documents to the live nodes;
	// searchers count the base queries on them.
	client := &http.Client{Timeout: 20 * time.Second}
	var alive sync.Map // node index → true
	for i := range nodes {
		alive.Store(i, true)
	}
	pick := func(r *rand.Rand) string {
		for {
			i := r.IntN(len(nodes))
			if _, ok := alive.Load(i); ok {
				return nodes[i].addr
			}
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ackedKeys []string
	var answers, partials, wrong atomic.Int64
	load := clusterDocs("load", "yak", 4000, seed+100)
	var next atomic.Int64
	for wi := range 2 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(wi)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				from := int(next.Add(20)) - 20
				if from >= len(load) {
					return
				}
				batch := load[from:min(from+20, len(load))]
				if postDocs(client, pick(r), batch) {
					mu.Lock()
					for _, d := range batch {
						ackedKeys = append(ackedKeys, d.Key)
					}
					mu.Unlock()
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	keys := make([]string, 0, len(queries))
	for q := range queries {
		keys = append(keys, q)
	}
	for si := range 2 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(10+si)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				q := keys[r.IntN(len(keys))]
				total, partial, ok, err := apiCount(client, pick(r), q)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					continue
				}
				answers.Add(1)
				switch {
				case partial:
					partials.Add(1)
				case total != queries[q]:
					wrong.Add(1)
					t.Errorf("%q: %d hits, want %d, and the answer is not marked partial", q, total, queries[q])
				}
			}
		})
	}

	time.Sleep(3 * time.Second)
	victim := int(seed % 3)
	alive.Delete(victim)
	nodes[victim].kill()
	t.Logf("killed node %d", victim)
	time.Sleep(6 * time.Second)
	server := ns.Servers[int(seed+1)%3]
	server.Kill()
	t.Logf("killed NATS server %s", server.Name)
	time.Sleep(6 * time.Second)
	close(stop)
	wg.Wait()

	// Whole again: the two nodes left own every shard, and serve the
	// published generations.
	start := time.Now()
	survivor := pick(rand.New(rand.NewPCG(seed, 99)))
	var st *cluster.Status
	for {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		st, err = c.Status(sctx)
		cancel()
		if err == nil && st.Healthy && len(st.Nodes) == 2 && lagless(st) {
			break
		}
		if time.Since(start) > 90*time.Second {
			t.Fatalf("the cluster is not whole 90 s after the load: %v %+v", err, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	whole := time.Since(start)
	// Every acknowledged write is in, and nothing else of the load.
	mu.Lock()
	n := len(ackedKeys)
	mu.Unlock()
	wctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	var got int
	for {
		total, partial, ok, err := apiCount(client, survivor, "yak")
		if err != nil {
			t.Fatal(err)
		}
		if ok && !partial && total >= n {
			got = total
			break
		}
		if wctx.Err() != nil {
			t.Fatalf("%d of %d acknowledged writes are searchable", total, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got < n {
		t.Fatalf("%d acknowledged writes, %d searchable", n, got)
	}
	for _, k := range ackedKeys {
		if _, err := c.Document(ctx, k, "", 0); err != nil {
			t.Fatalf("acknowledged document %s: %v", k, err)
		}
	}
	for q, want := range queries {
		total, partial, ok, err := apiCount(client, survivor, q)
		if err != nil || !ok || partial || total != want {
			t.Fatalf("after the kills, %q: %d hits (partial %v, answered %v, %v), want %d", q, total, partial, ok, err, want)
		}
	}
	t.Logf("%d acknowledged writes (%d written in all, searchable: %d), %d answers (%d partial, %d wrong); whole again %.1f s after the load",
		n, int(next.Load()), got, answers.Load(), partials.Load(), wrong.Load(), whole.Seconds())
}

// TestClusterCommands runs the commands on a cluster: index, search with
// its flags, cluster status, and the errors of a bad URL, servers that
// cannot be reached, a cluster that does not exist, one of another format
// version, and a node that expects another shard count.
func TestClusterCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JetStream cluster")
	}
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--nats", "http://127.0.0.1:4222", "whale"}, "bad NATS server URL"},
		{[]string{"cluster", "status", "--nats", "nats://127.0.0.1:1"}, "cannot connect to the NATS servers"},
		{[]string{"search", "--nats", "nats://127.0.0.1:1", "--index", "x", "whale"}, "not both"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != exitError || !strings.Contains(errs, c.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one sentence with %q", c.args, code, errs, c.want)
		}
	}

	ns := natstest.Start(t, 3)
	urls := ns.URLs()
	if code, _, errs := runCLI(t, "search", "--nats", urls, "whale"); code != exitError || !strings.Contains(errs, "no such cluster") {
		t.Errorf("search of no cluster: exit %d, %q", code, errs)
	}
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "the white whale swims", "b.txt": "a whale of a time", "c.txt": "ships at sea"})
	if code, out, errs := runCLI(t, "index", "--nats", urls, "--shards", "3", "--wait", "0", src); code != exitOK || !strings.Contains(out, "added 3") {
		t.Fatalf("index --nats: exit %d, %s %s", code, out, errs)
	}
	// A node in this process serves the shards.
	nc, err := cluster.Connect(cluster.ConnOptions{URLs: urls})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := cluster.Open(context.Background(), nc, cluster.Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	node, err := c.Join(cluster.NodeOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, out, _ := runCLI(t, "search", "--nats", urls, "--count", "whale")
		if code == exitOK && strings.TrimSpace(out) == "2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("search --count whale: exit %d, %q", code, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	code, out, errs := runCLI(t, "search", "--nats", urls, "--json", "--limit", "1", "--offset", "1", "whale")
	var res cluster.SearchResult
	if code != exitOK || json.Unmarshal([]byte(out), &res) != nil || res.Total != 2 || len(res.Hits) != 1 || len(res.Shards) != 3 {
		t.Fatalf("search --json: exit %d, %s %s", code, out, errs)
	}
	queries := filepath.Join(t.TempDir(), "q.txt")
	os.WriteFile(queries, []byte("whale\nsea\n\"white whale\"\n"), 0o644)
	if code, out, errs := runCLI(t, "search", "--nats", urls, "--queries", queries); code != exitOK || strings.Count(out, "\n") != 3 {
		t.Fatalf("search --queries: exit %d, %s %s", code, out, errs)
	}
	// A second run of the same source changes nothing; a vanished file
	// is deleted.
	os.Remove(filepath.Join(src, "c.txt"))
	if code, out, errs := runCLI(t, "index", "--nats", urls, src); code != exitOK || !strings.Contains(out, "added 0, replaced 0, deleted 1, unchanged 2") {
		t.Fatalf("index --nats again: exit %d, %s %s", code, out, errs)
	}
	if code, out, _ := runCLI(t, "cluster", "status", "--nats", urls); code != exitOK || !strings.Contains(out, "healthy") {
		t.Errorf("cluster status: exit %d, %s", code, out)
	}
	if code, out, _ := runCLI(t, "cluster", "status", "--nats", urls, "--json"); code != exitOK || !strings.Contains(out, `"healthy":true`) {
		t.Errorf("cluster status --json: exit %d, %s", code, out)
	}

	// A node that expects another shard count refuses the cluster.
	if code, _, errs := runCLI(t, "serve", "--nats", urls, "--shards", "5", "--addr", "127.0.0.1:0", "--data", t.TempDir()); code != exitError || !strings.Contains(errs, "has 3 shards, not 5") {
		t.Errorf("serve --shards 5 on a 3-shard cluster: exit %d, %q", code, errs)
	}
	// A cluster of another format version is refused with the one sentence.
	if _, err := cluster.Create(context.Background(), nc, cluster.Config{Shards: 1, Analyzer: "english"}, cluster.Options{Name: "old", Logger: quietLogger()}); err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	kv, err := js.KeyValue(context.Background(), "bitsieve_old")
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get(context.Background(), "config")
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(e.Value()), fmt.Sprintf(`"format":%d`, index.FormatVersion), `"format":3`, 1)
	if _, err := kv.Put(context.Background(), "config", []byte(old)); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "search", "--nats", urls, "--cluster", "old", "whale"); code != exitError || !strings.Contains(errs, "format version 3") || !strings.Contains(errs, "rebuild") {
		t.Errorf("search of a format-3 cluster: exit %d, %q", code, errs)
	}
}
