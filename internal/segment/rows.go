package segment

import (
	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/prefetch"
)

// List returns the documents of a term stored as a list (see Treatment).
func (s *Segment) List(id TermID) doclist.List {
	d := s.terms()
	return s.list(d.Info[2*id+1], int(d.Info[2*id]))
}

// ListOf returns the documents of a term stored as a list, from its entry.
func (s *Segment) ListOf(e Entry) doclist.List { return s.list(e.treat, e.DF) }

// PrefetchTerm asks for the head of what a search reads first of the term
// with entry e: a list's first entries and their frequencies, or the first
// block of a private row. Shared rows are left alone: finding them takes
// the term's hash functions, which cost more than their misses save when
// every segment's are asked for ahead.
func (s *Segment) PrefetchTerm(e Entry) {
	t := e.treat
	switch {
	case t&privateFlag != 0:
		row := s.Row(int(t &^ privateFlag))
		prefetch.Words(row[:min(len(row), bitrow.BlockWords)])
	case t&listFlag != 0:
		off := 2 * int(t&^(listFlag|chunkedFlag))
		if n := min(2*e.DF, prefetchListBytes); off+n <= len(s.lists) && off+n <= len(s.listFreqs) {
			prefetch.Range(s.lists[off : off+n])
			prefetch.Range(s.listFreqs[off : off+n])
		}
	}
}

// prefetchListBytes is how much of a list, and of its frequencies,
// PrefetchTerm asks for: a cache line, the whole of most lists.
const prefetchListBytes = 64

func (s *Segment) list(t uint32, n int) doclist.List {
	off := 2 * int(t&^(listFlag|chunkedFlag))
	if t&chunkedFlag != 0 {
		return doclist.NewChunked(s.lists[off:], n)
	}
	return doclist.NewPlain(inplace.Uint16s(s.lists[off : off+2*n]))
}

// RowWords is the length of every rank-0 row in uint64 words (a multiple of
// bitrow.BlockWords).
func (s *Segment) RowWords() int { return s.hdr.RowWords }

// NumRows is the number of rows: the live row, the private rows, the shared
// rows of rank 0, then the shared rows of the higher rank.
func (s *Segment) NumRows() int { return 1 + s.hdr.PrivateRows + s.hdr.SharedRows + s.hdr.HighRows }

// PrivateRows, SharedRows and HighRows count the three kinds of term rows:
// private, shared at rank 0, shared at the higher rank.
func (s *Segment) PrivateRows() int { return s.hdr.PrivateRows }
func (s *Segment) SharedRows() int  { return s.hdr.SharedRows }
func (s *Segment) HighRows() int    { return s.hdr.HighRows }

// Rank is the rank of the segment's higher-rank rows: each of their bits
// stands for 2^Rank neighbouring documents (0 when it has none).
func (s *Segment) Rank() int {
	if s.hdr.HighRows == 0 {
		return 0
	}
	return s.hdr.Rank
}

// RowRank is the rank of row r: 0, or Rank for a higher-rank row.
func (s *Segment) RowRank(r int) int {
	if r < 1+s.hdr.PrivateRows+s.hdr.SharedRows {
		return 0
	}
	return s.hdr.Rank
}

// RowColumns is the number of bits of row r that stand for documents: the
// documents, or the groups of 2^Rank of them for a higher-rank row.
func (s *Segment) RowColumns(r int) int {
	rk := s.RowRank(r)
	return (s.hdr.Docs + 1<<rk - 1) >> rk
}

// Row returns row r (0 is the live row as built; see Live) in place: bit i
// of a rank-r row stands for documents i·2^r to (i+1)·2^r−1.
func (s *Segment) Row(r int) []uint64 {
	low := 1 + s.hdr.PrivateRows + s.hdr.SharedRows
	if r < low {
		w := s.hdr.RowWords
		return s.rows[r*w : (r+1)*w : (r+1)*w]
	}
	at := low*s.hdr.RowWords + (r-low)*s.hdr.HighWords
	return s.rows[at : at+s.hdr.HighWords : at+s.hdr.HighWords]
}

// RowCount is the number of bits set in row r.
func (s *Segment) RowCount(r int) int { return int(s.rowPop[r]) }

// SharedDensity is the mean fraction of bits set in the segment's shared
// rows of rank 0 and in those of its higher rank (0 when there are none).
func (s *Segment) SharedDensity() (rank0, high float64) { return s.sharedDens, s.highDens }

// meanDensities computes SharedDensity from the row counts.
func meanDensities(s *Segment) (rank0, high float64) {
	first, h := 1+s.hdr.PrivateRows, s.hdr
	var set0, setH int
	for r := first; r < first+h.SharedRows; r++ {
		set0 += s.RowCount(r)
	}
	for r := first + h.SharedRows; r < first+h.SharedRows+h.HighRows; r++ {
		setH += s.RowCount(r)
	}
	if h.SharedRows > 0 && h.Docs > 0 {
		rank0 = float64(set0) / float64(h.SharedRows*h.Docs)
	}
	if h.HighRows > 0 && h.Docs > 0 {
		high = float64(setH) / float64(h.HighRows*s.RowColumns(first+h.SharedRows))
	}
	return rank0, high
}

// RowDensity is the fraction of row r's bits that are set, as a plan
// orders its rows by it: a private row's own; for a shared row, the mean
// of the shared rows of its rank. A writer fills the shared rows to one
// density (index.Params), so one row's count would tell little more, and
// reading it would cost a query a cache miss for every shared row of every
// word and word pair in every segment.
func (s *Segment) RowDensity(r int) float64 {
	switch first := 1 + s.hdr.PrivateRows; {
	case r < first:
		return float64(s.RowCount(r)) / float64(max(1, s.hdr.Docs))
	case r < first+s.hdr.SharedRows:
		return s.sharedDens
	}
	return s.highDens
}

// Live is the live row: a bit per document that is not deleted.
func (s *Segment) Live() []uint64 { return s.live }

// IsLive reports whether document doc is not deleted.
func (s *Segment) IsLive(doc int) bool { return s.live[doc/64]&(1<<(doc%64)) != 0 }
