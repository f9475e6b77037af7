package index

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"

	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// Index is a read-only snapshot of an index directory: the segments named by
// one MANIFEST, memory-mapped. Writers never change the files of a snapshot
// (they write new files and swap the manifest), so an Index stays consistent
// until Close, whatever happens to the directory. It is safe for concurrent use.
type Index struct {
	dir      string
	manifest *Manifest
	segs     []*segment.Segment
	lex      *lexicon // nil when there is no segment
	docs     int      // live documents
	tokens   int64    // tokens of the live documents
	huge     bool     // its files are mapped with huge pages (hugeMaps)

	keysOnce sync.Once
	keys     map[string]DocRef
}

// DocRef locates a document: a segment (its position in Segments) and a
// local document id.
type DocRef struct {
	Seg int
	Doc int
}

// Open opens the index in dir, validating the manifest, the lexicon, the
// checksum of every segment section except the document store (see Check),
// and every tombstone file. If no writer is at work, it first removes what
// an interrupted writer left behind (temporary files, files no MANIFEST
// names).
func Open(dir string) (*Index, error) { return open(dir, segment.VerifyData) }

// OpenMeta opens the index in dir like Open, but checks the checksums of
// only the sections that statistics read (a segment's params, rowstats and
// blocks, the lexicon's all but its blocks), besides the manifest and the
// tombstones: it costs about the same whatever the size of the index. Rows,
// lists, the forward index, the document table and the lexicon's words are
// mapped unverified, so a snapshot opened this way is for Stats and the
// manifest, not for searching.
func OpenMeta(dir string) (*Index, error) { return open(dir, segment.VerifyMeta) }

func open(dir string, verify segment.Verify) (*Index, error) {
	cleanLeftovers(dir)
	for attempt := 0; ; attempt++ {
		m, err := readManifest(dir)
		if err != nil {
			return nil, err
		}
		ix, err := openManifest(dir, m, verify)
		if err != nil && isNotExist(err) && attempt < 10 {
			// A writer may have committed and removed files of the MANIFEST
			// just read: read the new one.
			if m2, err2 := readManifest(dir); err2 == nil && m2.Generation != m.Generation {
				continue
			}
		}
		return ix, err
	}
}

// openManifest opens the snapshot m of the index in dir.
func openManifest(dir string, m *Manifest, verify segment.Verify) (*Index, error) {
	if err := lostTombstone(dir, m); err != nil {
		return nil, err
	}
	ix := &Index{dir: dir, manifest: m, segs: make([]*segment.Segment, len(m.Segments)), huge: hugeMaps(m)}
	errs := make([]error, len(m.Segments))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, ms := range m.Segments {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ix.segs[i], errs[i] = openEntry(dir, ms, m.Analyzer, verify, ix.huge)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			ix.Close()
			return nil, err
		}
	}
	if m.Lexicon != "" {
		lx, err := openLexicon(dir, m.Lexicon, verify, ix.huge)
		if err == nil {
			ix.lex = lx
			lx.manifestBytes = m.LexiconBytes
			err = lx.attach(ix.segs)
		}
		if err != nil {
			ix.Close()
			return nil, err
		}
		for i, s := range ix.segs {
			lx.lendDict(s, i)
		}
	}
	for _, s := range ix.segs {
		ix.docs += s.NumLive()
		ix.tokens += s.LiveTokens()
	}
	return ix, nil
}

// hugeMaps reports whether the files of snapshot m are mapped with huge
// pages (mmap.FileHuge): when they fit in memory together, as a query
// reads them at random.
func hugeMaps(m *Manifest) bool {
	total := m.LexiconBytes
	for _, ms := range m.Segments {
		total += ms.Bytes
	}
	return mmap.FitsMemory(total)
}

// MapsHuge reports whether the index's files are mapped with huge pages
// (internal/mmap): whether files read at random beside them, such as an
// inverted index of its segments, should be too.
func (ix *Index) MapsHuge() bool { return ix.huge }

// openEntry opens the segment a manifest entry names, mapped with huge
// pages if huge, and applies its tombstone.
func openEntry(dir string, ms ManifestSegment, analyzer string, verify segment.Verify, huge bool) (*segment.Segment, error) {
	path := filepath.Join(dir, ms.File)
	data, err := mmap.Map(path, huge)
	if err != nil {
		return nil, fmt.Errorf("open segment: %w", err)
	}
	s, err := segment.New(path, data, verify)
	if err == nil {
		err = applyEntry(s, dir, ms, analyzer)
	}
	if err != nil {
		mmap.Unmap(data)
		return nil, err
	}
	return s, nil
}

// applyEntry checks the segment against its manifest entry (and the
// manifest's analyzer) and applies the entry's tombstone file. Every field
// of the entry must agree with what the files say of themselves, so a
// manifest that passes its checksum but lies is refused, not believed.
func applyEntry(s *segment.Segment, dir string, ms ManifestSegment, analyzer string) error {
	lie := func(format string, a ...any) error {
		return &CorruptError{File: filepath.Join(dir, ManifestName), Detail: fmt.Sprintf("its entry of %s does not match the file: ", ms.File) + fmt.Sprintf(format, a...)}
	}
	switch {
	case s.NumDocs() != ms.Docs:
		return lie("the file holds %d documents, the manifest says %d", s.NumDocs(), ms.Docs)
	case s.FileBytes() != ms.Bytes:
		return lie("the file is %d bytes, the manifest says %d", s.FileBytes(), ms.Bytes)
	case s.LengthClass() != ms.Class:
		return lie("the file is of length class %d, the manifest says %d", s.LengthClass(), ms.Class)
	case s.Analyzer() != analyzer:
		return lie("the file was made by the %q analyzer, the manifest says %q", s.Analyzer(), analyzer)
	}
	if ms.Deletes == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, ms.Deletes))
	if err != nil {
		return fmt.Errorf("open tombstones of %s: %w", ms.File, err)
	}
	t, err := decodeTombstone(ms.Deletes, b)
	if err != nil {
		return err
	}
	seq, _ := fileSeq(ms.File)
	if err := applyTombstone(s, ms.Deletes, t, seq); err != nil {
		return err
	}
	if s.NumDeleted() != ms.Deleted {
		return lie("its tombstone %s deletes %d documents, the manifest says %d", ms.Deletes, s.NumDeleted(), ms.Deleted)
	}
	return nil
}

// Close unmaps the snapshot's segments.
func (ix *Index) Close() error {
	var first error
	for _, s := range ix.segs {
		if s != nil {
			if err := s.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	ix.segs = nil
	if ix.lex != nil {
		if err := ix.lex.close(); err != nil && first == nil {
			first = err
		}
		ix.lex = nil
	}
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

// IsCurrent reports whether the directory's MANIFEST still describes this
// snapshot: it is whole (its checksum holds) and equal, field for field, to
// the MANIFEST the snapshot was opened from. A commit makes it false, and so
// does a MANIFEST rewritten without a new generation: open the index again
// to see what the directory now holds.
func (ix *Index) IsCurrent() bool {
	m, err := readManifest(ix.dir)
	return err == nil && reflect.DeepEqual(m, ix.manifest)
}

// Lookup appends the entries of word (an analyzed term) to dst, one for each
// segment that holds it, in segment order: one lookup in the snapshot's
// lexicon finds the word in every segment. It allocates nothing when dst
// has room. Lookup, Prefix and Segments give package query what it
// matches, verifies and ranks; a program embedding bitsieve searches with
// query.Searcher instead.
func (ix *Index) Lookup(word string, dst []segment.Entry) ([]segment.Entry, error) {
	if ix.lex == nil {
		return dst, nil
	}
	return ix.lex.Lookup(word, dst)
}

// LookupWords looks each of words up, as Lookup does, and calls fn with
// the word's index in words and its entries, which are appended to dst[:0]
// and valid until fn returns; it returns dst, grown for the next call. The
// words' cache misses in the lexicon overlap, where Lookups one after
// another would wait on each word's in turn.
func (ix *Index) LookupWords(words []string, dst []segment.Entry, fn func(i int, es []segment.Entry)) ([]segment.Entry, error) {
	if ix.lex == nil {
		for i := range words {
			fn(i, dst[:0])
		}
		return dst, nil
	}
	return ix.lex.LookupWords(words, dst, fn)
}

// Prefix calls fn for every word starting with prefix, in ascending order,
// with its entries, until fn returns false. The entries are reused between
// calls.
func (ix *Index) Prefix(prefix string, fn func(word string, es []segment.Entry) bool) error {
	if ix.lex == nil {
		return nil
	}
	return ix.lex.Prefix(prefix, fn)
}

// Segments are the snapshot's segments.
func (ix *Index) Segments() []*segment.Segment { return ix.segs }

// NumDocs is the number of live documents.
func (ix *Index) NumDocs() int { return ix.docs }

// Tokens is the number of indexed tokens of the live documents.
func (ix *Index) Tokens() int64 { return ix.tokens }

// AvgDocLen is the mean number of indexed tokens per live document, for BM25.
func (ix *Index) AvgDocLen() float64 {
	if ix.docs == 0 {
		return 0
	}
	return float64(ix.tokens) / float64(ix.docs)
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
