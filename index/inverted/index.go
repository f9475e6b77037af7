package inverted

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

	"github.com/bitsieve/bitsieve/internal/durable"
	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/segment"

	"github.com/bitsieve/bitsieve/index"
)

// Index is the postings of every segment of one signature index snapshot,
// in the snapshot's segment order. It is safe for concurrent use and valid
// until Close; the snapshot must stay open as long as the Index is used.
type Index struct {
	ix    *index.Index
	segs  []*Segment
	built int // segments whose postings Build built (the rest were reused)
}

// Base is the signature index snapshot the postings mirror.
func (x *Index) Base() *index.Index { return x.ix }

// Segments are the postings of ix.Segments(), in the same order.
func (x *Index) Segments() []*Segment { return x.segs }

// FileBytes is the size of all postings files (or images, for an index
// kept in memory).
func (x *Index) FileBytes() int64 {
	var n int64
	for _, s := range x.segs {
		n += s.FileBytes()
	}
	return n
}

// Close releases the postings. The signature snapshot stays open.
func (x *Index) Close() error {
	var first error
	for _, s := range x.segs {
		if s != nil {
			if err := s.close(); err != nil && first == nil {
				first = err
			}
		}
	}
	x.segs = nil
	return first
}

// BuildOptions configure Build.
type BuildOptions struct {
	// Dir is where postings files are written, normally ix.Dir(). Empty
	// keeps the postings in memory and writes nothing.
	Dir string
	// Workers is how many segments are built at once; default GOMAXPROCS.
	Workers int
	// Reuse keeps the postings files in Dir that are valid for their
	// segment (after an update, only new segments need postings).
	Reuse bool
}

// Built is the number of segments whose postings Build built rather than
// reused.
func (x *Index) Built() int { return x.built }

// Build builds the postings of every segment of ix from the segments'
// forward indexes. With opt.Dir set, each segment's file is written there
// (to a temporary name, fsynced, renamed; then the directory is fsynced),
// postings files whose segment is gone are removed, and the returned Index
// maps the new files.
func Build(ix *index.Index, opt BuildOptions) (*Index, error) {
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	segs := ix.Segments()
	x := &Index{ix: ix, segs: make([]*Segment, len(segs))}
	errs := make([]error, len(segs))
	var wg sync.WaitGroup
	var built atomic.Int64
	sem := make(chan struct{}, opt.Workers)
	for i, seg := range segs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if opt.Reuse && opt.Dir != "" {
				if s, err := openSegment(seg, filepath.Join(opt.Dir, FileName(seg.Name())), ix.MapsHuge()); err == nil {
					x.segs[i] = s
					return
				}
			}
			x.segs[i], errs[i] = buildSegment(seg, opt.Dir, ix.MapsHuge())
			if errs[i] == nil {
				built.Add(1)
			}
		}()
	}
	wg.Wait()
	x.built = int(built.Load())
	if err := errors.Join(errs...); err != nil {
		x.Close()
		return nil, fmt.Errorf("build postings for %s: %w", ix.Dir(), err)
	}
	if opt.Dir != "" {
		if err := durable.SyncDir(opt.Dir); err != nil {
			x.Close()
			return nil, err
		}
		RemoveStale(opt.Dir)
	}
	return x, nil
}

func buildSegment(seg *segment.Segment, dir string, huge bool) (*Segment, error) {
	img, err := encodeSegment(seg)
	if err != nil {
		return nil, err
	}
	name := FileName(seg.Name())
	if dir == "" {
		return newSegment(seg, name, img)
	}
	path := filepath.Join(dir, name)
	if err := writeFile(path, img); err != nil {
		return nil, err
	}
	return openSegment(seg, path, huge)
}

// writeFile writes b to path through a temporary file, fsync and rename.
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("write postings: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		mmap.DropWritten(f, int64(len(b))) // read again into huge pages, as the segments are
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write postings %s: %w", path, err)
	}
	return nil
}

// RemoveStale deletes the postings files in dir whose segment file is gone
// (an index rebuilt since they were written) and returns their names.
func RemoveStale(dir string) []string {
	var removed []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, Suffix) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(n, Suffix)+".seg")); errors.Is(err, os.ErrNotExist) {
			if os.Remove(filepath.Join(dir, n)) == nil {
				removed = append(removed, n)
			}
		}
	}
	slices.Sort(removed)
	return removed
}

// Open opens the postings files beside the segments of ix. The error wraps
// ErrMissing when a segment has none, ErrStale when one belongs to another
// segment, and index.ErrCorrupt when one is damaged.
func Open(ix *index.Index) (*Index, error) {
	segs := ix.Segments()
	x := &Index{ix: ix, segs: make([]*Segment, len(segs))}
	for i, seg := range segs {
		s, err := openSegment(seg, filepath.Join(ix.Dir(), FileName(seg.Name())), ix.MapsHuge())
		if err != nil {
			x.Close()
			return nil, err
		}
		x.segs[i] = s
	}
	return x, nil
}

// openSegment maps the postings file at path, with huge pages if huge
// (index.Index.MapsHuge), for segment seg.
func openSegment(seg *segment.Segment, path string, huge bool) (*Segment, error) {
	data, err := mmap.Map(path, huge)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w for segment %s", filepath.Dir(path), ErrMissing, seg.Name())
	}
	if err != nil {
		return nil, fmt.Errorf("open postings: %w", err)
	}
	s, err := newSegment(seg, filepath.Base(path), data)
	if err != nil {
		mmap.Unmap(data)
		return nil, err
	}
	s.mapped = true
	return s, nil
}

// OpenOrBuild opens the postings beside ix's segments, building (and
// writing) them when they are missing or stale. built reports whether it
// built them.
func OpenOrBuild(ix *index.Index, workers int) (x *Index, built bool, err error) {
	x, err = Open(ix)
	if err == nil || !(errors.Is(err, ErrMissing) || errors.Is(err, ErrStale)) {
		return x, false, err
	}
	x, err = Build(ix, BuildOptions{Dir: ix.Dir(), Workers: workers})
	return x, err == nil, err
}
