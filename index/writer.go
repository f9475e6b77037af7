package index

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
	"github.com/cespare/xxhash/v2"
	"github.com/gofrs/flock"
)

// WriterOptions configure a Writer. The zero value uses the defaults.
type WriterOptions struct {
	Analyzer        string // tokenize language; default tokenize.DefaultLanguage, or the index's own for OpenWriter
	Params          Params // signature parameters; default DefaultParams
	Capacity        int    // most documents per segment; default 65,536
	MaxSegmentBytes int64  // most text bytes buffered per segment; default 128 MiB
	Workers         int    // analysis goroutines; default GOMAXPROCS

	// MemoryBudget bounds the bytes of analyzed documents the writer holds,
	// buffered or being sealed (DefaultMemoryBudget when 0); the texts of
	// the documents buffered are kept on disk until their seal. A length
	// class's buffer is sealed as a segment when it reaches half of it, the
	// largest buffer when all reach it, and while the documents held exceed
	// it the writer waits for a seal to end. So the writer's memory stays
	// flat however large the corpus, but for about a hundred bytes per key
	// it has added. The compaction policy runs after the commit of a
	// rebuild that sealed segments early, as after any update.
	MemoryBudget int64

	// Snapshot, for OpenWriter, is an open snapshot of the directory that
	// the writer may use as its base instead of opening the index again. It
	// is used only if it is the directory's current generation, and it is
	// not closed by the writer.
	Snapshot *Index

	// Compact is the compaction policy applied after every commit of an
	// OpenWriter writer (a Create writer lays its segments out afresh).
	Compact CompactPolicy
}

const (
	// defaultCapacity is the default number of documents per segment: a
	// rank-0 row is then 8 KiB, which fits in L1/L2.
	defaultCapacity = 1 << 16
	// defaultMaxSegmentBytes bounds the text buffered for one segment, and so
	// the writer's memory, for corpora of large documents.
	defaultMaxSegmentBytes = 128 << 20
	// DefaultMemoryBudget is the default WriterOptions.MemoryBudget: a
	// class of short documents still fills half a segment before it is
	// sealed (a smaller budget makes more, smaller segments, and queries pay
	// for each; docs/BENCHMARKS.md).
	DefaultMemoryBudget = 256 << 20
)

// segmentDefaults fills in the options that writing segments takes, for
// the writer and for compaction alike, and validates the parameters.
func segmentDefaults(p *Params, capacity *int, maxBytes, budget *int64) error {
	if *p == (Params{}) {
		*p = DefaultParams
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if *capacity <= 0 {
		*capacity = defaultCapacity
	}
	if *maxBytes <= 0 {
		*maxBytes = defaultMaxSegmentBytes
	}
	if *budget <= 0 {
		*budget = DefaultMemoryBudget
	}
	return nil
}

func (opt *WriterOptions) setDefaults() error {
	if opt.Analyzer == "" {
		opt.Analyzer = tokenize.DefaultLanguage
	}
	if _, err := tokenize.New(opt.Analyzer); err != nil {
		return err
	}
	if err := segmentDefaults(&opt.Params, &opt.Capacity, &opt.MaxSegmentBytes, &opt.MemoryBudget); err != nil {
		return err
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	return nil
}

// WriteStats summarise a commit.
type WriteStats struct {
	Docs       int      // documents written: Added + Replaced
	Added      int      // documents with a key the index did not hold
	Replaced   int      // documents that replaced a live document with the same key
	Deleted    int      // live documents deleted (not counting replaced ones)
	Unchanged  int      // documents AddIfChanged found identical to the indexed ones
	Bytes      int64    // text bytes analyzed
	Duplicates []string // keys added more than once to a Create writer (the first one is kept)
	Segments   int      // segment files written
	Tombstones int      // tombstone files written

	IndexBytes    int64         // size of all live segment files after the commit
	IndexSegments int           // segments of the index after the commit
	Generation    uint64        // the index's generation after the commit (and compaction)
	Elapsed       time.Duration // from Create or OpenWriter to the end of Commit

	// Compaction is what the automatic compaction after the commit did;
	// CompactErr says why it failed. The commit stands either way.
	Compaction CompactStats
	CompactErr error
}

// Writer changes the index in a directory. Documents are analyzed by several
// goroutines, routed by length class, and sealed into new segments as
// classes fill up; Commit seals the rest, writes tombstones for the documents
// deleted or replaced, and atomically replaces the directory's MANIFEST. The
// previous index stays fully usable until then, and is unchanged by Abort or
// by any failure. A Writer holds the directory's lock from Create or
// OpenWriter until Commit or Abort. Its methods may be called from several
// goroutines; they are applied in the order they are called.
type Writer struct {
	dir     string
	opt     WriterOptions
	lock    *flock.Flock
	start   time.Time
	rebuild bool      // Create: the new index replaces the old one entirely
	baseM   *Manifest // the manifest this commit replaces (nil: none, or unreadable in a rebuild)
	base    *Index    // snapshot of baseM, for an incremental writer
	ownBase bool      // base was opened by the writer

	// Caller side, under mu.
	mu        sync.Mutex
	seq       uint64          // next job sequence number
	session   map[string]bool // keys added (true) or deleted (false) by this writer, last call wins
	kept      map[string]bool // keys AddIfChanged found unchanged
	unchanged int
	closed    bool

	in      chan job
	out     chan job
	workers sync.WaitGroup
	collect sync.WaitGroup
	seals   sync.WaitGroup
	sealSem chan struct{}

	// The footprints of the documents being sealed, which count against the
	// memory budget until their segment is written; sealEnd is signalled
	// when a seal ends.
	sealMu   sync.Mutex
	sealEnd  *sync.Cond
	sealing  int64
	peakHeld int64 // the most footprints held at once, buffered or being sealed

	// The text of the documents between Add and the collector, which the
	// budget counts only once they are routed: Add waits while it exceeds
	// an eighth of the budget (queueLimit).
	queueMu   sync.Mutex
	queueFree *sync.Cond
	queued    int64

	fileSeq atomic.Uint64
	docs    atomic.Int64
	bytes   atomic.Int64
	errOnce sync.Once
	err     error
	errSet  atomic.Bool

	segMu    sync.Mutex // guards segs, dicts and newFiles
	segs     []ManifestSegment
	dicts    map[string]*segment.Dict // the dictionaries of segs, by file name, for the lexicon
	newFiles []string                 // files written by this writer, removed if the commit fails

	// Collector state: only the collector goroutine touches it until stop.
	buf     classBuffers
	spills  []*textSpill            // every scratch file of texts (textspill.go), removed at the end
	early   int                     // segments sealed before they were full (sealClass)
	loc     map[string]sessionDoc   // live documents added by this writer
	pending map[string]*analyzedDoc // those of them still buffered
	dups    []string
	baseDel map[string]DocRef   // live base documents to delete
	newDel  map[string][]uint32 // new segment → its documents deleted again by this writer
	nextOut uint64
	reorder map[uint64]job

	committed bool
}

// sessionDoc locates a document added by the writer: zero while it is
// buffered (Writer.pending holds it), else the file sequence number of the
// new segment it was sealed into plus one, times 2^32, plus its local id.
// It is eight bytes because the writer keeps one per document it adds.
type sessionDoc uint64

func sealedAt(seq uint64, local int) sessionDoc { return sessionDoc((seq+1)<<32 | uint64(local)) }

// segment is the file name of the new segment d was sealed into, and its
// local id there.
func (d sessionDoc) segment() (string, uint32) {
	return segmentFileName(uint64(d>>32) - 1), uint32(d)
}

type job struct {
	seq uint64
	doc Document
	del bool // delete doc.Key
	res *analyzedDoc
}

// Create starts a new index in dir (created if missing). The previous index
// in dir, if any, is replaced only when Commit succeeds; it may be damaged.
// If a key is added twice, the first document is kept and the key is listed
// in WriteStats.Duplicates.
func Create(dir string, opt WriterOptions) (*Writer, error) {
	if err := opt.setDefaults(); err != nil {
		return nil, err
	}
	w, err := newWriter(dir, opt)
	if err != nil {
		return nil, err
	}
	w.rebuild = true
	base, err := readManifest(dir)
	switch {
	case err == nil:
		w.baseM = base
		w.fileSeq.Store(base.NextFile)
	case errors.Is(err, ErrNoIndex):
		w.fileSeq.Store(1)
		if err := w.claimEmpty(); err != nil {
			w.release()
			return nil, err
		}
	default:
		// A damaged manifest must not stop a rebuild; numbering continues
		// past any file already in the directory.
		w.fileSeq.Store(nextFreeSeq(dir))
	}
	w.startPipeline()
	return w, nil
}

// OpenWriter opens the index in dir for changes, creating an empty one if
// there is none. Added documents replace live documents with the same key;
// everything else is kept. The index must have been built with the same
// analyzer: opt.Analyzer may be empty (the index's own is used) but not
// different.
func OpenWriter(dir string, opt WriterOptions) (*Writer, error) {
	want := opt.Analyzer
	snap := opt.Snapshot
	opt.Snapshot = nil
	if err := opt.setDefaults(); err != nil {
		return nil, err
	}
	w, err := newWriter(dir, opt)
	if err != nil {
		return nil, err
	}
	m, err := readManifest(dir)
	switch {
	case errors.Is(err, ErrNoIndex):
		w.fileSeq.Store(nextFreeSeq(dir))
		if err := w.claimEmpty(); err != nil {
			w.release()
			return nil, err
		}
		w.startPipeline()
		return w, nil
	case err != nil:
		w.release()
		return nil, fmt.Errorf("%w (run 'bitsieve check'; a rebuild replaces a damaged index)", err)
	}
	if want != "" && want != m.Analyzer {
		w.release()
		return nil, fmt.Errorf("index %s was built with the %q analyzer, not %q: queries and documents must be analyzed alike (rebuild the index to change its analyzer)", dir, m.Analyzer, want)
	}
	w.opt.Analyzer = m.Analyzer
	if _, err := tokenize.New(m.Analyzer); err != nil {
		w.release()
		return nil, fmt.Errorf("index %s: %w", dir, err)
	}
	w.baseM = m
	w.fileSeq.Store(m.NextFile)
	if snap != nil && snap.dir == dir && snap.manifest.Generation == m.Generation && snap.segs != nil {
		w.base = snap
	} else {
		ix, err := openManifest(dir, m, segment.VerifyData)
		if err != nil {
			w.release()
			return nil, fmt.Errorf("%w (run 'bitsieve check'; a rebuild replaces a damaged index)", err)
		}
		w.base, w.ownBase = ix, true
	}
	w.startPipeline()
	return w, nil
}

func newWriter(dir string, opt WriterOptions) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create index directory: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	removeTemps(dir)
	w := &Writer{
		dir: dir, opt: opt, lock: lock, start: time.Now(),
		session: map[string]bool{}, kept: map[string]bool{},
		in: make(chan job, 256), out: make(chan job, 256),
		sealSem: make(chan struct{}, 2),
		buf:     newClassBuffers(), loc: map[string]sessionDoc{}, pending: map[string]*analyzedDoc{},
		baseDel: map[string]DocRef{}, newDel: map[string][]uint32{},
		reorder: map[uint64]job{},
	}
	w.sealEnd = sync.NewCond(&w.sealMu)
	w.queueFree = sync.NewCond(&w.queueMu)
	return w, nil
}

// claimEmpty writes the MANIFEST of an empty index (generation 0) into a
// directory that has none, before any segment file: a directory with index
// files but no MANIFEST is then always damaged, never a first run that was
// cut short, and is refused rather than overwritten.
func (w *Writer) claimEmpty() error {
	m := &Manifest{Format: formatVersion, Analyzer: w.opt.Analyzer, NextFile: w.fileSeq.Load()}
	if err := commitManifest(w.dir, m); err != nil {
		return fmt.Errorf("create index %s: %w", w.dir, err)
	}
	return nil
}

// nextFreeSeq returns a file sequence number above every index file in dir.
func nextFreeSeq(dir string) uint64 {
	next := uint64(1)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if seq, ok := fileSeq(e.Name()); ok && seq >= next {
			next = seq + 1
		}
	}
	return next
}

func (w *Writer) fail(err error) {
	w.errOnce.Do(func() {
		w.err = err
		w.errSet.Store(true)
	})
}

// Add queues a document. In a writer from OpenWriter it replaces the live
// document with the same key, if any (also one added earlier by this
// writer). It returns the first error the writer has met (the writer is then
// unusable and Commit returns the same error).
func (w *Writer) Add(d Document) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.addLocked(d)
}

func (w *Writer) addLocked(d Document) error {
	if w.closed {
		return errorf("Add after Commit or Abort")
	}
	if w.errSet.Load() {
		return w.err
	}
	w.session[d.Key] = true
	delete(w.kept, d.Key)
	w.enqueue(int64(len(d.Text)))
	w.in <- job{seq: w.seq, doc: d}
	w.seq++
	return nil
}

// AddIfChanged adds d unless the index already holds a live document with
// the same key, size, modification time, title, source and text (by xxhash64); such
// a document is left as it is, neither analyzed nor rewritten, and counted
// as unchanged. It reports whether d was added.
func (w *Writer) AddIfChanged(d Document) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, touched := w.session[d.Key]; !touched && w.base != nil && !w.closed {
		if ref, ok := w.base.Find(d.Key); ok {
			info := w.base.segs[ref.Seg].Doc(ref.Doc)
			var mtime int64
			if !d.ModTime.IsZero() {
				mtime = d.ModTime.UnixNano()
			}
			var had int64
			if !info.ModTime.IsZero() {
				had = info.ModTime.UnixNano()
			}
			if info.Size == d.Size && had == mtime && info.Title == d.Title && info.Source == SourceTag(d.Source) &&
				info.TextLen == len(d.Text) && info.Hash == xxhash.Sum64(d.Text) {
				if !w.kept[d.Key] {
					w.kept[d.Key] = true
					w.unchanged++
				}
				return false, nil
			}
		}
	}
	return true, w.addLocked(d)
}

// Delete removes the live document with the given key: one in the index,
// or one added earlier by this writer. It returns an error wrapping
// ErrNotFound if there is none.
func (w *Writer) Delete(key string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.deleteLocked(key)
}

func (w *Writer) deleteLocked(key string) error {
	if w.closed {
		return errorf("Delete after Commit or Abort")
	}
	if w.errSet.Load() {
		return w.err
	}
	if !w.isLive(key) {
		return fmt.Errorf("delete %q: %w", key, ErrNotFound)
	}
	w.session[key] = false
	if w.kept[key] {
		delete(w.kept, key)
		w.unchanged--
	}
	w.in <- job{seq: w.seq, doc: Document{Key: key}, del: true}
	w.seq++
	return nil
}

// isLive reports whether key is live once the calls so far are applied.
func (w *Writer) isLive(key string) bool {
	if added, ok := w.session[key]; ok {
		return added
	}
	if w.base == nil || w.rebuild {
		return false
	}
	_, ok := w.base.Find(key)
	return ok
}

// Contains reports whether a live document has the key, counting the calls
// made to the writer so far.
func (w *Writer) Contains(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.isLive(key)
}

// DeleteUnseen deletes every live document of the index that this writer
// has neither added, deleted nor found unchanged (AddIfChanged), and for
// which inScope returns true, given its key and the SourceTag of its source
// (nil: every document). It is how a run over a directory removes the
// documents of files that are gone; inScope protects documents the run did
// not look at, such as those of other sources. It returns the number of
// deletions.
func (w *Writer) DeleteUnseen(inScope func(key string, source uint32) bool) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errorf("DeleteUnseen after Commit or Abort")
	}
	if w.base == nil || w.rebuild {
		return 0, nil
	}
	n := 0
	for _, s := range w.base.segs {
		for d := 0; d < s.NumDocs(); d++ {
			if !s.IsLive(d) {
				continue
			}
			key := s.DocKey(d)
			if _, touched := w.session[key]; touched || w.kept[key] {
				continue
			}
			if inScope != nil && !inScope(key, s.DocSource(d)) {
				continue
			}
			if err := w.deleteLocked(key); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// Progress reports the documents and text bytes analyzed so far; it is safe
// to call from another goroutine.
func (w *Writer) Progress() (docs int64, bytes int64) { return w.docs.Load(), w.bytes.Load() }
