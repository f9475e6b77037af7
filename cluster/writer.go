package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/cespare/xxhash/v2"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Writer writes documents into a cluster: each write goes to the subject
// of its shard (ShardOf its key) in the cluster's stream, in batches, and
// is durable once the stream has acknowledged it; the shard's primary
// indexes it from there. Flush publishes what is left and waits for the
// acknowledgements; Wait then waits until the shards have published
// generations that hold the writes. A Writer is an ingest.Sink: like an
// index.Writer it leaves unchanged documents alone and deletes the unseen
// documents of a scope, from the shards' own lists of their documents.
//
// A Writer is for one goroutine (and its own publishers).
type Writer struct {
	c   *Cluster
	ctx context.Context
	opt WriterOptions
	id  string // names its messages, for the stream's deduplication of a retried publish

	batches []pendingBatch // by shard
	maxMsg  int
	work    []chan pendingBatch // by publisher; shard s goes to s % len(work)
	wg      sync.WaitGroup

	mu    sync.Mutex
	acked map[int]uint64 // by shard, the last sequence acknowledged
	err   error          // the first publish that failed for good
	n     int            // messages published

	known  map[string]DocInfo // the documents of the scope, as the shards hold them
	loaded bool
	seen   map[string]bool // keys added or found unchanged
	stats  WriteStats
}

// WriterOptions configure a Writer.
type WriterOptions struct {
	// Sources are the names of the sources (index.Document.Source) whose
	// documents AddIfChanged and DeleteUnseen compare with, when
	// AllSources is not set: listing only those is cheaper.
	Sources    []string
	AllSources bool
}

// WriteStats count what a Writer did.
type WriteStats struct {
	Added     int   `json:"added"`
	Replaced  int   `json:"replaced"`
	Unchanged int   `json:"unchanged"`
	Deleted   int   `json:"deleted"`
	Bytes     int64 `json:"bytes"`    // text bytes written
	Messages  int   `json:"messages"` // stream messages published
}

// maxBatch bounds a write batch below the servers' largest message.
const maxBatch = 512 << 10

// publishers is how many shards publish at once; a shard's batches are
// published one after another, so that its writes stay in order.
const publishers = 8

// pendingBatch is a shard's batch being filled or published.
type pendingBatch struct {
	s    int
	recs []record
	size int
}

// NewWriter starts a Writer; ctx bounds its publishing.
func (c *Cluster) NewWriter(ctx context.Context, opt WriterOptions) *Writer {
	var b [6]byte
	rand.Read(b[:])
	w := &Writer{c: c, ctx: ctx, opt: opt, id: hex.EncodeToString(b[:]), batches: make([]pendingBatch, c.cfg.Shards),
		maxMsg: int(min(int64(maxBatch), c.nc.MaxPayload()-4096)), acked: map[int]uint64{}, seen: map[string]bool{}}
	for s := range w.batches {
		w.batches[s].s = s
	}
	w.work = make([]chan pendingBatch, min(publishers, c.cfg.Shards))
	for i := range w.work {
		ch := make(chan pendingBatch, 4)
		w.work[i] = ch
		w.wg.Go(func() {
			for b := range ch {
				w.publish(b)
			}
		})
	}
	return w
}

// Add writes d, replacing the document of its key if there is one.
func (w *Writer) Add(d index.Document) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.seen[d.Key] = true
	if w.loaded {
		if _, ok := w.known[d.Key]; ok {
			w.stats.Replaced++
		} else {
			w.stats.Added++
		}
	} else {
		w.stats.Added++
	}
	w.stats.Bytes += int64(len(d.Text))
	r := record{op: opAdd, doc: d}
	if r.encodedSize() > w.maxMsg {
		name := fmt.Sprintf("text/%s-%d", w.id, len(w.seen))
		if _, err := w.c.files.PutBytes(w.ctx, name, d.Text); err != nil {
			return fmt.Errorf("storing the text of %q: %w", d.Key, err)
		}
		r = record{op: opAddBlob, doc: d, blob: name}
		r.doc.Text = nil
	}
	return w.queue(r)
}

// AddIfChanged writes d unless the cluster holds a document of its key
// with the same text, title, size, modification time and source.
func (w *Writer) AddIfChanged(d index.Document) (bool, error) {
	if err := w.load(); err != nil {
		return false, err
	}
	if k, ok := w.known[d.Key]; ok && !w.seen[d.Key] && same(k, d) {
		w.seen[d.Key] = true
		w.stats.Unchanged++
		return false, nil
	}
	return true, w.Add(d)
}

// same reports whether d is the document k describes.
func same(k DocInfo, d index.Document) bool {
	var mtime int64
	if !d.ModTime.IsZero() {
		mtime = d.ModTime.UnixNano()
	}
	return k.Size == d.Size && k.ModTime == mtime && k.Title == d.Title && k.Source == index.SourceTag(d.Source) &&
		k.TextLen == len(d.Text) && k.Hash == xxhash.Sum64(d.Text)
}

// Delete deletes the document of key, if the cluster holds one.
func (w *Writer) Delete(key string) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.stats.Deleted++
	return w.queue(record{op: opDelete, doc: index.Document{Key: key}})
}

// DeleteUnseen deletes the documents of the scope that this writer
// neither added nor found unchanged, of those inScope accepts.
func (w *Writer) DeleteUnseen(inScope func(key string, source uint32) bool) (int, error) {
	if err := w.load(); err != nil {
		return 0, err
	}
	n := 0
	for key, k := range w.known {
		if w.seen[key] || (inScope != nil && !inScope(key, k.Source)) {
			continue
		}
		if err := w.Delete(key); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// load lists the documents of the writer's scope, once, from every shard.
func (w *Writer) load() error {
	if w.loaded {
		return nil
	}
	var tags []uint32
	for _, s := range w.opt.Sources {
		tags = append(tags, index.SourceTag(s))
	}
	known := map[string]DocInfo{}
	f := w.c.fanOut(w.ctx, "")
	var mu sync.Mutex
	f.each(func(s int, g *shardCall) (*reply, error) {
		req := &request{Op: opKeys, Shard: s, Sources: tags, AllSources: w.opt.AllSources || len(tags) == 0}
		for {
			rep, err := g.ask(req)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			for _, k := range rep.Keys {
				known[k.Key] = k
			}
			mu.Unlock()
			if !rep.More || len(rep.Keys) == 0 {
				return rep, nil
			}
			req.After = rep.Keys[len(rep.Keys)-1].Key
		}
	})
	if err := f.err(); err != nil {
		return err
	}
	for s, g := range f.calls {
		if !g.missing {
			continue
		}
		// A shard that never published a generation holds nothing yet.
		if _, _, err := w.c.loadGeneration(w.ctx, s); !errors.Is(err, errNotPublished) {
			return fmt.Errorf("shard %d: no node answered for its documents, which the update compares with (start one with bitsieve serve --nats): %w", s, errUnavailable)
		}
	}
	w.known, w.loaded = known, true
	return nil
}

// queue adds r to its shard's batch, and hands the batch to its publisher
// when it is full.
func (w *Writer) queue(r record) error {
	s := ShardOf(r.doc.Key, len(w.batches))
	b := &w.batches[s]
	if sz := r.encodedSize(); len(b.recs) > 0 && b.size+sz > w.maxMsg {
		w.send(b)
	}
	b.recs = append(b.recs, r)
	b.size += r.encodedSize()
	return w.failed()
}

// send hands b to its shard's publisher and empties it.
func (w *Writer) send(b *pendingBatch) {
	if len(b.recs) == 0 {
		return
	}
	out := pendingBatch{s: b.s, recs: b.recs, size: b.size}
	b.recs, b.size = nil, 0
	select {
	case w.work[b.s%len(w.work)] <- out:
	case <-w.ctx.Done():
	}
}

// publish publishes a batch, again and again while the servers cannot
// take it (a server lost, a leader being elected), with the same message
// identity, so that the stream stores it once however many times it
// arrives.
func (w *Writer) publish(b pendingBatch) {
	w.mu.Lock()
	w.n++
	id := w.id + "-" + strconv.Itoa(w.n)
	failed := w.err != nil
	w.mu.Unlock()
	if failed {
		return
	}
	msg := nats.NewMsg(docsSubject(w.c.cfg.Name, b.s))
	msg.Data = appendBatch(nil, b.recs)
	wait := 100 * time.Millisecond
	for {
		ack, err := w.c.js.PublishMsg(w.ctx, msg, jetstream.WithMsgID(id))
		if err == nil {
			w.mu.Lock()
			w.acked[b.s] = max(w.acked[b.s], ack.Sequence)
			w.stats.Messages++
			w.mu.Unlock()
			return
		}
		if w.ctx.Err() != nil || !transient(err) {
			w.mu.Lock()
			if w.err == nil {
				w.err = fmt.Errorf("writing to shard %d of cluster %s: %w", b.s, w.c.cfg.Name, err)
			}
			w.mu.Unlock()
			return
		}
		select {
		case <-w.ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// transient reports whether a publish may succeed if tried again.
func transient(err error) bool {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Code >= 500
	}
	return true // no reply, no responders, a timeout, a reconnection
}

func (w *Writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Flush publishes every batch and waits for the stream's
// acknowledgements. It returns the last sequence acknowledged for each
// shard written; the writes are durable once it returns without error.
// The Writer cannot be used after.
func (w *Writer) Flush() (map[int]uint64, error) {
	for s := range w.batches {
		w.send(&w.batches[s])
	}
	for _, ch := range w.work {
		close(ch)
	}
	w.wg.Wait()
	w.c.stats.reset() // this client's next search reads the shards afresh
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return nil, w.err
	}
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	return w.acked, nil
}

// Stats count what the writer did.
func (w *Writer) Stats() WriteStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Wait waits until every shard in acked (Flush) has published a
// generation that holds its writes and every live owner of the shard
// serves it, so that a search that follows sees them; or until ctx ends.
func (c *Cluster) Wait(ctx context.Context, acked map[int]uint64) error {
	for {
		late, err := c.lagging(ctx, acked)
		if err != nil {
			return err
		}
		if late < 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("shard %d has not indexed the writes yet (%w); they are stored, and its primary indexes them when it can: bitsieve cluster status shows its lag", late, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// lagging returns a shard of acked that some live owner does not serve
// at the acknowledged sequence yet, or -1.
func (c *Cluster) lagging(ctx context.Context, acked map[int]uint64) (int, error) {
	nodes, err := c.Nodes(ctx)
	if err != nil {
		return 0, err
	}
	live := make([]string, len(nodes))
	served := map[string]map[int]uint64{}
	for i, n := range nodes {
		live[i] = n.ID
		served[n.ID] = map[int]uint64{}
		for _, s := range n.Shards {
			served[n.ID][s.Shard] = s.Seq
		}
	}
	slices.Sort(live)
	for s, seq := range acked {
		owners := Owners(live, s, c.cfg.Replicas)
		if len(owners) == 0 {
			return s, nil
		}
		for _, id := range owners {
			if got, ok := served[id][s]; !ok || got < seq {
				return s, nil
			}
		}
	}
	return -1, nil
}
