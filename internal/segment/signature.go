package segment

import "github.com/bitsieve/bitsieve/internal/bitrow"

// signature is the rows section of a segment being built, or rebuilt: the
// rank-0 rows (live, private, shared), each words long, then the shared rows
// of the higher rank, each hwords long. Rows are numbered in that order.
type signature struct {
	words, hwords int
	low           int // rows of rank 0
	high          int // rows of the higher rank
	rank          int
	bits          []uint64
}

func newSignature(n, low, high, rank int) *signature {
	s := &signature{words: rowWords(n), low: low, high: high, rank: rank}
	if high > 0 {
		s.hwords = rankWords(n, rank)
	}
	s.bits = make([]uint64, low*s.words+high*s.hwords)
	return s
}

// ranks is the number of ranks present: 1, or 2 with higher-rank rows.
func (s *signature) ranks() int {
	if s.high > 0 {
		return 2
	}
	return 1
}

// set sets document doc's bit in row r: bit doc of a rank-0 row, bit
// doc>>rank of a higher-rank row.
func (s *signature) set(doc, r int) {
	if r < s.low {
		s.bits[r*s.words+doc/64] |= 1 << (doc % 64)
		return
	}
	g := doc >> s.rank
	s.bits[s.low*s.words+(r-s.low)*s.hwords+g/64] |= 1 << (g % 64)
}

// row returns row r.
func (s *signature) row(r int) []uint64 {
	if r < s.low {
		return s.bits[r*s.words : (r+1)*s.words]
	}
	at := s.low*s.words + (r-s.low)*s.hwords
	return s.bits[at : at+s.hwords]
}

// popcounts is the number of bits set in every row, the rowstats section.
func (s *signature) popcounts() []uint32 {
	pop := make([]uint32, s.low+s.high)
	for r := range pop {
		pop[r] = uint32(bitrow.Count(s.row(r)))
	}
	return pop
}

// A shared term's treatment word holds its rank-0 row count in bits 0–5 and
// its higher-rank row count in bits 6–11.
func sharedWord(k0, kh int) uint32 { return uint32(k0) | uint32(kh)<<6 }

func decodeShared(w uint32) (k0, kh int) { return int(w & 63), int(w >> 6 & 63) }

// termRows appends the numbers of a shared term's rows, given its row counts
// (k0, kh): k0 distinct rank-0 rows among the p0.m that start at row first,
// then kh distinct higher-rank rows among the ph.m that follow them.
func termRows(dst []int, h uint64, k0, kh, first int, p0, ph *rowPlacer) []int {
	start := len(dst)
	dst = p0.rows(dst, h, k0)
	for i := start; i < len(dst); i++ {
		dst[i] += first
	}
	if kh > 0 {
		start = len(dst)
		dst = ph.rows(dst, rankHash(h), kh)
		for i := start; i < len(dst); i++ {
			dst[i] += first + int(p0.m)
		}
	}
	return dst
}

// RebuildRows builds the segment's rows again from its forward index and
// positions (for word pairs), the way a writer sets them, and returns their popcounts: the benchmark's measure
// of what the signature costs to build (bench.TimeParts).
func (s *Segment) RebuildRows() ([]uint32, error) {
	if err := s.LoadTerms(); err != nil {
		return nil, err
	}
	h := s.hdr
	sig := newSignature(h.Docs, 1+h.PrivateRows+h.SharedRows, h.HighRows, h.Rank)
	rowsOf := make([][]int, h.Terms)
	s.Terms(func(term string, id TermID) bool {
		rowsOf[id] = s.rowsOfTerm(nil, term, id)
		return true
	})
	var hashOf []uint64 // by termID, for the words of pairs
	if h.PairK > 0 {
		hashOf = make([]uint64, h.Terms)
		s.Terms(func(term string, id TermID) bool {
			hashOf[id] = termHash(term)
			return true
		})
	}
	var fwd []Posting
	var locals, positions, marks, tfs []uint32
	var rows []int
	var err error
	for d := 0; d < h.Docs; d++ {
		sig.set(d, 0)
		if fwd, err = s.Forward(fwd[:0], d); err != nil {
			return nil, err
		}
		for _, p := range fwd {
			for _, r := range rowsOf[p.Term] {
				sig.set(d, r)
			}
		}
		if h.PairK == 0 {
			continue
		}
		e := s.pos[s.posOff[d]:s.posOff[d+1]]
		if locals, positions, marks, err = decodePositionsEntry(e, tfsOf(fwd, &tfs), locals[:0], positions[:0], marks[:0]); err != nil {
			return nil, s.badPositions(d, err.Error())
		}
		for i := 1; i < len(locals); i++ {
			a, b := fwd[locals[i-1]].Term, fwd[locals[i]].Term
			if positions[i] == positions[i-1]+1 && s.PairsIndexed(s.Treatment(a), s.Treatment(b)) {
				for _, r := range s.PairRows(rows[:0], hashOf[a], hashOf[b]) {
					sig.set(d, r)
				}
			}
		}
	}
	return sig.popcounts(), nil
}

// ListDocs returns the list of the term of entry e, a term this segment
// keeps as a list, as a bit per document, as long as a rank-0 row (RowDocs),
// in a new slice.
func (s *Segment) ListDocs(e Entry) []uint64 {
	out := make([]uint64, s.RowWords())
	for _, d := range s.ListOf(e).AppendTo(nil) {
		out[d/64] |= 1 << (d % 64)
	}
	return out
}

// RowDocs returns row r as a bit per document, as long as a rank-0 row: a
// rank-0 row in place, a higher-rank row expanded (each of its bits set for
// the 2^Rank documents it stands for) into a new slice.
func (s *Segment) RowDocs(r int) []uint64 {
	if s.RowRank(r) == 0 {
		return s.Row(r)
	}
	out := make([]uint64, s.hdr.RowWords)
	for i := range out {
		out[i] = s.docWord(r, i)
	}
	// The last group may stand for documents past the last one.
	if n := s.hdr.Docs; n%64 != 0 {
		out[n/64] &= 1<<(n%64) - 1
	}
	for i := (s.hdr.Docs + 63) / 64; i < len(out); i++ {
		out[i] = 0
	}
	return out
}
