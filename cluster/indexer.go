package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// indexer is a primary's indexing of one shard: it reads the shard's
// subject of the stream from the published generation's sequence on (an
// ordered consumer, which the client recreates where it left off when the
// servers lose it),
// applies each batch to an index.Writer over the node's copy, and commits
// and publishes when the writes pause, when enough documents wait, or
// after commitEvery at the latest. Once a generation is published, the
// stream's messages it holds are purged, and the objects of the documents
// too large for a message deleted.
type indexer struct {
	sh          *shard
	incarnation string
	cur         *generation
	rev         uint64

	w     *index.Writer
	base  *query.Snapshot // the served snapshot w starts from, held until w is done
	seq   uint64          // the last sequence applied to w
	docs  int             // records applied to w
	since time.Time       // when w took its first record
	blobs []string        // objects of the texts applied to w
}

// nextStuck is how long one call of the message iterator may take before
// the primary gives the iterator up (a call waits at most a second).
const nextStuck = 20 * time.Second

// stallAfter is how long a primary goes without a message before it
// checks that none waits and that its publication is the shard's (check).
const stallAfter = 2 * time.Second

// Commit triggers: a pause in the writes, a number of records, an age.
const (
	commitIdle  = 100 * time.Millisecond
	commitDocs  = 20000
	commitEvery = time.Second
)

func (ix *indexer) run(ctx context.Context) error {
	c := ix.sh.n.c
	defer ix.abort()
	cctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	cons, err := c.js.OrderedConsumer(cctx, streamName(c.cfg.Name), jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{docsSubject(c.cfg.Name, ix.sh.s)},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    ix.cur.Seq + 1,
		// A consumer the servers lost is recreated a few times by the
		// client; past that the error comes back here, and the primary
		// starts again from the published generation.
		MaxResetAttempts: 3,
	})
	if err != nil {
		return fmt.Errorf("shard %d: reading its writes: %w", ix.sh.s, err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(256))
	if err != nil {
		return fmt.Errorf("shard %d: reading its writes: %w", ix.sh.s, err)
	}
	// The iterator is stopped when the role ends, and when a call of Next
	// outlasts its wait by far: the client may be recreating a consumer
	// the servers lost, again and again.
	var inNext atomic.Int64 // when the pending call of Next began (Unix ns), 0 between calls
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		defer it.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-stopped:
				return
			case <-t.C:
				if since := inNext.Load(); since != 0 && time.Since(time.Unix(0, since)) > nextStuck {
					ix.sh.log.Warn("reading the shard's writes is stuck; reading the stream again", "for", nextStuck)
					return
				}
			}
		}
	}()
	idle := time.Now() // since the last message
	for {
		wait := commitIdle
		if ix.w == nil {
			wait = time.Second
		}
		inNext.Store(time.Now().UnixNano())
		msg, err := it.Next(jetstream.NextMaxWait(wait))
		inNext.Store(0)
		if err == nil {
			idle = time.Now()
		} else if time.Since(idle) > stallAfter {
			if err := ix.check(ctx); err != nil {
				return err
			}
			idle = time.Now()
		}
		switch {
		case err == nil:
			meta, err := msg.Metadata()
			if err != nil {
				return err
			}
			if err := ix.apply(ctx, meta.Sequence.Stream, msg.Data()); err != nil {
				return err
			}
		case errors.Is(err, nats.ErrTimeout):
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			return fmt.Errorf("shard %d: reading its writes: %w", ix.sh.s, err)
		}
		if ix.w != nil && (err != nil || ix.docs >= commitDocs || time.Since(ix.since) >= commitEvery) {
			if err := ix.commit(ctx); err != nil {
				return err
			}
		}
	}
}

// check is what a primary verifies when no write has come for a while:
// that none waits (a consumer the servers lost may leave the iterator
// silent), and that the shard's key still holds its own publication (when
// the live set was split, another node may have been primary meanwhile
// and published): either way it starts again from the published
// generation.
func (ix *indexer) check(ctx context.Context) error {
	c := ix.sh.n.c
	lctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if last, err := c.stream.GetLastMsgForSubject(lctx, docsSubject(c.cfg.Name, ix.sh.s)); err == nil && last.Sequence > max(ix.seq, ix.cur.Seq) {
		return fmt.Errorf("shard %d: the stream holds writes up to %d, but none arrived after %d for %s; reading it again", ix.sh.s, last.Sequence, max(ix.seq, ix.cur.Seq), stallAfter)
	}
	if _, rev, err := c.loadGeneration(ctx, ix.sh.s); err == nil && rev != ix.rev {
		return fmt.Errorf("shard %d: another node published a generation (revision %d, not %d); starting again from it", ix.sh.s, rev, ix.rev)
	}
	return nil
}

// apply applies the batch of stream sequence seq to the writer.
func (ix *indexer) apply(ctx context.Context, seq uint64, data []byte) error {
	recs, err := decodeBatch(data)
	if err != nil {
		// A message no bitsieve wrote: skipped, never indexed half.
		ix.sh.log.Error("skipping a message of the shard's subject", "seq", seq, "error", err)
		recs = nil
	}
	if ix.w == nil {
		// The served snapshot is the writer's base: the copy is not
		// opened and checked again for every commit.
		opt := index.WriterOptions{MemoryBudget: ix.sh.n.opt.MemoryBudget, Analyzer: ix.sh.n.c.cfg.Analyzer}
		if ix.base = ix.sh.acquire(ix.cur.Generation); ix.base != nil {
			opt.Snapshot = ix.base.Index()
		}
		if ix.w, err = index.OpenWriter(ix.sh.dir, opt); err != nil {
			ix.release()
			return fmt.Errorf("shard %d: %w", ix.sh.s, err)
		}
		ix.since = time.Now()
	}
	for _, r := range recs {
		switch r.op {
		case opDelete:
			if err := ix.w.Delete(r.doc.Key); err != nil && !errors.Is(err, index.ErrNotFound) {
				return err
			}
		case opAddBlob:
			bctx, cancel := context.WithTimeout(ctx, opTimeout+idleTimeout)
			text, err := ix.sh.n.c.files.GetBytes(bctx, r.blob)
			cancel()
			if err != nil {
				return fmt.Errorf("shard %d: the text of %q (object %s): %w", ix.sh.s, r.doc.Key, r.blob, err)
			}
			r.doc.Text = text
			ix.blobs = append(ix.blobs, r.blob)
			fallthrough
		case opAdd:
			if _, err := ix.w.AddIfChanged(r.doc); err != nil {
				return err
			}
		}
		ix.docs++
	}
	ix.seq = seq
	return nil
}

// commit commits the writer, publishes the generation and serves it.
func (ix *indexer) commit(ctx context.Context) error {
	c, sh := ix.sh.n.c, ix.sh
	w := ix.w
	ix.w = nil
	_, err := w.Commit()
	ix.release()
	if err != nil {
		return fmt.Errorf("shard %d: %w", sh.s, err)
	}
	g, rev, err := c.publish(ctx, sh.s, sh.dir, ix.seq, ix.cur, ix.rev, sh.n.id, ix.incarnation)
	if err != nil {
		if lostSwap(err) {
			sh.log.Warn("another node published the shard meanwhile; starting again from its generation")
		}
		return err
	}
	sh.synced = g.Files
	if err := writeSynced(sh.dir, g.Files); err != nil {
		return err
	}
	if err := sh.serve(g, rev); err != nil {
		return err
	}
	ix.cur, ix.rev = g, rev
	pctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if err := c.stream.Purge(pctx, jetstream.WithPurgeSubject(docsSubject(c.cfg.Name, sh.s)), jetstream.WithPurgeSequence(g.Seq+1)); err != nil {
		sh.log.Warn("cannot purge the published writes from the stream", "seq", g.Seq, "error", err)
	}
	for _, b := range ix.blobs {
		if err := c.files.Delete(pctx, b); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
			sh.log.Warn("cannot delete the object of an indexed text", "object", b, "error", err)
		}
	}
	ix.blobs, ix.docs = ix.blobs[:0], 0
	return nil
}

// abort drops what the writer held: those writes are still in the stream.
func (ix *indexer) abort() {
	if ix.w != nil {
		ix.w.Abort()
		ix.w = nil
	}
	ix.release()
}

// release gives back the writer's base snapshot.
func (ix *indexer) release() {
	if ix.base != nil {
		ix.base.Release()
		ix.base = nil
	}
}
