package segment

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/impact"
	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/sectioned"
)

// TermFreq is one distinct term of a document with its frequency.
type TermFreq struct {
	Term string
	TF   uint32
}

// Doc is a document after analysis, as Build takes it: the document's
// fields (Document in package index) with its terms and token positions.
type Doc struct {
	Key     string
	Title   string
	Text    []byte
	Size    int64
	ModTime time.Time

	Terms  []TermFreq // distinct terms, sorted by term
	Tokens int        // number of indexed tokens (the BM25 document length)
	Hash   uint64     // xxhash64 of the text
	Source uint32     // the SourceTag of the document's source
	Pos    []byte     // positions entry, its locals indexing Terms (AppendTokens)

	// LoadText, when Text is nil, appends the text to dst and returns it:
	// Build asks for it once, when it writes the document into the store,
	// the documents' texts one after another, so that a writer need not
	// hold them all.
	LoadText func(dst []byte) ([]byte, error)
}

// LengthClassOf routes a document by its distinct-term count: class c holds
// documents with 2^(c-1) ≤ distinct < 2^c (class 0: no terms at all).
func LengthClassOf(distinct int) int { return bits.Len(uint(distinct)) }

// paramsSize is the fixed size of the params section, and maxAnalyzerName
// the longest analyzer name it records (bytes 128 on, zero-padded).
const (
	paramsSize      = 160
	maxAnalyzerName = 32
)

// segmentHeader is the decoded params section.
type segmentHeader struct {
	Docs        int
	Terms       int
	PrivateRows int
	SharedRows  int
	RowWords    int
	Class       int
	KMin, KMax  int
	Density     float64
	SNR         float64
	Tokens      int64 // total indexed tokens of all documents
	Blocks      int   // doc store blocks
	Ranks       int   // row ranks present (1: rank 0 only)
	ListDensity float64
	Lists       int // terms stored as lists
	Rank        int // the higher rank of shared rows (0: none)
	HighRows    int // shared rows at that rank
	HighWords   int // words of each of them

	Postings        int64 // (document, term) pairs: the sum of every term's df
	PrivatePostings int64 // of them, in private rows
	SharedPostings  int64 // in shared rows (the rest are in lists)

	PairPostings int64 // (document, word pair) pairs set in shared rows
	PairK        int   // shared rows of each word pair (0: no pairs)

	Analyzer string // the analyzer that made the segment's terms
}

func (h *segmentHeader) encode() []byte {
	b := make([]byte, 0, paramsSize)
	for _, v := range []int{h.Docs, h.Terms, h.PrivateRows, h.SharedRows, h.RowWords, h.Class, h.KMin, h.KMax} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.Density))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.SNR))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.Tokens))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Blocks))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Ranks))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(h.ListDensity))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.Lists))
	for _, v := range []int{h.Rank, h.HighRows, h.HighWords} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range []int64{h.Postings, h.PrivatePostings, h.SharedPostings, h.PairPostings} {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(h.PairK))
	b = append(b, 0, 0, 0, 0)
	b = append(b, h.Analyzer...)
	return append(b, make([]byte, paramsSize-len(b))...)
}

func decodeHeader(b []byte) segmentHeader {
	u := func(i int) int { return int(binary.LittleEndian.Uint32(b[4*i:])) }
	return segmentHeader{
		Docs: u(0), Terms: u(1), PrivateRows: u(2), SharedRows: u(3), RowWords: u(4),
		Class: u(5), KMin: u(6), KMax: u(7),
		Density: math.Float64frombits(binary.LittleEndian.Uint64(b[32:])),
		SNR:     math.Float64frombits(binary.LittleEndian.Uint64(b[40:])),
		Tokens:  int64(binary.LittleEndian.Uint64(b[48:])),
		Blocks:  int(binary.LittleEndian.Uint32(b[56:])),
		Ranks:   int(binary.LittleEndian.Uint32(b[60:])),

		ListDensity: math.Float64frombits(binary.LittleEndian.Uint64(b[64:])),
		Lists:       int(binary.LittleEndian.Uint32(b[72:])),
		Rank:        u(19),
		HighRows:    u(20),
		HighWords:   u(21),

		Postings:        int64(binary.LittleEndian.Uint64(b[88:])),
		PrivatePostings: int64(binary.LittleEndian.Uint64(b[96:])),
		SharedPostings:  int64(binary.LittleEndian.Uint64(b[104:])),
		PairPostings:    int64(binary.LittleEndian.Uint64(b[112:])),
		PairK:           u(30),
		Analyzer:        string(bytes.TrimRight(b[128:128+maxAnalyzerName], "\x00")),
	}
}

// docRecordSize is the size of one fixed document-table record:
//
//	0  size      uint64  source size in bytes
//	8  mtime     int64   modification time, Unix nanoseconds (0: unknown)
//	16 hash      uint64  xxhash64 of the text
//	24 strOff    uint64  offset of key then title in the string blob
//	32 keyLen    uint32
//	36 titleLen  uint32
//	40 tokens    uint32  indexed tokens (BM25 length)
//	44 distinct  uint32  distinct terms
//	48 block     uint32  doc store block holding the text
//	52 blockOff  uint32  offset of the text in the block's raw bytes
//	56 textLen   uint32  text length in bytes
//	60 source    uint32  SourceTag of the document's source (0: none)
const docRecordSize = 64

// blockEntrySize is the size of one store block-table entry: offset uint64 in
// the store section, compressed length uint32, raw length uint16, and the
// number of newline bytes in the raw block, uint16.
const blockEntrySize = 16

// Build seals docs into a segment file written to w. The segment's
// dictionary, which goes to the lexicon, is returned. The steps follow the
// sections they make: the dictionary and the terms' treatments, the rows,
// the postings (rows, lists, forward entries, positions, impacts), the
// false positives of the shared rows, the document table and store, then
// the file.
func Build(w io.Writer, docs []*Doc, p Params, class int, analyzer string) (*Dict, error) {
	if analyzer == "" || len(analyzer) > maxAnalyzerName {
		return nil, fmt.Errorf("analyzer name %q must be 1 to %d bytes", analyzer, maxAnalyzerName)
	}
	b := &segmentBuilder{docs: docs, n: len(docs), p: p}
	b.collectTerms()
	b.treatTerms()
	b.layoutRows()
	if err := b.post(); err != nil {
		return nil, err
	}
	b.encodeLists()
	var st storeWriter
	var loaded []byte
	for _, d := range docs {
		text := d.Text
		if text == nil && d.LoadText != nil {
			var err error
			if loaded, err = d.LoadText(loaded[:0]); err != nil {
				return nil, err
			}
			text = loaded
		}
		st.add(d, text)
	}
	st.flush()
	hdr := segmentHeader{
		Docs: b.n, Terms: len(b.terms), PrivateRows: b.private, SharedRows: b.m0, RowWords: b.sig.words,
		Class: class, KMin: b.p.KMin, KMax: b.p.KMax, Density: b.p.Density, SNR: b.p.SNR,
		Tokens: b.tokens, Blocks: st.nblocks, Ranks: b.sig.ranks(),
		ListDensity: b.p.ListDensity, Lists: b.nlists,
		Rank: b.p.Rank, HighRows: b.mh, HighWords: b.sig.hwords,
		PairPostings: b.pairPostings, PairK: b.p.PairK, Analyzer: analyzer,
	}
	dict := b.dictionary(&hdr)
	bw := bufio.NewWriterSize(w, 1<<20)
	err := sectioned.WriteFile(bw, segmentKind, formatVersion, []sectioned.Part{
		{ID: secParams, Bytes: [][]byte{hdr.encode()}},
		{ID: secRows, Bytes: [][]byte{inplace.Uint64Bytes(b.sig.bits)}},
		{ID: secRowStats, Bytes: [][]byte{inplace.Uint32Bytes(b.sig.popcounts())}},
		{ID: secLists, Bytes: [][]byte{b.lists}},
		{ID: secForward, Bytes: [][]byte{inplace.Uint64Bytes(b.fwdOff), b.fwd}},
		{ID: secPositions, Bytes: [][]byte{inplace.Uint64Bytes(b.posOff), b.pos}},
		{ID: secImpacts, Bytes: [][]byte{b.impacts}},
		{ID: secFreqs, Bytes: [][]byte{encodeFreqs(b.n, b.sig.row, b.privFreqs, b.listFreqs, len(b.lists))}},
		{ID: secLengths, Bytes: [][]byte{inplace.Uint32Bytes(b.lengths)}},
		{ID: secFalsePositives, Bytes: [][]byte{b.falsePositives()}},
		{ID: secDocs, Bytes: [][]byte{st.recs, st.strs}},
		{ID: secBlocks, Bytes: [][]byte{st.blocks}},
		{ID: secStore, Bytes: [][]byte{st.store}},
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return nil, err
	}
	return dict, nil
}

// segmentBuilder holds what the steps of Build share.
type segmentBuilder struct {
	docs []*Doc
	n    int
	p    Params

	// collectTerms: the terms by local index (first seen), their document
	// frequencies, and the groups of 2^Rank documents holding each (the
	// bits it sets in a row of that rank); docLi[docStart[doc]:docStart[doc+1]]
	// are the local indexes of a document's terms, in its terms' order;
	// order maps termIDs (by descending df) to local indexes, idOf back.
	terms    []string
	dfs      []int
	groups   []int
	docStart []int
	docLi    []int32
	order    []int32
	idOf     []uint32

	// treatTerms: by termID, the private row | privateFlag, the first list
	// entry | listFlag (the list's offset once encodeLists has run), or the
	// shared rows' counts; and the totals the row counts are made from.
	treat                      []uint32
	private, nlists, entries   int
	bits0, bitsH, maxK0, maxKH int

	// layoutRows: the rows, and the row numbers of every term, flattened:
	// rowsOf[rowStart[id]:rowStart[id+1]].
	pairs        *pairSet
	pairPostings int64
	m0, mh       int
	place0       rowPlacer // where terms' rows are among the m0 of rank 0
	placeH       rowPlacer // and among the mh of the higher rank
	sig          *signature
	rowStart     []int32
	rowsOf       []int32

	// post: the lists' entries and their frequency bytes, the private
	// rows' frequency bytes (by row − 1), the forward index and positions
	// with their offsets by document, the impacts of the rows of rank 0,
	// the documents' lengths and the segment's tokens. encodeLists: the
	// lists, and their frequencies as section 13 lays them out.
	listDocs       []uint16
	listTF         []byte
	listFill       []uint32
	privFreqs      [][]byte
	listFreqs      []byte
	lengths        []uint32
	fwd, pos       []byte
	fwdOff, posOff []uint64
	impacts        []byte
	tokens         int64
	lists          []byte
}

// collectTerms numbers the terms of the documents and orders them by
// descending document frequency (then by term): that order is the termIDs.
func (b *segmentBuilder) collectTerms() {
	local := make(map[string]int32)
	var lastGroup []int
	b.docStart = make([]int, b.n+1)
	for doc, d := range b.docs {
		g := doc >> b.p.Rank
		for _, t := range d.Terms {
			i, ok := local[t.Term]
			if !ok {
				i = int32(len(b.terms))
				local[t.Term] = i
				b.terms = append(b.terms, t.Term)
				b.dfs, b.groups, lastGroup = append(b.dfs, 0), append(b.groups, 0), append(lastGroup, -1)
			}
			b.docLi = append(b.docLi, i)
			b.dfs[i]++
			if lastGroup[i] != g {
				b.groups[i]++
				lastGroup[i] = g
			}
		}
		b.docStart[doc+1] = len(b.docLi)
	}
	b.order = make([]int32, len(b.terms))
	for i := range b.order {
		b.order[i] = int32(i)
	}
	slices.SortFunc(b.order, func(x, y int32) int {
		if b.dfs[x] != b.dfs[y] {
			return b.dfs[y] - b.dfs[x]
		}
		return strings.Compare(b.terms[x], b.terms[y])
	})
	b.idOf = make([]uint32, len(b.terms))
	for id, li := range b.order {
		b.idOf[li] = uint32(id)
	}
}

// treatTerms gives every term its treatment (Params.treat): a private row,
// an exact list, or k shared rows of rank 0 and kHigh of the higher rank.
// Row 0 is the live row and private rows follow in termID order. Lists
// are first gathered as entries (a list's first entry is kept in its
// treatment word meanwhile), then encoded (encodeLists).
func (b *segmentBuilder) treatTerms() {
	b.treat = make([]uint32, len(b.terms))
	b.p = b.p.withTail(b.dfs, b.n)
	noLists := b.p
	noLists.ListDensity = 0
	for id, li := range b.order {
		df := b.dfs[li]
		t := b.p.treat(df, b.n)
		if t.List && b.entries+df > maxListEntries {
			t = noLists.treat(df, b.n)
		}
		switch {
		case t.Private:
			b.private++
			b.treat[id] = privateFlag | uint32(b.private)
		case t.List:
			b.treat[id] = listFlag | uint32(b.entries)
			b.entries += df
			b.nlists++
		default:
			b.treat[id] = sharedWord(t.K, t.KHigh)
			b.bits0 += t.K * df
			b.bitsH += t.KHigh * b.groups[li]
			b.maxK0, b.maxKH = max(b.maxK0, t.K), max(b.maxKH, t.KHigh)
		}
	}
}

// layoutRows sizes the shared rows and lists the rows of every term.
//
// Rows are made for the target density, and enough that no column
// saturates: a document (a group of 2^rank documents, at the higher rank)
// that sets B bits sets at most B of m rows, so m ≥ B/ln 2 keeps every
// column at most ln 2 full however unevenly the shared terms fall on
// documents. Word pairs: where two words with private rows follow each
// other, the pair sets PairK shared rows of rank 0 (Params.PairK); they are
// counted first, for the row count. The shared rows of rank 0 follow the
// private ones, then those of the higher rank.
func (b *segmentBuilder) layoutRows() {
	p := b.p
	b.pairs = newPairSet(b.docs, b.docStart, b.docLi, b.terms, b.idOf, b.treat, p.PairK)
	pairPostings, pairLoad := b.pairs.count()
	b.pairPostings = pairPostings
	bits0 := b.bits0 + p.PairK*int(pairPostings)
	maxK0 := max(b.maxK0, p.PairK)
	load0, loadH := maxLoads(b.docs, b.docStart, b.docLi, b.idOf, b.treat, p.Rank, pairLoad, p.PairK)
	rank := p.Rank
	b.m0 = max(p.sharedRowCount(bits0, b.n, maxK0), int(math.Ceil(float64(load0)/math.Ln2)))
	b.mh = max(p.sharedRowCount(b.bitsH, (b.n+(1<<rank)-1)>>rank, b.maxKH), int(math.Ceil(float64(loadH)/math.Ln2)))
	if b.mh == 0 {
		rank = 0
	}
	b.place0, b.placeH = newRowPlacer(b.m0), newRowPlacer(b.mh)
	b.sig = newSignature(b.n, 1+b.private+b.m0, b.mh, rank)

	b.rowStart = make([]int32, len(b.terms)+1)
	var tmp []int
	for id, li := range b.order {
		b.rowStart[id] = int32(len(b.rowsOf))
		switch w := b.treat[id]; {
		case w&privateFlag != 0:
			b.rowsOf = append(b.rowsOf, int32(w&^privateFlag))
		case w&listFlag == 0:
			k0, kh := decodeShared(w)
			tmp = termRows(tmp[:0], termHash(b.terms[li]), k0, kh, 1+b.private, &b.place0, &b.placeH)
			for _, r := range tmp {
				b.rowsOf = append(b.rowsOf, int32(r))
			}
		}
	}
	b.rowStart[len(b.terms)] = int32(len(b.rowsOf))
}

// post sets every document's bits, fills the lists, and builds the forward
// index and the positions, their tokens renumbered from the document's term
// order to its forward entry's (termID) order, and the impacts of the term
// rows of rank 0 (impacts.go): by row, by block.
func (b *segmentBuilder) post() error {
	b.listDocs = make([]uint16, b.entries)
	b.listTF = make([]byte, b.entries)
	b.listFill = make([]uint32, len(b.terms))
	b.privFreqs = make([][]byte, b.private)
	b.lengths = make([]uint32, b.n)
	b.fwdOff = make([]uint64, b.n+1)
	b.posOff = make([]uint64, b.n+1)
	nb := blocksOf(b.n)
	b.impacts = make([]byte, 2*(b.private+b.m0)*nb)
	var sc postScratch
	for doc, d := range b.docs {
		if err := b.postDocument(doc, d, nb, &sc); err != nil {
			return err
		}
	}
	return nil
}

// postScratch is the memory post reuses from one document to the next.
type postScratch struct {
	ids                                                    []idtf
	rank0                                                  []int
	perm, locals, positions, marks, listOff, sortedIDs, tf []uint32
}

// idtf is one term of a document: its termID, its frequency, and its index
// in the document's term order.
type idtf struct{ id, tf, at uint32 }

// postDocument posts document doc, d (see post); nb is the number of blocks.
func (b *segmentBuilder) postDocument(doc int, d *Doc, nb int, sc *postScratch) error {
	firstHigh := 1 + b.private + b.m0
	b.sig.set(doc, 0)
	sc.ids = sc.ids[:0]
	for i, t := range d.Terms {
		id := b.idOf[b.docLi[b.docStart[doc]+i]]
		sc.ids = append(sc.ids, idtf{id, t.TF, uint32(i)})
		if b.treat[id]&listFlag != 0 {
			b.listDocs[b.treat[id]&^listFlag+b.listFill[id]] = uint16(doc)
			b.listTF[b.treat[id]&^listFlag+b.listFill[id]] = freqByte(t.TF)
			b.listFill[id]++
			continue
		}
		if w := b.treat[id]; w&privateFlag != 0 {
			r := w &^ privateFlag
			b.privFreqs[r-1] = append(b.privFreqs[r-1], freqByte(t.TF))
		}
		for _, r := range b.rowsOf[b.rowStart[id]:b.rowStart[id+1]] {
			b.sig.set(doc, int(r))
			if int(r) < firstHigh {
				at := 2 * ((int(r)-1)*nb + doc/bitrow.BlockDocs)
				impact.Add(b.impacts[at:at+2], int(t.TF), d.Tokens)
			}
		}
	}
	slices.SortFunc(sc.ids, func(x, y idtf) int { return int(x.id) - int(y.id) })
	n := len(sc.ids)
	sc.perm = slices.Grow(sc.perm[:0], n)[:n]
	sc.sortedIDs, sc.tf = sc.sortedIDs[:0], sc.tf[:0]
	for i, x := range sc.ids {
		sc.perm[x.at] = uint32(i)
		sc.sortedIDs, sc.tf = append(sc.sortedIDs, x.id), append(sc.tf, x.tf)
	}
	b.tokens += int64(d.Tokens)
	b.lengths[doc] = uint32(d.Tokens)

	var err error
	if sc.locals, sc.positions, sc.marks, err = decodeTokens(d.Pos, n, sc.locals[:0], sc.positions[:0], sc.marks[:0]); err != nil || len(sc.locals) != d.Tokens {
		return fmt.Errorf("positions of document %q: %d tokens do not decode (%v)", d.Key, d.Tokens, err)
	}
	for i, l := range sc.locals {
		sc.locals[i] = sc.perm[l]
	}
	sc.listOff = slices.Grow(sc.listOff[:0], n)[:n]
	b.pos = appendPositionsEntry(b.pos, sc.locals, sc.positions, sc.marks, n, sc.listOff)
	b.posOff[doc+1] = uint64(len(b.pos))
	b.fwd = appendForwardEntry(b.fwd, sc.sortedIDs, sc.tf, sc.listOff)
	b.fwdOff[doc+1] = uint64(len(b.fwd))

	b.pairs.each(doc, func(h uint64) {
		sc.rank0 = termRows(sc.rank0[:0], h, b.p.PairK, 0, 1+b.private, &b.place0, &b.placeH)
		for _, r := range sc.rank0 {
			b.sig.set(doc, r)
		}
	})
	return nil
}

// encodeLists encodes the lists in termID order (internal/doclist), and places
// their frequencies (freqs.go); the treatment word then holds the list's
// byte offset / 2 and its encoding.
func (b *segmentBuilder) encodeLists() {
	for id := range b.treat {
		if b.treat[id]&listFlag == 0 {
			continue
		}
		start, n := b.treat[id]&^listFlag, b.listFill[id]
		off := len(b.lists)
		var chunked bool
		b.lists, chunked = doclist.Append(b.lists, b.listDocs[start:start+n])
		b.treat[id] = listFlag | uint32(off/2)
		var l doclist.List
		if chunked {
			b.treat[id] |= chunkedFlag
			l = doclist.NewChunked(b.lists[off:], int(n))
		} else {
			l = doclist.NewPlain(inplace.Uint16s(b.lists[off : off+2*int(n)]))
		}
		b.listFreqs = placeListFreqs(b.listFreqs, l, off, b.listTF[start:start+n])
	}
}

// dictionary returns the segment's dictionary, for the lexicon: the terms
// in sorted order with their termIDs, and per termID (df, treatment); and
// counts the postings of each kind into hdr.
func (b *segmentBuilder) dictionary(hdr *segmentHeader) *Dict {
	sorted := make([]int32, len(b.terms)) // sorted position → local index
	for i := range sorted {
		sorted[i] = int32(i)
	}
	slices.SortFunc(sorted, func(x, y int32) int { return strings.Compare(b.terms[x], b.terms[y]) })
	dict := &Dict{Words: make([]string, 0, len(b.terms)), IDs: make([]uint32, 0, len(b.terms)), Info: make([]uint32, 0, 2*len(b.terms))}
	for _, li := range sorted {
		dict.Words = append(dict.Words, b.terms[li])
		dict.IDs = append(dict.IDs, b.idOf[li])
	}
	for id, li := range b.order {
		df := int64(b.dfs[li])
		dict.Info = append(dict.Info, uint32(df), b.treat[id])
		switch {
		case b.treat[id]&privateFlag != 0:
			hdr.PrivatePostings += df
		case b.treat[id]&listFlag == 0:
			hdr.SharedPostings += df
		}
		hdr.Postings += df
	}
	return dict
}

// storeWriter makes the document table (docRecordSize records and their
// string blob) and the store: the texts, in storeBlockSize blocks
// compressed with zstd, and the block table.
type storeWriter struct {
	recs, strs, blocks, store, raw []byte
	nblocks                        int
}

// add appends d's record, key, title and text.
func (s *storeWriter) add(d *Doc, text []byte) {
	if len(s.raw) > 0 && len(s.raw)+len(text) > StoreBlockSize {
		s.flush()
	}
	var mtime int64
	if !d.ModTime.IsZero() {
		mtime = d.ModTime.UnixNano()
	}
	le := binary.LittleEndian
	s.recs = le.AppendUint64(s.recs, uint64(d.Size))
	s.recs = le.AppendUint64(s.recs, uint64(mtime))
	s.recs = le.AppendUint64(s.recs, d.Hash)
	s.recs = le.AppendUint64(s.recs, uint64(len(s.strs)))
	s.recs = le.AppendUint32(s.recs, uint32(len(d.Key)))
	s.recs = le.AppendUint32(s.recs, uint32(len(d.Title)))
	s.recs = le.AppendUint32(s.recs, uint32(d.Tokens))
	s.recs = le.AppendUint32(s.recs, uint32(len(d.Terms)))
	s.recs = le.AppendUint32(s.recs, uint32(s.nblocks))
	s.recs = le.AppendUint32(s.recs, uint32(len(s.raw)))
	s.recs = le.AppendUint32(s.recs, uint32(len(text)))
	s.recs = le.AppendUint32(s.recs, d.Source)
	s.strs = append(s.strs, d.Key...)
	s.strs = append(s.strs, d.Title...)
	// A text longer than a block starts one (the flush above) and fills
	// whole blocks, so a reader can decompress just the part it needs
	// (TextReader.Range).
	for len(s.raw)+len(text) > StoreBlockSize {
		k := StoreBlockSize - len(s.raw)
		s.raw = append(s.raw, text[:k]...)
		text = text[k:]
		s.flush()
	}
	s.raw = append(s.raw, text...)
}

// flush compresses the block being filled, if any, into the store.
func (s *storeWriter) flush() {
	if len(s.raw) == 0 {
		return
	}
	start := len(s.store)
	s.store = storeEncoder().EncodeAll(s.raw, s.store)
	s.blocks = binary.LittleEndian.AppendUint64(s.blocks, uint64(start))
	s.blocks = binary.LittleEndian.AppendUint32(s.blocks, uint32(len(s.store)-start))
	s.blocks = binary.LittleEndian.AppendUint16(s.blocks, uint16(len(s.raw)))
	s.blocks = binary.LittleEndian.AppendUint16(s.blocks, uint16(bytes.Count(s.raw, []byte{'\n'})))
	s.nblocks++
	s.raw = s.raw[:0]
}

// maxLoads returns the most shared-row bits one document sets at rank 0 (its
// terms', and pairK for each of its word pairs, pairLoad[doc]), and one
// group of 2^rank documents at the higher rank (each term once a group).
func maxLoads(docs []*Doc, docStart []int, docLi []int32, idOf, treat []uint32, rank int, pairLoad []int32, pairK int) (load0, loadH int) {
	seen := make([]int, len(idOf)) // local index → 1 + the last group it was counted in
	group, groupLoad := -1, 0
	for doc := range docs {
		if g := doc >> rank; g != group {
			loadH = max(loadH, groupLoad)
			group, groupLoad = g, 0
		}
		load := 0
		if pairLoad != nil {
			load = pairK * int(pairLoad[doc])
		}
		for _, li := range docLi[docStart[doc]:docStart[doc+1]] {
			w := treat[idOf[li]]
			if w&(privateFlag|listFlag) != 0 {
				continue
			}
			k0, kh := decodeShared(w)
			load += k0
			if kh > 0 && seen[li] != group+1 {
				seen[li] = group + 1
				groupLoad += kh
			}
		}
		load0 = max(load0, load)
	}
	return load0, max(loadH, groupLoad)
}

// privateFlag marks a treatment word as a private row index; listFlag as a
// list, at the byte offset / 2 in its low 29 bits, chunkedFlag saying how it
// is encoded.
const (
	privateFlag = 1 << 31
	listFlag    = 1 << 30
	chunkedFlag = 1 << 29

	maxListEntries = 1 << 28 // list entries a segment may hold: 2^29 bytes at most
)
