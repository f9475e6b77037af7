package query

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
	"github.com/fsnotify/fsnotify"
)

// Snapshot is one opened index with its Searcher, counted by reference:
// whoever searches it holds a reference from Live.Acquire until Release,
// and the index is closed with the last one, so that a search never sees
// its snapshot unmapped, however soon a newer one replaces it.
type Snapshot struct {
	ix   *index.Index
	s    *Searcher
	refs atomic.Int64 // one for being current (or kept), one per holder
	// storeErr is a damaged document store that Live found (CheckStore).
	storeErr error
}

// NewSnapshot makes a Snapshot of ix, with one reference: the caller's,
// given back with Release (which then closes ix).
func NewSnapshot(ix *index.Index, opts ...Option) (*Snapshot, error) {
	s, err := NewSearcher(ix, opts...)
	if err != nil {
		return nil, err
	}
	sn := &Snapshot{ix: ix, s: s}
	sn.refs.Store(1)
	return sn, nil
}

// Index is the snapshot's index.
func (sn *Snapshot) Index() *index.Index { return sn.ix }

// Searcher searches the snapshot.
func (sn *Snapshot) Searcher() *Searcher { return sn.s }

// tryAcquire takes a reference unless the snapshot is already being closed.
func (sn *Snapshot) tryAcquire() bool {
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

// Release gives a reference back; the last one closes the index.
func (sn *Snapshot) Release() {
	if sn.refs.Add(-1) == 0 {
		sn.ix.Close()
	}
}

// Live holds the current snapshot of an index directory and replaces it
// when the directory's MANIFEST changes: the searches that started on the
// old one finish on it, the new ones start on the new one. A replaced
// snapshot may be kept open a while longer (LiveOptions.Keep), for a
// search that must read one generation in several requests.
type Live struct {
	dir string
	opt LiveOptions

	cur atomic.Pointer[Snapshot]

	mu      sync.Mutex // serializes reloads; guards seen, kept and storeOK
	seen    manifestStamp
	kept    []keptSnapshot  // replaced snapshots still held, oldest first
	storeOK map[string]bool // segment.StoreStamp of the stores verified
	closed  bool
	state   atomic.Pointer[liveState]
}

// LiveOptions configure a Live.
type LiveOptions struct {
	// Index, if set, is an open snapshot of the directory to serve first,
	// so that the caller's open is not repeated; Live owns it from then on.
	Index *index.Index
	// Searcher are the options of every snapshot's Searcher.
	Searcher []Option
	// Poll is how often Watch looks at the MANIFEST besides file system
	// events (default 2s).
	Poll time.Duration
	// Keep is how long a replaced snapshot stays open for AcquireGeneration
	// (0: it closes as soon as its last search ends).
	Keep time.Duration
	// Logger receives a line for each snapshot replaced and each reload
	// that failed (default: slog.Default()).
	Logger *slog.Logger
	// OnReload, when set, is called after each look at the directory that
	// found it changed: with the new snapshot's index, or with the error
	// that kept the old one in service.
	OnReload func(ix *index.Index, err error)
	// CheckStore verifies the document store of every snapshot before it
	// is served (index.Open leaves it to the reads of its blocks): the
	// checksum of each segment's store section, once per segment file. A
	// snapshot whose store is damaged is served all the same (its other
	// documents read well), but Ready reports it.
	CheckStore bool
}

// keptSnapshot is a replaced snapshot held until its time is up.
type keptSnapshot struct {
	sn    *Snapshot
	until time.Time
}

// liveState is what Ready reports.
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

// OpenLive serves the index in dir (or opt.Index, already opened from it)
// as the first snapshot.
func OpenLive(dir string, opt LiveOptions) (*Live, error) {
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	l := &Live{dir: dir, opt: opt}
	l.state.Store(&liveState{})
	stamp, _ := stampManifest(dir)
	ix := opt.Index
	l.opt.Index = nil
	if ix == nil {
		var err error
		if ix, err = index.Open(dir); err != nil {
			return nil, err
		}
	}
	sn, err := l.newSnapshot(ix)
	if err != nil {
		ix.Close()
		return nil, err
	}
	if ix.IsCurrent() {
		l.seen = stamp // else the first look opens the newer manifest
	}
	l.cur.Store(sn)
	return l, nil
}

// Dir is the index directory.
func (l *Live) Dir() string { return l.dir }

// Acquire returns the current snapshot with a reference the caller must
// Release, or nil once Close has been called. A snapshot being swapped out
// may refuse the reference; the loop then finds its successor.
func (l *Live) Acquire() *Snapshot {
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

// AcquireGeneration returns the snapshot of generation gen with a
// reference the caller must Release: the current one, or a replaced one
// still kept (LiveOptions.Keep); nil when there is none.
func (l *Live) AcquireGeneration(gen uint64) *Snapshot {
	if sn := l.Acquire(); sn != nil {
		if sn.ix.Generation() == gen {
			return sn
		}
		sn.Release()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expire(time.Now())
	for _, k := range l.kept {
		if k.sn.ix.Generation() == gen && k.sn.tryAcquire() {
			return k.sn
		}
	}
	return nil
}

// expire releases the kept snapshots whose time is up; l.mu is held.
func (l *Live) expire(now time.Time) {
	i := 0
	for i < len(l.kept) && !now.Before(l.kept[i].until) {
		l.kept[i].sn.Release()
		i++
	}
	l.kept = append(l.kept[:0], l.kept[i:]...)
}

// Close drops the current snapshot and the kept ones; searches still
// holding them finish first.
func (l *Live) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if sn := l.cur.Swap(nil); sn != nil {
		sn.Release()
	}
	for _, k := range l.kept {
		k.sn.Release()
	}
	l.kept = nil
}

// Ready reports the generation served and, when the newest MANIFEST of
// the directory failed to open, why (the previous snapshot is still
// served), or else when the served snapshot's document store is damaged
// (LiveOptions.CheckStore).
func (l *Live) Ready() (gen uint64, err error) {
	sn := l.Acquire()
	if sn == nil {
		return 0, errors.New("the index is closed")
	}
	defer sn.Release()
	if err := l.state.Load().err; err != nil {
		return sn.ix.Generation(), err
	}
	return sn.ix.Generation(), sn.storeErr
}

// newSnapshot makes the snapshot of ix that Live serves, its document
// store verified when the options ask for it; l.mu is held (or l is not
// shared yet).
func (l *Live) newSnapshot(ix *index.Index) (*Snapshot, error) {
	sn, err := NewSnapshot(ix, l.opt.Searcher...)
	if err != nil || !l.opt.CheckStore {
		return sn, err
	}
	ok := map[string]bool{}
	for _, seg := range ix.Segments() {
		st := seg.StoreStamp()
		if l.storeOK[st] {
			ok[st] = true
			continue
		}
		if err := seg.VerifyStore(); err != nil {
			sn.storeErr = fmt.Errorf("the document store is damaged: %w; run bitsieve check, and rebuild the index", err)
			l.opt.Logger.Error("document store damaged; its other documents are still served", "dir", l.dir, "error", err)
			continue
		}
		ok[st] = true
	}
	l.storeOK = ok // only the stores of the newest snapshot are remembered
	return sn, nil
}

// Reload opens the directory's MANIFEST if it changed since the last look
// and swaps the new snapshot in; force skips the change test (after a
// write the caller made). It returns the error that kept the previous
// snapshot in service, if any.
func (l *Live) Reload(force bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errors.New("the index is closed")
	}
	l.expire(time.Now())
	for attempt := 0; ; attempt++ {
		stamp, err := stampManifest(l.dir)
		if err != nil {
			return l.fail(fmt.Errorf("index %s: %w", l.dir, err), manifestStamp{})
		}
		if stamp == l.seen && !force {
			return nil
		}
		cur := l.cur.Load()
		if cur != nil && cur.ix.IsCurrent() {
			l.seen = stamp // rewritten with the same commit: nothing to open
			l.succeed(nil)
			return nil
		}
		ix, err := index.Open(l.dir)
		if err != nil {
			// A writer may have committed again between our reading the
			// manifest and opening its segments (it removes the files of
			// the generation it replaces): try the newer manifest.
			if again, _ := stampManifest(l.dir); again != stamp && attempt < 5 {
				continue
			}
			return l.fail(err, stamp)
		}
		l.seen = stamp
		if cur != nil && ix.Generation() == cur.ix.Generation() {
			ix.Close() // the same commit (the file was touched, or a forced look)
			l.succeed(nil)
			return nil
		}
		sn, err := l.newSnapshot(ix)
		if err != nil {
			ix.Close()
			return l.fail(err, stamp)
		}
		old := l.cur.Swap(sn)
		l.succeed(ix)
		var from uint64
		if old != nil {
			from = old.ix.Generation()
			if l.opt.Keep > 0 {
				l.kept = append(l.kept, keptSnapshot{sn: old, until: time.Now().Add(l.opt.Keep)})
			} else {
				old.Release()
			}
		}
		l.opt.Logger.Info("index snapshot replaced", "dir", l.dir, "from_generation", from,
			"generation", ix.Generation(), "documents", ix.NumDocs(), "segments", len(ix.Segments()))
		return nil
	}
}

// succeed records a look that left the newest snapshot in service (ix:
// a new one).
func (l *Live) succeed(ix *index.Index) {
	prev := l.state.Swap(&liveState{})
	if l.opt.OnReload != nil && (ix != nil || prev.err != nil) {
		l.opt.OnReload(ix, nil)
	}
}

// fail records a reload error: the last good snapshot stays in service.
func (l *Live) fail(err error, stamp manifestStamp) error {
	l.seen = stamp
	prev := l.state.Load()
	l.state.Store(&liveState{err: err, failedAt: time.Now()})
	if l.opt.OnReload != nil {
		l.opt.OnReload(nil, err)
	}
	if prev.err == nil || prev.err.Error() != err.Error() {
		l.opt.Logger.Error("index reload failed; still serving the previous snapshot", "dir", l.dir, "error", err)
	}
	return err
}

// Watch reloads on MANIFEST changes until ctx ends: fsnotify events on the
// directory, debounced, and a periodic look for file systems and
// situations (the directory replaced, a missed event) where notification
// falls short.
func (l *Live) Watch(ctx context.Context) {
	log := l.opt.Logger
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
		log.Warn("cannot watch the index directory; checking it periodically instead", "dir", l.dir, "error", err, "every", l.opt.Poll)
	}
	tick := time.NewTicker(l.opt.Poll)
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
			log.Warn("index directory watch error", "dir", l.dir, "error", err)
		case <-debounce:
			debounce = nil
			l.Reload(false)
		case <-tick.C:
			l.Reload(false)
		}
	}
}

// debounceDelay groups the events of one commit (temp file, rename,
// directory sync) into one reload.
const debounceDelay = 50 * time.Millisecond
