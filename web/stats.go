package web

import "github.com/bitsieve/bitsieve/index"

// indexStats is the body of GET /api/stats: the same figures as
// `bitsieve stats --json`, without the server's file system path.
type indexStats struct {
	Analyzer    string           `json:"analyzer"`
	Generation  uint64           `json:"generation"`
	Docs        int              `json:"documents"`
	Segments    []segmentStats   `json:"segments"`
	Postings    int64            `json:"postings"`
	RowBits     int64            `json:"row_bits"`
	BitsPerPost float64          `json:"bits_per_posting"`
	Sections    map[string]int64 `json:"bytes_by_section"`
	Bytes       int64            `json:"bytes"`
}

type segmentStats struct {
	File          string  `json:"file"`
	Class         int     `json:"class"`
	Docs          int     `json:"documents"`
	Live          int     `json:"live_documents"`
	Terms         int     `json:"terms"`
	PrivateRows   int     `json:"private_rows"`
	SharedRows    int     `json:"shared_rows"`
	SharedDensity float64 `json:"shared_density"`
	Postings      int64   `json:"postings"`
	Bytes         int64   `json:"bytes"`
}

func collectStats(ix *index.Index) indexStats {
	st := indexStats{Analyzer: ix.Analyzer(), Generation: ix.Generation(), Docs: ix.NumDocs(),
		Segments: []segmentStats{}, Sections: map[string]int64{}}
	for _, s := range ix.Segments() {
		ss := segmentStats{File: s.Name(), Class: s.LengthClass(), Docs: s.NumDocs(), Live: s.NumLive(), Terms: s.NumTerms(),
			PrivateRows: s.PrivateRows(), SharedRows: s.SharedRows(), Postings: s.Postings(), Bytes: s.FileBytes()}
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
		st.Bytes += ss.Bytes
		for _, sec := range s.Sections() {
			st.Sections[sec.Name] += sec.Bytes
		}
	}
	if st.Postings > 0 {
		st.BitsPerPost = float64(st.RowBits) / float64(st.Postings)
	}
	return st
}
