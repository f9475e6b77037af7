package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// ResealOptions change how Reseal lays out documents.
type ResealOptions struct {
	// Order is the order of documents within each segment: the zero value
	// (segment.OrderKept) keeps them as in src; bitsieve's benchmark also
	// tries a shuffled and a MinHash order, which renumber the documents of
	// every segment.
	Order segment.DocOrder
	Seed  uint64 // of segment.OrderShuffled
}

// Reseal writes a new, complete index in dst holding the live documents of
// the index in src, with every segment rebuilt with the signature parameters
// p (the zero Params: DefaultParams). Only the parameters differ, and the
// order of documents if opt asks for another: segment follows segment in the
// same order, each with the same documents and the same length class, so
// when the order is kept local document ids stay the same wherever src has no
// deleted documents. src is read, never changed.
//
// Segments are rebuilt as a merge rebuilds them (see merge): from the
// forward index and the stored text, each text checked against its hash,
// without analysis, several segments at a time. Every file is written to a
// temporary name, fsynced and renamed, and the MANIFEST last, so dst holds
// an index only once it is complete. dst must not exist or be an empty
// directory; on failure, whatever Reseal wrote there is removed.
func Reseal(src, dst string, p Params, opt ResealOptions) error {
	if p == (Params{}) {
		p = DefaultParams
	}
	if err := p.Validate(); err != nil {
		return err
	}
	created, err := makeEmptyDir(dst)
	if err != nil {
		return err
	}
	ix, err := Open(src)
	if err != nil {
		if created {
			os.Remove(dst)
		}
		return err
	}
	defer ix.Close()
	if err := reseal(ix, dst, p, opt, created); err != nil {
		removeResealed(dst, created)
		return fmt.Errorf("reseal %s into %s: %w", src, dst, err)
	}
	return nil
}

// makeEmptyDir creates dir, or accepts it if it is an empty directory, and
// reports whether it created it.
func makeEmptyDir(dir string) (bool, error) {
	ents, err := os.ReadDir(dir)
	switch {
	case err == nil && len(ents) > 0:
		return false, fmt.Errorf("reseal: %s is not empty: the new index needs a directory of its own", dir)
	case err == nil:
		return false, nil
	case !isNotExist(err):
		return false, fmt.Errorf("reseal: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return false, fmt.Errorf("reseal: %w", err)
	}
	return true, nil
}

// reseal writes ix's segments into the empty directory dst and commits them.
func reseal(ix *Index, dst string, p Params, opt ResealOptions, created bool) error {
	lock, err := lockDir(dst)
	if err != nil {
		return err
	}
	defer lock.Close()
	segs := ix.Segments()
	entries := ix.manifest.Segments
	outs := make([]ManifestSegment, len(segs))
	dicts := make([]*segment.Dict, len(segs))
	errs := make([]error, len(segs))
	// Each segment in flight holds its documents' texts (up to
	// MaxSegmentBytes): two at a time keep a reseal about as large in memory
	// as a writer sealing (its sealSem), more only with more cores.
	workers := max(2, runtime.GOMAXPROCS(0))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, s := range segs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i], dicts[i], errs[i] = resealSegment(dst, segmentFileName(uint64(i+1)), s, entries[i].Class, p, opt)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	m := &Manifest{Format: formatVersion, Generation: 1, Analyzer: ix.Analyzer(), NextFile: uint64(len(segs) + 1)}
	fresh := map[string]*segment.Dict{}
	for i, o := range outs {
		if o.File != "" {
			m.Segments = append(m.Segments, o)
			fresh[o.File] = dicts[i]
		}
	}
	if _, err := writeLexicon(dst, m, nil, nil, fresh); err != nil {
		return err
	}
	if err := syncDir(dst); err != nil {
		return err
	}
	if err := commitManifest(dst, m); err != nil {
		return err
	}
	if created {
		// The new directory's own entry, so the index survives a crash.
		return syncDir(filepath.Dir(filepath.Clean(dst)))
	}
	return nil
}

// resealSegment writes the live documents of s as the segment file name in
// dir, built with p; a segment without live documents writes nothing.
func resealSegment(dir, name string, s *segment.Segment, class int, p Params, opt ResealOptions) (ManifestSegment, *segment.Dict, error) {
	src, err := s.NewDocReader()
	if err != nil {
		return ManifestSegment{}, nil, err
	}
	docs := make([]*segment.Doc, 0, s.NumLive())
	for d := 0; d < s.NumDocs(); d++ {
		if !s.IsLive(d) {
			continue
		}
		doc, err := src.Doc(d)
		if err != nil {
			return ManifestSegment{}, nil, err
		}
		docs = append(docs, doc)
	}
	if len(docs) == 0 {
		return ManifestSegment{}, nil, nil
	}
	segment.Reorder(docs, opt.Order, opt.Seed)
	return writeSegmentFile(dir, name, docs, p, class, s.Analyzer())
}

// removeResealed removes what a failed Reseal wrote in dir: its index files
// and lock, and dir itself if Reseal created it.
func removeResealed(dir string, created bool) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		base, _ := strings.CutSuffix(n, tmpSuffix)
		if _, ok := fileSeq(base); ok || base == ManifestName || n == LockName {
			os.Remove(filepath.Join(dir, n))
		}
	}
	if created {
		os.Remove(dir)
	}
}
