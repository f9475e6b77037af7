package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/nats-io/nats.go/jetstream"
)

// generation is a shard's published generation: the value of its key
// shard.<i> in the state bucket. The shard's primary writes it after each
// commit, with a compare-and-swap on the key's revision, so that of two
// nodes that both believe themselves primary only one publishes.
type generation struct {
	Shard      int    `json:"shard"`
	Generation uint64 `json:"generation"`
	// Seq is the last sequence of the cluster's stream, among the shard's
	// messages, that the generation holds: a node taking the shard over
	// replays the stream from the next one.
	Seq uint64 `json:"seq"`
	// Manifest is the generation's MANIFEST, byte for byte.
	Manifest []byte `json:"manifest"`
	// Files maps each file the MANIFEST names to the object that holds it
	// in the cluster's object store.
	Files map[string]string `json:"files"`
	// Garbage are objects of the generation before that this one no
	// longer names: the next publication deletes them, once no node can
	// still be fetching them.
	Garbage   []string  `json:"garbage,omitempty"`
	Node      string    `json:"node"` // the primary that published it
	Published time.Time `json:"published"`
}

// Bounds on the JetStream operations of a node: a server lost in the
// middle of one leaves it unanswered, and the node tries again elsewhere.
// A file's transfer has no bound on its length, only on a pause in it.
const (
	opTimeout   = 10 * time.Second // a key, a stream operation
	idleTimeout = 15 * time.Second // a shard file's transfer without progress
)

// idleContext is a context that ends idle after the last touch (or its
// start), or with ctx.
func idleContext(ctx context.Context, idle time.Duration) (context.Context, func(), context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	last := make(chan struct{}, 1)
	go func() {
		t := time.NewTimer(idle)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-last:
				t.Reset(idle)
			case <-t.C:
				cancel()
				return
			}
		}
	}()
	touch := func() {
		select {
		case last <- struct{}{}:
		default:
		}
	}
	return ctx, touch, cancel
}

// progress touches on every read: a transfer that moves stays alive.
type progress struct {
	r     io.Reader
	touch func()
}

func (p progress) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.touch()
	}
	return n, err
}

// errNotPublished is the error of a shard that has no published generation
// yet: its primary has not started.
var errNotPublished = errors.New("no generation published yet")

// loadGeneration reads shard s's published generation and its key's
// revision; errNotPublished when there is none.
func (c *Cluster) loadGeneration(ctx context.Context, s int) (*generation, uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	e, err := c.state.Get(ctx, shardKey(s))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, errNotPublished
	}
	if err != nil {
		return nil, 0, fmt.Errorf("shard %d: reading its generation: %w", s, err)
	}
	g, err := decodeGeneration(e.Value())
	if err != nil {
		return nil, 0, fmt.Errorf("shard %d: %w", s, err)
	}
	return g, e.Revision(), nil
}

func decodeGeneration(b []byte) (*generation, error) {
	var g generation
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("its published generation is not valid JSON: %w", err)
	}
	files, err := index.ManifestFiles(g.Manifest)
	if err != nil {
		return nil, fmt.Errorf("its published generation: %w", err)
	}
	for _, f := range files {
		if g.Files[f] == "" {
			return nil, fmt.Errorf("its published generation %d names no object for %s", g.Generation, f)
		}
	}
	return &g, nil
}

// publish uploads the files of the commit in dir that prev does not hold,
// under objects named for this incarnation of the primary, and swaps the
// shard's key from prev (at revision rev; nil: no key yet) to the new
// generation. It returns the generation and its key's revision; a key
// changed meanwhile by another primary fails with
// jetstream.ErrKeyExists, and the caller gives the shard up.
func (c *Cluster) publish(ctx context.Context, s int, dir string, seq uint64, prev *generation, rev uint64, node, incarnation string) (*generation, uint64, error) {
	manifest, err := index.ReadManifest(dir)
	if err != nil {
		return nil, 0, err
	}
	files, err := index.ManifestFiles(manifest)
	if err != nil {
		return nil, 0, err
	}
	ix, err := index.OpenMeta(dir)
	if err != nil {
		return nil, 0, err
	}
	gen := ix.Generation()
	ix.Close()
	g := &generation{Shard: s, Generation: gen, Seq: seq, Manifest: manifest, Files: map[string]string{},
		Node: node, Published: time.Now().UTC()}
	// The objects uploaded are deleted again if another primary published
	// first; on any other failure (a reply lost, say) the swap may have
	// happened, and they are left.
	var uploaded []string
	defer func() {
		if uploaded != nil {
			c.deleteObjects(uploaded)
		}
	}()
	for _, f := range files {
		if prev != nil && prev.Files[f] != "" {
			g.Files[f] = prev.Files[f]
			continue
		}
		obj := fmt.Sprintf("shard-%d/%s/%s", s, incarnation, f)
		uploaded = append(uploaded, obj)
		if err := c.putFile(ctx, obj, filepath.Join(dir, f)); err != nil {
			return nil, 0, err
		}
		g.Files[f] = obj
	}
	if prev != nil {
		kept := map[string]bool{}
		for _, o := range g.Files {
			kept[o] = true
		}
		for _, o := range prev.Files {
			if !kept[o] {
				g.Garbage = append(g.Garbage, o)
			}
		}
		slices.Sort(g.Garbage)
	}
	b, err := json.Marshal(g)
	if err != nil {
		return nil, 0, err
	}
	kctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if prev == nil {
		rev, err = c.state.Create(kctx, shardKey(s), b)
	} else {
		rev, err = c.state.Update(kctx, shardKey(s), b, rev)
	}
	if err != nil {
		if !lostSwap(err) {
			uploaded = nil
		}
		return nil, 0, fmt.Errorf("shard %d: publishing generation %d: %w", s, gen, err)
	}
	uploaded = nil // published: they are the generation's now
	if prev != nil {
		c.deleteObjects(prev.Garbage)
	}
	return g, rev, nil
}

// lostSwap reports whether a publication failed because the shard's key
// had changed: another primary published first.
func lostSwap(err error) bool {
	var apiErr *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyExists) || (errors.As(err, &apiErr) &&
		(apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant))
}

// deleteObjects deletes objects no published generation names (any more).
func (c *Cluster) deleteObjects(objs []string) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	for _, o := range objs {
		if err := c.files.Delete(ctx, o); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			c.opt.Logger.Warn("cannot delete a shard file no generation names", "object", o, "error", err)
		}
	}
}

// putFile uploads the file at path as object obj.
func (c *Cluster) putFile(ctx context.Context, obj, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	ctx, touch, cancel := idleContext(ctx, idleTimeout)
	defer cancel()
	if _, err := c.files.Put(ctx, jetstream.ObjectMeta{Name: obj}, progress{f, touch}); err != nil {
		return fmt.Errorf("uploading %s as %s: %w", path, obj, err)
	}
	return nil
}

// install makes dir hold generation g, fetching from the object store the
// files that synced (the objects dir's files were copied from or to) does
// not show it holds already. It returns the new synced map.
func (c *Cluster) install(ctx context.Context, dir string, g *generation, synced map[string]string) (map[string]string, error) {
	err := index.Install(dir, g.Manifest,
		func(name string) bool { return synced[name] != "" && synced[name] == g.Files[name] },
		func(name string, w io.Writer) error {
			ctx, touch, cancel := idleContext(ctx, idleTimeout)
			defer cancel()
			r, err := c.files.Get(ctx, g.Files[name])
			if err != nil {
				return fmt.Errorf("object %s: %w", g.Files[name], err)
			}
			defer r.Close()
			if _, err := io.Copy(w, progress{r, touch}); err != nil {
				return fmt.Errorf("object %s: %w", g.Files[name], err)
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("shard %d: installing generation %d: %w", g.Shard, g.Generation, err)
	}
	return maps.Clone(g.Files), nil
}

// The synced record of a shard's directory maps each of its files to the
// object it was copied from or to, so that a node knows which files it
// holds of a published generation. It is a JSON file beside the
// directory, written after each install and publication; a file it does
// not name is fetched again.
func syncedPath(dir string) string { return dir + ".synced" }

func readSynced(dir string) map[string]string {
	m := map[string]string{}
	if b, err := os.ReadFile(syncedPath(dir)); err == nil {
		if json.Unmarshal(b, &m) != nil {
			return map[string]string{}
		}
	}
	return m
}

func writeSynced(dir string, m map[string]string) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	tmp := syncedPath(dir) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, syncedPath(dir))
}
