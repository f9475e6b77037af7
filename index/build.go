package index

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
)

// Document is one document handed to a Writer. Text is what is analyzed and
// stored; Key must be unique within an index. Source names where it came
// from (a directory root, a JSONL file; "" for a document added on its
// own): the index keeps its SourceTag, so that an update of one source
// deletes only that source's vanished documents (Writer.DeleteUnseen).
type Document struct {
	Key     string
	Title   string
	Text    []byte
	Size    int64
	ModTime time.Time
	Source  string
}

// termFreq is one distinct term of a document with its frequency.
type termFreq struct {
	term string
	tf   uint32
}

// analyzedDoc is a document after analysis, waiting in a length-class buffer.
type analyzedDoc struct {
	doc    Document
	terms  []termFreq // distinct terms, sorted by term
	tokens int        // number of indexed tokens (the BM25 document length)
	hash   uint64     // xxhash64 of the text
	source uint32     // SourceTag(doc.Source)
	pos    []byte     // positions entry, its locals indexing terms (positions.go)

	dropped bool  // deleted or replaced before its segment was sealed
	mem     int64 // bytes it holds, about (footprint)
}

// footprint estimates the bytes an analyzed document holds while it waits
// in a writer's buffer: its text, positions and terms (whose bytes the
// writer shares between documents), and what Go spends around them.
func (d *analyzedDoc) footprint() int64 {
	return int64(len(d.doc.Text)+len(d.doc.Key)+len(d.doc.Title)+len(d.pos)+24*len(d.terms)) + 256
}

// lengthClass routes a document by its distinct-term count: class c holds
// documents with 2^(c-1) ≤ distinct < 2^c (class 0: no terms at all).
func lengthClass(distinct int) int { return bits.Len(uint(distinct)) }

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
// the store section, compressed length uint32, raw length uint32.
const blockEntrySize = 16

// buildSegment seals docs into a segment file written to w. The segment's
// dictionary, which goes to the lexicon, is returned.
func buildSegment(w io.Writer, docs []*analyzedDoc, p Params, class int, analyzer string) (segmentHeader, *segDict, error) {
	if analyzer == "" || len(analyzer) > maxAnalyzerName {
		return segmentHeader{}, nil, fmt.Errorf("analyzer name %q must be 1 to %d bytes", analyzer, maxAnalyzerName)
	}
	n := len(docs)

	// Dictionary: local term index → df, then termIDs by descending df.
	// groups counts the distinct groups of 2^Rank documents holding each
	// term: the bits it sets in a row of that rank.
	// docLi[docStart[doc]:docStart[doc+1]] are the local indexes of a
	// document's terms, in its terms' order.
	local := make(map[string]int32)
	var terms []string
	var dfs, groups, lastGroup []int
	docStart := make([]int, n+1)
	var docLi []int32
	for doc, d := range docs {
		g := doc >> p.Rank
		for _, t := range d.terms {
			i, ok := local[t.term]
			if !ok {
				i = int32(len(terms))
				local[t.term] = i
				terms = append(terms, t.term)
				dfs, groups, lastGroup = append(dfs, 0), append(groups, 0), append(lastGroup, -1)
			}
			docLi = append(docLi, i)
			dfs[i]++
			if lastGroup[i] != g {
				groups[i]++
				lastGroup[i] = g
			}
		}
		docStart[doc+1] = len(docLi)
	}
	order := make([]int32, len(terms)) // termID → local index
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if dfs[a] != dfs[b] {
			return dfs[b] - dfs[a]
		}
		return strings.Compare(terms[a], terms[b])
	})
	idOf := make([]uint32, len(terms)) // local index → termID
	for id, li := range order {
		idOf[li] = uint32(id)
	}

	// Row treatments. Row 0 is the live row, private rows follow in termID
	// order, then the shared rows of rank 0, then those of the higher rank.
	// Lists are first gathered as entries (a list's first entry is kept in
	// its treatment word meanwhile), then encoded (lists.go).
	treat := make([]uint32, len(terms)) // by termID: private row | privateFlag, first entry | listFlag, or the shared counts
	private, bits0, bitsH, maxK0, maxKH := 0, 0, 0, 0, 0
	nlists, entries := 0, 0
	p = p.withTail(dfs, n)
	noLists := p
	noLists.ListDensity = 0
	for id, li := range order {
		t := p.treat(dfs[li], n)
		if t.List && entries+dfs[li] > maxListEntries {
			t = noLists.treat(dfs[li], n)
		}
		switch {
		case t.Private:
			private++
			treat[id] = privateFlag | uint32(private)
		case t.List:
			treat[id] = listFlag | uint32(entries)
			entries += dfs[li]
			nlists++
		default:
			treat[id] = sharedWord(t.K, t.KHigh)
			bits0 += t.K * dfs[li]
			bitsH += t.KHigh * groups[li]
			maxK0, maxKH = max(maxK0, t.K), max(maxKH, t.KHigh)
		}
	}
	// Rows for the target density, and enough that no column saturates: a
	// document (a group of 2^rank documents, at the higher rank) that sets
	// B bits sets at most B of m rows, so m ≥ B/ln 2 keeps every column at
	// most ln 2 full however unevenly the shared terms fall on documents.
	// Word pairs: where two words with private rows follow each other, the
	// pair sets PairK shared rows of rank 0 (Params.PairK). They are
	// counted first, for the row count.
	pairs := newPairSet(docs, docStart, docLi, terms, idOf, treat, p.PairK)
	pairPostings, pairLoad := pairs.count()
	bits0 += p.PairK * int(pairPostings)
	maxK0 = max(maxK0, p.PairK)
	load0, loadH := maxLoads(docs, docStart, docLi, idOf, treat, p.Rank, pairLoad, p.PairK)
	rank := p.Rank
	m0 := max(p.sharedRowCount(bits0, n, maxK0), int(math.Ceil(float64(load0)/math.Ln2)))
	mh := max(p.sharedRowCount(bitsH, (n+(1<<rank)-1)>>rank, maxKH), int(math.Ceil(float64(loadH)/math.Ln2)))
	if mh == 0 {
		rank = 0
	}
	sig := newSignature(n, 1+private+m0, mh, rank)

	// Row numbers of every term, flattened: rowsOf[rowStart[id]:rowStart[id+1]].
	rowStart := make([]int32, len(terms)+1)
	var rowsOf []int32
	var tmp []int
	for id, li := range order {
		rowStart[id] = int32(len(rowsOf))
		switch w := treat[id]; {
		case w&privateFlag != 0:
			rowsOf = append(rowsOf, int32(w&^privateFlag))
		case w&listFlag == 0:
			k0, kh := decodeShared(w)
			tmp = termRows(tmp[:0], termHash(terms[li]), k0, kh, 1+private, m0, mh)
			for _, r := range tmp {
				rowsOf = append(rowsOf, int32(r))
			}
		}
	}
	rowStart[len(terms)] = int32(len(rowsOf))

	listDocs := make([]uint16, entries)
	listFill := make([]uint32, len(terms)) // by termID: entries of its list filled so far

	// Set bits, fill the lists, build the forward index and the positions,
	// their tokens renumbered from the document's term order to its forward
	// entry's (termID) order.
	var tokens int64
	fwdOff := make([]uint64, n+1)
	var fwd []byte
	posOff := make([]uint64, n+1)
	var posBytes []byte
	type idtf struct{ id, tf, at uint32 }
	var ids []idtf
	var rank0 []int
	var perm, locals, positions, marks, listOff, sortedIDs, sortedTFs []uint32
	// Impacts of the term rows of rank 0 (impacts.go): by row, by block.
	nb, firstHigh := blocksOf(n), 1+private+m0
	impacts := make([]byte, 2*(private+m0)*nb)

	for doc, d := range docs {
		sig.set(doc, 0)
		ids = ids[:0]
		for i, t := range d.terms {
			id := idOf[docLi[docStart[doc]+i]]
			ids = append(ids, idtf{id, t.tf, uint32(i)})
			if treat[id]&listFlag != 0 {
				listDocs[treat[id]&^listFlag+listFill[id]] = uint16(doc)
				listFill[id]++
				continue
			}
			for _, r := range rowsOf[rowStart[id]:rowStart[id+1]] {
				sig.set(doc, int(r))
				if int(r) < firstHigh {
					at := 2 * ((int(r)-1)*nb + doc/BlockDocs)
					addImpact(impacts[at:at+2], int(t.tf), d.tokens)
				}
			}
		}
		slices.SortFunc(ids, func(a, b idtf) int { return int(a.id) - int(b.id) })
		perm = slices.Grow(perm[:0], len(ids))[:len(ids)]
		sortedIDs, sortedTFs = sortedIDs[:0], sortedTFs[:0]
		for i, x := range ids {
			perm[x.at] = uint32(i)
			sortedIDs, sortedTFs = append(sortedIDs, x.id), append(sortedTFs, x.tf)
		}
		tokens += int64(d.tokens)

		var err error
		if locals, positions, marks, err = decodeTokens(d.pos, len(ids), locals[:0], positions[:0], marks[:0]); err != nil || len(locals) != d.tokens {
			return segmentHeader{}, nil, fmt.Errorf("positions of document %q: %d tokens do not decode (%v)", d.doc.Key, d.tokens, err)
		}
		for i, l := range locals {
			locals[i] = perm[l]
		}
		listOff = slices.Grow(listOff[:0], len(ids))[:len(ids)]
		posBytes = appendPositionsEntry(posBytes, locals, positions, marks, len(ids), listOff)
		posOff[doc+1] = uint64(len(posBytes))
		fwd = appendForwardEntry(fwd, sortedIDs, sortedTFs, listOff)
		fwdOff[doc+1] = uint64(len(fwd))

		pairs.each(doc, func(h uint64) {
			rank0 = termRows(rank0[:0], h, p.PairK, 0, 1+private, m0, mh)
			for _, r := range rank0 {
				sig.set(doc, r)
			}
		})
	}
	// Encode the lists in termID order; the treatment word now holds the
	// list's byte offset / 2 and its encoding.
	var lists []byte
	for id := range treat {
		if treat[id]&listFlag == 0 {
			continue
		}
		start := treat[id] &^ listFlag
		off := len(lists)
		var chunked bool
		lists, chunked = appendList(lists, listDocs[start:start+listFill[id]])
		treat[id] = listFlag | uint32(off/2)
		if chunked {
			treat[id] |= chunkedFlag
		}
	}

	pop := sig.popcounts()

	// Document table and store.
	recs := make([]byte, 0, n*docRecordSize)
	var strs []byte
	var blocks []byte
	var store []byte
	var raw []byte
	nblocks := 0
	flush := func() {
		if len(raw) == 0 {
			return
		}
		start := len(store)
		store = storeEncoder().EncodeAll(raw, store)
		blocks = binary.LittleEndian.AppendUint64(blocks, uint64(start))
		blocks = binary.LittleEndian.AppendUint32(blocks, uint32(len(store)-start))
		blocks = binary.LittleEndian.AppendUint32(blocks, uint32(len(raw)))
		nblocks++
		raw = raw[:0]
	}
	for _, d := range docs {
		if len(raw) > 0 && len(raw)+len(d.doc.Text) > storeBlockSize {
			flush()
		}
		var mtime int64
		if !d.doc.ModTime.IsZero() {
			mtime = d.doc.ModTime.UnixNano()
		}
		recs = binary.LittleEndian.AppendUint64(recs, uint64(d.doc.Size))
		recs = binary.LittleEndian.AppendUint64(recs, uint64(mtime))
		recs = binary.LittleEndian.AppendUint64(recs, d.hash)
		recs = binary.LittleEndian.AppendUint64(recs, uint64(len(strs)))
		recs = binary.LittleEndian.AppendUint32(recs, uint32(len(d.doc.Key)))
		recs = binary.LittleEndian.AppendUint32(recs, uint32(len(d.doc.Title)))
		recs = binary.LittleEndian.AppendUint32(recs, uint32(d.tokens))
		recs = binary.LittleEndian.AppendUint32(recs, uint32(len(d.terms)))
		recs = binary.LittleEndian.AppendUint32(recs, uint32(nblocks))
		recs = binary.LittleEndian.AppendUint32(recs, uint32(len(raw)))
		recs = binary.LittleEndian.AppendUint32(recs, uint32(len(d.doc.Text)))
		recs = binary.LittleEndian.AppendUint32(recs, d.source)
		strs = append(strs, d.doc.Key...)
		strs = append(strs, d.doc.Title...)
		// A text longer than a block starts one (the flush above) and
		// fills whole blocks, so a reader can decompress just the part it
		// needs (TextReader.Range).
		text := d.doc.Text
		for len(raw)+len(text) > storeBlockSize {
			k := storeBlockSize - len(raw)
			raw = append(raw, text[:k]...)
			text = text[k:]
			flush()
		}
		raw = append(raw, text...)
	}
	flush()

	hdr := segmentHeader{
		Docs: n, Terms: len(terms), PrivateRows: private, SharedRows: m0, RowWords: sig.words,
		Class: class, KMin: p.KMin, KMax: p.KMax, Density: p.Density, SNR: p.SNR,
		Tokens: tokens, Blocks: nblocks, Ranks: sig.ranks(),
		ListDensity: p.ListDensity, Lists: nlists,
		Rank: p.Rank, HighRows: mh, HighWords: sig.hwords,
		PairPostings: pairPostings, PairK: p.PairK, Analyzer: analyzer,
	}

	// The dictionary, for the lexicon: terms in sorted order with their
	// termIDs, and per termID (df, treatment).
	sorted := make([]int32, len(terms)) // sorted position → local index
	for i := range sorted {
		sorted[i] = int32(i)
	}
	slices.SortFunc(sorted, func(a, b int32) int { return strings.Compare(terms[a], terms[b]) })
	dict := &segDict{words: make([]string, 0, len(terms)), ids: make([]uint32, 0, len(terms)), info: make([]uint32, 0, 2*len(terms))}
	for _, li := range sorted {
		dict.words = append(dict.words, terms[li])
		dict.ids = append(dict.ids, idOf[li])
	}
	for id, li := range order {
		dict.info = append(dict.info, uint32(dfs[li]), treat[id])
		switch df := int64(dfs[li]); {
		case treat[id]&privateFlag != 0:
			hdr.PrivatePostings += df
		case treat[id]&listFlag == 0:
			hdr.SharedPostings += df
		}
		hdr.Postings += int64(dfs[li])
	}

	bw := bufio.NewWriterSize(w, 1<<20)
	fw, err := newFileWriter(bw, segmentKind)
	if err != nil {
		return hdr, nil, err
	}
	sections := []struct {
		id    uint32
		parts [][]byte
	}{
		{secParams, [][]byte{hdr.encode()}},
		{secRows, [][]byte{wordsAsBytes(sig.bits)}},
		{secRowStats, [][]byte{u32AsBytes(pop)}},
		{secLists, [][]byte{lists}},
		{secForward, [][]byte{wordsAsBytes(fwdOff), fwd}},
		{secPositions, [][]byte{wordsAsBytes(posOff), posBytes}},
		{secImpacts, [][]byte{impacts}},
		{secDocs, [][]byte{recs, strs}},
		{secBlocks, [][]byte{blocks}},
		{secStore, [][]byte{store}},
	}
	for _, s := range sections {
		if err := fw.begin(s.id); err != nil {
			return hdr, nil, err
		}
		for _, part := range s.parts {
			if _, err := fw.Write(part); err != nil {
				return hdr, nil, err
			}
		}
		fw.end()
	}
	if err := fw.finish(); err != nil {
		return hdr, nil, err
	}
	return hdr, dict, bw.Flush()
}

// maxLoads returns the most shared-row bits one document sets at rank 0 (its
// terms', and pairK for each of its word pairs, pairLoad[doc]), and one
// group of 2^rank documents at the higher rank (each term once a group).
func maxLoads(docs []*analyzedDoc, docStart []int, docLi []int32, idOf, treat []uint32, rank int, pairLoad []int32, pairK int) (load0, loadH int) {
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
