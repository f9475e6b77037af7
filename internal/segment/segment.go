package segment

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/sectioned"
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
