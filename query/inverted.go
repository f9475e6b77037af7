package query

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// The inverted engine answers from roaring postings (index/inverted) instead
// of signatures. Everything but the per-segment match stage is shared with
// the signature engine: parsing, global statistics, BM25, top-k, snippets.
// A segment's query is compiled with the planner's rules (a term missing from
// the dictionary empties its conjunction, a negation of nothing matches
// everything, the same terms are scored in the same order, so scores are
// bit-for-bit equal), then evaluated exactly over bitmaps: a conjunction with
// FastAnd, smallest bitmap first, then AndNot of its negations; a disjunction
// with FastOr; a prefix as the FastOr of its expansions; a phrase as the AND
// of its terms, checked against the stored positions by the verifier's
// phrase code. Postings need no verification: Candidates equals Total, except for
// phrases, whose candidates are the documents holding all their words.

// NewInvertedSearcher returns a Searcher over ix whose match stage reads
// inv's postings; inv must have been built or opened for ix.
func NewInvertedSearcher(ix *index.Index, inv *inverted.Index) (*Searcher, error) {
	if inv == nil || inv.Base() != ix || len(inv.Segments()) != len(ix.Segments()) {
		return nil, errors.New("query: the postings were not opened for this index")
	}
	s, err := NewSearcher(ix)
	if err != nil {
		return nil, err
	}
	s.inv = inv
	return s, nil
}

// Engine names the Searcher's match stage: "signature" or "inverted".
func (s *Searcher) Engine() string {
	if s.inv != nil {
		return "inverted"
	}
	return "signature"
}

type ikind uint8

const (
	iNone   ikind = iota // matches nothing in this segment
	iAll                 // every live document
	iTerm                // one term's postings
	iPhrase              // the AND of its terms' postings, positions checked
	iAnd                 // kids AND, then AND NOT negs
	iOr                  // any kid
	iNot                 // every document but kids[0]'s
)

// inode is a node of a query compiled for one segment's postings.
type inode struct {
	kind   ikind
	bm     *roaring.Bitmap   // iTerm
	terms  []*roaring.Bitmap // iPhrase: postings of its distinct terms
	phrase *Phrase
	ids    []segment.TermID // iPhrase: the termID of each of the phrase's terms
	kids   []*inode
	negs   []*inode
}

// invEval compiles and evaluates a query over one segment's postings.
type invEval struct {
	seg      *segment.Segment
	post     *inverted.Segment
	slotOf   map[segment.TermID]int
	ids      []segment.TermID
	scoreSet map[int]bool
	score    []scoreSlot
	bytes    int64 // serialized postings read
	an       *tokenize.Analyzer
	universe *roaring.Bitmap
	phraseT  time.Duration // spent deciding inexact (phrase) matches
	ph       phraseReader
}

func newInvEval(seg *segment.Segment, post *inverted.Segment, an *tokenize.Analyzer) *invEval {
	return &invEval{seg: seg, post: post, an: an, slotOf: map[segment.TermID]int{}, scoreSet: map[int]bool{}}
}

// invEvals recycles evaluators, their maps and slices, across segments and
// queries, as planners are recycled: the baseline pays for matching, not for
// bookkeeping the signature engine does not pay either.
var invEvals = sync.Pool{New: func() any {
	return &invEval{slotOf: map[segment.TermID]int{}, scoreSet: map[int]bool{}}
}}

// getInvEval takes an evaluator from the pool, emptied for seg.
func getInvEval(seg *segment.Segment, post *inverted.Segment, an *tokenize.Analyzer) *invEval {
	e := invEvals.Get().(*invEval)
	clear(e.slotOf)
	clear(e.scoreSet)
	*e = invEval{seg: seg, post: post, an: an, slotOf: e.slotOf, scoreSet: e.scoreSet, ids: e.ids[:0], score: e.score[:0], ph: e.ph}
	return e
}

func (e *invEval) postings(id segment.TermID) (*roaring.Bitmap, error) {
	e.bytes += int64(e.post.SizeOf(id))
	return e.post.Postings(id)
}

// scoreTerm records a positive term for BM25, as the planner does.
func (e *invEval) scoreTerm(term string, id segment.TermID, q *compiled) {
	sl, ok := e.slotOf[id]
	if !ok {
		sl = len(e.ids)
		e.slotOf[id] = sl
		e.ids = append(e.ids, id)
	}
	if g := q.termIndex(term); !e.scoreSet[g] {
		e.scoreSet[g] = true
		e.score = append(e.score, scoreSlot{slot: sl, term: g})
	}
}

// leaf compiles terms that must all be present: a term or a phrase.
func (e *invEval) leaf(terms []string, negated bool, q *compiled) (*inode, error) {
	var bms []*roaring.Bitmap
	for i, t := range terms {
		ent, ok := q.lookup(e.seg, t)
		id := ent.ID
		if !ok {
			if !negated { // scored all the same, as the planner does
				for _, u := range terms {
					if ue, ok := q.lookup(e.seg, u); ok {
						e.scoreTerm(u, ue.ID, q)
					}
				}
			}
			return &inode{kind: iNone}, nil
		}
		if !negated {
			e.scoreTerm(t, id, q)
		}
		if slices.Contains(terms[:i], t) {
			continue
		}
		bm, err := e.postings(id)
		if err != nil {
			return nil, err
		}
		bms = append(bms, bm)
	}
	if len(bms) == 1 {
		return &inode{kind: iTerm, bm: bms[0]}, nil
	}
	return &inode{kind: iPhrase, terms: bms}, nil
}

// compile builds the node of node for this segment's postings; negated
// says whether node is under an odd number of negations (its terms are
// then not scored).
func (e *invEval) compile(node Node, negated bool, q *compiled) (*inode, error) {
	switch x := node.(type) {
	case *Term:
		return e.leaf([]string{x.Term}, negated, q)
	case *Phrase:
		return e.compilePhrase(x, negated, q)
	case *Prefix:
		return e.compilePrefix(x, negated, q)
	case *Not:
		k, err := e.compile(x.Child, !negated, q)
		if err != nil {
			return nil, err
		}
		switch k.kind {
		case iNone:
			return &inode{kind: iAll}, nil
		case iAll:
			return &inode{kind: iNone}, nil
		}
		return &inode{kind: iNot, kids: []*inode{k}}, nil
	case *And:
		return e.compileAnd(x, negated, q)
	case *Or:
		var kids []*inode
		for _, c := range x.Children {
			k, err := e.compile(c, negated, q)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k)
		}
		return or(kids), nil
	}
	return nil, fmt.Errorf("query: unknown node %T", node)
}

// compilePhrase builds a phrase's iPhrase node: the postings of its
// distinct terms, and the termID of each of its terms for the positions
// check (a phrase of one term repeated is a phrase all the same).
func (e *invEval) compilePhrase(x *Phrase, negated bool, q *compiled) (*inode, error) {
	n, err := e.leaf(x.Terms, negated, q)
	if err == nil && n.kind != iNone {
		if n.kind == iTerm { // a phrase of one distinct term, repeated
			n = &inode{kind: iPhrase, terms: []*roaring.Bitmap{n.bm}}
		}
		n.phrase = x
		for _, t := range x.Terms {
			ent, _ := q.lookup(e.seg, t)
			n.ids = append(n.ids, ent.ID)
		}
	}
	return n, err
}

// compilePrefix builds the OR of the postings of a prefix's expansions that
// this segment holds.
func (e *invEval) compilePrefix(x *Prefix, negated bool, q *compiled) (*inode, error) {
	var kids []*inode
	for _, term := range q.prefixes[x.Prefix] {
		ent, ok := q.lookup(e.seg, term)
		if !ok {
			continue
		}
		if !negated {
			e.scoreTerm(term, ent.ID, q)
		}
		bm, err := e.postings(ent.ID)
		if err != nil {
			return nil, err
		}
		kids = append(kids, &inode{kind: iTerm, bm: bm})
	}
	return or(kids), nil
}

// compileAnd builds a conjunction, negations as its negs. It folds into
// iNone when a child matches nothing, into iAll when nothing is left, and
// into its only kid when that is all.
func (e *invEval) compileAnd(x *And, negated bool, q *compiled) (*inode, error) {
	n := &inode{kind: iAnd}
	none := false
	for _, c := range x.Children {
		k, err := e.compile(c, negated, q)
		if err != nil {
			return nil, err
		}
		switch k.kind {
		case iNone:
			none = true // the rest is compiled all the same: its terms are scored
			continue
		case iAll:
			continue
		case iNot:
			n.negs = append(n.negs, k.kids[0])
			continue
		}
		n.kids = append(n.kids, k)
	}
	if none {
		return &inode{kind: iNone}, nil
	}
	if len(n.kids) == 0 && len(n.negs) == 0 {
		return &inode{kind: iAll}, nil
	}
	if len(n.kids) == 1 && len(n.negs) == 0 {
		return n.kids[0], nil
	}
	return n, nil
}

// or combines kids, dropping those that match nothing.
func or(kids []*inode) *inode {
	n := &inode{kind: iOr}
	for _, k := range kids {
		switch k.kind {
		case iNone:
			continue
		case iAll:
			return k
		}
		n.kids = append(n.kids, k)
	}
	switch len(n.kids) {
	case 0:
		return &inode{kind: iNone}
	case 1:
		return n.kids[0]
	}
	return n
}

// plan is the scoring part of a segment plan: the sorted termIDs BM25 reads
// from the forward index and the scored slots, in the planner's order.
func (e *invEval) plan() *plan {
	order := make([]int, len(e.ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(e.ids[a]) - int(e.ids[b]) })
	newSlot := make([]int, len(order))
	sorted := make([]segment.TermID, len(order))
	for ns, old := range order {
		newSlot[old] = ns
		sorted[ns] = e.ids[old]
	}
	score := slices.Clone(e.score)
	for i := range score {
		score[i].slot = newSlot[score[i].slot]
	}
	sortScore(score)
	return &plan{seg: e.seg, ids: sorted, score: score}
}

// all is every live document of the segment.
func (e *invEval) all() *roaring.Bitmap {
	if e.universe == nil {
		if live := e.post.Live(); live != nil {
			e.universe = live
		} else {
			e.universe = roaring.New()
			e.universe.AddRange(0, uint64(e.seg.NumDocs()))
		}
	}
	return e.universe
}

// eval returns the documents n matches and whether that set is exact. Only
// phrases make it inexact: a phrase node is the AND of its terms until its
// positions are checked, which is left to contains, after every cheaper
// condition (a negated inexact set is not applied: it could drop a true
// match). The result may be a postings bitmap itself: it must not be
// modified.
func (e *invEval) eval(n *inode) (*roaring.Bitmap, bool, error) {
	switch n.kind {
	case iNone:
		return roaring.New(), true, nil
	case iAll:
		return e.all(), true, nil
	case iTerm:
		return n.bm, true, nil
	case iPhrase:
		return e.and(n.terms), false, nil
	case iNot:
		k, exact, err := e.eval(n.kids[0])
		if err != nil || !exact {
			return e.all(), false, err
		}
		return roaring.AndNot(e.all(), k), true, nil
	case iOr:
		bms := make([]*roaring.Bitmap, 0, len(n.kids))
		all := true
		for _, k := range n.kids {
			bm, exact, err := e.eval(k)
			if err != nil {
				return nil, false, err
			}
			bms = append(bms, bm)
			all = all && exact
		}
		return roaring.FastOr(bms...), all, nil
	case iAnd:
		bms := make([]*roaring.Bitmap, 0, len(n.kids))
		all := true
		for _, k := range n.kids {
			bm, exact, err := e.eval(k)
			if err != nil {
				return nil, false, err
			}
			bms = append(bms, bm)
			all = all && exact
		}
		acc := e.and(bms)
		for _, k := range n.negs {
			if acc.IsEmpty() {
				break
			}
			bm, exact, err := e.eval(k)
			if err != nil {
				return nil, false, err
			}
			if !exact {
				all = false
				continue
			}
			acc = roaring.AndNot(acc, bm)
		}
		return acc, all, nil
	}
	return nil, false, fmt.Errorf("query: unknown postings node %d", n.kind)
}

// and intersects bitmaps with FastAnd, smallest first; with no bitmaps it is
// every live document.
func (e *invEval) and(bms []*roaring.Bitmap) *roaring.Bitmap {
	switch len(bms) {
	case 0:
		return e.all()
	case 1:
		return bms[0]
	}
	slices.SortFunc(bms, func(a, b *roaring.Bitmap) int {
		ca, cb := a.GetCardinality(), b.GetCardinality()
		switch {
		case ca < cb:
			return -1
		case ca > cb:
			return 1
		}
		return 0
	})
	return roaring.FastAnd(bms...)
}

// contains decides exactly whether doc matches n: postings membership, and
// a phrase's positions from the segment's positions section.
func (e *invEval) contains(n *inode, doc uint32) (bool, error) {
	switch n.kind {
	case iNone:
		return false, nil
	case iAll:
		return true, nil
	case iTerm:
		return n.bm.Contains(doc), nil
	case iPhrase:
		for _, bm := range n.terms {
			if !bm.Contains(doc) {
				return false, nil
			}
		}
		return e.ph.check(e.seg, int(doc), n.ids, n.phrase.Offsets)
	case iNot:
		ok, err := e.contains(n.kids[0], doc)
		return !ok && err == nil, err
	case iOr:
		for _, k := range n.kids {
			if ok, err := e.contains(k, doc); ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	case iAnd:
		for _, k := range n.kids {
			if ok, err := e.contains(k, doc); !ok || err != nil {
				return false, err
			}
		}
		for _, k := range n.negs {
			if ok, err := e.contains(k, doc); ok || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	return false, fmt.Errorf("query: unknown postings node %d", n.kind)
}

// run compiles and evaluates q over the segment: the exact live matches (nil
// when the segment cannot match) and the number of candidates, the
// documents that had to be checked for a phrase included.
func (e *invEval) run(q *compiled) (hits *roaring.Bitmap, candidates int, err error) {
	// Postings were checksummed when opened; a roaring panic on damage the
	// checksum could not see is reported as an error, never a crash.
	defer func() {
		if r := recover(); r != nil {
			hits, candidates, err = nil, 0, &index.CorruptError{File: e.post.Name(), Section: "postings", Detail: fmt.Sprintf("query evaluation failed: %v", r)}
		}
	}()
	root, err := e.compile(q.root, false, q)
	if err != nil || root.kind == iNone {
		return nil, 0, err
	}
	hits, exact, err := e.eval(root)
	if err != nil {
		return nil, 0, err
	}
	if live := e.post.Live(); live != nil && root.kind != iAll {
		hits = roaring.And(hits, live)
	}
	candidates = int(hits.GetCardinality())
	if !exact {
		t := time.Now()
		exact := roaring.New()
		hits.Iterate(func(doc uint32) bool {
			var ok bool
			if ok, err = e.contains(root, doc); ok {
				exact.Add(doc)
			}
			return err == nil
		})
		e.phraseT += time.Since(t)
		hits = exact
	}
	return hits, candidates, err
}

// searchSegmentInverted is searchSegment for the inverted engine.
func (s *Searcher) searchSegmentInverted(seg *segment.Segment, si int, q *compiled, k int, avgdl float64, an *tokenize.Analyzer, top *topK) segResult {
	var r segResult
	t0 := time.Now()
	e := getInvEval(seg, s.inv.Segments()[si], an)
	defer invEvals.Put(e)
	hits, cands, err := e.run(q)
	if err != nil || hits == nil {
		r.err = err
		return r
	}
	r.hits = int(hits.GetCardinality())
	r.candidates = cands
	t1 := time.Now()
	r.verify = e.phraseT
	r.match = t1.Sub(t0) - e.phraseT
	if k == 0 || r.hits == 0 {
		return r
	}
	p := e.plan()
	v := newVerifier(p, an)
	hits.Iterate(func(doc uint32) bool {
		if r.err = v.load(int(doc)); r.err != nil {
			return false
		}
		r.scored++
		top.push(scored{score: p.bm25(v.tf, q, seg.DocTokens(int(doc)), avgdl), seg: int32(si), doc: int32(doc)})
		return true
	})
	r.rank = time.Since(t1)
	return r
}
