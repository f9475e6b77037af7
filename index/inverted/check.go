package inverted

import (
	"fmt"
	"slices"

	"github.com/bitsieve/bitsieve/index"
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
		bm, err := s.Postings(index.TermID(id))
		if err != nil {
			return err
		}
		if err := validate(bm); err != nil {
			return s.badTerm(index.TermID(id), err.Error())
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
