package segment

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/prefetch"
	"github.com/bitsieve/bitsieve/internal/sectioned"

	"github.com/klauspost/compress/zstd"
)

// Segment is an immutable, memory-mapped group of documents with its own
// dictionary, signature rows, forward index, document table and store. Local
// document ids run from 0 to NumDocs()-1. A Segment is safe for concurrent use.
type Segment struct {
	name string // file name, for messages
	path string
	data []byte // the mapped file
	hdr  segmentHeader

	// The segment's words live in the index's lexicon; its dictionary by
	// termID is gathered from there by loadDict when first needed
	// (SetDict, LoadTerms).
	loadDict func() (*Dict, error)
	dictOnce sync.Once
	dict     *Dict
	dictErr  error

	lists []byte // the lists section (internal/doclist)

	rows   []uint64 // all rows, row-major
	rowPop []uint32 // popcount of every row
	live   []uint64 // the live row: row 0, or a copy with deleted documents cleared
	nlive  int

	// where terms' shared rows are, among those of rank 0 and of the
	// higher rank (termRows)
	place0, placeH rowPlacer

	// the mean density of the shared rows of rank 0 and of the higher rank
	// (SharedDensity)
	sharedDens, highDens float64

	// Deletions (deletions.go): the tombstone file applied, the tokens of
	// live documents, and how many deleted documents hold each term.
	tombName   string
	liveTokens int64
	delDF      map[TermID]uint32

	fwdOff []uint64
	fwd    []byte
	posOff []uint64 // positions (positions.go)
	pos    []byte

	impacts []byte // impacts.go

	// False positives (falsepos.go): the directory by termID, and the
	// documents.
	fpDir []uint32
	fps   []uint32

	// Frequencies and lengths (freqs.go): the private rows' directory, the
	// start of each private row's frequencies (by row − 1, and their end),
	// the frequencies, and the documents' lengths.
	freqDir   []uint32
	privStart []int
	privFreqs []byte
	listFreqs []byte
	lengths   []uint32

	docRecs []byte
	docStrs []byte
	blocks  []byte
	store   []byte
	secs    map[uint32]sectioned.Section
}

// TermID identifies a term within one segment. TermIDs are assigned in
// descending document-frequency order.
type TermID uint32

// Verify says which section checksums opening a segment checks.
type Verify int

const (
	VerifyNone Verify = iota // structure only (tests, fuzzing)
	VerifyMeta               // the small sections: params, rowstats, blocks
	VerifyData               // every section but the store (read block by block)
)

func New(path string, data []byte, verify Verify) (*Segment, error) {
	name := filepath.Base(path)
	if !inplace.LittleEndian {
		return nil, fmt.Errorf("%s: bitsieve indexes are read in place and need a little-endian machine", name)
	}
	secs, err := Sections(name, data)
	if err != nil {
		return nil, err
	}
	r := &segmentReader{s: &Segment{name: name, path: path, data: data, secs: secs}, verify: verify}
	for _, step := range []func() error{r.params, r.rows, r.forward, r.positions, r.impacts, r.freqs, r.falsePositives, r.docs, r.store} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return r.s, nil
}

// segmentReader validates a segment's sections one by one, as newSegment
// reads them into s; each step checks its section against the params.
type segmentReader struct {
	s      *Segment
	verify Verify
}

// section returns the bytes of section id, checked against its checksum
// when the verify level asks for it.
func (r *segmentReader) section(id uint32) ([]byte, error) {
	s := r.s
	sec, ok := s.secs[id]
	if !ok {
		return nil, &sectioned.CorruptError{File: s.name, Section: segmentSectionName(id), Detail: "sectioned.Section is missing"}
	}
	if r.verify == VerifyData && id != secStore || r.verify == VerifyMeta && (id == secParams || id == secRowStats || id == secBlocks) {
		if err := sec.Check(s.name, s.data); err != nil {
			return nil, err
		}
	}
	return s.data[sec.Offset : sec.Offset+sec.Length], nil
}

// bad reports damage found in section id.
func (r *segmentReader) bad(id uint32, format string, a ...any) error {
	return &sectioned.CorruptError{File: r.s.name, Section: segmentSectionName(id), Detail: fmt.Sprintf(format, a...)}
}

// params decodes the header and checks that its counts agree with each
// other.
func (r *segmentReader) params() error {
	params, err := r.section(secParams)
	if err != nil {
		return err
	}
	if len(params) != paramsSize {
		return r.bad(secParams, "%d bytes, want %d", len(params), paramsSize)
	}
	h := decodeHeader(params)
	r.s.hdr = h
	if !sectioned.AllZero(params[124:128]) || h.Analyzer == "" || !sectioned.AllZero(params[128+len(h.Analyzer):]) {
		return r.bad(secParams, "the reserved bytes or the analyzer name are damaged")
	}
	if h.Docs < 0 || h.RowWords != rowWords(h.Docs) || h.Terms < 0 ||
		h.Lists < 0 || (h.Lists > 0 && h.Docs > doclist.MaxDocs) {
		return r.bad(secParams, "inconsistent parameters (docs %d, row words %d, lists %d)", h.Docs, h.RowWords, h.Lists)
	}
	if h.Rank < 0 || h.Rank > maxRank || h.HighRows < 0 || h.PrivateRows < 0 || h.SharedRows < 0 ||
		(h.HighRows == 0 && (h.Ranks != 1 || h.HighWords != 0)) ||
		(h.HighRows > 0 && (h.Ranks != 2 || h.Rank < minRank || h.HighWords != rankWords(h.Docs, h.Rank))) {
		return r.bad(secParams, "inconsistent ranks (%d ranks, rank %d, %d rows of %d words)", h.Ranks, h.Rank, h.HighRows, h.HighWords)
	}
	if h.PairK < 0 || h.PairK > maxK || h.PairPostings < 0 || (h.PairK == 0 && h.PairPostings != 0) {
		return r.bad(secParams, "inconsistent word pairs (%d rows each, %d postings)", h.PairK, h.PairPostings)
	}
	r.s.place0, r.s.placeH = newRowPlacer(h.SharedRows), newRowPlacer(h.HighRows)
	return nil
}

// rows reads the lists, the rows and their bit counts, and the live row.
func (r *segmentReader) rows() error {
	s, h := r.s, r.s.hdr
	lists, err := r.section(secLists)
	if err != nil {
		return err
	}
	s.lists = lists
	if len(lists) > 0 && h.Docs > doclist.MaxDocs {
		return r.bad(secLists, "lists in a segment of %d documents", h.Docs)
	}
	nrows := 1 + h.PrivateRows + h.SharedRows + h.HighRows
	rowWordsAll := uint64(1+h.PrivateRows+h.SharedRows)*uint64(h.RowWords) + uint64(h.HighRows)*uint64(h.HighWords)
	rows, err := r.section(secRows)
	if err != nil {
		return err
	}
	if uint64(len(rows)) != rowWordsAll*8 {
		return r.bad(secRows, "%d bytes, want %d words", len(rows), rowWordsAll)
	}
	s.rows = inplace.Uint64s(rows)
	pop, err := r.section(secRowStats)
	if err != nil {
		return err
	}
	if len(pop) != 4*nrows {
		return r.bad(secRowStats, "%d bytes, want %d", len(pop), 4*nrows)
	}
	s.rowPop = inplace.Uint32s(pop)
	s.sharedDens, s.highDens = meanDensities(s)
	s.live = s.Row(0)
	s.nlive = int(s.rowPop[0])
	s.liveTokens = h.Tokens
	return nil
}

// forward reads the forward index: an entry per document, after its offsets.
func (r *segmentReader) forward() (err error) {
	r.s.fwdOff, r.s.fwd, err = r.entries(secForward)
	return err
}

// positions reads the positions: an entry per document, after its offsets.
func (r *segmentReader) positions() (err error) {
	r.s.posOff, r.s.pos, err = r.entries(secPositions)
	return err
}

// entries reads a section of one entry per document: n+1 offsets, in
// order, from 0 to the length of the entries that follow them.
func (r *segmentReader) entries(id uint32) ([]uint64, []byte, error) {
	sec, err := r.section(id)
	if err != nil {
		return nil, nil, err
	}
	nd := uint64(r.s.hdr.Docs)
	if uint64(len(sec)) < 8*(nd+1) {
		return nil, nil, r.bad(id, "too short for %d documents", nd)
	}
	off, entries := inplace.Uint64s(sec[:8*(nd+1)]), sec[8*(nd+1):]
	for i := uint64(0); i < nd; i++ {
		if off[i] > off[i+1] {
			return nil, nil, r.bad(id, "offsets of document %d are out of order", i)
		}
	}
	if off[0] != 0 || off[nd] != uint64(len(entries)) {
		return nil, nil, r.bad(id, "offsets do not cover the entries")
	}
	return off, entries, nil
}

// impacts reads the impacts of the rows of rank 0, two bytes a row a block.
func (r *segmentReader) impacts() (err error) {
	s, h := r.s, r.s.hdr
	if s.impacts, err = r.section(secImpacts); err != nil {
		return err
	}
	if want := 2 * (h.PrivateRows + h.SharedRows) * blocksOf(h.Docs); len(s.impacts) != want {
		return r.bad(secImpacts, "%d bytes, want %d", len(s.impacts), want)
	}
	return nil
}

// docs reads the document table: the records, then the strings.
func (r *segmentReader) docs() error {
	s := r.s
	docs, err := r.section(secDocs)
	if err != nil {
		return err
	}
	nd := uint64(s.hdr.Docs)
	if uint64(len(docs)) < docRecordSize*nd {
		return r.bad(secDocs, "too short for %d documents", nd)
	}
	s.docRecs = docs[:docRecordSize*nd]
	s.docStrs = docs[docRecordSize*nd:]
	return nil
}

// store reads the block table and the store, and checks that every block
// and every document's strings and block lie where they can be read.
func (r *segmentReader) store() error {
	s, h := r.s, r.s.hdr
	blocks, err := r.section(secBlocks)
	if err != nil {
		return err
	}
	if len(blocks) != blockEntrySize*h.Blocks {
		return r.bad(secBlocks, "%d bytes, want %d blocks", len(blocks), h.Blocks)
	}
	s.blocks = blocks
	if s.store, err = r.section(secStore); err != nil {
		return err
	}
	for b := 0; b < h.Blocks; b++ {
		off, clen, rawLen := s.block(b)
		if off+uint64(clen) > uint64(len(s.store)) {
			return r.bad(secBlocks, "block %d lies outside the store", b)
		}
		if uint64(rawLen) > uint64(clen)*zstdMaxRatio {
			return r.bad(secBlocks, "block %d claims %d bytes from %d compressed", b, rawLen, clen)
		}
		if nl := s.blockNewlines(b); nl > int(rawLen) {
			return r.bad(secBlocks, "block %d claims %d newlines in %d bytes", b, nl, rawLen)
		}
	}
	for i := 0; i < h.Docs; i++ {
		rec := s.docRecord(i)
		strOff, strLen := rec.strOff(), rec.keyLen()+rec.titleLen()
		if strOff > uint64(len(s.docStrs)) || strLen > uint64(len(s.docStrs))-strOff {
			return r.bad(secDocs, "key of document %d lies outside the table", i)
		}
		if blk := rec.block(); blk >= h.Blocks && rec.textLen() > 0 {
			return r.bad(secDocs, "document %d names store block %d of %d", i, blk, h.Blocks)
		}
	}
	return nil
}

func (s *Segment) Close() error {
	err := mmap.Unmap(s.data)
	s.data = nil
	return err
}

// Name is the segment's file name.
func (s *Segment) Name() string { return s.name }

// NumDocs is the number of documents in the segment, deleted ones included.
func (s *Segment) NumDocs() int { return s.hdr.Docs }

// NumLive is the number of documents that are not deleted.
func (s *Segment) NumLive() int { return s.nlive }

// NumTerms is the number of distinct terms in the segment.
func (s *Segment) NumTerms() int { return s.hdr.Terms }

// Tokens is the total number of indexed tokens of the segment's documents,
// deleted ones included.
func (s *Segment) Tokens() int64 { return s.hdr.Tokens }

// NumDeleted is the number of deleted documents.
func (s *Segment) NumDeleted() int { return s.NumDocs() - s.nlive }

// LengthClass is the segment's length class (documents with 2^(c-1) ≤
// distinct terms < 2^c).
func (s *Segment) LengthClass() int { return s.hdr.Class }

// Params are the signature parameters the segment was built with; the list
// density is the one it used, which may be below the writer's (Treatment).
func (s *Segment) Params() Params {
	return Params{Density: s.hdr.Density, SNR: s.hdr.SNR, KMin: s.hdr.KMin, KMax: s.hdr.KMax, ListDensity: s.hdr.ListDensity, Rank: s.hdr.Rank, PairK: s.hdr.PairK}
}

// NumLists is the number of terms stored as lists.
func (s *Segment) NumLists() int { return s.hdr.Lists }

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

// DocInfo describes one document of a segment.
type DocInfo struct {
	Key      string
	Title    string
	Size     int64
	ModTime  time.Time // zero when unknown
	Hash     uint64    // xxhash64 of the text
	Tokens   int       // indexed tokens, the BM25 length
	Distinct int       // distinct terms
	TextLen  int
	Source   uint32 // SourceTag of the document's source (0: none)
}

// Doc returns the document table entry of doc.
func (s *Segment) Doc(doc int) DocInfo {
	r := s.docRecord(doc)
	d := DocInfo{
		Key:      string(r.key(s.docStrs)),
		Title:    string(r.title(s.docStrs)),
		Size:     r.size(),
		Hash:     r.hash(),
		Tokens:   r.tokens(),
		Distinct: r.distinct(),
		TextLen:  r.textLen(),
		Source:   r.source(),
	}
	if ns := r.mtime(); ns != 0 {
		d.ModTime = time.Unix(0, ns)
	}
	return d
}

// PrefetchDoc asks for doc's record, for a Doc of it soon: a page of hits
// from many segments asks for all its records first, so that their cache
// misses overlap instead of following one another.
func (s *Segment) PrefetchDoc(doc int) {
	prefetch.Range(s.docRecs[doc*docRecordSize : doc*docRecordSize+1])
}

// PrefetchDocStrings reads doc's record (best asked for by PrefetchDoc
// first), asks for its key and title, and returns their length together.
func (s *Segment) PrefetchDocStrings(doc int) int {
	r := s.docRecord(doc)
	off, n := r.strOff(), r.keyLen()+r.titleLen()
	if n > 0 && off+n <= uint64(len(s.docStrs)) {
		prefetch.Range(s.docStrs[off : off+n])
	}
	return int(n)
}

// DocStrings returns doc's key and title in place, for a caller that
// copies them: a page of hits copies all its keys and titles into one
// string, where Doc would allocate two strings a hit.
func (s *Segment) DocStrings(doc int) (key, title []byte) {
	r := s.docRecord(doc)
	return r.key(s.docStrs), r.title(s.docStrs)
}

// DocTextLen is the length in bytes of doc's stored text.
func (s *Segment) DocTextLen(doc int) int { return s.docRecord(doc).textLen() }

// DocTokens is the BM25 length of doc, without decoding its key.
func (s *Segment) DocTokens(doc int) int { return int(s.lengths[doc]) }

// DocSource is the SourceTag of doc's source, 0 for none.
func (s *Segment) DocSource(doc int) uint32 {
	return s.docRecord(doc).source()
}

// DocKey is the key of doc.
func (s *Segment) DocKey(doc int) string { return string(s.keyBytes(doc)) }

// keyBytes is the key of doc, in place.
func (s *Segment) keyBytes(doc int) []byte { return s.docRecord(doc).key(s.docStrs) }

// CompareKeys compares the key of document a with that of document b of
// segment t (which may be s), as strings.Compare would, without copying them.
func (s *Segment) CompareKeys(a int, t *Segment, b int) int {
	return bytes.Compare(s.keyBytes(a), t.keyBytes(b))
}

func (s *Segment) block(b int) (off uint64, clen, rawLen uint32) {
	e := s.blocks[b*blockEntrySize:]
	return binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint32(e[8:]), uint32(binary.LittleEndian.Uint16(e[12:]))
}

// blockNewlines is the number of newline bytes in store block b.
func (s *Segment) blockNewlines(b int) int {
	return int(binary.LittleEndian.Uint16(s.blocks[b*blockEntrySize+14:]))
}

// Text appends the stored text of doc to dst. The block it decompresses
// into is pooled, so that texts read one at a time (snippets, the document
// view) leave no garbage behind.
func (s *Segment) Text(dst []byte, doc int) ([]byte, error) {
	err := s.withText(doc, func(t []byte) error {
		dst = append(dst, t...)
		return nil
	})
	return dst, err
}

// withText calls fn with the stored text of doc, read in place from the
// decompressed block: the slice is valid only during the call.
func (s *Segment) withText(doc int, fn func(text []byte) error) error {
	return s.WithTextRange(doc, 0, s.Doc(doc).TextLen, func(t []byte, _ int) error { return fn(t) })
}

// WithTextRange calls fn with bytes of doc's stored text that include
// [from, to) and the offset in the text of the first (TextReader.Range):
// a long text's blocks outside the range are not decompressed. The slice is
// valid only during the call.
func (s *Segment) WithTextRange(doc, from, to int, fn func(text []byte, at int) error) error {
	r, _ := textReaders.Get().(*TextReader)
	if r == nil {
		r = new(TextReader)
	}
	r.seg, r.block = s, -1
	t, at, err := r.Range(doc, from, to)
	if err == nil {
		err = fn(t, at)
	}
	r.seg = nil
	textReaders.Put(r)
	return err
}

// NewlinesBefore returns the number of newline bytes in doc's stored text
// before byte at. Where at is a block boundary of a long text (as the
// offsets TextReader.Range returns are), the block table's counts give it
// without decompressing anything; elsewhere the text before at is read.
func (s *Segment) NewlinesBefore(doc, at int) (int, error) {
	rec := s.docRecord(doc)
	blk, n := rec.block(), rec.textLen()
	at = min(at, n)
	if at <= 0 {
		return 0, nil
	}
	if n > StoreBlockSize && at%StoreBlockSize == 0 {
		last := blk + at/StoreBlockSize
		if last > s.hdr.Blocks {
			return 0, &sectioned.CorruptError{File: s.name, Section: "docs", Detail: fmt.Sprintf("text of document %d runs past the last store block", doc)}
		}
		lines := 0
		for b := blk; b < last; b++ {
			lines += s.blockNewlines(b)
		}
		return lines, nil
	}
	lines := 0
	err := s.WithTextRange(doc, 0, at, func(text []byte, from int) error {
		lines = bytes.Count(text[:at-from], []byte{'\n'})
		return nil
	})
	return lines, err
}

// textReaders recycles readers and their buffers of decompressed blocks.
var textReaders sync.Pool

// TextReader reads stored texts of one segment, keeping the last
// decompressed block: reading documents in order decompresses each block once.
// It is not safe for concurrent use.
type TextReader struct {
	seg   *Segment
	block int
	raw   []byte
	span  []byte // a text read from several blocks
}

// NewTextReader returns a reader of the segment's stored texts.
func (s *Segment) NewTextReader() *TextReader { return &TextReader{seg: s, block: -1} }

// Text returns the stored text of doc. The slice is valid until the next call.
func (r *TextReader) Text(doc int) ([]byte, error) {
	t, _, err := r.Range(doc, 0, r.seg.Doc(doc).TextLen)
	return t, err
}

// Range returns bytes of doc's stored text that include [from, to), decompressing
// only the blocks they lie in, and the offset in the text of the first
// byte returned. The slice is valid until the next call.
func (r *TextReader) Range(doc, from, to int) ([]byte, int, error) {
	s := r.seg
	rec := s.docRecord(doc)
	blk, at, n := rec.block(), rec.blockOff(), rec.textLen()
	from, to = max(0, from), min(n, to)
	if n == 0 || from >= to {
		return nil, from, nil
	}
	bad := func(format string, a ...any) error {
		return &sectioned.CorruptError{File: s.name, Section: "docs", Detail: fmt.Sprintf("text of document %d: ", doc) + fmt.Sprintf(format, a...)}
	}
	if n <= StoreBlockSize {
		// In one block.
		if err := r.load(blk); err != nil {
			return nil, 0, err
		}
		if at+n > len(r.raw) {
			return nil, 0, bad("it lies outside its block")
		}
		return r.raw[at : at+n], 0, nil
	}
	// A long text from the start of its first block, in whole blocks.
	if at != 0 {
		return nil, 0, bad("it is longer than a block but starts inside one")
	}
	first, last := blk+from/StoreBlockSize, blk+(to-1)/StoreBlockSize
	r.span = r.span[:0]
	for b := first; b <= last; b++ {
		if b >= s.hdr.Blocks {
			return nil, 0, bad("it runs past the last store block")
		}
		if err := r.load(b); err != nil {
			return nil, 0, err
		}
		want := min(StoreBlockSize, n-(b-blk)*StoreBlockSize)
		if len(r.raw) < want || (want < n-(b-blk)*StoreBlockSize && len(r.raw) != StoreBlockSize) {
			return nil, 0, bad("store block %d holds %d bytes of it, not %d", b, len(r.raw), want)
		}
		r.span = append(r.span, r.raw[:want]...)
	}
	return r.span, (first - blk) * StoreBlockSize, nil
}

// load decompresses store block blk into r.raw, unless it is there.
func (r *TextReader) load(blk int) error {
	if blk == r.block {
		return nil
	}
	s := r.seg
	if blk >= s.hdr.Blocks {
		return &sectioned.CorruptError{File: s.name, Section: "docs", Detail: fmt.Sprintf("store block %d of %d", blk, s.hdr.Blocks)}
	}
	off, clen, rawLen := s.block(blk)
	frame := s.store[off : off+uint64(clen)]
	// A size the frame header declares is allocated at once: it must be
	// the block table's. (Small frames declare none; their output is
	// bounded by zstdMaxRatio, checked at open.)
	var fh zstd.Header
	if err := fh.Decode(frame); err != nil || (fh.HasFCS && fh.FrameContentSize != uint64(rawLen)) {
		r.block = -1
		return &sectioned.CorruptError{File: s.name, Section: "store", Detail: fmt.Sprintf("block %d has a damaged frame header", blk)}
	}
	raw, err := storeDecoder().DecodeAll(frame, r.raw[:0])
	if err != nil || uint64(len(raw)) != uint64(rawLen) {
		r.block = -1
		return &sectioned.CorruptError{File: s.name, Section: "store", Detail: fmt.Sprintf("block %d does not decompress: %v", blk, err)}
	}
	r.raw, r.block = raw, blk
	return nil
}

// SectionSize is the size of one section of a segment file.
type SectionSize struct {
	Name  string
	Bytes int64
}

// Sections lists the segment's sections in file order with their sizes.
func (s *Segment) Sections() []SectionSize {
	var secs []sectioned.Section
	for _, sec := range s.secs {
		secs = append(secs, sec)
	}
	slices.SortFunc(secs, func(a, b sectioned.Section) int { return cmp.Compare(a.Offset, b.Offset) })
	out := make([]SectionSize, len(secs))
	for i, sec := range secs {
		out[i] = SectionSize{segmentSectionName(sec.ID), int64(sec.Length)}
	}
	return out
}

// FileBytes is the size of the segment file.
func (s *Segment) FileBytes() int64 { return int64(len(s.data)) }

// Postings is the number of (document, term) pairs in the segment: Σ df.
func (s *Segment) Postings() int64 { return s.hdr.Postings }

// PrivatePostings and SharedPostings count the postings of terms with
// private rows and with shared rows; the rest are in lists.
func (s *Segment) PrivatePostings() int64 { return s.hdr.PrivatePostings }
func (s *Segment) SharedPostings() int64  { return s.hdr.SharedPostings }

// PairPostings is the number of (document, word pair) pairs whose rows the
// segment sets (Params.PairK).
func (s *Segment) PairPostings() int64 { return s.hdr.PairPostings }

// Analyzer is the name of the analyzer that made the segment's terms.
func (s *Segment) Analyzer() string { return s.hdr.Analyzer }

// ListBytes is the size of the lists section.
func (s *Segment) ListBytes() int64 { return int64(len(s.lists)) }
