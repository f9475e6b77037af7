package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// CheckReport is the outcome of Check.
type CheckReport struct {
	Segments int
	Docs     int // live documents
	Deleted  int // deleted documents still in segment files
	Bytes    int64
	Problems []error // empty when the index is sound
}

// Check validates everything an index directory holds: the manifest, every
// section checksum (the store included), and the invariants a search relies
// on — above all that every term and word pair of every document has all of
// its rows set for that document, so the signature can never drop a true
// hit, and that its positions agree with its forward entry. It also
// decompresses every stored text and compares it with its hash.
func Check(dir string) (*CheckReport, error) {
	m, err := readManifest(dir)
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return &CheckReport{Problems: []error{err}}, nil
		}
		return nil, err
	}
	rep := &CheckReport{}
	huge := hugeMaps(m) // as Open maps them, so the pages read stay of use
	if err := lostTombstone(dir, m); err != nil {
		rep.Problems = append(rep.Problems, err)
	}
	keys := map[string]string{}
	segs := make([]*segment.Segment, 0, len(m.Segments))
	defer func() {
		for _, s := range segs {
			s.Close()
		}
	}()
	for _, ms := range m.Segments {
		rep.Segments++
		rep.Bytes += ms.Bytes
		path := filepath.Join(dir, ms.File)
		data, err := mmap.Map(path, huge)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Errorf("segment %s: %w", ms.File, err))
			continue
		}
		s, err := segment.New(path, data, segment.VerifyData)
		if err != nil {
			rep.Problems = append(rep.Problems, err)
			mmap.Unmap(data)
			continue
		}
		segs = append(segs, s)
		if err := s.VerifyStore(); err != nil {
			rep.Problems = append(rep.Problems, err)
		}
		if err := applyEntry(s, dir, ms, m.Analyzer); err != nil {
			rep.Problems = append(rep.Problems, err)
		}
	}
	if m.Lexicon != "" {
		lx, err := openLexicon(dir, m.Lexicon, segment.VerifyData, huge)
		if err == nil {
			defer lx.close()
			lx.manifestBytes = m.LexiconBytes
			if len(segs) == len(m.Segments) {
				err = lx.attach(segs)
			}
		}
		if err != nil {
			rep.Problems = append(rep.Problems, err)
		} else {
			for i, s := range segs {
				lx.lendDict(s, i)
			}
			rep.Problems = append(rep.Problems, lx.checkLookups()...)
		}
	}
	for _, s := range segs {
		rep.Problems = append(rep.Problems, s.Check()...)
		for d := 0; d < s.NumDocs(); d++ {
			if !s.IsLive(d) {
				continue
			}
			k := s.DocKey(d)
			if prev, dup := keys[k]; dup {
				rep.Problems = append(rep.Problems, fmt.Errorf("key %q is live in both %s and %s", k, prev, s.Name()))
			}
			keys[k] = s.Name()
		}
		rep.Docs += s.NumLive()
		rep.Deleted += s.NumDeleted()
	}
	return rep, nil
}

// checkLookups looks every word of the lexicon up and compares what the
// lookup finds with what a scan decodes.
func (lx *lexicon) checkLookups() []error {
	var probs []error
	var got []segment.Entry
	err := lx.each(func(word []byte, es []segment.Entry) error {
		var err error
		got, err = lx.Lookup(string(word), got[:0])
		if err != nil {
			return err
		}
		if !slices.Equal(got, es) {
			return &CorruptError{File: lx.name, Section: "index", Detail: fmt.Sprintf("word %q is not found by a lookup", word)}
		}
		return nil
	})
	if err != nil {
		probs = append(probs, err)
	}
	return probs
}
