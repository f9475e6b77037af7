package index

// Stats summarises an index snapshot: what `bitsieve stats` prints and
// GET /api/stats returns.
type Stats struct {
	Analyzer   string         `json:"analyzer"`
	Generation uint64         `json:"generation"`
	Docs       int            `json:"documents"` // live documents
	Words      int            `json:"words"`     // distinct words: the lexicon's
	Segments   []SegmentStats `json:"segments"`
	Postings   int64          `json:"postings"` // (document, term) pairs, Σ df
	// Postings by treatment: of terms with private rows, shared rows, lists.
	PrivatePostings int64            `json:"private_postings"`
	SharedPostings  int64            `json:"shared_postings"`
	ListPostings    int64            `json:"list_postings"`
	RowBits         int64            `json:"row_bits"`         // bits of all term rows, of every rank (the live rows excluded)
	ListBits        int64            `json:"list_bits"`        // bits of all term lists
	BitsPerPost     float64          `json:"bits_per_posting"` // (RowBits + ListBits) / Postings: the signature's size
	PairPostings    int64            `json:"pair_postings"`    // (document, word pair) pairs, also in the shared rows
	Tokens          int64            `json:"tokens"`           // indexed tokens of every document: the positions' entries
	Sections        map[string]int64 `json:"bytes_by_section"`
	Bytes           int64            `json:"bytes"` // all segment files and the lexicon
}

// SegmentStats describes one segment.
type SegmentStats struct {
	File          string  `json:"file"`
	Class         int     `json:"class"`
	Docs          int     `json:"documents"`
	Live          int     `json:"live_documents"`
	Terms         int     `json:"terms"`
	PrivateRows   int     `json:"private_rows"`
	SharedRows    int     `json:"shared_rows"` // at rank 0
	HighRows      int     `json:"high_rows"`   // shared rows at the higher rank
	Rank          int     `json:"rank"`        // that rank (0: none)
	Lists         int     `json:"lists"`
	SharedDensity float64 `json:"shared_density"` // mean fraction of bits set in the rank-0 shared rows
	HighDensity   float64 `json:"high_density"`   // the same in the higher-rank rows
	Postings      int64   `json:"postings"`
	Bytes         int64   `json:"bytes"`
}

// Stats computes the snapshot's statistics.
func (ix *Index) Stats() Stats {
	st := Stats{Analyzer: ix.Analyzer(), Generation: ix.Generation(), Docs: ix.NumDocs(),
		Segments: []SegmentStats{}, Sections: map[string]int64{}}
	for _, s := range ix.segs {
		ss := SegmentStats{File: s.Name(), Class: s.LengthClass(), Docs: s.NumDocs(), Live: s.NumLive(), Terms: s.NumTerms(),
			PrivateRows: s.PrivateRows(), SharedRows: s.SharedRows(), HighRows: s.HighRows(), Rank: s.Rank(),
			Lists: s.NumLists(), Postings: s.Postings(), Bytes: s.FileBytes()}
		for r := 1; r < s.NumRows(); r++ { // every term row, private and shared
			st.RowBits += int64(len(s.Row(r))) * 64
		}
		ss.SharedDensity, ss.HighDensity = s.SharedDensity()
		st.PairPostings += s.PairPostings()
		st.Tokens += s.Tokens()
		st.PrivatePostings += s.PrivatePostings()
		st.SharedPostings += s.SharedPostings()
		st.ListPostings += s.Postings() - s.PrivatePostings() - s.SharedPostings()
		st.Segments = append(st.Segments, ss)
		st.Postings += ss.Postings
		st.ListBits += 8 * s.ListBytes()
		st.Bytes += ss.Bytes
		for _, sec := range s.Sections() {
			st.Sections[sec.Name] += sec.Bytes
		}
	}
	if ix.lex != nil {
		st.Words = ix.lex.numWords()
		st.Bytes += ix.lex.Bytes()
		st.Sections["lexicon"] = ix.lex.Bytes()
	}
	if st.Postings > 0 {
		st.BitsPerPost = float64(st.RowBits+st.ListBits) / float64(st.Postings)
	}
	return st
}
