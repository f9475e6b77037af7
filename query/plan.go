package query

import (
	"fmt"
	"slices"

	"github.com/bitsieve/bitsieve/index"
)

// MaxPrefixTerms is the most dictionary terms one prefix may expand to in a
// segment; past it the query is refused rather than answered inexactly.
const MaxPrefixTerms = 1024

// A plan is a query compiled for one segment: a tree of pnodes over the
// segment's rows, plus the termIDs that verification and ranking read from the
// forward index.
type plan struct {
	seg  *index.Segment
	root *pnode
	ids  []index.TermID // distinct termIDs the query reads, sorted ascending
	// vids are the termIDs verification reads (of inexact leaves), sorted,
	// and vslots their slots in ids.
	vids   []index.TermID
	vslots []int
	// scoring: slots of positive terms with their global term index
	score []scoreSlot
}

type scoreSlot struct {
	slot int // index into ids
	term int // index into the searcher's global term list
}

type nodeKind uint8

const (
	kNone nodeKind = iota // matches nothing in this segment
	kRows                 // a term or phrase: the AND of rows
	kAnd                  // all kids; negs removed
	kOr                   // any kid
	kNot                  // not kids[0]
	kAll                  // every live document
)

// pnode is a node of a segment plan.
//
// Matching evaluates the tree a 512-document block at a time into a
// candidate bitmap that is a superset of the true set: rows of shared terms
// may have false positives, and an inexact negation is not applied (a false
// positive there would drop a true hit). exact says the node's bitmap equals
// its true set, so verification can trust it; only inexact nodes are checked
// against the forward index or the stored text.
type pnode struct {
	kind  nodeKind
	exact bool
	est   float64 // estimated fraction of documents set, to order AND inputs

	rows   [][]uint64 // kRows: rows to AND, sparsest first
	rowIdx []int      // kRows: the row numbers, for explain
	lists  [][]uint16 // kRows: exact document lists to intersect, shortest first
	listID []index.TermID
	cur    []int    // kRows: per list, the first entry not in a block before the last one asked
	loads  *int64   // when not nil, counts the 64-byte blocks of rows and lists read (countLoads)
	kids   []*pnode // kAnd, kOr, kNot
	negs   []*pnode // kAnd: exact negated children, applied as AND NOT

	// verification of a kRows node
	slots   []int   // slots (into plan.ids) of the terms that must all be present
	phrase  *Phrase // when the node is a phrase, its positions are checked on the text
	prefix  bool    // a prefix expansion leaf (for messages only)
	scratch [index.BlockWords]uint64
}

// planner compiles AST nodes for one segment.
type planner struct {
	s        *Searcher
	seg      *index.Segment
	slotOf   map[index.TermID]int
	ids      []index.TermID
	scoreSet map[int]bool
	score    []scoreSlot
	rowBuf   []int
}

func (s *Searcher) plan(seg *index.Segment, root Node, q *compiled) (*plan, error) {
	p := &planner{s: s, seg: seg, slotOf: map[index.TermID]int{}, scoreSet: map[int]bool{}}
	n, err := p.compile(root, false, q)
	if err != nil {
		return nil, err
	}
	// Slots were handed out in query order; renumber them so ids is sorted,
	// as ForwardLookup needs.
	order := make([]int, len(p.ids))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(p.ids[a]) - int(p.ids[b]) })
	newSlot := make([]int, len(order))
	sorted := make([]index.TermID, len(order))
	for ns, old := range order {
		newSlot[old] = ns
		sorted[ns] = p.ids[old]
	}
	var renumber func(*pnode)
	renumber = func(n *pnode) {
		for i, sl := range n.slots {
			n.slots[i] = newSlot[sl]
		}
		for _, k := range n.kids {
			renumber(k)
		}
		for _, k := range n.negs {
			renumber(k)
		}
	}
	renumber(n)
	for i := range p.score {
		p.score[i].slot = newSlot[p.score[i].slot]
	}
	pl := &plan{seg: seg, root: n, ids: sorted, score: p.score}
	pl.verifySlots()
	return pl, nil
}

// verifySlots finds the slots that verification reads: those of the leaves
// under inexact nodes (an exact node is decided from its rows alone).
func (pl *plan) verifySlots() {
	need := make([]bool, len(pl.ids))
	var walk func(n *pnode)
	walk = func(n *pnode) {
		if n.exact {
			return
		}
		for _, sl := range n.slots {
			need[sl] = true
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(pl.root)
	for sl, ok := range need {
		if ok {
			pl.vids = append(pl.vids, pl.ids[sl])
			pl.vslots = append(pl.vslots, sl)
		}
	}
}

// slot returns the verification slot of a termID.
func (p *planner) slot(id index.TermID) int {
	if s, ok := p.slotOf[id]; ok {
		return s
	}
	s := len(p.ids)
	p.slotOf[id] = s
	p.ids = append(p.ids, id)
	return s
}

func (p *planner) scoreTerm(term string, slot int, q *compiled) {
	g := q.termIndex(term)
	if !p.scoreSet[g] {
		p.scoreSet[g] = true
		p.score = append(p.score, scoreSlot{slot: slot, term: g})
	}
}

// leaf builds a kRows node for terms that must all be present.
func (p *planner) leaf(terms []string, negated bool, q *compiled) *pnode {
	n := &pnode{kind: kRows, exact: true, est: 1}
	seen := map[int]bool{}
	for _, t := range terms {
		id, ok := q.lookup(p.seg, t)
		if !ok {
			// The leaf matches nothing here, but a document matched through
			// another branch is still scored on every query term it holds,
			// whichever segment it is in.
			if !negated {
				for _, u := range terms {
					if uid, ok := q.lookup(p.seg, u); ok {
						p.scoreTerm(u, p.slot(uid), q)
					}
				}
			}
			return &pnode{kind: kNone, exact: true}
		}
		sl := p.slot(id)
		n.slots = append(n.slots, sl)
		if !negated {
			p.scoreTerm(t, sl, q)
		}
		tr := p.seg.Treatment(id)
		if tr.List {
			if !slices.Contains(n.listID, id) {
				n.listID = append(n.listID, id)
				n.lists = append(n.lists, p.seg.List(id))
			}
			continue
		}
		if !tr.Private {
			n.exact = false
		}
		p.rowBuf = p.seg.TermRows(p.rowBuf[:0], t, id)
		for _, r := range p.rowBuf {
			if !seen[r] {
				seen[r] = true
				n.rowIdx = append(n.rowIdx, r)
			}
		}
	}
	p.finishRows(n)
	return n
}

// finishRows orders a kRows node's inputs sparsest first and estimates its
// density.
func (p *planner) finishRows(n *pnode) {
	docs := float64(max(1, p.seg.NumDocs()))
	slices.SortFunc(n.rowIdx, func(a, b int) int { return p.seg.RowCount(a) - p.seg.RowCount(b) })
	n.rows = n.rows[:0]
	n.est = 1
	for _, r := range n.rowIdx {
		n.rows = append(n.rows, p.seg.Row(r))
		n.est *= float64(p.seg.RowCount(r)) / docs
	}
	// Lists are exact and the sparsest inputs: the shortest drives matching.
	ord := make([]int, len(n.lists))
	for i := range ord {
		ord[i] = i
	}
	slices.SortFunc(ord, func(a, b int) int { return len(n.lists[a]) - len(n.lists[b]) })
	lists, ids := make([][]uint16, len(ord)), make([]index.TermID, len(ord))
	for i, o := range ord {
		lists[i], ids[i] = n.lists[o], n.listID[o]
		n.est *= float64(len(n.lists[o])) / docs
	}
	n.lists, n.listID = lists, ids
	n.cur = make([]int, len(lists))
}

// mergeRows folds the plain conjunctions among an AND's kids (kRows without
// a phrase) into one kRows node, so that matching ANDs all their rows and
// lists sparsest first and stops at the first empty block of any of them.
func (p *planner) mergeRows(kids []*pnode) []*pnode {
	var into *pnode
	out := kids[:0]
	for _, k := range kids {
		if k.kind != kRows || k.phrase != nil {
			out = append(out, k)
			continue
		}
		if into == nil {
			into = k
			out = append(out, k)
			continue
		}
		for _, r := range k.rowIdx {
			if !slices.Contains(into.rowIdx, r) {
				into.rowIdx = append(into.rowIdx, r)
			}
		}
		for i, id := range k.listID {
			if !slices.Contains(into.listID, id) {
				into.listID = append(into.listID, id)
				into.lists = append(into.lists, k.lists[i])
			}
		}
		for _, sl := range k.slots {
			if !slices.Contains(into.slots, sl) {
				into.slots = append(into.slots, sl)
			}
		}
		into.exact = into.exact && k.exact
		into.prefix = false
	}
	if into != nil {
		p.finishRows(into)
	}
	return out
}

func (p *planner) compile(node Node, negated bool, q *compiled) (*pnode, error) {
	switch x := node.(type) {
	case *Term:
		return p.leaf([]string{x.Term}, negated, q), nil
	case *Phrase:
		n := p.leaf(x.Terms, negated, q)
		if n.kind == kRows {
			n.exact = false
			n.phrase = x
		}
		return n, nil
	case *Prefix:
		var kids []*pnode
		var err error
		p.seg.PrefixTerms(x.Prefix, func(term string, _ index.TermID) bool {
			if len(kids) == MaxPrefixTerms {
				err = prefixTooBroad(x.Prefix)
				return false
			}
			k := p.leaf([]string{term}, negated, q)
			k.prefix = true
			kids = append(kids, k)
			return true
		})
		if err != nil {
			return nil, err
		}
		return p.or(kids), nil
	case *Not:
		k, err := p.compile(x.Child, !negated, q)
		if err != nil {
			return nil, err
		}
		switch k.kind {
		case kNone:
			return &pnode{kind: kAll, exact: true, est: 1}, nil
		case kAll:
			return &pnode{kind: kNone, exact: true}, nil
		}
		est := 1.0 // an inexact negation matches every document until verified
		if k.exact {
			est = 1 - k.est
		}
		return &pnode{kind: kNot, exact: k.exact, est: est, kids: []*pnode{k}}, nil
	case *And:
		n := &pnode{kind: kAnd, exact: true, est: 1}
		none := false
		for _, c := range x.Children {
			k, err := p.compile(c, negated, q)
			if err != nil {
				return nil, err
			}
			switch {
			case k.kind == kNone:
				none = true // compile the rest all the same: their terms are scored
				continue
			case k.kind == kAll:
				continue
			case k.kind == kNot && k.kids[0].exact:
				n.negs = append(n.negs, k.kids[0])
				continue
			}
			n.kids = append(n.kids, k)
			n.exact = n.exact && k.exact
			n.est *= k.est
		}
		if none {
			return &pnode{kind: kNone, exact: true}, nil
		}
		n.kids = p.mergeRows(n.kids)
		n.est = 1
		for _, k := range n.kids {
			n.est *= k.est
		}
		// Negations that are not exact were kept as kids; they match
		// every document during matching and are decided by verification.
		slices.SortStableFunc(n.kids, func(a, b *pnode) int {
			switch {
			case a.est < b.est:
				return -1
			case a.est > b.est:
				return 1
			}
			return 0
		})
		if len(n.kids) == 0 && len(n.negs) == 0 {
			return &pnode{kind: kAll, exact: true, est: 1}, nil
		}
		if len(n.kids) == 1 && len(n.negs) == 0 {
			return n.kids[0], nil
		}
		return n, nil
	case *Or:
		var kids []*pnode
		for _, c := range x.Children {
			k, err := p.compile(c, negated, q)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k)
		}
		return p.or(kids), nil
	}
	return nil, fmt.Errorf("query: unknown node %T", node)
}

// or combines kids, dropping those that match nothing.
func (p *planner) or(kids []*pnode) *pnode {
	n := &pnode{kind: kOr, exact: true}
	for _, k := range kids {
		switch k.kind {
		case kNone:
			continue
		case kAll:
			return k
		}
		n.kids = append(n.kids, k)
		n.exact = n.exact && k.exact
		n.est = min(1, n.est+k.est)
	}
	switch len(n.kids) {
	case 0:
		return &pnode{kind: kNone, exact: true}
	case 1:
		return n.kids[0]
	}
	return n
}
