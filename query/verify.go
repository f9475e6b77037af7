package query

import (
	"slices"

	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// verifier decides candidates exactly. It reads the candidate's forward index
// once (the frequencies of every termID the plan uses) and its positions
// only for phrases, after every cheaper condition has passed.
type verifier struct {
	p      *plan
	tf     []uint32 // frequency of each plan slot in the current document
	vtf    []uint32 // scratch for loadVerify
	doc    int
	posr   segment.PositionReader // moved from segment to segment (Reset)
	lists  []segment.PosList      // by slot: position lists in posDoc
	its    []segment.PosIter      // scratch for phraseIn
	posDoc int
}

// newVerifier returns the plan's verifier, reusing its planner's memory
// (a plan of the inverted engine has no planner: its verifier is new).
func newVerifier(p *plan, an *tokenize.Analyzer) *verifier {
	var v *verifier
	if p.planner != nil {
		v = &p.planner.v
	} else {
		v = new(verifier)
	}
	tf, vtf := slices.Grow(v.tf[:0], len(p.ids))[:len(p.ids)], slices.Grow(v.vtf[:0], len(p.vids))[:len(p.vids)]
	clear(tf)
	clear(vtf)
	*v = verifier{p: p, tf: tf, vtf: vtf, posr: v.posr, lists: v.lists, its: v.its, posDoc: -1}
	return v
}

// readAhead is how many candidates ahead of the one looked up ahead keeps
// the forward entries prefetched; their offsets are prefetched twice as
// far ahead.
const readAhead = 8

// ahead prefetches, before docs[i] is looked up, the forward entry of
// docs[i+readAhead] and the offset of docs[i+2·readAhead] (at the first,
// those of all the documents before them), so that the cache misses of the
// next candidates overlap the lookups of this one, where lookup after
// lookup would wait for each document's offset and then its entry
// (segment.PrefetchForward). A loop over candidates whose forward entries
// it reads calls it at each one; with lengths, a ranking loop, which reads
// each candidate's length too, it prefetches that beside the entry; a plan
// with a phrase has the head of each positions entry prefetched too.
func (v *verifier) ahead(docs []int32, i int, lengths bool) {
	prefetchAhead(v.p.seg, docs, i, lengths, v.p.phrases)
}

// prefetchAhead is verifier.ahead for a loop over the documents docs of
// seg, with their positions entries when positions is set.
func prefetchAhead(seg *segment.Segment, docs []int32, i int, lengths, positions bool) {
	if i == 0 {
		seg.PrefetchForwardOffsets(docs[:min(2*readAhead+1, len(docs))])
		if positions {
			seg.PrefetchPositionOffsets(docs[:min(2*readAhead+1, len(docs))])
		}
		seg.PrefetchForward(docs[:min(readAhead+1, len(docs))])
		if lengths {
			seg.PrefetchLengths(docs[:min(readAhead+1, len(docs))])
		}
		if positions {
			seg.PrefetchPositions(docs[:min(readAhead+1, len(docs))])
		}
		return
	}
	if j := i + 2*readAhead; j < len(docs) {
		seg.PrefetchForwardOffsets(docs[j : j+1])
		if positions {
			seg.PrefetchPositionOffsets(docs[j : j+1])
		}
	}
	if j := i + readAhead; j < len(docs) {
		seg.PrefetchForward(docs[j : j+1])
		if lengths {
			seg.PrefetchLengths(docs[j : j+1])
		}
		if positions {
			seg.PrefetchPositions(docs[j : j+1])
		}
	}
}

// prefetchLengthsAhead prefetches, before docs[i] is scored, the length of
// docs[i+readAhead] (at the first, those of all the documents before it),
// for a ranking loop that reads no forward entry.
func prefetchLengthsAhead(seg *segment.Segment, docs []int32, i int) {
	if i == 0 {
		seg.PrefetchLengths(docs[:min(readAhead+1, len(docs))])
	} else if j := i + readAhead; j < len(docs) {
		seg.PrefetchLengths(docs[j : j+1])
	}
}

// loadVerify reads only the frequencies verification needs (those of terms
// with shared rows) into tf. When the plan has a phrase, it finds the
// position lists of every term instead, in the same walk of the forward
// entry, and the frequencies are their lengths.
func (v *verifier) loadVerify(doc int) error {
	v.doc = doc
	if v.p.phrases {
		if err := v.readPositions(); err != nil {
			return err
		}
		for _, sl := range v.p.vslots {
			v.tf[sl] = uint32(v.lists[sl].Len())
		}
		return nil
	}
	if err := v.p.seg.ForwardLookup(doc, v.p.vids, v.vtf); err != nil {
		return err
	}
	for i, sl := range v.p.vslots {
		v.tf[sl] = v.vtf[i]
	}
	return nil
}

// readPositions finds the position lists of the plan's terms in the
// current document, once.
func (v *verifier) readPositions() error {
	if v.posDoc == v.doc {
		return nil
	}
	v.posr.Reset(v.p.seg)
	v.lists = slices.Grow(v.lists[:0], len(v.p.ids))[:len(v.p.ids)]
	if err := v.posr.ReadLists(v.doc, v.p.ids, v.lists); err != nil {
		return err
	}
	v.posDoc = v.doc
	return nil
}

// load reads the frequencies of the plan's terms in doc.
func (v *verifier) load(doc int) error {
	v.doc = doc
	if v.p.phrases && v.posDoc == doc {
		for sl := range v.tf {
			v.tf[sl] = uint32(v.lists[sl].Len())
		}
		return nil
	}
	return v.p.seg.ForwardLookup(doc, v.p.ids, v.tf)
}

// loadDirect reads the frequencies of the plan's scored terms in doc into
// tf from where the segment keeps them beside its bits (plan.direct), and
// reports whether it could: a tf of 255 or more is only in the forward
// index (load). The other slots are left as they are: an exact plan
// verifies nothing, and ranks on its scored terms alone.
func (v *verifier) loadDirect(doc int) bool {
	for i, sc := range v.p.score {
		tf, ok := v.p.freqs[i].Of(doc)
		if !ok {
			return false
		}
		v.tf[sc.slot] = tf
	}
	v.doc = doc
	return true
}

// falsePositives returns, when the plan is a conjunction of words (a rows
// node without a phrase) of which some have shared rows, the documents
// that the rows of those words admit without holding them
// (segment.FalsePositives), ascending. A candidate of such a plan has
// passed every row of every word, so it is a hit exactly when it is not
// among them, which a count learns without its forward entry. ok is false
// for any other plan.
func (p *plan) falsePositives() (fps []uint32, ok bool) {
	if !p.knowsFalsePositives() {
		return nil, false
	}
	if n := p.root; !p.fpsMerged {
		fps := p.planner.fps[:0]
		for _, sl := range n.vslots {
			fps = append(fps, p.seg.FalsePositives(p.ents[sl])...)
		}
		if len(n.vslots) > 1 {
			slices.Sort(fps)
			fps = slices.Compact(fps)
		}
		p.planner.fps, p.fpsMerged = fps, true
	}
	return p.planner.fps, true
}

// knowsFalsePositives reports whether the plan's false positives decide its
// candidates (falsePositives), without reading them.
func (p *plan) knowsFalsePositives() bool {
	n := p.root
	return n.kind == kRows && n.phrase == nil && !n.exact
}

// falsePositive reports whether candidate doc of a plan with false
// positives fps (plan.falsePositives) is one of them.
func falsePositive(fps []uint32, doc int) bool {
	_, found := slices.BinarySearch(fps, uint32(doc))
	return found
}

// falseIn counts the documents of c, ascending, that are among the false
// positives fps (plan.falsePositives).
func falseIn(c []int32, fps []uint32) int {
	n, j := 0, 0
	for _, d := range c {
		for j < len(fps) && int(fps[j]) < int(d) {
			j++
		}
		if j == len(fps) {
			break
		}
		if int(fps[j]) == int(d) {
			n++
		}
	}
	return n
}

// check evaluates the plan exactly for the loaded document.
func (v *verifier) check(n *pnode) (bool, error) {
	if n.exact {
		return v.bits(n), nil
	}
	switch n.kind {
	case kRows:
		// The bits prove the terms with private rows or lists (the candidate
		// may have come through another branch of an OR, so they are
		// tested); the forward index decides the terms with shared rows.
		if !v.bits(n) {
			return false, nil
		}
		for _, sl := range n.vslots {
			if v.tf[sl] == 0 {
				return false, nil
			}
		}
		if n.phrase != nil {
			return v.phrase(n)
		}
		return true, nil
	case kAnd:
		for _, k := range n.negs {
			if v.bits(k) {
				return false, nil
			}
		}
		for _, k := range n.kids {
			ok, err := v.check(k)
			if !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	case kOr:
		for _, k := range n.kids {
			ok, err := v.check(k)
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	case kNot:
		ok, err := v.check(n.kids[0])
		return !ok && err == nil, err
	}
	return n.kind == kAll, nil
}

// bits evaluates an exact node from its rows alone.
func (v *verifier) bits(n *pnode) bool {
	w, bit := v.doc/64, uint64(1)<<(v.doc%64)
	switch n.kind {
	case kNone:
		return false
	case kAll:
		return true
	case kRows:
		for _, r := range n.rows {
			if r[w]&bit == 0 {
				return false
			}
		}
		for _, l := range n.lists {
			if !l.list.Contains(v.doc) {
				return false
			}
		}
		return true
	case kAnd:
		for _, k := range n.negs {
			if v.bits(k) {
				return false
			}
		}
		for _, k := range n.kids {
			if !v.bits(k) {
				return false
			}
		}
		return true
	case kOr:
		for _, k := range n.kids {
			if v.bits(k) {
				return true
			}
		}
		return false
	case kNot:
		return !v.bits(n.kids[0])
	}
	return false
}

// phrase checks a phrase node against the document's stored positions:
// its terms at the phrase's offsets. The position lists of every term of
// the plan are found once per document, and decoded only as far as each
// phrase needs (phraseIn).
func (v *verifier) phrase(n *pnode) (bool, error) {
	if err := v.readPositions(); err != nil {
		return false, err
	}
	found, bad := phraseIn(v.lists, n.slots, n.phrase.Offsets, &v.its)
	if bad {
		return false, v.posr.Corrupt(v.doc)
	}
	return found, nil
}

// phraseIn reports whether the terms of a phrase occur at its offsets:
// lists holds each slot's positions and slots[j] is the slot of the
// phrase's term j. It decodes the lists only as far as the phrase's first
// occurrence needs (a document that holds it mostly holds it early); bad
// reports a list that does not decode. its is scratch.
func phraseIn(lists []segment.PosList, slots, offsets []int, its *[]segment.PosIter) (found, bad bool) {
	start, bad := firstPhrase(lists, slots, offsets, its)
	return start >= 0, bad
}

// firstPhrase returns the position where the phrase phraseIn looks for
// first starts, or -1 when it does not occur.
func firstPhrase(lists []segment.PosList, slots, offsets []int, its *[]segment.PosIter) (start int, bad bool) {
	// Anchor on the term with the fewest positions.
	a := 0
	for j := range slots {
		if lists[slots[j]].Len() < lists[slots[a]].Len() {
			a = j
		}
	}
	it := (*its)[:0]
	for _, sl := range slots {
		it = append(it, lists[sl].Iter())
	}
	*its = it
	for {
		pa, ok := it[a].Next()
		if !ok {
			return -1, it[a].Bad()
		}
		start := int(pa) - offsets[a]
		if start < 0 {
			continue
		}
		match := true
		for j := range slots {
			if j == a {
				continue
			}
			want := uint32(start + offsets[j])
			p, ok := it[j].Seek(want)
			if !ok {
				// Term j has no position at or after want, so none
				// for a later start either.
				return -1, it[j].Bad()
			}
			if p != want {
				match = false
				break
			}
		}
		if match {
			return start, false
		}
	}
}
