package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/fsnotify/fsnotify"
)

// snapshot is one opened index with its searcher. refs counts the holders:
// one for being current, one per request using it. The index is closed when
// the count drops to zero, so a request never sees its snapshot unmapped.
type snapshot struct {
	ix   *index.Index
	s    *query.Searcher
	refs atomic.Int64
}

func newSnapshot(ix *index.Index) (*snapshot, error) {
	s, err := query.NewSearcher(ix)
	if err != nil {
		return nil, err
	}
	sn := &snapshot{ix: ix, s: s}
	sn.refs.Store(1)
	return sn, nil
}

// tryAcquire takes a reference unless the snapshot is already being closed.
func (sn *snapshot) tryAcquire() bool {
	for {
		n := sn.refs.Load()
		if n <= 0 {
			return false
		}
		if sn.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference, closing the index with the last one.
func (sn *snapshot) release() {
	if sn.refs.Add(-1) == 0 {
		sn.ix.Close()
	}
}

// live holds the current snapshot of an index directory and replaces it when
// the directory's MANIFEST changes.
type live struct {
	dir     string
	log     *slog.Logger
	metrics *metrics
	poll    time.Duration

	cur atomic.Pointer[snapshot]

	mu    sync.Mutex // serializes reloads; guards seen
	seen  manifestStamp
	state atomic.Pointer[liveState]
}

// liveState is what /readyz reports.
type liveState struct {
	err      error     // the last reload's error (nil: the current snapshot is the newest)
	failedAt time.Time // when err happened
}

// manifestStamp identifies one MANIFEST file: a rename or rewrite changes it.
type manifestStamp struct {
	ok    bool
	ino   uint64
	size  int64
	mtime time.Time
}

func stampManifest(dir string) (manifestStamp, error) {
	fi, err := os.Stat(filepath.Join(dir, index.ManifestName))
	if err != nil {
		return manifestStamp{}, err
	}
	return manifestStamp{ok: true, ino: inode(fi), size: fi.Size(), mtime: fi.ModTime()}, nil
}

// openLive serves ix (or, if nil, the index opened from dir) as the first
// snapshot.
func openLive(dir string, ix *index.Index, log *slog.Logger, m *metrics, poll time.Duration) (*live, error) {
	l := &live{dir: dir, log: log, metrics: m, poll: poll}
	l.state.Store(&liveState{})
	stamp, _ := stampManifest(dir)
	if ix == nil {
		var err error
		if ix, err = index.Open(dir); err != nil {
			return nil, err
		}
	}
	sn, err := newSnapshot(ix)
	if err != nil {
		ix.Close()
		return nil, err
	}
	if ix.IsCurrent() {
		l.seen = stamp // else the first look opens the newer manifest
	}
	l.cur.Store(sn)
	m.observeIndex(ix)
	m.ready.Set(1)
	return l, nil
}

// acquire returns the current snapshot with a reference the caller must
// release. A snapshot being swapped out may refuse the reference; the loop
// then finds its successor.
func (l *live) acquire() *snapshot {
	for {
		sn := l.cur.Load()
		if sn == nil {
			return nil
		}
		if sn.tryAcquire() {
			return sn
		}
	}
}

// close drops the current snapshot; requests still holding it finish first.
func (l *live) close() {
	if sn := l.cur.Swap(nil); sn != nil {
		sn.release()
	}
}

// ready reports whether the newest MANIFEST is the one being served.
func (l *live) ready() (gen uint64, err error) {
	sn := l.acquire()
	if sn == nil {
		return 0, errors.New("the server is shutting down")
	}
	defer sn.release()
	st := l.state.Load()
	return sn.ix.Generation(), st.err
}

// reload opens the directory's MANIFEST if it changed since the last look and
// swaps the new snapshot in. force skips the change test (after a write).
func (l *live) reload(force bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for attempt := 0; ; attempt++ {
		stamp, err := stampManifest(l.dir)
		if err != nil {
			l.fail(fmt.Errorf("index %s: %w", l.dir, err), manifestStamp{})
			return
		}
		if stamp == l.seen && !force {
			return
		}
		cur := l.cur.Load()
		if cur != nil && cur.ix.IsCurrent() {
			l.seen = stamp // rewritten with the same commit: nothing to open
			l.state.Store(&liveState{})
			l.metrics.ready.Set(1)
			return
		}
		ix, err := index.Open(l.dir)
		if err != nil {
			// A writer may have committed again between our reading the
			// manifest and opening its segments (it removes the files of
			// the generation it replaces): try the newer manifest.
			if again, _ := stampManifest(l.dir); again != stamp && attempt < 5 {
				continue
			}
			l.fail(err, stamp)
			return
		}
		l.seen = stamp
		if cur != nil && ix.Generation() == cur.ix.Generation() {
			ix.Close() // the same commit (the file was touched, or a forced look)
			l.state.Store(&liveState{})
			l.metrics.ready.Set(1)
			return
		}
		sn, err := newSnapshot(ix)
		if err != nil {
			ix.Close()
			l.fail(err, stamp)
			return
		}
		old := l.cur.Swap(sn)
		l.state.Store(&liveState{})
		l.metrics.ready.Set(1)
		l.metrics.observeIndex(ix)
		l.metrics.reloads.WithLabelValues("ok").Inc()
		var from uint64
		if old != nil {
			from = old.ix.Generation()
			old.release()
		}
		l.log.Info("index snapshot replaced", "dir", l.dir, "from_generation", from,
			"generation", ix.Generation(), "documents", ix.NumDocs(), "segments", len(ix.Segments()))
		return
	}
}

// fail records a reload error: the last good snapshot stays in service.
func (l *live) fail(err error, stamp manifestStamp) {
	l.seen = stamp
	prev := l.state.Load()
	l.state.Store(&liveState{err: err, failedAt: time.Now()})
	l.metrics.ready.Set(0)
	l.metrics.reloads.WithLabelValues("error").Inc()
	if prev.err == nil || prev.err.Error() != err.Error() {
		l.log.Error("index reload failed; still serving the previous snapshot", "dir", l.dir, "error", err)
	}
}

// watch reloads on MANIFEST changes until ctx ends: fsnotify events on the
// directory, debounced, and a periodic stat for file systems and situations
// (the directory replaced, a missed event) where notification falls short.
func (l *live) watch(ctx context.Context) {
	var events <-chan fsnotify.Event
	var errs <-chan error
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(l.dir); err == nil {
			events, errs = w.Events, w.Errors
		}
		defer w.Close()
	}
	if err != nil {
		l.log.Warn("cannot watch the index directory; checking it periodically instead", "dir", l.dir, "error", err, "every", l.poll)
	}
	tick := time.NewTicker(l.poll)
	defer tick.Stop()
	var debounce <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if filepath.Base(ev.Name) == index.ManifestName && ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Rename|fsnotify.Remove) != 0 {
				debounce = time.After(debounceDelay)
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			l.log.Warn("index directory watch error", "dir", l.dir, "error", err)
		case <-debounce:
			debounce = nil
			l.reload(false)
		case <-tick.C:
			l.reload(false)
		}
	}
}

// debounceDelay groups the events of one commit (temp file, rename, directory
// sync) into one reload.
const debounceDelay = 50 * time.Millisecond
