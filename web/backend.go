package web

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
)

// Backend is what a Server searches and writes: one index directory on
// this machine (the default, made from Options.Dir), or a cluster index
// (Options.Backend, which the command line makes from package cluster).
// The pages and the API are the same over both.
type Backend interface {
	// Parse parses a query as the backend's searches will.
	Parse(q string) (query.Node, error)
	// Search runs req (whose Admit the backend calls once it knows the
	// query's cost) and says what it read.
	Search(ctx context.Context, req query.Request) (*query.Result, Served, error)
	// Explain explains q, once admit (as Request.Admit) has admitted it by
	// its cost.
	Explain(ctx context.Context, q string, admit func(query.Cost) (int, func(), error)) (*query.Explanation, Served, error)
	// Document returns a window of a stored document, with q's words
	// highlighted: the one that holds byte from, or q's first match when
	// from is negative (query.Searcher.Document).
	Document(ctx context.Context, key, q string, from int) (*query.DocumentView, error)
	// Summary is what the pages say of the index: documents, segments,
	// generation.
	Summary() Summary
	// Stats is the body of /api/stats.
	Stats(ctx context.Context) (any, error)
	// Ready says whether the backend serves its newest state, and what it
	// serves; the error says why not.
	Ready(ctx context.Context) (Summary, error)
	// Write adds docs and deletes the documents of deletes, and returns
	// once the change is durable (WriteResult says whether it is also
	// visible). A delete of a key the index lacks is an error wrapping
	// query.ErrNotFound.
	Write(ctx context.Context, docs []index.Document, deletes []string) (WriteResult, error)
	// Reload looks for a newer state now.
	Reload()
	// Close releases what the backend holds; requests in flight finish.
	Close() error
}

// Served is what a search read: a generation of one index, or of each
// shard of a cluster, some of them missing when no owner answered.
type Served struct {
	Generation uint64        `json:"generation"`
	Shards     []ShardServed `json:"shards,omitempty"`
	Partial    bool          `json:"partial,omitempty"`
	Missing    []int         `json:"missing_shards,omitempty"`
}

// ShardServed is one shard's part of a Served.
type ShardServed struct {
	Shard      int    `json:"shard"`
	Node       string `json:"node"`
	Generation uint64 `json:"generation"`
}

// Summary is the size and state of what a Backend serves.
type Summary struct {
	Docs       int
	Segments   int
	Generation uint64
}

// WriteResult is what a Backend's Write did.
type WriteResult struct {
	Added      int    `json:"added"`     // documents with a new key
	Replaced   int    `json:"replaced"`  // documents that replaced one with the same key
	Unchanged  int    `json:"unchanged"` // documents identical to the indexed ones, left alone
	Deleted    int    `json:"deleted"`   // documents deleted
	Generation uint64 `json:"generation"`
	Documents  int    `json:"documents"` // live documents after the change
	// Pending says the write is durable but not yet searchable (a
	// cluster's shards index it shortly).
	Pending bool `json:"pending,omitempty"`
	// CompactErr is a failure of the compaction after the write, which
	// stands all the same.
	CompactErr error `json:"-"`
}

// localBackend serves an index directory: its live snapshots
// (query.Live), written through an index.Writer one batch at a time.
type localBackend struct {
	dir     string
	live    *query.Live
	writeMu sync.Mutex // one write at a time: the index has a single writer
}

func (b *localBackend) acquire() (*query.Snapshot, error) {
	sn := b.live.Acquire()
	if sn == nil {
		return nil, errorf(http.StatusServiceUnavailable, "unavailable", "the server is shutting down")
	}
	return sn, nil
}

func (b *localBackend) Parse(q string) (query.Node, error) {
	sn, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer sn.Release()
	return sn.Searcher().Parse(q)
}

func (b *localBackend) Search(ctx context.Context, req query.Request) (*query.Result, Served, error) {
	sn, err := b.acquire()
	if err != nil {
		return nil, Served{}, err
	}
	defer sn.Release()
	res, err := sn.Searcher().Search(ctx, req)
	return res, Served{Generation: sn.Index().Generation()}, err
}

func (b *localBackend) Explain(ctx context.Context, q string, admit func(query.Cost) (int, func(), error)) (*query.Explanation, Served, error) {
	sn, err := b.acquire()
	if err != nil {
		return nil, Served{}, err
	}
	defer sn.Release()
	cost, err := sn.Searcher().Cost(q)
	if err != nil {
		return nil, Served{}, err
	}
	_, release, err := admit(cost)
	if err != nil {
		return nil, Served{}, err
	}
	defer release()
	ex, err := sn.Searcher().Explain(ctx, q)
	return ex, Served{Generation: sn.Index().Generation()}, err
}

func (b *localBackend) Document(_ context.Context, key, q string, from int) (*query.DocumentView, error) {
	sn, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer sn.Release()
	return sn.Searcher().Document(key, q, from)
}

func (b *localBackend) Summary() Summary {
	sn := b.live.Acquire()
	if sn == nil {
		return Summary{}
	}
	defer sn.Release()
	ix := sn.Index()
	return Summary{Docs: ix.NumDocs(), Segments: len(ix.Segments()), Generation: ix.Generation()}
}

func (b *localBackend) Stats(context.Context) (any, error) {
	sn, err := b.acquire()
	if err != nil {
		return nil, err
	}
	defer sn.Release()
	return sn.Index().Stats(), nil
}

func (b *localBackend) Ready(context.Context) (Summary, error) {
	gen, err := b.live.Ready()
	sum := b.Summary()
	sum.Generation = gen
	return sum, err
}

func (b *localBackend) Reload() { _ = b.live.Reload(false) }

func (b *localBackend) Close() error {
	b.live.Close()
	return nil
}

// Write applies one batch in one commit and makes it visible: it returns
// once searches see the new snapshot. Documents identical to the indexed
// ones are left alone. The served snapshot is lent to the writer as its
// base, so the index is not opened again.
func (b *localBackend) Write(_ context.Context, docs []index.Document, deletes []string) (WriteResult, error) {
	b.writeMu.Lock()
	defer b.writeMu.Unlock()
	st, err := b.apply(docs, deletes)
	if err != nil {
		if errors.Is(err, index.ErrNotFound) {
			err = errors.Join(err, query.ErrNotFound)
		}
		return WriteResult{}, err
	}
	b.live.Reload(true)
	sum := b.Summary()
	return WriteResult{Added: st.Added, Replaced: st.Replaced, Unchanged: st.Unchanged, Deleted: st.Deleted,
		Generation: sum.Generation, Documents: sum.Docs, CompactErr: st.CompactErr}, nil
}

func (b *localBackend) apply(docs []index.Document, deletes []string) (index.WriteStats, error) {
	sn, err := b.acquire()
	if err != nil {
		return index.WriteStats{}, err
	}
	defer sn.Release()
	w, err := index.OpenWriter(b.dir, index.WriterOptions{Snapshot: sn.Index()})
	if err != nil {
		return index.WriteStats{}, err
	}
	for _, d := range docs {
		if _, err := w.AddIfChanged(d); err != nil {
			w.Abort()
			return index.WriteStats{}, err
		}
	}
	for _, k := range deletes {
		if err := w.Delete(k); err != nil {
			w.Abort()
			return index.WriteStats{}, err
		}
	}
	return w.Commit()
}
