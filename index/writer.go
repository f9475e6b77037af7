package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/internal/bitrow"
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

func (w *Writer) startPipeline() {
	for i := 0; i < w.opt.Workers; i++ {
		w.workers.Add(1)
		go w.analyze()
	}
	w.collect.Add(1)
	go w.collector()
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

func (w *Writer) analyze() {
	defer w.workers.Done()
	an := segment.NewAnalysis(w.opt.Analyzer)
	for j := range w.in {
		if !j.del {
			d := j.doc
			j.res = &analyzedDoc{Doc: segment.Doc{Key: d.Key, Title: d.Title, Text: d.Text, Size: d.Size, ModTime: d.ModTime, Source: SourceTag(d.Source)}}
			an.Analyze(&j.res.Doc)
			j.res.mem = j.res.footprint()
			w.docs.Add(1)
			w.bytes.Add(int64(len(j.doc.Text)))
		}
		w.out <- j
	}
}

// collector puts analyzed documents and deletions back in call order (so an
// index is a deterministic function of its input, and the last call for a
// key wins) and applies them.
func (w *Writer) collector() {
	defer w.collect.Done()
	for j := range w.out {
		w.reorder[j.seq] = j
		for {
			j, ok := w.reorder[w.nextOut]
			if !ok {
				break
			}
			delete(w.reorder, w.nextOut)
			w.nextOut++
			w.dequeue(int64(len(j.doc.Text)))
			if j.del {
				w.remove(j.doc.Key)
			} else {
				w.route(j.res)
			}
		}
	}
}

// queueLimit is the most text queued for analysis, unless one document
// alone is longer.
func (w *Writer) queueLimit() int64 { return w.opt.MemoryBudget / 8 }

// enqueue waits until n more bytes of text may be queued for analysis, and
// counts them.
func (w *Writer) enqueue(n int64) {
	w.queueMu.Lock()
	for w.queued > 0 && w.queued+n > w.queueLimit() {
		w.queueFree.Wait()
	}
	w.queued += n
	w.queueMu.Unlock()
}

// dequeue uncounts the n bytes of a document the collector takes.
func (w *Writer) dequeue(n int64) {
	w.queueMu.Lock()
	w.queued -= n
	w.queueFree.Broadcast()
	w.queueMu.Unlock()
}

// remove deletes key: the version this writer added, and the base's.
func (w *Writer) remove(key string) {
	if prev, ok := w.loc[key]; ok {
		w.dropSession(key, prev)
		delete(w.loc, key)
	}
	w.deleteBase(key)
}

func (w *Writer) deleteBase(key string) {
	if w.base == nil || w.rebuild {
		return
	}
	if ref, ok := w.base.Find(key); ok {
		w.baseDel[key] = ref
	}
}

// dropSession deletes a document this writer added earlier: out of its
// buffer if it is not sealed yet, else by a tombstone in its new segment.
func (w *Writer) dropSession(key string, d sessionDoc) {
	if d == 0 {
		w.pending[key].dropped = true
		delete(w.pending, key)
		return
	}
	seg, local := d.segment()
	w.newDel[seg] = append(w.newDel[seg], local)
}

func (w *Writer) route(d *analyzedDoc) {
	key := d.Key
	if prev, ok := w.loc[key]; ok {
		if w.rebuild {
			w.dups = append(w.dups, key)
			return
		}
		w.dropSession(key, prev)
	}
	w.deleteBase(key)
	w.loc[key] = 0
	w.pending[key] = d
	if err := w.spillText(d); err != nil {
		w.fail(err) // the text stays in memory; the commit fails
	}
	if c, seal, early := w.buf.add(d, w.opt.Capacity, w.opt.MaxSegmentBytes, w.opt.MemoryBudget); seal {
		w.sealClass(c, early)
	}
	w.holdBudget()
}

// spillText moves d's text from memory to the scratch file of its class
// buffer (textspill.go), and its footprint with it.
func (w *Writer) spillText(d *analyzedDoc) error {
	b := w.buf.buffer(d)
	if b.spill == nil {
		s, err := newTextSpill(w.dir, uint64(len(w.spills)))
		if err != nil {
			return err
		}
		b.spill = s
		w.spills = append(w.spills, s)
	}
	st, err := b.spill.add(d.Text)
	if err != nil {
		return err
	}
	d.Text, d.spilled = nil, st
	d.mem = d.footprint()
	return nil
}

// holdBudget keeps the documents the writer holds, buffered or being
// sealed, within its memory budget: while they exceed it, the collector
// waits for a seal to end, and so, through the full channels behind it, do
// the analysis goroutines and Add. A class's buffer is sealed at half the
// budget, so a segment is written while the buffers refill, and never much
// more than the budget is held.
func (w *Writer) holdBudget() {
	w.sealMu.Lock()
	w.peakHeld = max(w.peakHeld, w.buf.buffered+w.sealing)
	for w.sealing > 0 && w.buf.buffered+w.sealing > w.opt.MemoryBudget {
		w.sealEnd.Wait()
	}
	w.sealMu.Unlock()
}

// sealClass seals class c's buffer; early: before it was full, to keep the
// writer within its memory budget (compaction merges such segments).
func (w *Writer) sealClass(c int, early bool) {
	if early {
		w.early++
	}
	w.seal(w.buf.take(c), c)
}

// seal writes the documents not dropped meanwhile as a new segment file, in
// the background. Their names and local ids are fixed here, so later calls
// can delete them by tombstone.
func (w *Writer) seal(docs []*analyzedDoc, class int) {
	kept := make([]*analyzedDoc, 0, len(docs))
	for _, d := range docs {
		if !d.dropped {
			kept = append(kept, d)
		}
	}
	if len(kept) == 0 {
		return
	}
	seq := w.fileSeq.Add(1) - 1
	name := segmentFileName(seq)
	for i, d := range kept {
		w.loc[d.Key] = sealedAt(seq, i)
		delete(w.pending, d.Key)
	}
	var mem int64
	for _, d := range kept {
		mem += d.mem
	}
	var last *textSpill
	for _, d := range docs {
		if s := d.spilled.spill; s != nil && s != last {
			if err := s.finish(); err != nil {
				w.fail(err)
			}
			last = s
		}
	}
	w.sealMu.Lock()
	w.sealing += mem
	w.sealMu.Unlock()
	w.sealSem <- struct{}{}
	w.seals.Add(1)
	go func() {
		defer w.seals.Done()
		defer func() {
			<-w.sealSem
			w.sealMu.Lock()
			w.sealing -= mem
			w.sealEnd.Broadcast()
			w.sealMu.Unlock()
		}()
		if w.errSet.Load() {
			return
		}
		done := readSpilledTexts(kept)
		seg, dict, err := writeSegmentFile(w.dir, name, segmentDocs(kept), w.opt.Params, class, w.opt.Analyzer)
		done()
		if err == nil {
			// The commit's lexicon reads it back; until then its words
			// would grow the writer's memory with every segment.
			if dict, err = spillDict(w.dir, seg.File, dict); err != nil {
				os.Remove(filepath.Join(w.dir, seg.File))
			}
		}
		if err != nil {
			w.fail(err)
			return
		}
		w.segMu.Lock()
		if w.dicts == nil {
			w.dicts = map[string]*segment.Dict{}
		}
		w.dicts[seg.File] = dict
		w.segs = append(w.segs, seg)
		w.newFiles = append(w.newFiles, seg.File)
		w.segMu.Unlock()
	}()
}

// writeSegmentFile writes docs as the segment file name in dir: to a
// temporary file, fsynced, renamed. The caller fsyncs the directory. The
// segment's dictionary is returned for the lexicon.
func writeSegmentFile(dir, name string, docs []*segment.Doc, p Params, class int, analyzer string) (ManifestSegment, *segment.Dict, error) {
	t, err := createTemp(dir, name)
	if err != nil {
		return ManifestSegment{}, nil, fmt.Errorf("create segment: %w", err)
	}
	dict, err := segment.Build(t, docs, p, class, analyzer)
	if err != nil {
		t.abort()
		return ManifestSegment{}, nil, fmt.Errorf("write segment %s: %w", name, err)
	}
	size := t.n
	if err := t.commit(); err != nil {
		return ManifestSegment{}, nil, fmt.Errorf("write segment %s: %w", name, err)
	}
	return ManifestSegment{File: name, Docs: len(docs), Class: class, Bytes: size}, dict, nil
}

// stop closes the pipeline and waits for every goroutine.
func (w *Writer) stop() {
	if w.closed {
		return
	}
	w.closed = true
	close(w.in)
	w.workers.Wait()
	close(w.out)
	w.collect.Wait()
}

// Commit seals the remaining documents, writes the tombstones, and
// atomically makes the result the directory's index; then it runs the
// compaction policy. Files the new MANIFEST no longer names are removed;
// open readers keep working on their snapshot. A writer with nothing to
// change commits nothing: the generation stays the same.
func (w *Writer) Commit() (WriteStats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return WriteStats{}, errorf("Commit after Commit or Abort")
	}
	w.stop()
	groups, classes := groupLeftovers(w.buf.classes, w.opt.Capacity)
	for i, g := range groups {
		w.seal(g, classes[i])
	}
	w.seals.Wait()
	w.removeTextSpills()
	defer w.release()
	if w.err != nil {
		w.removeNew()
		return WriteStats{}, w.err
	}
	st := w.changeStats()
	m, tombs := w.newManifest()
	if !w.rebuild && w.baseM != nil && len(w.segs) == 0 && len(w.baseDel) == 0 {
		st.Generation = w.baseM.Generation
		st.IndexBytes = manifestBytes(w.baseM)
		st.IndexSegments = len(w.baseM.Segments)
		st.Elapsed = time.Since(w.start)
		return st, nil
	}
	if err := w.publish(m, tombs); err != nil {
		return WriteStats{}, err
	}
	st.Tombstones = len(tombs)
	w.committed = true
	w.closeBase()
	w.forget()
	removeUnlisted(w.dir, m)
	if !w.opt.Compact.Disabled && (!w.rebuild || w.early > 0) {
		// A rebuild's segments are laid out full, unless the memory budget
		// sealed some early: the policy merges those as it merges updates'.
		cm, cst, err := compactLocked(w.dir, m, CompactOptions{
			Params: w.opt.Params, Capacity: w.opt.Capacity, MaxSegmentBytes: w.opt.MaxSegmentBytes,
			MemoryBudget: w.opt.MemoryBudget, Policy: w.opt.Compact,
		})
		st.Compaction, st.CompactErr = cst, err
		m = cm
	}
	st.Generation = m.Generation
	st.IndexBytes = manifestBytes(m)
	st.IndexSegments = len(m.Segments)
	st.Elapsed = time.Since(w.start)
	return st, nil
}

// changeStats counts what the commit changes: the documents added, replaced
// and deleted against the base, and what the writer saw and sealed.
func (w *Writer) changeStats() WriteStats {
	st := WriteStats{Unchanged: w.unchanged, Bytes: w.bytes.Load(), Duplicates: w.dups, Segments: len(w.segs)}
	for key := range w.baseDel {
		if _, ok := w.loc[key]; ok {
			st.Replaced++
		} else {
			st.Deleted++
		}
	}
	st.Docs = len(w.loc)
	st.Added = st.Docs - st.Replaced
	return st
}

// publish makes m the directory's index, following the commit
// protocol of docs/format.md: it writes and fsyncs the tombstones and the
// lexicon, fsyncs the directory so the sealed segments' names are durable,
// then renames m's MANIFEST into place. On failure it removes the files
// this writer created, unless the MANIFEST may already be in place.
func (w *Writer) publish(m *Manifest, tombs []pendingFile) error {
	for _, t := range tombs {
		w.newFiles = append(w.newFiles, t.name)
		if err := writeFileSynced(w.dir, t.name, t.data); err != nil {
			w.removeNew()
			return fmt.Errorf("write tombstones %s: %w", t.name, err)
		}
	}
	var oldLex *lexicon
	if !w.rebuild && w.base != nil {
		oldLex = w.base.lex
	}
	lexName, err := writeLexicon(w.dir, m, oldLex, w.baseM, w.dicts)
	w.removeSpills()
	if lexName != "" {
		w.newFiles = append(w.newFiles, lexName)
	}
	if err != nil {
		w.removeNew()
		return err
	}
	if err := syncDir(w.dir); err != nil {
		w.removeNew()
		return err
	}
	if err := commitManifest(w.dir, m); err != nil {
		if !errors.Is(err, errManifestUnsynced) {
			w.removeNew()
		}
		return fmt.Errorf("commit index %s: %w", w.dir, err)
	}
	return nil
}

// manifestBytes is the size of the files a manifest names: its segments
// and its lexicon.
func manifestBytes(m *Manifest) int64 {
	n := m.LexiconBytes
	for _, s := range m.Segments {
		n += s.Bytes
	}
	return n
}

type pendingFile struct {
	name string
	data []byte
}

// newManifest builds the manifest of the commit and the tombstone files it
// names: the base's segments (none in a rebuild) with this writer's
// deletions applied, then the new segments. A segment left without a live
// document is dropped.
func (w *Writer) newManifest() (*Manifest, []pendingFile) {
	m := &Manifest{Format: formatVersion, Analyzer: w.opt.Analyzer}
	if w.baseM != nil {
		m.Generation = w.baseM.Generation
	}
	m.Generation++
	var tombs []pendingFile
	apply := func(ms ManifestSegment, del []uint64, added []uint32) {
		if len(added) == 0 {
			m.Segments = append(m.Segments, ms)
			return
		}
		if del == nil {
			del = make([]uint64, (ms.Docs+63)/64)
		}
		for _, d := range added {
			del[d/64] |= 1 << (d % 64)
		}
		n := bitrow.Count(del)
		if n == ms.Docs {
			return // nothing left: drop the segment
		}
		seq, _ := fileSeq(ms.File)
		name := tombstoneFileName(w.fileSeq.Add(1) - 1)
		tombs = append(tombs, pendingFile{name, encodeTombstone(seq, m.Generation, ms.Docs, del)})
		ms.Deletes, ms.Deleted = name, n
		m.Segments = append(m.Segments, ms)
	}
	if !w.rebuild && w.base != nil {
		bySeg := make([][]uint32, len(w.base.segs))
		for _, ref := range w.baseDel {
			bySeg[ref.Seg] = append(bySeg[ref.Seg], uint32(ref.Doc))
		}
		for i, ms := range w.baseM.Segments {
			var del []uint64
			if len(bySeg[i]) > 0 {
				del = w.base.segs[i].DeletedBits()
			}
			apply(ms, del, bySeg[i])
		}
	}
	slices.SortFunc(w.segs, func(a, b ManifestSegment) int { return strings.Compare(a.File, b.File) })
	for _, ms := range w.segs {
		apply(ms, nil, w.newDel[ms.File])
	}
	slices.SortFunc(m.Segments, func(a, b ManifestSegment) int { return strings.Compare(a.File, b.File) })
	m.NextFile = w.fileSeq.Load()
	return m, tombs
}

// Abort discards every change; the directory's index is unchanged.
func (w *Writer) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lock == nil {
		return nil
	}
	w.stop()
	w.seals.Wait()
	w.removeTextSpills()
	w.removeNew()
	w.release()
	return nil
}

func (w *Writer) removeNew() {
	for _, f := range w.newFiles {
		os.Remove(filepath.Join(w.dir, f))
	}
	w.removeSpills()
	w.newFiles, w.segs, w.dicts = nil, nil, nil
}

// removeSpills removes the spilled dictionaries of the new segments.
func (w *Writer) removeSpills() {
	for _, d := range w.dicts {
		if d.Spill != "" {
			os.Remove(d.Spill)
		}
	}
}

// removeTextSpills removes the scratch files of texts that no seal has
// read (a seal removes those it reads); the seals must have ended.
func (w *Writer) removeTextSpills() {
	for _, s := range w.spills {
		s.remove()
	}
	w.spills = nil
}

func (w *Writer) closeBase() {
	if w.ownBase && w.base != nil {
		w.base.Close()
	}
	w.base = nil
}

// forget drops what the writer kept of its documents once they are
// committed, so that the compaction after the commit has the memory budget
// to itself.
func (w *Writer) forget() {
	w.buf = newClassBuffers()
	w.loc, w.pending, w.session, w.kept = nil, nil, nil, nil
	w.baseDel, w.newDel, w.dicts = nil, nil, nil
}

func (w *Writer) release() {
	w.closeBase()
	if w.lock != nil {
		w.lock.Close()
		w.lock = nil
	}
}
