package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// shard is one shard a node owns: a copy of its published generations in
// the node's directory, served by a query.Live, and, on the primary, the
// indexer that applies the shard's writes from the stream and publishes
// each commit.
//
// One goroutine (run) does all of it, in a loop: it installs the shard's
// published generation if the copy differs, then, as primary, indexes
// from the stream until its role changes, or, as a replica, installs each
// generation the primary publishes. A primary that finds the shard's key
// changed by another node (a compare-and-swap lost: two nodes both
// believed themselves primary while the live set moved) drops its
// unpublished commits and starts again from the published generation; the
// writes they held are still in the stream.
type shard struct {
	n   *Node
	s   int
	dir string
	log *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	primary atomic.Bool
	roleCh  chan struct{} // signalled when primary changes

	mu     sync.Mutex
	live   *query.Live // nil until a generation is installed
	sub    *nats.Subscription
	cur    *generation // the generation served
	rev    uint64      // its key's revision
	synced map[string]string
	err    error // the last failure, until the next success
}

func (n *Node) startShard(s int) *shard {
	ctx, cancel := context.WithCancel(n.ctx)
	dir := filepath.Join(n.dir, "shard-"+strconv.Itoa(s))
	sh := &shard{n: n, s: s, dir: dir, log: n.log.With("shard", s), ctx: ctx, cancel: cancel,
		done: make(chan struct{}), roleCh: make(chan struct{}, 1), synced: readSynced(dir)}
	go func() {
		defer close(sh.done)
		sh.run()
	}()
	return sh
}

// setPrimary gives the shard its role.
func (sh *shard) setPrimary(p bool) {
	if sh.primary.Swap(p) != p {
		sh.log.Info("shard role", "primary", p)
		select {
		case sh.roleCh <- struct{}{}:
		default:
		}
	}
}

// stop ends the shard's work and its subscription, and closes its copy.
func (sh *shard) stop() {
	sh.cancel()
	<-sh.done
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.sub != nil {
		sh.sub.Unsubscribe()
		sh.sub = nil
	}
	if sh.live != nil {
		sh.live.Close()
		sh.live = nil
	}
}

func (sh *shard) info() ShardInfo {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	si := ShardInfo{Shard: sh.s, Primary: sh.primary.Load()}
	if sh.cur != nil {
		si.Generation, si.Seq = sh.cur.Generation, sh.cur.Seq
	}
	if sh.live != nil {
		if sn := sh.live.Acquire(); sn != nil {
			si.Docs, si.Segments = sn.Index().NumDocs(), len(sn.Index().Segments())
			sn.Release()
		}
	}
	if sh.err != nil {
		si.Error = sh.err.Error()
	}
	return si
}

func (sh *shard) fail(err error) {
	sh.mu.Lock()
	sh.err = err
	sh.mu.Unlock()
	if sh.ctx.Err() == nil {
		sh.log.Warn("shard failed; trying again", "error", err)
	}
}

// run is the shard's loop, until stop.
func (sh *shard) run() {
	for sh.ctx.Err() == nil {
		var err error
		if sh.primary.Load() {
			err = sh.lead()
		} else {
			err = sh.follow()
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			sh.fail(err)
			select {
			case <-sh.ctx.Done():
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
}

// roleContext is a context that ends when the shard stops or its role
// changes.
func (sh *shard) roleContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(sh.ctx)
	was := sh.primary.Load()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-sh.roleCh:
				if sh.primary.Load() != was {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}

// sync makes the copy hold g (installing it if it differs), serves it,
// and subscribes the shard's requests.
func (sh *shard) sync(ctx context.Context, g *generation, rev uint64) error {
	local, _ := index.ReadManifest(sh.dir)
	if !bytes.Equal(local, g.Manifest) {
		synced, err := sh.n.c.install(ctx, sh.dir, g, sh.synced)
		if err != nil {
			return err
		}
		sh.synced = synced
		if err := writeSynced(sh.dir, synced); err != nil {
			return err
		}
	}
	return sh.serve(g, rev)
}

// serve serves the copy's generation g: opens or reloads it, and
// subscribes the shard's queue subject the first time.
func (sh *shard) serve(g *generation, rev uint64) error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.live == nil {
		l, err := query.OpenLive(sh.dir, query.LiveOptions{Keep: keepGenerations, Logger: sh.log, CheckStore: true})
		if err != nil {
			return err
		}
		sh.live = l
	} else if err := sh.live.Reload(true); err != nil {
		return err
	}
	if gen, err := sh.live.Ready(); err != nil || gen != g.Generation {
		return fmt.Errorf("shard %d: serving generation %d, not the published %d: %v", sh.s, gen, g.Generation, err)
	}
	sh.cur, sh.rev, sh.err = g, rev, nil
	sh.n.changed()
	if sh.sub == nil {
		sub, err := sh.n.c.nc.QueueSubscribe(shardSubject(sh.n.c.cfg.Name, sh.s), queueGroup, sh.n.onRequest)
		if err != nil {
			return err
		}
		sh.sub = sub
	}
	return nil
}

// keepGenerations is how long a node keeps serving a replaced generation
// of a shard to the searches that read it (their second request goes to
// the node that answered the first, for the same generation).
const keepGenerations = 30 * time.Second

// follow is a replica's work: install every generation the primary
// publishes, until the role changes. It watches the shard's key, and
// reads it again every followPoll besides, since a watch can fall silent
// while the servers elect a new leader for the bucket.
func (sh *shard) follow() error {
	ctx, cancel := sh.roleContext()
	defer cancel()
	w, err := sh.n.c.state.Watch(ctx, shardKey(sh.s))
	if err != nil {
		return err
	}
	defer w.Stop()
	tick := time.NewTicker(followPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("the watch of the shard's generation ended")
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			g, err := decodeGeneration(e.Value())
			if err != nil {
				return fmt.Errorf("shard %d: %w", sh.s, err)
			}
			if err := sh.syncNewer(ctx, g, e.Revision()); err != nil {
				return err
			}
		case <-tick.C:
			g, rev, err := sh.n.c.loadGeneration(ctx, sh.s)
			if errors.Is(err, errNotPublished) {
				continue
			}
			if err != nil {
				return err
			}
			if err := sh.syncNewer(ctx, g, rev); err != nil {
				return err
			}
		}
	}
}

// followPoll is how often a replica reads its shard's key besides
// watching it.
const followPoll = 2 * time.Second

// syncNewer syncs g, published at revision rev of the shard's key, unless
// the shard already serves it or a later one (revisions only grow).
func (sh *shard) syncNewer(ctx context.Context, g *generation, rev uint64) error {
	sh.mu.Lock()
	served := sh.cur != nil && sh.rev >= rev
	sh.mu.Unlock()
	if served {
		return nil
	}
	return sh.sync(ctx, g, rev)
}

// lead is the primary's work: start from the published generation (or
// publish an empty one when there is none), then index the shard's
// writes from the stream and publish each commit, until the role changes.
func (sh *shard) lead() error {
	ctx, cancel := sh.roleContext()
	defer cancel()
	c := sh.n.c
	incarnation := newIncarnation()
	g, rev, err := c.loadGeneration(ctx, sh.s)
	switch {
	case errors.Is(err, errNotPublished):
		if g, rev, err = sh.first(ctx, incarnation); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if err := sh.sync(ctx, g, rev); err != nil {
		return err
	}
	sh.log.Info("indexing the shard's writes", "generation", g.Generation, "from_seq", g.Seq+1)
	ix := &indexer{sh: sh, incarnation: incarnation, cur: g, rev: rev}
	return ix.run(ctx)
}

// first publishes an empty first generation of a shard that has none.
func (sh *shard) first(ctx context.Context, incarnation string) (*generation, uint64, error) {
	os.RemoveAll(sh.dir)
	w, err := index.Create(sh.dir, index.WriterOptions{Analyzer: sh.n.c.cfg.Analyzer})
	if err != nil {
		return nil, 0, err
	}
	if _, err := w.Commit(); err != nil {
		return nil, 0, err
	}
	g, rev, err := sh.n.c.publish(ctx, sh.s, sh.dir, 0, nil, 0, sh.n.id, incarnation)
	if err != nil {
		return nil, 0, err
	}
	sh.synced = g.Files
	return g, rev, writeSynced(sh.dir, g.Files)
}

// newIncarnation names one stint of a node as a shard's primary: the
// objects it uploads are named with it, so that no two primaries ever
// write the same object.
func newIncarnation() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
