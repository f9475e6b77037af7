package segment

import (
	"math"
	"math/bits"

	"github.com/bitsieve/bitsieve/internal/bitrow"
)

// SignatureQuality measures a segment's shared rows against the theory of
// Bloom filters: a row of m·c bits (m rows of c columns) into which the
// shared terms set b bits at random is 1 − e^(−b/(m·c)) dense, and a term
// with k such rows admits a document without it with probability density^k
// (Treatment gives the model with higher-rank rows).
type SignatureQuality struct {
	File        string  `json:"file"`
	Docs        int     `json:"documents"`
	SharedTerms int     `json:"shared_terms"`
	Rank        int     `json:"rank"`           // the higher rank (0: none)
	Density     float64 `json:"density"`        // measured density of the rank-0 shared rows
	Theory      float64 `json:"theory_density"` // 1 − e^(−Σk·df/(m·n))
	HighDensity float64 `json:"high_density"`   // measured density of the higher-rank rows
	HighTheory  float64 `json:"high_theory_density"`
	MeasuredFP  int64   `json:"measured_fp"`  // Σ over shared terms: documents their rows admit that lack them
	PredictedFP float64 `json:"predicted_fp"` // Σ over shared terms: the model at the theory densities
	WorstFill   float64 `json:"worst_fill"`   // the largest share of rank-0 shared rows set in one document's column
	MeanFill    float64 `json:"mean_fill"`
}

// Quality measures the segment's shared rows: every shared term's rows are
// ANDed over the whole segment, so it reads each such row once per term.
func (s *Segment) Quality() (SignatureQuality, error) {
	if err := s.LoadTerms(); err != nil {
		return SignatureQuality{}, err
	}
	h := s.hdr
	q := SignatureQuality{File: s.name, Docs: h.Docs, Rank: s.Rank()}
	cols0 := h.Docs
	colsH := (h.Docs + 1<<h.Rank - 1) >> h.Rank
	q.Density, q.HighDensity = s.SharedDensity()

	// Bits the shared terms set, for the theory; then each term's FP.
	type shared struct {
		id   TermID
		t    Treatment
		term string
	}
	var terms []shared
	var bits0, bitsH float64
	groups := make([]int, h.Terms)
	if h.HighRows > 0 {
		var err error
		if groups, err = s.termGroups(); err != nil {
			return q, err
		}
	}
	s.Terms(func(term string, id TermID) bool {
		if t := s.Treatment(id); t.Shared() {
			terms = append(terms, shared{id, t, term})
			bits0 += float64(t.K * s.DF(id))
			bitsH += float64(t.KHigh * groups[id])
		}
		return true
	})
	q.SharedTerms = len(terms)
	if h.SharedRows > 0 {
		q.Theory = 1 - math.Exp(-bits0/float64(h.SharedRows*cols0))
	}
	if h.HighRows > 0 {
		q.HighTheory = 1 - math.Exp(-bitsH/float64(h.HighRows*colsH))
	}
	var rows []int
	for _, st := range terms {
		rows = s.rowsOfTerm(rows[:0], st.term, st.id)
		n := s.admitted(rows)
		q.MeasuredFP += int64(max(0, n-s.LiveDF(st.id)))
		q.PredictedFP += expectedFP(st.t, s.DF(st.id), h.Docs, h.Rank, q.Theory, q.HighTheory)
	}

	if h.SharedRows > 0 && h.Docs > 0 {
		q.WorstFill, q.MeanFill = s.sharedFill()
	}
	return q, nil
}

// admitted counts the live documents whose bits are set in every one of
// rows: the documents a term with those rows would pass to verification.
func (s *Segment) admitted(rows []int) int {
	n := 0
	for i := 0; i < s.hdr.RowWords; i++ {
		acc := s.live[i]
		for _, r := range rows {
			if acc &= s.docWord(r, i); acc == 0 {
				break
			}
		}
		n += bits.OnesCount64(acc)
	}
	return n
}

// sharedFill measures the share of the rank-0 shared rows set in each
// document's column, and returns the largest share and the mean. A column
// much fuller than the mean admits more false positives than the density
// predicts. The segment must have shared rows and documents.
func (s *Segment) sharedFill() (worst, mean float64) {
	h := s.hdr
	first := 1 + h.PrivateRows
	fill := make([]uint32, h.Docs)
	for r := first; r < first+h.SharedRows; r++ {
		for i, w := range s.Row(r) {
			for ; w != 0; w &= w - 1 {
				fill[i*64+bits.TrailingZeros64(w)]++
			}
		}
	}
	most, sum := 0, 0
	for _, f := range fill {
		most, sum = max(most, int(f)), sum+int(f)
	}
	return float64(most) / float64(h.SharedRows), float64(sum) / float64(h.SharedRows*h.Docs)
}

// termGroups counts, for every term, the groups of 2^Rank documents holding
// it (the bits it sets in each of its higher-rank rows), from the forward
// index.
func (s *Segment) termGroups() ([]int, error) {
	groups := make([]int, s.hdr.Terms)
	last := make([]int32, s.hdr.Terms)
	for i := range last {
		last[i] = -1
	}
	var fwd []Posting
	var err error
	for d := 0; d < s.hdr.Docs; d++ {
		if fwd, err = s.Forward(fwd[:0], d); err != nil {
			return nil, err
		}
		g := int32(d >> s.hdr.Rank)
		for _, p := range fwd {
			if last[p.Term] != g {
				last[p.Term] = g
				groups[p.Term]++
			}
		}
	}
	return groups, nil
}

// docWord is word i of row r as document bits: the word itself at rank 0,
// the bits of its groups expanded (bitrow.ExpandRank) at a higher rank.
func (s *Segment) docWord(r, i int) uint64 {
	row, rk := s.Row(r), s.RowRank(r)
	if rk == 0 {
		return row[i]
	}
	per := 512 >> rk
	off := i / bitrow.BlockWords * per
	hb := row[off/64] >> (off % 64)
	if per < 64 {
		hb &= 1<<per - 1
	}
	var out [bitrow.BlockWords]uint64
	bitrow.ExpandRank(hb, rk, &out)
	return out[i%bitrow.BlockWords]
}
