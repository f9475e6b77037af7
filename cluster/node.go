package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Node is a member of a cluster: it keeps its key alive in the nodes
// bucket, owns the shards that rendezvous hashing gives it among the live
// nodes (indexing the writes of those it is primary of, copying the
// published generations of the others), and answers their requests.
type Node struct {
	c   *Cluster
	id  string
	dir string
	opt NodeOptions
	log *slog.Logger

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	direct  *nats.Subscription
	slots   chan struct{} // requests answered at once
	beatNow chan struct{} // a shard serves a new generation: tell the others now
	started time.Time

	mu     sync.Mutex
	live   []string       // the live nodes, sorted, as last listed
	shards map[int]*shard // the shards this node owns
}

// NodeOptions configure a Node.
type NodeOptions struct {
	// Dir is the node's directory: its identity and a copy of each shard
	// it owns. A node restarted on the same directory keeps its identity,
	// and so its shards.
	Dir string
	// Addr is the address of the node's HTTP server, if it has one, shown
	// by cluster status.
	Addr string
	// MemoryBudget bounds the analyzed documents a primary holds while it
	// indexes (index.WriterOptions.MemoryBudget; default 64 MiB a shard).
	MemoryBudget int64
	// Concurrency is how many requests the node answers at once (default
	// 8); the others wait for a slot.
	Concurrency int
}

// NodeInfo is the value of a node's key in the nodes bucket, renewed at
// every heartbeat.
type NodeInfo struct {
	ID      string      `json:"id"`
	Addr    string      `json:"addr,omitempty"`
	Started time.Time   `json:"started"`
	Shards  []ShardInfo `json:"shards"`
}

// ShardInfo is what a node serves of one shard.
type ShardInfo struct {
	Shard      int    `json:"shard"`
	Primary    bool   `json:"primary"`
	Generation uint64 `json:"generation"` // the generation it serves (0: none yet)
	Seq        uint64 `json:"seq"`        // the stream sequence that generation holds
	Docs       int    `json:"docs"`       // its live documents
	Segments   int    `json:"segments"`
	Error      string `json:"error,omitempty"`
}

var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// nodeID reads the node's identity from its directory, or makes one.
func nodeID(dir string) (string, error) {
	path := filepath.Join(dir, "node-id")
	if b, err := os.ReadFile(path); err == nil {
		id := strings.TrimSpace(string(b))
		if !validID.MatchString(id) {
			return "", fmt.Errorf("%s: not a node identity: %q", path, id)
		}
		return id, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	var b [8]byte
	rand.Read(b[:])
	host, _ := os.Hostname()
	host = regexp.MustCompile(`[^A-Za-z0-9_-]`).ReplaceAllString(host, "-")
	id := strings.Trim(fmt.Sprintf("%.20s-%s", host, hex.EncodeToString(b[:])), "-")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(id+"\n"), 0o644); err != nil {
		return "", err
	}
	return id, nil
}

// Join makes this process a node of the cluster, with the identity and
// shard copies kept in opt.Dir, until Close.
func (c *Cluster) Join(opt NodeOptions) (*Node, error) {
	if opt.Dir == "" {
		return nil, errors.New("a cluster node needs a directory")
	}
	if opt.MemoryBudget <= 0 {
		opt.MemoryBudget = 64 << 20
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = 8
	}
	dir := filepath.Join(opt.Dir, c.cfg.Name)
	id, err := nodeID(dir)
	if err != nil {
		return nil, fmt.Errorf("node directory %s: %w", dir, err)
	}
	if err := c.checkLocal(dir); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Node{c: c, id: id, dir: dir, opt: opt, log: c.opt.Logger.With("node", id), ctx: ctx, cancel: cancel,
		slots: make(chan struct{}, opt.Concurrency), beatNow: make(chan struct{}, 1), started: time.Now().UTC(), shards: map[int]*shard{}}
	if n.direct, err = c.nc.Subscribe(nodeSubject(c.cfg.Name, id), n.onRequest); err != nil {
		cancel()
		return nil, err
	}
	// The first heartbeat may meet a bucket still electing its leader
	// (just created, or a server just lost): it is tried for a while.
	for deadline := time.Now().Add(opTimeout); ; {
		err := n.beat()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			n.direct.Unsubscribe()
			cancel()
			return nil, fmt.Errorf("cluster %s: announcing node %s: %w", c.cfg.Name, id, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	n.wg.Go(n.heartbeats)
	n.wg.Go(n.membership)
	n.log.Info("joined the cluster", "cluster", c.cfg.Name, "shards", c.cfg.Shards, "replicas", c.cfg.Replicas, "dir", dir)
	return n, nil
}

// checkLocal refuses a node directory made for a cluster of another shape:
// its shard copies would be the wrong documents.
func (c *Cluster) checkLocal(dir string) error {
	path := filepath.Join(dir, "cluster.json")
	if b, err := os.ReadFile(path); err == nil {
		var old Config
		if err := json.Unmarshal(b, &old); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if old.Shards != c.cfg.Shards || old.Analyzer != c.cfg.Analyzer || !old.Created.Equal(c.cfg.Created) {
			return fmt.Errorf("node directory %s holds shards of cluster %s as it was created at %s, with %d shards analyzed with %s; the cluster now has %d shards analyzed with %s (created at %s): %w; give the node another directory",
				dir, old.Name, old.Created.Format(time.RFC3339), old.Shards, old.Analyzer, c.cfg.Shards, c.cfg.Analyzer, c.cfg.Created.Format(time.RFC3339), ErrMismatch)
		}
		return nil
	}
	b, _ := json.Marshal(c.cfg)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// ID is the node's identity.
func (n *Node) ID() string { return n.id }

// Ready reports whether the node serves the published generation of every
// shard it owns, and why not.
func (n *Node) Ready() error {
	info := n.Info()
	n.mu.Lock()
	listed := n.live != nil
	n.mu.Unlock()
	if !listed {
		return errors.New("the node has not listed the cluster's nodes yet")
	}
	for _, s := range info.Shards {
		switch {
		case s.Error != "":
			return fmt.Errorf("shard %d: %s", s.Shard, s.Error)
		case s.Generation == 0:
			return fmt.Errorf("shard %d: no generation served yet", s.Shard)
		}
	}
	return nil
}

// Close leaves the cluster: the node's key is deleted, so that its shards
// move at once, and its shards stop. Writes it had not yet published are
// in the stream, for the next primary.
func (n *Node) Close() error {
	n.cancel()
	n.direct.Unsubscribe()
	n.wg.Wait()
	n.mu.Lock()
	for _, sh := range n.shards {
		sh.stop()
	}
	n.shards = nil
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n.c.nodes.Delete(ctx, nodeKey(n.id))
	return nil
}

// Info is what the node's key says of it now.
func (n *Node) Info() NodeInfo {
	info := NodeInfo{ID: n.id, Addr: n.opt.Addr, Started: n.started, Shards: []ShardInfo{}}
	n.mu.Lock()
	for _, sh := range n.shards {
		info.Shards = append(info.Shards, sh.info())
	}
	n.mu.Unlock()
	slices.SortFunc(info.Shards, func(a, b ShardInfo) int { return a.Shard - b.Shard })
	return info
}

// beat renews the node's key.
func (n *Node) beat() error {
	b, _ := json.Marshal(n.Info())
	ctx, cancel := context.WithTimeout(n.ctx, 2*time.Second)
	defer cancel()
	_, err := n.c.nodes.Put(ctx, nodeKey(n.id), b)
	return err
}

func (n *Node) heartbeats() {
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		case <-n.beatNow:
		}
		if err := n.beat(); err != nil && n.ctx.Err() == nil {
			n.log.Warn("heartbeat failed", "error", err)
		}
	}
}

// changed makes the next heartbeat come now, so that writers waiting for
// a generation (Cluster.Wait) see it served at once.
func (n *Node) changed() {
	select {
	case n.beatNow <- struct{}{}:
	default:
	}
}

// liveNodes lists the identities of the cluster's live nodes, sorted.
func (c *Cluster) liveNodes(ctx context.Context) ([]string, error) {
	keys, err := c.nodes.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for k := range keys.Keys() {
		if id, ok := strings.CutPrefix(k, "node."); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// membership follows the live nodes and starts and stops the node's
// shards, and their roles, as rendezvous hashing moves them.
func (n *Node) membership() {
	t := time.NewTicker(heartbeat / 2)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(n.ctx, 2*time.Second)
		live, err := n.c.liveNodes(ctx)
		cancel()
		switch {
		case err != nil && n.ctx.Err() == nil:
			n.log.Warn("listing the live nodes failed", "error", err)
		case err == nil:
			if !slices.Contains(live, n.id) {
				live = append(live, n.id) // our key may have lapsed while we were cut off
				slices.Sort(live)
			}
			n.reconcile(live)
		}
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// reconcile gives the node the shards and roles rendezvous hashing gives
// it among live.
func (n *Node) reconcile(live []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ctx.Err() != nil {
		return
	}
	if !slices.Equal(live, n.live) {
		n.log.Info("live nodes", "nodes", live)
		n.live = live
	}
	for s := range n.c.cfg.Shards {
		owners := Owners(live, s, n.c.cfg.Replicas)
		i := slices.Index(owners, n.id)
		sh := n.shards[s]
		switch {
		case i < 0 && sh != nil:
			n.log.Info("shard moved away", "shard", s, "owners", owners)
			sh.stop()
			delete(n.shards, s)
		case i >= 0 && sh == nil:
			sh = n.startShard(s)
			n.shards[s] = sh
			fallthrough
		case i >= 0:
			sh.setPrimary(i == 0)
		}
	}
}

// shardFor is the shard the node owns, or nil.
func (n *Node) shardFor(s int) *shard {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.shards[s]
}
