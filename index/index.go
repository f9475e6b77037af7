package index

import (
	"fmt"
	"path/filepath"
	"sync"
)

// Index is a read-only snapshot of an index directory: the segments named by
// one MANIFEST, memory-mapped. Writers never change the files of a snapshot
// (they write new files and swap the manifest), so an Index stays consistent
// until Close, whatever happens to the directory. It is safe for concurrent use.
type Index struct {
	dir      string
	manifest *Manifest
	segs     []*Segment
	docs     int   // live documents
	tokens   int64 // tokens of all documents

	keysOnce sync.Once
	keys     map[string]DocRef
}

// DocRef locates a document: a segment (its position in Segments) and a
// local document id.
type DocRef struct {
	Seg int
	Doc int
}

// Open opens the index in dir, validating the manifest and the checksum of
// every segment section except the document store (see Check).
func Open(dir string) (*Index, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	ix := &Index{dir: dir, manifest: m, segs: make([]*Segment, len(m.Segments))}
	errs := make([]error, len(m.Segments))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, ms := range m.Segments {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ix.segs[i], errs[i] = openSegment(filepath.Join(dir, ms.File))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil && ix.segs[i].NumDocs() != m.Segments[i].Docs {
			err = &CorruptError{File: m.Segments[i].File, Detail: fmt.Sprintf("holds %d documents, the manifest says %d", ix.segs[i].NumDocs(), m.Segments[i].Docs)}
		}
		if err != nil {
			ix.Close()
			return nil, err
		}
	}
	for _, s := range ix.segs {
		ix.docs += s.NumLive()
		ix.tokens += s.Tokens()
	}
	return ix, nil
}

// Close unmaps the snapshot's segments.
func (ix *Index) Close() error {
	var first error
	for _, s := range ix.segs {
		if s != nil {
			if err := s.close(); err != nil && first == nil {
				first = err
			}
		}
	}
	ix.segs = nil
	return first
}

// Dir is the index directory.
func (ix *Index) Dir() string { return ix.dir }

// Analyzer is the name of the analyzer the index was built with; queries must
// be analyzed with the same one.
func (ix *Index) Analyzer() string { return ix.manifest.Analyzer }

// Generation increases with every commit to the directory.
func (ix *Index) Generation() uint64 { return ix.manifest.Generation }

// Manifest returns a copy of the snapshot's manifest.
func (ix *Index) Manifest() Manifest {
	m := *ix.manifest
	m.Segments = append([]ManifestSegment(nil), m.Segments...)
	return m
}

// Segments are the snapshot's segments.
func (ix *Index) Segments() []*Segment { return ix.segs }

// NumDocs is the number of live documents.
func (ix *Index) NumDocs() int { return ix.docs }

// AvgDocLen is the mean number of indexed tokens per document, for BM25.
func (ix *Index) AvgDocLen() float64 {
	n := 0
	for _, s := range ix.segs {
		n += s.NumDocs()
	}
	if n == 0 {
		return 0
	}
	return float64(ix.tokens) / float64(n)
}

// Find locates the live document with the given key.
func (ix *Index) Find(key string) (DocRef, bool) {
	ix.keysOnce.Do(func() {
		ix.keys = make(map[string]DocRef, ix.docs)
		for si, s := range ix.segs {
			for d := 0; d < s.NumDocs(); d++ {
				if s.IsLive(d) {
					ix.keys[s.DocKey(d)] = DocRef{si, d}
				}
			}
		}
	})
	r, ok := ix.keys[key]
	return r, ok
}
