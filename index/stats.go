package index

// Stats summarises an index snapshot: what `bitsieve stats` prints and
// GET /api/stats returns.
type Stats struct {
	Analyzer    string           `json:"analyzer"`
	Generation  uint64           `json:"generation"`
	Docs        int              `json:"documents"` // live documents
	Segments    []SegmentStats   `json:"segments"`
	Postings    int64            `json:"postings"`         // (document, term) pairs, Σ df
	RowBits     int64            `json:"row_bits"`         // bits of all term rows (the live rows excluded)
	ListBits    int64            `json:"list_bits"`        // bits of all term lists
	BitsPerPost float64          `json:"bits_per_posting"` // (RowBits + ListBits) / Postings: the signature's size
	Sections    map[string]int64 `json:"bytes_by_section"`
	Bytes       int64            `json:"bytes"` // all segment files
}

// SegmentStats describes one segment.
type SegmentStats struct {
	File          string  `json:"file"`
	Class         int     `json:"class"`
	Docs          int     `json:"documents"`
	Live          int     `json:"live_documents"`
	Terms         int     `json:"terms"`
	PrivateRows   int     `json:"private_rows"`
	SharedRows    int     `json:"shared_rows"`
	Lists         int     `json:"lists"`
	SharedDensity float64 `json:"shared_density"` // mean fraction of bits set in the shared rows
	Postings      int64   `json:"postings"`
	Bytes         int64   `json:"bytes"`
}

// Stats computes the snapshot's statistics.
func (ix *Index) Stats() Stats {
	st := Stats{Analyzer: ix.Analyzer(), Generation: ix.Generation(), Docs: ix.NumDocs(),
		Segments: []SegmentStats{}, Sections: map[string]int64{}}
	for _, s := range ix.segs {
		ss := SegmentStats{File: s.Name(), Class: s.LengthClass(), Docs: s.NumDocs(), Live: s.NumLive(), Terms: s.NumTerms(),
			PrivateRows: s.PrivateRows(), SharedRows: s.SharedRows(), Lists: s.NumLists(), Postings: s.Postings(), Bytes: s.FileBytes()}
		set := 0
		for r := 1 + s.PrivateRows(); r < s.NumRows(); r++ {
			set += s.RowCount(r)
		}
		if s.SharedRows() > 0 && s.NumDocs() > 0 {
			ss.SharedDensity = float64(set) / float64(s.SharedRows()*s.NumDocs())
		}
		st.Segments = append(st.Segments, ss)
		st.Postings += ss.Postings
		st.RowBits += int64(s.NumRows()-1) * int64(s.RowWords()) * 64
		st.ListBits += 8 * int64(len(s.lists))
		st.Bytes += ss.Bytes
		for _, sec := range s.Sections() {
			st.Sections[sec.Name] += sec.Bytes
		}
	}
	if st.Postings > 0 {
		st.BitsPerPost = float64(st.RowBits+st.ListBits) / float64(st.Postings)
	}
	return st
}
