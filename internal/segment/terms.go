package segment

import (
	"fmt"
	"slices"
	"strings"
)

// LoadTerms gathers the segment's dictionary (its words by termID, their df
// and treatment) from the lexicon, once. Lookups through the lexicon
// (Index.Lookup, Entry) need no dictionary; Terms, Lookup, DF, Treatment and
// List do, and load it on first use. Call LoadTerms first: after it failed
// (a damaged lexicon), those see no terms, and DF, Treatment and List must
// not be called.
func (s *Segment) LoadTerms() error {
	s.dictOnce.Do(func() {
		if s.loadDict == nil {
			s.dict, s.dictErr = &Dict{}, fmt.Errorf("%s: segment opened without the lexicon of its index", s.name)
			return
		}
		s.dict, s.dictErr = s.loadDict()
		if s.dictErr == nil && (len(s.dict.Words) != s.hdr.Terms || len(s.dict.Info) != 2*s.hdr.Terms) {
			s.dictErr = fmt.Errorf("%s: the dictionary given has %d words, the segment holds %d terms", s.name, len(s.dict.Words), s.hdr.Terms)
		}
		if s.dictErr != nil {
			s.dict = &Dict{}
		}
	})
	return s.dictErr
}

// SetDict gives the segment the function that loads its dictionary (from
// the index's lexicon) when LoadTerms first needs it. It must be called
// before the segment is shared.
func (s *Segment) SetDict(load func() (*Dict, error)) { s.loadDict = load }

func (s *Segment) terms() *Dict {
	s.LoadTerms()
	return s.dict
}

// Lookup finds a term in the segment's dictionary.
func (s *Segment) Lookup(term string) (TermID, bool) {
	d := s.terms()
	i, ok := slices.BinarySearch(d.Words, term)
	if !ok {
		return 0, false
	}
	return TermID(d.IDs[i]), true
}

// prefixTerms calls fn for every term starting with prefix, in sorted order,
// until fn returns false.
func (s *Segment) prefixTerms(prefix string, fn func(term string, id TermID) bool) {
	d := s.terms()
	i, _ := slices.BinarySearch(d.Words, prefix)
	for ; i < len(d.Words) && strings.HasPrefix(d.Words[i], prefix); i++ {
		if !fn(d.Words[i], TermID(d.IDs[i])) {
			return
		}
	}
}

// Terms calls fn for every term of the segment in sorted order until fn
// returns false.
func (s *Segment) Terms(fn func(term string, id TermID) bool) { s.prefixTerms("", fn) }

// DF is the number of the segment's documents containing the term (deleted
// documents included): the df the row treatment was chosen for.
func (s *Segment) DF(id TermID) int { return int(s.terms().Info[2*id]) }

// LiveDF is the number of the segment's live documents containing the term,
// for BM25.
func (s *Segment) LiveDF(id TermID) int { return max(0, s.DF(id)-int(s.delDF[id])) }

// LiveDFOf is the number of live documents that hold the term of entry e.
func (s *Segment) LiveDFOf(e Entry) int { return max(0, e.DF-int(s.delDF[e.ID])) }

// Treatment is how the term is stored in the signature.
func (s *Segment) Treatment(id TermID) Treatment { return treatment(s.terms().Info[2*id+1]) }

// TreatmentOf is the treatment of the term of an entry.
func (e Entry) Treatment() Treatment { return treatment(e.treat) }

func treatment(t uint32) Treatment {
	switch {
	case t&privateFlag != 0:
		return Treatment{Private: true, Row: int(t &^ privateFlag)}
	case t&listFlag != 0:
		return Treatment{List: true, ListAt: 2 * int(t&^(listFlag|chunkedFlag))}
	}
	k0, kh := decodeShared(t)
	return Treatment{K: k0, KHigh: kh}
}

// rowsOfTerm appends the rows a term sets to dst: its private row, or its
// distinct shared rows (K of rank 0, then KHigh of the higher rank), or none
// for a term stored as a list.
func (s *Segment) rowsOfTerm(dst []int, term string, id TermID) []int {
	return s.TermRowsOf(dst, termHash(term), s.Treatment(id))
}

// TermRowsOf appends to dst the rows of a term of hash h (tokenize.Hash)
// and treatment t: its private row, or its shared rows, or none for a list.
func (s *Segment) TermRowsOf(dst []int, h uint64, t Treatment) []int {
	if t.Private {
		return append(dst, t.Row)
	}
	if t.List {
		return dst
	}
	return termRows(dst, h, t.K, t.KHigh, 1+s.hdr.PrivateRows, &s.place0, &s.placeH)
}
