package index

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// RecoverReport is what Recover found and wrote.
type RecoverReport struct {
	Lexicon    string   // the lexicon whose segments make the index
	Segments   int      // segments in the new MANIFEST
	Docs       int      // their live documents
	Tombstones []string // the tombstone files named, one per segment with deletions
	Duplicates int      // keys live in two segments, kept in the newest only
	Generation uint64   // of the new MANIFEST
}

// Recover writes a new MANIFEST for an index directory whose MANIFEST is
// missing or damaged, from the files' own headers: the newest lexicon whose
// segments are all present and sound gives the segments and their order
// (each segment records its documents, class and analyzer), and each segment
// takes its newest sound tombstone. That is the newest state the files
// describe: a commit writes its segments, tombstones and lexicon before its
// MANIFEST. A key live in more than one segment (a commit cut short between
// its files) stays live only in the newest, through a new tombstone of the
// older. Recover refuses a directory whose MANIFEST is sound, and deletes
// nothing: files the new MANIFEST does not name are left for the next
// writer's cleanup.
func Recover(dir string) (*RecoverReport, error) {
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if m, err := readManifest(dir); err == nil {
		ix, err := openManifest(dir, m, segment.VerifyData)
		if err == nil {
			ix.Close()
			return nil, fmt.Errorf("%s: the index is sound (generation %d): there is nothing to recover", dir, m.Generation)
		}
	} else if errors.Is(err, ErrNoIndex) {
		return nil, err
	}

	var lexes, dels []string
	next := uint64(1)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("recover %s: %w", dir, err)
	}
	for _, e := range ents {
		n := e.Name()
		seq, ok := fileSeq(n)
		if !ok {
			continue
		}
		next = max(next, seq+1)
		switch {
		case strings.HasSuffix(n, fmt.Sprintf(".v%d.lex", formatVersion)):
			lexes = append(lexes, n)
		case strings.HasSuffix(n, fmt.Sprintf(".v%d.del", formatVersion)):
			dels = append(dels, n)
		}
	}
	// Newest first: file names sort as their sequence numbers.
	slices.SortFunc(lexes, func(a, b string) int { return cmp.Compare(b, a) })
	slices.SortFunc(dels, func(a, b string) int { return cmp.Compare(b, a) })

	var why []string
	for _, name := range lexes {
		rep, err := recoverFrom(dir, name, dels, next)
		if err == nil {
			return rep, nil
		}
		why = append(why, err.Error())
	}
	if len(why) == 0 {
		return nil, fmt.Errorf("recover %s: no lexicon file: the index cannot be recovered; rebuild it with bitsieve index --rebuild", dir)
	}
	return nil, fmt.Errorf("recover %s: no lexicon has all its segments sound (%s); rebuild the index with bitsieve index --rebuild", dir, strings.Join(why, "; "))
}

// recoverFrom writes the MANIFEST of lexicon lexName's segments.
func recoverFrom(dir, lexName string, dels []string, next uint64) (*RecoverReport, error) {
	lx, err := openLexicon(dir, lexName, segment.VerifyData, false)
	if err != nil {
		return nil, err
	}
	defer lx.close()
	segs, err := openLexiconSegments(dir, lexName, lx)
	defer func() {
		for _, s := range segs {
			s.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	if err := lx.attach(segs); err != nil {
		return nil, err
	}
	m := &Manifest{Format: formatVersion, NextFile: next, Lexicon: lexName, LexiconBytes: lx.Bytes()}
	rep := &RecoverReport{Lexicon: lexName, Segments: len(segs)}
	if err := applyNewestTombstones(dir, dels, segs, m); err != nil {
		return nil, err
	}
	extra, dups := olderDuplicates(segs)
	rep.Duplicates = dups
	m.Generation++
	files, err := recoveredSegments(segs, extra, m, rep)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := writeFileSynced(dir, f.name, f.data); err != nil {
			return nil, err
		}
	}
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	if err := commitManifest(dir, m); err != nil {
		return nil, err
	}
	rep.Generation = m.Generation
	return rep, nil
}

// openLexiconSegments maps and checks the segments lexicon lx (the file
// lexName) names, in its order. The segments opened before a failure are
// returned with the error, for the caller to close.
func openLexiconSegments(dir, lexName string, lx *lexicon) ([]*segment.Segment, error) {
	segs := make([]*segment.Segment, 0, len(lx.segSeq))
	for _, seq := range lx.segSeq {
		path := filepath.Join(dir, segmentFileName(seq))
		data, err := mmap.File(path)
		if err != nil {
			return segs, fmt.Errorf("%s names segment %s: %w", lexName, segmentFileName(seq), err)
		}
		s, err := segment.New(path, data, segment.VerifyData)
		if err != nil {
			mmap.Unmap(data)
			return segs, err
		}
		segs = append(segs, s)
	}
	return segs, nil
}

// namedTombstone is a decoded tombstone file and its name.
type namedTombstone struct {
	*tombstone
	name string
}

// applyNewestTombstones applies to each segment the newest sound tombstone
// of its own among the files dels (newest first), when that tombstone's
// document count is the segment's; unreadable or damaged files are passed
// over. It sets m's analyzer (every segment's must be the same) and its
// generation to that of the newest tombstone applied.
func applyNewestTombstones(dir string, dels []string, segs []*segment.Segment, m *Manifest) error {
	newest := map[uint64]namedTombstone{}
	for _, d := range dels {
		b, err := os.ReadFile(filepath.Join(dir, d))
		if err != nil {
			continue
		}
		if t, err := decodeTombstone(d, b); err == nil {
			if _, seen := newest[t.segSeq]; !seen {
				newest[t.segSeq] = namedTombstone{t, d}
			}
		}
	}
	for i, s := range segs {
		if i == 0 {
			m.Analyzer = s.Analyzer()
		} else if s.Analyzer() != m.Analyzer {
			return fmt.Errorf("segments %s and %s were made by different analyzers (%q, %q)", segs[0].Name(), s.Name(), m.Analyzer, s.Analyzer())
		}
		seq, _ := fileSeq(filepath.Base(s.Name()))
		if t, ok := newest[seq]; ok && t.docs == s.NumDocs() {
			if err := applyTombstone(s, t.name, t.tombstone, seq); err != nil {
				return err
			}
			m.Generation = max(m.Generation, t.gen)
		}
	}
	return nil
}

// olderDuplicates finds the keys live in more than one segment: a key
// stays live in the newest (segments are numbered in the order they were
// written). It returns, for each segment, a bitmap of the documents to
// delete besides its tombstone's (nil when there are none), and how many.
func olderDuplicates(segs []*segment.Segment) (extra [][]uint64, dups int) {
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(segs[b].Name(), segs[a].Name()) })
	seen := map[string]bool{}
	extra = make([][]uint64, len(segs))
	for _, i := range order {
		s := segs[i]
		for d := 0; d < s.NumDocs(); d++ {
			if !s.IsLive(d) {
				continue
			}
			k := s.DocKey(d)
			if !seen[k] {
				seen[k] = true
				continue
			}
			if extra[i] == nil {
				extra[i] = make([]uint64, (s.NumDocs()+63)/64)
			}
			extra[i][d/64] |= 1 << (d % 64)
			dups++
		}
	}
	return extra, dups
}

// recoveredSegments adds the segments to m, each with the deletions of its
// tombstone and of extra. A segment with extra deletions needs a new
// tombstone file, numbered from m.NextFile: those are returned, to be
// written before m is committed. The report counts the documents left
// live and names the tombstones.
func recoveredSegments(segs []*segment.Segment, extra [][]uint64, m *Manifest, rep *RecoverReport) ([]pendingFile, error) {
	var files []pendingFile
	for i, s := range segs {
		seq, _ := fileSeq(filepath.Base(s.Name()))
		ms := ManifestSegment{File: filepath.Base(s.Name()), Docs: s.NumDocs(), Class: s.LengthClass(), Bytes: s.FileBytes()}
		del := slices.Clone(s.DeletedBits())
		if extra[i] != nil {
			for w := range del {
				del[w] |= extra[i][w]
			}
		}
		if n := bitrow.Count(del); n > 0 {
			if n == s.NumDocs() {
				return nil, fmt.Errorf("every document of %s is deleted, yet %s names it", ms.File, m.Lexicon)
			}
			ms.Deleted = n
			if extra[i] == nil {
				ms.Deletes = s.Deletions()
			} else {
				ms.Deletes = tombstoneFileName(m.NextFile)
				m.NextFile++
				files = append(files, pendingFile{ms.Deletes, encodeTombstone(seq, m.Generation, ms.Docs, del)})
			}
			rep.Tombstones = append(rep.Tombstones, ms.Deletes)
		}
		m.Segments = append(m.Segments, ms)
		rep.Docs += ms.Docs - ms.Deleted
	}
	return files, nil
}
