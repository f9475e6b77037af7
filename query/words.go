package query

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// A conjunction of words is the commonest query: `white whale`, a package
// title, a collocation; a phrase, or words and phrases together, are
// conjunctions too, with the phrases' positions to check. In a segment
// where one of its words has a list (the rarest tail, segment.Treatment),
// its candidates are that list's documents, a few dozen at most, and
// planning the segment's rows and ranking its blocks would cost more than
// the documents themselves. Such a visit (searchWords) walks the shortest
// list document by document and tests each one against the other words:
// another list is merged with the documents (doclist.List.Filter), a
// private row has the document's bit tested, and so has each row of a word
// with shared rows, rank-r rows first, and each row of a phrase's word
// pairs. The documents that pass are then verified, as every plan
// verifies them: against the forward index for the words with shared
// rows, or, when there is a phrase, against the stored positions of every
// word. They are scored with BM25 from the same frequencies, added in the
// same order, so the results are those of the plans to the last bit.

// wordTerm is one word of a conjunction in the segment being visited.
type wordTerm struct {
	ti    int           // its index in the compiled query
	list  bool          // a list: exact, frequencies in freqs
	docs  doclist.List  // the list's documents
	row   []uint64      // a private row: exact, frequencies in freqs
	freqs segment.Freqs // a ranked visit's, once prepared
	// A word with shared rows: its rows of rank 0 and of the segment's
	// higher rank, as wordsVisit.rows[rows[0]:rows[1]] and [rows[1]:rows[2]],
	// and its index in wordsVisit.vids (ascending once prepared; -1 for
	// the other words).
	rows [3]int
	vi   int
	fps  []uint32 // its false positives (segment.FalsePositives), for a count
}

// shared reports whether the word has shared rows (and so is verified).
func (t *wordTerm) shared() bool { return t.vi >= 0 }

// wordPhrase is a phrase of the conjunction in the segment being visited:
// its words' terms (indexes into wordsVisit.terms) and offsets, and the
// rows of its word pairs, wordsVisit.rows[rows[0]:rows[1]].
type wordPhrase struct {
	slots   []int
	offsets []int
	rows    [2]int
}

// wordsVisit is the memory of searchWords, reused across segments and
// queries (wordsVisits).
type wordsVisit struct {
	terms    []wordTerm // in the query's order
	order    []int      // the terms other than the driver, in the order they are tested
	orderKey []uint64   // the key order is sorted by: class << 32 | df
	drv      int        // the term whose list drives the visit
	rows     [][]uint64 // the shared rows of every term
	rowBuf   []int
	cands    []int32          // documents that passed every word's bits
	filters  []rowFilter      // the rows match tests the candidates against, in order
	vids     []segment.TermID // the termIDs of the words with shared rows
	vterm    []int            // by vids index: its term
	vtf      []uint32
	// Every word's termID, for a frequency only the forward index holds
	// and for a phrase's positions, ascending once idsSorted (sortIDs).
	ids       []segment.TermID
	iterm     []int
	idsSorted bool
	itf       []uint32
	tf        []uint32 // by term: the frequencies of the document being scored

	phrases []wordPhrase
	slots   []int // the phrases' slots
	posr    segment.PositionReader
	lists   []segment.PosList // by ids index: the position lists of a candidate
	tlists  []segment.PosList // the same by term
	its     []segment.PosIter // scratch for phraseIn
}

var wordsVisits = sync.Pool{New: func() any { return new(wordsVisit) }}

// tfForward marks a frequency the segment keeps only in its forward index
// (segment.Freqs.Of: 255 or more).
const tfForward = math.MaxUint32

// conjunctionOfWords reports whether a query is words and phrases alone,
// each required: one Term or Phrase, or an And of them.
func conjunctionOfWords(root Node) bool {
	switch x := root.(type) {
	case *Term, *Phrase:
		return true
	case *And:
		for _, c := range x.Children {
			switch c.(type) {
			case *Term, *Phrase:
			default:
				return false
			}
		}
		return len(x.Children) > 0
	}
	return false
}

// listIn reports whether a word of the compiled query has a list in
// segment si.
func (q *compiled) listIn(si int) bool {
	for i := range q.terms {
		if q.ents[i][si].Treatment().List {
			return true
		}
	}
	return false
}

// searchWords searches segment si for a conjunction of words (q.words)
// one of which has a list there, keeping the k best hits in top (k = 0
// counts), in the memory of w (a worker's, for all the segments it visits).
// Its time starts at t0, as searchSegment's does, and it returns the clock
// at its end.
func (s *Searcher) searchWords(ctx context.Context, w *wordsVisit, seg *segment.Segment, si int, q *compiled, k int, avgdl float64, top *topK, floor *scoreFloor, t0 time.Duration) (segResult, time.Duration) {
	var r segResult
	w.setup(seg, si, q)
	w.match(seg)
	r.candidates = len(w.cands)
	t1 := clock()
	r.match = t1 - t0
	r.err = w.verifyRank(ctx, seg, si, q, k, avgdl, top, floor, &r)
	end := clock()
	if k > 0 {
		r.rank = end - t1
	} else {
		r.verify = end - t1
	}
	return r, end
}

// setup gathers the words' structures in seg, the shortest list (the
// driver, whose documents match decodes), and the order the other words
// are tested in: lists, then private rows, then shared rows, each the
// rarest first.
func (w *wordsVisit) setup(seg *segment.Segment, si int, q *compiled) {
	w.terms, w.rows, w.vids, w.vterm, w.ids, w.iterm = w.terms[:0], w.rows[:0], w.vids[:0], w.vterm[:0], w.ids[:0], w.iterm[:0]
	shortest := math.MaxInt
	for ti := range q.terms {
		e := q.ents[ti][si]
		tr := e.Treatment()
		t := wordTerm{ti: ti, vi: -1}
		switch {
		case tr.List:
			t.list = true
			t.docs = seg.ListOf(e)
			if e.DF < shortest {
				w.drv, shortest = len(w.terms), e.DF
			}
		case tr.Private:
			t.row = seg.Row(tr.Row)
		default:
			w.rowBuf = seg.TermRowsOf(w.rowBuf[:0], q.hashes[ti], tr)
			t.rows[0] = len(w.rows)
			for _, r := range w.rowBuf {
				if seg.RowRank(r) == 0 {
					w.rows = append(w.rows, seg.Row(r))
				}
			}
			t.rows[1] = len(w.rows)
			for _, r := range w.rowBuf {
				if seg.RowRank(r) != 0 {
					w.rows = append(w.rows, seg.Row(r))
				}
			}
			t.rows[2] = len(w.rows)
			t.vi = len(w.vids)
			w.vids, w.vterm = append(w.vids, e.ID), append(w.vterm, len(w.terms))
		}
		w.ids, w.iterm = append(w.ids, e.ID), append(w.iterm, len(w.terms))
		w.terms = append(w.terms, t)
	}
	w.idsSorted = false
	w.setupPhrases(seg, si, q)
	if len(w.phrases) > 0 {
		w.sortIDs() // for the position lists of every candidate
	}

	// The order: by class (list, private row, shared rows), then by df,
	// ties in the query's order, as one key each, sorted by insertion.
	w.order, w.orderKey = w.order[:0], w.orderKey[:0]
	for i := range w.terms {
		if i == w.drv {
			continue
		}
		class := uint64(2)
		switch t := &w.terms[i]; {
		case t.list:
			class = 0
		case t.row != nil:
			class = 1
		}
		key := class<<32 | uint64(q.ents[w.terms[i].ti][si].DF)
		j := len(w.order)
		w.order, w.orderKey = append(w.order, i), append(w.orderKey, key)
		for ; j > 0 && w.orderKey[j-1] > key; j-- {
			w.order[j], w.orderKey[j] = w.order[j-1], w.orderKey[j-1]
		}
		w.order[j], w.orderKey[j] = i, key
	}
}

// prepare readies what verifyRank needs beyond what match does: for a
// ranked visit the frequencies of the words with lists or private rows,
// the termIDs of the words with shared rows in ascending order (each
// word's index among them), and the buffers of frequencies. Most visits
// leave no candidate, and skip it.
func (w *wordsVisit) prepare(seg *segment.Segment, si int, q *compiled, k int) {
	if k > 0 {
		for i := range w.terms {
			if t := &w.terms[i]; !t.shared() {
				t.freqs, _ = seg.FreqsOf(q.ents[t.ti][si])
			}
		}
	}
	sortIDs(w.vids, w.vterm)
	for i, ti := range w.vterm {
		w.terms[ti].vi = i
	}
	n := len(w.terms)
	w.vtf = growUint32(w.vtf, len(w.vids))
	w.itf = growUint32(w.itf, n)
	w.tf = growUint32(w.tf, n)
}

// setupPhrases gathers the phrases of the query, and the rows of their
// word pairs that seg indexes (two words at consecutive offsets, at least
// one with a private row; index.Params.PairK), as a phrase's plan has them.
func (w *wordsVisit) setupPhrases(seg *segment.Segment, si int, q *compiled) {
	w.phrases, w.slots = w.phrases[:0], w.slots[:0]
	var phrases [8]*Phrase
	ps := phrases[:0]
	switch x := q.root.(type) {
	case *Phrase:
		ps = append(ps, x)
	case *And:
		for _, c := range x.Children {
			if p, ok := c.(*Phrase); ok {
				ps = append(ps, p)
			}
		}
	}
	for _, x := range ps {
		from := len(w.slots)
		for _, t := range x.Terms {
			w.slots = append(w.slots, q.termIndex(t)) // terms are in the query's order
		}
		ph := wordPhrase{slots: w.slots[from:len(w.slots):len(w.slots)], offsets: x.Offsets}
		ph.rows[0] = len(w.rows)
		for j := 1; j < len(x.Terms); j++ {
			if x.Offsets[j] != x.Offsets[j-1]+1 {
				continue
			}
			a, b := ph.slots[j-1], ph.slots[j]
			if !seg.PairsIndexed(q.ents[a][si].Treatment(), q.ents[b][si].Treatment()) {
				continue
			}
			w.rowBuf = seg.PairRows(w.rowBuf[:0], q.hashes[a], q.hashes[b])
			for _, r := range w.rowBuf {
				w.rows = append(w.rows, seg.Row(r))
			}
		}
		ph.rows[1] = len(w.rows)
		w.phrases = append(w.phrases, ph)
	}
	if len(w.phrases) > 0 {
		w.posr.Reset(seg)
		w.lists = slices.Grow(w.lists[:0], len(w.ids))[:len(w.ids)]
		w.tlists = slices.Grow(w.tlists[:0], len(w.terms))[:len(w.terms)]
	}
}

// match lists the driver's live documents that every other word's bits
// admit, in w.cands: the other words in turn (w.order: lists, then private
// rows, then shared rows, each the rarest first, a word's rows of the
// segment's higher rank before those of rank 0), then the rows of the
// phrases' word pairs, each filtering the documents left by the ones before.
//
// A row filters without a branch on its bits (filterRow), so the tests of
// all the documents left overlap their cache misses, where testing each
// document against every row in turn would wait on the miss of each
// mispredicted test: a shared row holds the bits of about a fifth of the
// documents, at random, which no predictor learns. Once few documents are
// left, the rows still to test are tested together (filterRows): a row at
// a time, each row's pass waits for the misses of the pass before (its
// documents are those that pass left), where together every bit of every
// document left is asked for at once.
func (w *wordsVisit) match(seg *segment.Segment) {
	cands := w.terms[w.drv].docs.AppendDocs(w.cands[:0])
	if seg.NumDeleted() > 0 {
		cands = filterRow(cands, seg.Live(), 0)
	}
	rank := uint(seg.Rank())
	filters := w.filters[:0]
	for _, i := range w.order {
		t := &w.terms[i]
		switch {
		case t.list: // lists come first in w.order: they filter before any row
			cands = t.docs.Filter(cands)
		case t.row != nil:
			filters = append(filters, rowFilter{t.row, 0})
		default:
			for _, r := range w.rows[t.rows[1]:t.rows[2]] {
				filters = append(filters, rowFilter{r, rank})
			}
			for _, r := range w.rows[t.rows[0]:t.rows[1]] {
				filters = append(filters, rowFilter{r, 0})
			}
		}
	}
	for i := range w.phrases {
		ph := &w.phrases[i]
		for _, r := range w.rows[ph.rows[0]:ph.rows[1]] {
			filters = append(filters, rowFilter{r, 0})
		}
	}
	for i, f := range filters {
		if len(cands) <= rowsTogether {
			cands = filterRows(cands, filters[i:])
			break
		}
		cands = filterRow(cands, f.row, f.shift)
	}
	w.filters = filters
	w.cands = cands
}

// rowsTogether is how few documents left make match test the rows left
// together (filterRows). With more, a row at a time passes fewer documents
// to the next row, which pays: the first rows rule out most of them.
const rowsTogether = 8

// pageAhead is how few candidates of a ranked visit have their document
// records prefetched before they are scored (verifyRank).
const pageAhead = 32

// rowFilter is a row a visit's candidates must have their bit set in, and
// its rank (the shift from a document to its bit).
type rowFilter struct {
	row   []uint64
	shift uint
}

// filterRow keeps, in place, the documents d of docs whose bit d >> shift
// of row is set (shift: the row's rank), without a branch on the bits.
func filterRow(docs []int32, row []uint64, shift uint) []int32 {
	j := 0
	for _, d := range docs {
		h := uint(d) >> shift
		docs[j] = d
		j += int(row[h>>6] >> (h & 63) & 1)
	}
	return docs[:j]
}

// filterRows keeps, in place, the documents of docs whose bits are set in
// every one of rows (filterRow), reading all the bits of a document before
// deciding it, so that their loads do not wait on each other.
func filterRows(docs []int32, rows []rowFilter) []int32 {
	j := 0
	for _, d := range docs {
		bit := uint64(1)
		for _, f := range rows {
			h := uint(d) >> f.shift
			bit &= f.row[h>>6] >> (h & 63)
		}
		docs[j] = d
		j += int(bit & 1)
	}
	return docs[:j]
}

// verifyRank verifies the candidates against the forward index, when a
// word has shared rows (against the words' false positives, for a count),
// or their positions, when there is a phrase, counts the hits into r and,
// when k > 0, scores them into top.
func (w *wordsVisit) verifyRank(ctx context.Context, seg *segment.Segment, si int, q *compiled, k int, avgdl float64, top *topK, floor *scoreFloor, r *segResult) error {
	if len(w.cands) == 0 {
		return nil
	}
	w.prepare(seg, si, q, k)
	verify := len(w.vids) > 0
	// A count with enough candidates reads the false positives of the
	// words with shared rows instead of each candidate's forward entry.
	known := k == 0 && len(w.cands) >= falseFrom*len(w.vids)
	if known {
		for i := range w.terms {
			if t := &w.terms[i]; t.shared() {
				t.fps = seg.FalsePositives(q.ents[t.ti][si])
			}
		}
	}
	if k > 0 && len(w.cands) <= pageAhead {
		// A hit that ties another's score is ordered by its key, which
		// its document record locates: asked for now, the records of a
		// few candidates arrive while they are verified and scored (and
		// are at hand for the page).
		for _, d := range w.cands {
			seg.PrefetchDoc(int(d))
		}
	}
	for ci, doc := range w.cands {
		if ci%deadlineStride == deadlineStride-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		d := int(doc)
		if len(w.phrases) > 0 {
			prefetchAhead(seg, w.cands, ci, k > 0, true)
			ok, err := w.checkPositions(d)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			r.hits++
			if k > 0 {
				w.score(seg, si, d, q, avgdl, top, floor, r)
			}
			continue
		}
		if verify && known {
			// A count reads no frequency: the false positives of the
			// words with shared rows decide.
			if !w.falsePositive(d) {
				r.hits++
			}
			continue
		}
		if verify {
			prefetchAhead(seg, w.cands, ci, k > 0, false)
			if err := seg.ForwardLookup(d, w.vids, w.vtf); err != nil {
				return err
			}
			if slices.Contains(w.vtf, 0) {
				continue // a false positive of the shared rows
			}
		} else if k > 0 {
			prefetchLengthsAhead(seg, w.cands, ci)
		}
		r.hits++
		if k == 0 {
			continue
		}
		// A list's or a private row's frequency is read here, for the few
		// documents left: match's filters keep none, so that they move
		// documents alone.
		forward := false
		for i := range w.terms {
			t := &w.terms[i]
			var f uint32
			if t.shared() {
				f = w.vtf[t.vi]
			} else {
				var ok bool
				if f, ok = t.freqs.Of(d); !ok {
					f = tfForward
				}
			}
			forward = forward || f == tfForward
			w.tf[i] = f
		}
		if forward {
			w.sortIDs()
			if err := seg.ForwardLookup(d, w.ids, w.itf); err != nil {
				return err
			}
			for j, i := range w.iterm {
				w.tf[i] = w.itf[j]
			}
		}
		w.score(seg, si, d, q, avgdl, top, floor, r)
	}
	return nil
}

// falsePositive reports whether candidate d, which every word's bits
// admit, is a false positive of a word with shared rows: whether it lacks
// one of them.
func (w *wordsVisit) falsePositive(d int) bool {
	for i := range w.terms {
		if t := &w.terms[i]; t.shared() && falsePositive(t.fps, d) {
			return true
		}
	}
	return false
}

// checkPositions finds the position lists of every word in document d,
// their lengths its frequencies (w.tf), and reports whether d holds every
// word and every phrase at its offsets.
func (w *wordsVisit) checkPositions(d int) (bool, error) {
	if err := w.posr.ReadLists(d, w.ids, w.lists); err != nil {
		return false, err
	}
	for j, i := range w.iterm {
		w.tlists[i] = w.lists[j]
		w.tf[i] = uint32(w.lists[j].Len())
		if w.tf[i] == 0 {
			return false, nil
		}
	}
	for i := range w.phrases {
		ph := &w.phrases[i]
		found, bad := phraseIn(w.tlists, ph.slots, ph.offsets, &w.its)
		if bad {
			return false, w.posr.Corrupt(d)
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

// score scores document d of segment si from the frequencies in w.tf and
// keeps it in top if it is among the best.
func (w *wordsVisit) score(seg *segment.Segment, si, d int, q *compiled, avgdl float64, top *topK, floor *scoreFloor, r *segResult) {
	norm := bm25Norm(seg.DocTokens(d), avgdl)
	score := 0.0
	for i := range w.terms {
		score += bm25Term(q.idf[w.terms[i].ti], w.tf[i], norm)
	}
	r.scored++
	top.push(scored{score: score, seg: int32(si), doc: int32(d)})
	if len(top.items) == top.k {
		floor.raise(top.items[0].score)
	}
}

// sortIDs sorts w.ids ascending, moving w.iterm with them, once for the
// segment: few visits need them sorted.
func (w *wordsVisit) sortIDs() {
	if !w.idsSorted {
		sortIDs(w.ids, w.iterm)
		w.idsSorted = true
	}
}

// sortIDs sorts ids ascending, moving terms with them (a query's few
// words: by insertion).
func sortIDs(ids []segment.TermID, terms []int) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
			terms[j], terms[j-1] = terms[j-1], terms[j]
		}
	}
}

// growUint32 returns s resized to n, zeroed.
func growUint32(s []uint32, n int) []uint32 {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}
