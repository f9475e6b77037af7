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

	"github.com/bitsieve/bitsieve/tokenize"
	"github.com/cespare/xxhash/v2"
)

// WriterOptions configure a Writer. The zero value uses the defaults.
type WriterOptions struct {
	Analyzer        string // tokenize language; default tokenize.DefaultLanguage
	Params          Params // signature parameters; default DefaultParams
	Capacity        int    // most documents per segment; default DefaultCapacity
	MaxSegmentBytes int64  // most text bytes buffered per segment; default DefaultMaxSegmentBytes
	Workers         int    // analysis goroutines; default GOMAXPROCS
}

const (
	// DefaultCapacity is the default number of documents per segment: a
	// rank-0 row is then 8 KiB, which fits in L1/L2.
	DefaultCapacity = 1 << 16
	// DefaultMaxSegmentBytes bounds the text buffered for one segment, and so
	// the writer's memory, for corpora of large documents.
	DefaultMaxSegmentBytes = 128 << 20
)

// WriteStats summarise a commit.
type WriteStats struct {
	Docs       int           // documents added
	Bytes      int64         // text bytes analyzed
	Duplicates []string      // keys seen more than once (the first one is kept)
	Segments   int           // segment files written
	IndexBytes int64         // size of all live segment files
	Elapsed    time.Duration // from Create to the end of Commit
}

// Writer builds a new index in a directory. Documents are analyzed by
// several goroutines, routed by length class, and sealed into segments as
// classes fill up; Commit seals the rest and atomically replaces the
// directory's previous index (if any), which stays fully usable until then.
// A Writer holds the directory's lock from Create until Commit or Abort.
type Writer struct {
	dir   string
	opt   WriterOptions
	lock  *os.File
	start time.Time
	base  *Manifest // the manifest this commit replaces (nil: none)

	in      chan job
	out     chan job
	workers sync.WaitGroup
	collect sync.WaitGroup
	seals   sync.WaitGroup
	sealSem chan struct{}

	seq       uint64 // next document sequence number (Add)
	fileSeq   atomic.Uint64
	docs      atomic.Int64
	bytes     atomic.Int64
	closed    bool
	errOnce   sync.Once
	err       error
	errSet    atomic.Bool
	mu        sync.Mutex // guards segs and dups
	segs      []ManifestSegment
	dups      []string
	classes   map[int]*classBuffer
	keys      map[string]struct{}
	nextOut   uint64
	reorder   map[uint64]*analyzedDoc
	committed bool
}

type job struct {
	seq uint64
	doc Document
	res *analyzedDoc
}

type classBuffer struct {
	docs  []*analyzedDoc
	bytes int64
}

// Create starts a new index in dir (created if missing). The previous index
// in dir, if any, is replaced only when Commit succeeds.
func Create(dir string, opt WriterOptions) (*Writer, error) {
	if opt.Analyzer == "" {
		opt.Analyzer = tokenize.DefaultLanguage
	}
	if _, err := tokenize.New(opt.Analyzer); err != nil {
		return nil, err
	}
	if opt.Params == (Params{}) {
		opt.Params = DefaultParams
	}
	if err := opt.Params.validate(); err != nil {
		return nil, err
	}
	if opt.Capacity <= 0 {
		opt.Capacity = DefaultCapacity
	}
	if opt.MaxSegmentBytes <= 0 {
		opt.MaxSegmentBytes = DefaultMaxSegmentBytes
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create index directory: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	w := &Writer{
		dir: dir, opt: opt, lock: lock, start: time.Now(),
		in: make(chan job, 256), out: make(chan job, 256),
		sealSem: make(chan struct{}, 2),
		classes: map[int]*classBuffer{}, keys: map[string]struct{}{},
		reorder: map[uint64]*analyzedDoc{},
	}
	base, err := readManifest(dir)
	switch {
	case err == nil:
		w.base = base
		w.fileSeq.Store(base.NextFile)
	case errors.Is(err, ErrNoIndex):
		w.fileSeq.Store(1)
	default:
		// A damaged manifest must not stop a rebuild; numbering continues
		// past any file already in the directory.
		w.fileSeq.Store(nextFreeSeq(dir))
	}
	removeTemps(dir)
	for i := 0; i < opt.Workers; i++ {
		w.workers.Add(1)
		go w.analyze()
	}
	w.collect.Add(1)
	go w.collector()
	return w, nil
}

// nextFreeSeq returns a file sequence number above every segment file in dir.
func nextFreeSeq(dir string) uint64 {
	next := uint64(1)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		var seq uint64
		if _, err := fmt.Sscanf(e.Name(), "%d.", &seq); err == nil && seq >= next {
			next = seq + 1
		}
	}
	return next
}

// removeTemps deletes files left by an interrupted writer.
func removeTemps(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), tmpSuffix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func (w *Writer) fail(err error) {
	w.errOnce.Do(func() {
		w.err = err
		w.errSet.Store(true)
	})
}

// Add queues a document. It returns the first error the writer has met (the
// writer is then unusable and Commit returns the same error).
func (w *Writer) Add(d Document) error {
	if w.closed {
		return errorf("Add after Commit or Abort")
	}
	if w.errSet.Load() {
		return w.err
	}
	w.in <- job{seq: w.seq, doc: d}
	w.seq++
	return nil
}

// Progress reports the documents and text bytes analyzed so far; it is safe
// to call from another goroutine.
func (w *Writer) Progress() (docs int64, bytes int64) { return w.docs.Load(), w.bytes.Load() }

func (w *Writer) analyze() {
	defer w.workers.Done()
	a := tokenize.MustNew(w.opt.Analyzer)
	var terms []string
	counts := map[string]uint32{}
	for j := range w.in {
		terms = a.Terms(terms[:0], j.doc.Text)
		clear(counts)
		for _, t := range terms {
			counts[t]++
		}
		tf := make([]termFreq, 0, len(counts))
		for t, c := range counts {
			tf = append(tf, termFreq{t, c})
		}
		slices.SortFunc(tf, func(a, b termFreq) int { return strings.Compare(a.term, b.term) })
		j.res = &analyzedDoc{doc: j.doc, terms: tf, tokens: len(terms), hash: xxhash.Sum64(j.doc.Text)}
		w.docs.Add(1)
		w.bytes.Add(int64(len(j.doc.Text)))
		w.out <- j
	}
}

// collector puts analyzed documents back in Add order (so an index is a
// deterministic function of its input) and routes them to length classes.
func (w *Writer) collector() {
	defer w.collect.Done()
	for j := range w.out {
		w.reorder[j.seq] = j.res
		for {
			d, ok := w.reorder[w.nextOut]
			if !ok {
				break
			}
			delete(w.reorder, w.nextOut)
			w.nextOut++
			w.route(d)
		}
	}
}

func (w *Writer) route(d *analyzedDoc) {
	if _, dup := w.keys[d.doc.Key]; dup {
		w.mu.Lock()
		w.dups = append(w.dups, d.doc.Key)
		w.mu.Unlock()
		return
	}
	w.keys[d.doc.Key] = struct{}{}
	c := lengthClass(len(d.terms))
	b := w.classes[c]
	if b == nil {
		b = &classBuffer{}
		w.classes[c] = b
	}
	b.docs = append(b.docs, d)
	b.bytes += int64(len(d.doc.Text))
	if len(b.docs) >= w.opt.Capacity || b.bytes >= w.opt.MaxSegmentBytes {
		w.seal(b.docs, c)
		w.classes[c] = &classBuffer{}
	}
}

// seal writes docs as a new segment file in the background.
func (w *Writer) seal(docs []*analyzedDoc, class int) {
	w.sealSem <- struct{}{}
	w.seals.Add(1)
	go func() {
		defer w.seals.Done()
		defer func() { <-w.sealSem }()
		if w.errSet.Load() {
			return
		}
		seg, err := w.writeSegment(docs, class)
		if err != nil {
			w.fail(err)
			return
		}
		w.mu.Lock()
		w.segs = append(w.segs, seg)
		w.mu.Unlock()
	}()
}

func (w *Writer) writeSegment(docs []*analyzedDoc, class int) (ManifestSegment, error) {
	name := segmentFileName(w.fileSeq.Add(1) - 1)
	path := filepath.Join(w.dir, name)
	tmp := path + tmpSuffix
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return ManifestSegment{}, fmt.Errorf("create segment: %w", err)
	}
	fail := func(err error) (ManifestSegment, error) {
		f.Close()
		os.Remove(tmp)
		return ManifestSegment{}, fmt.Errorf("write segment %s: %w", name, err)
	}
	if _, err := buildSegment(f, docs, w.opt.Params, class); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return ManifestSegment{}, fmt.Errorf("write segment %s: %w", name, err)
	}
	return ManifestSegment{File: name, Docs: len(docs), Class: class, Bytes: fi.Size()}, nil
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

// Commit seals the remaining documents and atomically makes the new index
// the directory's index. Files of the previous index are removed afterwards;
// open readers keep working on their mapped snapshot.
func (w *Writer) Commit() (WriteStats, error) {
	w.stop()
	groups, classes := groupLeftovers(w.classes)
	for i, g := range groups {
		w.seal(g, classes[i])
	}
	w.seals.Wait()
	defer w.release()
	if w.err != nil {
		w.removeNew()
		return WriteStats{}, w.err
	}
	slices.SortFunc(w.segs, func(a, b ManifestSegment) int { return strings.Compare(a.File, b.File) })
	m := &Manifest{
		Format: formatVersion, Analyzer: w.opt.Analyzer,
		NextFile: w.fileSeq.Load(), Segments: w.segs,
	}
	if w.base != nil {
		m.Generation = w.base.Generation
	}
	m.Generation++
	if err := syncDir(w.dir); err != nil {
		w.removeNew()
		return WriteStats{}, err
	}
	if err := writeManifest(w.dir, m); err != nil {
		w.removeNew()
		return WriteStats{}, fmt.Errorf("commit index %s: %w", w.dir, err)
	}
	w.committed = true
	removeUnlisted(w.dir, m)
	st := WriteStats{
		Docs: int(w.docs.Load()) - len(w.dups), Bytes: w.bytes.Load(), Duplicates: w.dups,
		Segments: len(w.segs), Elapsed: time.Since(w.start),
	}
	for _, s := range w.segs {
		st.IndexBytes += s.Bytes
	}
	return st, nil
}

// Abort discards everything added; the directory's index is unchanged.
func (w *Writer) Abort() error {
	w.stop()
	w.seals.Wait()
	w.removeNew()
	w.release()
	return nil
}

func (w *Writer) removeNew() {
	for _, s := range w.segs {
		os.Remove(filepath.Join(w.dir, s.File))
	}
	w.segs = nil
}

func (w *Writer) release() {
	if w.lock != nil {
		w.lock.Close()
		w.lock = nil
	}
}

// removeUnlisted deletes segment files that the manifest no longer names.
func removeUnlisted(dir string, m *Manifest) {
	live := map[string]bool{}
	for _, s := range m.Segments {
		live[s.File] = true
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".seg") && !live[n] {
			os.Remove(filepath.Join(dir, n))
		}
	}
}
