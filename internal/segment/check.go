package segment

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/impact"
	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/cespare/xxhash/v2"
)

// Check verifies a segment's internal consistency, section by
// section: the dictionary, the rows, the lists, the forward index against
// them, the positions, and the stored texts.
func (s *Segment) Check() []error {
	// The dictionary comes from the lexicon, which checks that every
	// termID is used once.
	if err := s.LoadTerms(); err != nil {
		return []error{err}
	}
	terms := make([]string, s.NumTerms())
	for i, w := range s.dict.Words {
		terms[s.dict.IDs[i]] = w
	}
	p := &segmentProblems{file: s.name}
	s.checkDictionary(p)
	s.checkRows(p)
	lists := s.checkLists(p, terms)
	df, shared := s.checkForward(p, terms, lists)
	s.checkFalsePositives(p, terms, shared)
	p.errs = append(p.errs, s.checkPositions(terms, p.bad)...)
	for id := range terms {
		if df[id] != s.DF(TermID(id)) {
			p.bad("forward", "term %q has df %d, the forward index gives %d", terms[id], s.DF(TermID(id)), df[id])
		}
	}
	s.checkStore(p)
	return p.errs
}

// segmentProblems collects what checkInvariants finds wrong in a segment:
// every read that fails, and at most 20 reports of data that contradicts
// other data, so that a badly damaged segment yields a readable list.
type segmentProblems struct {
	file string
	errs []error
}

// bad reports that section sec of the file is corrupt, unless 20 problems
// are listed already.
func (p *segmentProblems) bad(sec, format string, a ...any) {
	if len(p.errs) < 20 {
		p.errs = append(p.errs, &sectioned.CorruptError{File: p.file, Section: sec, Detail: fmt.Sprintf(format, a...)})
	}
}

// checkDictionary checks the dictionary against the header: df descending
// by termID, the postings the header counts, and lists that cover the
// lists section exactly.
func (s *Segment) checkDictionary(p *segmentProblems) {
	n := s.NumDocs()
	var postings, private, shared int64
	nl, listed := 0, 0
	for id := 0; id < s.NumTerms(); id++ {
		df := s.DF(TermID(id))
		if id > 0 && df > s.DF(TermID(id-1)) {
			p.bad("params", "termIDs are not in descending df order at %d", id)
		}
		postings += int64(df)
		switch t := s.Treatment(TermID(id)); {
		case t.Private:
			private += int64(df)
		case t.List:
			nl++
			size := 2 * df
			if s.List(TermID(id)).Chunked() {
				size = doclist.ChunkedEnd(s.lists[t.ListAt:], df, (n+255)/256)
				size += size % 2
			}
			listed += size
		default:
			shared += int64(df)
		}
	}
	if h := s.hdr; postings != h.Postings || private != h.PrivatePostings || shared != h.SharedPostings {
		p.bad("params", "postings %d (%d private, %d shared), the dictionary gives %d (%d, %d)",
			h.Postings, h.PrivatePostings, h.SharedPostings, postings, private, shared)
	}
	if nl != s.hdr.Lists || listed != len(s.lists) {
		p.bad("lists", "%d bytes in %d lists, the dictionary gives %d in %d", len(s.lists), s.hdr.Lists, listed, nl)
	}
}

// checkRows checks the rows: popcounts as counted, no bits past the last
// document, and the live row as built (every document set).
func (s *Segment) checkRows(p *segmentProblems) {
	for r := 0; r < s.NumRows(); r++ {
		row := s.Row(r)
		if bitrow.Count(row) != s.RowCount(r) {
			p.bad("rowstats", "row %d has %d bits, its count says %d", r, bitrow.Count(row), s.RowCount(r))
		}
		for d := s.RowColumns(r); d < len(row)*64; d++ {
			if row[d/64]&(1<<(d%64)) != 0 {
				p.bad("rows", "row %d has a bit past the last document", r)
				break
			}
		}
	}
	if n := s.NumDocs(); s.RowCount(0) != n {
		p.bad("rows", "live row has %d of %d documents", s.RowCount(0), n)
	}
}

// checkLists checks that every posting list holds ascending document
// numbers below the segment's count, and returns the lists decoded, by
// termID (nil for a term without one).
func (s *Segment) checkLists(p *segmentProblems, terms []string) [][]uint16 {
	n := s.NumDocs()
	lists := make([][]uint16, len(terms))
	for id := range terms {
		if !s.Treatment(TermID(id)).List {
			continue
		}
		l := s.List(TermID(id)).AppendTo(nil)
		lists[id] = l
		for i, d := range l {
			if int(d) >= n || (i > 0 && d <= l[i-1]) {
				p.bad("lists", "list of %q is not ascending below %d documents at entry %d", terms[id], n, i)
				break
			}
		}
	}
	return lists
}

// checkForward checks the forward index against the rows, the lists, the
// impacts, the frequencies and the lengths, so that no false negative is
// possible and ranking reads what the forward index holds, and returns
// each term's df as the forward index gives it, and the documents of each
// term with shared rows (nil for the others). (With df equal to each
// list's length, every list is then exactly its term's documents.)
func (s *Segment) checkForward(p *segmentProblems, terms []string, lists [][]uint16) ([]int, [][]uint32) {
	n := s.NumDocs()
	df := make([]int, len(terms))
	shared := make([][]uint32, len(terms))
	var post []Posting
	var rows []int
	impacts := make([]byte, len(s.impacts))
	nb := blocksOf(n)
	private := make([][]byte, s.PrivateRows())
	listTF := make([][]byte, len(terms))
	for d := 0; d < n; d++ {
		var err error
		post, err = s.Forward(post[:0], d)
		if err != nil {
			p.errs = append(p.errs, err)
			continue
		}
		if len(post) != s.Doc(d).Distinct {
			p.bad("forward", "document %d has %d terms, its table entry says %d", d, len(post), s.Doc(d).Distinct)
		}
		if dl := s.docRecord(d).tokens(); s.DocTokens(d) != dl {
			p.bad("lengths", "document %d has length %d, its table entry says %d", d, s.DocTokens(d), dl)
		}
		for _, pt := range post {
			df[pt.Term]++

			t := s.Treatment(pt.Term)
			if t.List {
				if _, ok := slices.BinarySearch(lists[pt.Term], uint16(d)); !ok {
					p.bad("lists", "document %d contains %q but its list lacks it", d, terms[pt.Term])
				}
				listTF[pt.Term] = append(listTF[pt.Term], freqByte(pt.TF))
				continue
			}
			if t.Private {
				private[t.Row-1] = append(private[t.Row-1], freqByte(pt.TF))
			} else {
				shared[pt.Term] = append(shared[pt.Term], uint32(d))
			}
			rows = s.rowsOfTerm(rows[:0], terms[pt.Term], pt.Term)
			for _, r := range rows {
				if c := d >> s.RowRank(r); s.Row(r)[c/64]&(1<<(c%64)) == 0 {
					p.bad("rows", "document %d contains %q but row %d lacks its bit", d, terms[pt.Term], r)
				}
				if s.RowRank(r) == 0 {
					at := 2 * ((r-1)*nb + d/bitrow.BlockDocs)
					impact.Add(impacts[at:at+2], int(pt.TF), s.docRecord(d).tokens())
				}
			}
		}
	}
	if !bytes.Equal(impacts, s.impacts) {
		p.bad("impacts", "the largest tf or tf/length of a row's terms in a block differs from the forward index's")
	}
	s.checkFreqs(p, private, listTF)
	return df, shared
}

// checkFalsePositives checks section 15 against the false positives found
// again from the rows and the documents of each term with shared rows
// (shared, from the forward index), so that no document a query counts
// without reading its forward entry is a false one, and none is missed.
func (s *Segment) checkFalsePositives(p *segmentProblems, terms []string, shared [][]uint32) {
	var rows []int
	var rank0, high [][]uint64
	var want []uint32
	isHigh := func(r int) bool { return s.RowRank(r) != 0 }
	covered := len(s.fpDir) - 1
	for id := range terms {
		t := s.Treatment(TermID(id))
		if t.Private || t.List {
			if id < covered && s.fpDir[id] != s.fpDir[id+1] {
				p.bad("falsepositives", "term %q has an exact treatment but false positives", terms[id])
			}
			continue
		}
		rows = s.rowsOfTerm(rows[:0], terms[id], TermID(id))
		rank0, high = byRank(rank0[:0], high[:0], rows, s.Row, isHigh)
		want = falsePositivesOf(want[:0], s.NumDocs(), rank0, high, s.Rank(), shared[id])
		if id >= covered && len(want) > 0 || !slices.Equal(want, s.FalsePositives(Entry{ID: TermID(id)})) {
			p.bad("falsepositives", "the false positives of %q differ from those its rows and its documents give", terms[id])
		}
	}
}

// checkFreqs checks section 13 against the frequencies the forward index
// gives: private[r−1] those of private row r's documents, listTF[id] those
// of term id's list, both in document order.
func (s *Segment) checkFreqs(p *segmentProblems, private [][]byte, listTF [][]byte) {
	var lf []byte
	for id, tf := range listTF {
		if t := s.Treatment(TermID(id)); t.List {
			lf = placeListFreqs(lf, s.List(TermID(id)), t.ListAt, tf)
		}
	}
	sec := s.secs[secFreqs]
	want := encodeFreqs(s.NumDocs(), s.Row, private, lf, len(s.lists))
	if !bytes.Equal(want, s.data[sec.Offset:sec.Offset+sec.Length]) {
		p.bad("frequencies", "the frequencies of the private rows' or the lists' terms differ from the forward index's")
	}
}

// checkStore checks that the stored texts decompress and match their
// hashes and lengths, and that the block table counts each block's
// newlines. It stops at the first block or text that does not decompress.
// Texts are read in order through one reader, so each block is
// decompressed once for them.
func (s *Segment) checkStore(p *segmentProblems) {
	r := s.NewTextReader()
	for b := 0; b < s.hdr.Blocks; b++ {
		if err := r.load(b); err != nil {
			p.errs = append(p.errs, err)
			return
		}
		if n := bytes.Count(r.raw, []byte{'\n'}); n != s.blockNewlines(b) {
			p.bad("blocks", "store block %d holds %d newlines, not the %d its entry counts", b, n, s.blockNewlines(b))
		}
	}
	for d := 0; d < s.NumDocs(); d++ {
		text, err := r.Text(d)
		if err != nil {
			p.errs = append(p.errs, err)
			break
		}
		if info := s.Doc(d); xxhash.Sum64(text) != info.Hash || len(text) != info.TextLen {
			p.bad("store", "text of document %d (%s) does not match its hash", d, info.Key)
		}
	}
}

// checkPositions checks every document's positions against its forward
// entry (each term's tokens number its tf, the count is the document's
// length, marks lie inside its text) and its word pairs against the rows.
func (s *Segment) checkPositions(terms []string, bad func(sec, format string, a ...any)) []error {
	var probs []error
	var post []Posting
	var locals, positions, marks, tfs []uint32
	var count []uint32
	var rows []int
	var pairs []uint64
	var pairPostings int64
	for d := 0; d < s.NumDocs(); d++ {
		var err error
		if post, err = s.Forward(post[:0], d); err != nil {
			continue // reported with the forward index
		}
		e := s.pos[s.posOff[d]:s.posOff[d+1]]
		if locals, positions, marks, err = decodePositionsEntry(e, tfsOf(post, &tfs), locals[:0], positions[:0], marks[:0]); err != nil {
			probs = append(probs, s.badPositions(d, err.Error()))
			continue
		}
		if c, err := s.forwardCursor(d); err == nil {
			// Each skip of the forward entry leads to its term's list.
			_, _, lists, _ := positionsHeader(e)
			off, t := 0, 0
			for j := range c.nskip {
				for ; t < (j+1)*forwardSkip; t++ {
					_, rest, _ := nextList(lists[off:], int(post[t].TF))
					off = len(lists) - len(rest)
				}
				if _, _, po := c.skip(j); po != uint64(off) {
					bad("forward", "document %d: the skip to term %d gives its list at %d, not %d", d, t, po, off)
					break
				}
			}
		}
		info := s.Doc(d)
		if len(locals) != info.Tokens {
			bad("positions", "document %d has %d tokens, its table entry says %d", d, len(locals), info.Tokens)
			continue
		}
		if len(marks) > 0 && int(marks[len(marks)-1]) >= max(1, info.TextLen) {
			bad("positions", "a mark of document %d lies past its text", d)
		}
		count = slices.Grow(count[:0], len(post))[:len(post)]
		clear(count)
		pairs = pairs[:0]
		for i, l := range locals {
			count[l]++
			if i == 0 || positions[i] != positions[i-1]+1 || s.hdr.PairK == 0 {
				continue
			}
			a, b := post[locals[i-1]].Term, post[l].Term
			if !s.PairsIndexed(s.Treatment(a), s.Treatment(b)) {
				continue
			}
			ha, hb := termHash(terms[a]), termHash(terms[b])
			pairs = append(pairs, pairHash(ha, hb))
			rows = s.PairRows(rows[:0], ha, hb)
			for _, r := range rows {
				if s.Row(r)[d/64]&(1<<(d%64)) == 0 {
					bad("rows", "document %d has the pair %q %q but row %d lacks its bit", d, terms[a], terms[b], r)
				}
			}
		}
		for i, p := range post {
			if count[i] != p.TF {
				bad("positions", "document %d has %d tokens of %q, its forward entry says %d", d, count[i], terms[p.Term], p.TF)
			}
		}
		slices.Sort(pairs)
		pairPostings += int64(len(slices.Compact(pairs)))
	}
	if pairPostings != s.hdr.PairPostings {
		bad("params", "%d word pair postings, the positions give %d", s.hdr.PairPostings, pairPostings)
	}
	return probs
}

// VerifyStore checks the store section's checksum, which opening the
// segment leaves to the reads of its blocks.
func (s *Segment) VerifyStore() error { return s.secs[secStore].Check(s.name, s.data) }

// StoreStamp identifies the segment's store: its file's name, and the
// store section's length and checksum, as the section table gives them.
// A store verified once need not be again while its stamp is the same.
func (s *Segment) StoreStamp() string {
	sec := s.secs[secStore]
	return fmt.Sprintf("%s/%d/%08x", s.name, sec.Length, sec.CRC)
}
