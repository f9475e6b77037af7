package inverted

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// Check validates every bitmap of every segment (roaring's own consistency
// check) and compares it with the documents the forward index lists for its
// term. It reads everything, so it costs about as much as Build.
func (x *Index) Check() error {
	for _, s := range x.segs {
		if err := s.check(); err != nil {
			return err
		}
	}
	return nil
}

func (s *Segment) check() error {
	start, docs, err := docLists(s.seg)
	if err != nil {
		return err
	}
	var got []uint32
	for id := 0; id < s.p.terms; id++ {
		bm, err := s.Postings(segment.TermID(id))
		if err != nil {
			return err
		}
		if err := validate(bm); err != nil {
			return s.badTerm(segment.TermID(id), err.Error())
		}
		got = bm.ToArray()
		if !slices.Equal(got, docs[start[id]:start[id+1]]) {
			return &index.CorruptError{File: s.name, Section: "postings",
				Detail: fmt.Sprintf("bitmap of term %d holds %d documents, the forward index %d (or other ones)", id, len(got), start[id+1]-start[id])}
		}
	}
	return nil
}

// validate runs roaring's consistency check, which may itself panic on
// damaged containers.
func validate(bm interface{ Validate() error }) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return bm.Validate()
}

// CheckFiles checks the postings file beside every segment of ix that has
// one: its checksums and params, then every bitmap against the forward index
// (Check). A segment without a postings file is not a problem; a damaged or
// stale file is (a segment's number is never reused, so its file can only
// disagree with it through damage), named in the error.
func CheckFiles(ix *index.Index) (checked int, problems []error) {
	for _, seg := range ix.Segments() {
		path := filepath.Join(ix.Dir(), FileName(seg.Name()))
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		s, err := openSegment(seg, path, ix.MapsHuge())
		checked++
		if err == nil {
			err = s.check()
			s.close()
		}
		if err != nil {
			problems = append(problems, err)
		}
	}
	return checked, problems
}
