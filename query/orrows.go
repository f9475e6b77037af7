package query

import "slices"

// An OR of words is decided from the rows, a candidate at a time, without
// its forward entry: a candidate holds a word exactly when all the word's
// rows (rank 0 and higher) have its bit and, for a word with shared rows,
// it is not among the word's false positives (segment.FalsePositives, found
// against the same rows when the segment was sealed); a word with a
// private row holds wherever its row does. So a count or a ranking of an
// OR reads the forward entries of the candidates it scores, and of those
// only whose words are all lists (which the rows cannot speak for).

// orWord is one word of an OR of words, in the planner's scratch:
// rows[from:mid] are its rank-0 rows and rows[mid:to] its higher-rank ones.
type orWord struct {
	from, mid, to int
	exact         bool     // a private row
	list          bool     // a list: no rows
	fps           []uint32 // shared rows: its false positives
}

// prepareOrWords fills p.orWords when the plan's root is an OR of single
// words (no phrase, no negation, nothing nested), from their lexicon
// entries and hashes in q.
func (pl *plan) prepareOrWords(q *compiled) {
	p := pl.planner
	p.orWords, p.orRows = p.orWords[:0], p.orRows[:0]
	pl.orWords = nil
	n := pl.root
	if n.kind != kOr {
		return
	}
	seg := pl.seg
	for _, k := range n.kids {
		if k.kind != kRows || k.phrase != nil || len(k.slots) != 1 {
			p.orWords = p.orWords[:0]
			return
		}
		slot := k.slots[0]
		term := -1
		for _, sc := range pl.score {
			if sc.slot == slot {
				term = sc.term
			}
		}
		if term < 0 {
			p.orWords = p.orWords[:0]
			return
		}
		e := pl.ents[slot]
		t := e.Treatment()
		w := orWord{from: len(p.orRows), exact: t.Private, list: t.List}
		p.rowBuf = seg.TermRowsOf(p.rowBuf[:0], q.hashes[term], t)
		for _, r := range p.rowBuf {
			if seg.RowRank(r) == 0 {
				p.orRows = append(p.orRows, seg.Row(r))
			}
		}
		w.mid = len(p.orRows)
		for _, r := range p.rowBuf {
			if seg.RowRank(r) != 0 {
				p.orRows = append(p.orRows, seg.Row(r))
			}
		}
		w.to = len(p.orRows)
		if !w.exact && !w.list {
			w.fps = seg.FalsePositives(e)
		}
		if !w.list && w.from == w.to {
			p.orWords = p.orWords[:0] // no rows and no list: nothing to decide by
			return
		}
		p.orWords = append(p.orWords, w)
	}
	pl.orWords = p.orWords
	pl.highRank = seg.Rank()
}

// orDecides reports whether orHit decides every candidate of the plan: it
// is an OR of words none of which is a list.
func (pl *plan) orDecides() bool {
	if pl.orWords == nil {
		return false
	}
	for _, w := range pl.orWords {
		if w.list {
			return false
		}
	}
	return true
}

// orHit decides from the rows whether candidate doc of an OR of words
// (prepareOrWords) is a hit: decided is false when it holds none of the
// words with rows and one of its words is a list, which only verification
// can tell.
func (pl *plan) orHit(doc int) (hit, decided bool) {
	rows := pl.planner.orRows
	w0, bit0 := doc>>6, uint64(1)<<(doc&63)
	hd := doc >> pl.highRank
	wh, bith := hd>>6, uint64(1)<<(hd&63)
	lists := false
	for _, w := range pl.orWords {
		if w.list {
			lists = true
			continue
		}
		in := true
		for _, r := range rows[w.from:w.mid] {
			if r[w0]&bit0 == 0 {
				in = false
				break
			}
		}
		for _, r := range rows[w.mid:w.to] {
			if !in {
				break
			}
			if r[wh]&bith == 0 {
				in = false
			}
		}
		if !in {
			continue
		}
		if w.exact {
			return true, true
		}
		if _, fp := slices.BinarySearch(w.fps, uint32(doc)); !fp {
			return true, true
		}
	}
	return false, !lists
}
