package inverted

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/query"
)

// Engine answers queries from a segment's postings instead of its
// signature rows: a query.SegmentEngine, so that a query.Searcher over the
// same snapshot does everything else (parsing, statistics, BM25, the page,
// snippets) as it does for the signature engine, and the two differ only
// in how they match.
//
// A segment's query is evaluated exactly over bitmaps: a conjunction with
// FastAnd, smallest bitmap first, then AndNot of its negations; a
// disjunction with FastOr; a prefix as the FastOr of its words; a phrase
// as the AND of its words, checked against the stored positions
// (query.PhraseChecker). A word the segment lacks empties its
// conjunction, and a negation of nothing matches everything, as in a
// plan. Postings need no verification: the candidates are the matches,
// except for phrases, whose candidates are the documents holding all
// their words.
type Engine struct {
	x *Index
}

// NewSearcher returns a query.Searcher over ix whose match stage reads
// x's postings; x must have been built or opened for ix.
func NewSearcher(ix *index.Index, x *Index) (*query.Searcher, error) {
	if x == nil || x.Base() != ix || len(x.Segments()) != len(ix.Segments()) {
		return nil, errors.New("inverted: the postings were not opened for this index")
	}
	return query.NewSearcher(ix, query.WithEngine(&Engine{x: x}))
}

// Name is "inverted".
func (*Engine) Name() string { return "inverted" }

// Match evaluates q over its segment's postings.
func (en *Engine) Match(q query.SegmentQuery, m *query.SegmentMatches) error {
	e := invEvals.Get().(*invEval)
	*e = invEval{q: q, post: en.x.Segments()[q.Index()], ph: e.ph}
	defer invEvals.Put(e)
	hits, cands, err := e.run()
	m.Candidates, m.Bytes, m.Verify = cands, e.bytes, e.verify
	if err != nil || hits == nil {
		return err
	}
	m.Docs = slices.Grow(m.Docs[:0], int(hits.GetCardinality()))
	it := hits.Iterator()
	for it.HasNext() {
		m.Docs = append(m.Docs, it.Next())
	}
	return nil
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
	phrase *query.Phrase
	ids    []segment.TermID // iPhrase: the termID of each of the phrase's terms
	kids   []*inode
	negs   []*inode
}

// invEval compiles and evaluates a query over one segment's postings.
type invEval struct {
	q        query.SegmentQuery
	post     *Segment
	bytes    int64 // serialized postings read
	universe *roaring.Bitmap
	verify   time.Duration // spent deciding inexact (phrase) matches
	ph       query.PhraseChecker
}

// invEvals recycles evaluators and their phrase checkers across segments
// and queries, as planners are recycled: the baseline pays for matching,
// not for bookkeeping the signature engine does not pay either.
var invEvals = sync.Pool{New: func() any { return new(invEval) }}

func (e *invEval) postings(id segment.TermID) (*roaring.Bitmap, error) {
	e.bytes += int64(e.post.SizeOf(id))
	return e.post.Postings(id)
}

// leaf compiles terms that must all be present: a term or a phrase.
func (e *invEval) leaf(terms []string) (*inode, error) {
	var bms []*roaring.Bitmap
	for i, t := range terms {
		ent, ok := e.q.Entry(t)
		id := ent.ID
		if !ok {
			return &inode{kind: iNone}, nil
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

// compile builds the node of node for this segment's postings.
func (e *invEval) compile(node query.Node) (*inode, error) {
	switch x := node.(type) {
	case *query.Term:
		return e.leaf([]string{x.Term})
	case *query.Phrase:
		return e.compilePhrase(x)
	case *query.Prefix:
		return e.compilePrefix(x)
	case *query.Not:
		k, err := e.compile(x.Child)
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
	case *query.And:
		return e.compileAnd(x)
	case *query.Or:
		var kids []*inode
		for _, c := range x.Children {
			k, err := e.compile(c)
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
func (e *invEval) compilePhrase(x *query.Phrase) (*inode, error) {
	n, err := e.leaf(x.Terms)
	if err == nil && n.kind != iNone {
		if n.kind == iTerm { // a phrase of one distinct term, repeated
			n = &inode{kind: iPhrase, terms: []*roaring.Bitmap{n.bm}}
		}
		n.phrase = x
		for _, t := range x.Terms {
			ent, _ := e.q.Entry(t)
			n.ids = append(n.ids, ent.ID)
		}
	}
	return n, err
}

// compilePrefix builds the OR of the postings of a prefix's expansions that
// this segment holds.
func (e *invEval) compilePrefix(x *query.Prefix) (*inode, error) {
	var kids []*inode
	for _, term := range e.q.Expansions(x.Prefix) {
		ent, ok := e.q.Entry(term)
		if !ok {
			continue
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
func (e *invEval) compileAnd(x *query.And) (*inode, error) {
	n := &inode{kind: iAnd}
	none := false
	for _, c := range x.Children {
		k, err := e.compile(c)
		if err != nil {
			return nil, err
		}
		switch k.kind {
		case iNone:
			none = true
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

// all is every live document of the segment.
func (e *invEval) all() *roaring.Bitmap {
	if e.universe == nil {
		if live := e.post.Live(); live != nil {
			e.universe = live
		} else {
			e.universe = roaring.New()
			e.universe.AddRange(0, uint64(e.q.Segment().NumDocs()))
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
		return e.ph.Check(e.q.Segment(), int(doc), n.ids, n.phrase.Offsets)
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

// run compiles and evaluates the query over the segment: the exact live
// matches (nil when the segment cannot match) and the number of
// candidates, the documents that had to be checked for a phrase included.
func (e *invEval) run() (hits *roaring.Bitmap, candidates int, err error) {
	// Postings were checksummed when opened; a roaring panic on damage the
	// checksum could not see is reported as an error, never a crash.
	defer func() {
		if r := recover(); r != nil {
			hits, candidates, err = nil, 0, &index.CorruptError{File: e.post.Name(), Section: "postings", Detail: fmt.Sprintf("query evaluation failed: %v", r)}
		}
	}()
	root, err := e.compile(e.q.Root())
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
		e.verify += time.Since(t)
		hits = exact
	}
	return hits, candidates, err
}
