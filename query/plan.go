package query

import (
	"fmt"
	"slices"
	"sync"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/prefetch"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// MaxPrefixTerms is the most dictionary terms one prefix may expand to, over
// all the segments of the index; past it the query is refused rather than
// answered inexactly.
const MaxPrefixTerms = 1024

// A plan is a query compiled for one segment: a tree of pnodes over the
// segment's rows, plus the termIDs that verification and ranking read from the
// forward index.
type plan struct {
	seg  *segment.Segment
	root *pnode
	ids  []segment.TermID // distinct termIDs the query reads, sorted ascending
	ents []segment.Entry  // their lexicon entries
	// vids are the termIDs verification reads (of inexact leaves), sorted,
	// and vslots their slots in ids.
	vids   []segment.TermID
	vslots []int
	// phrases: an inexact node is a phrase, so verification reads the
	// positions of ids (and their frequencies with them) for every candidate.
	phrases bool
	// scoring: slots of positive terms with their global term index
	score []scoreSlot
	// direct: the plan is exact and the segment keeps every scored term's
	// frequencies beside its bits (freqs[i] those of score[i]; segment.Freqs),
	// so ranking reads them without the forward index (verifier.loadDirect).
	direct bool
	freqs  []segment.Freqs
	// fpsMerged: planner.fps holds the plan's false positives
	// (falsePositives).
	fpsMerged bool
	// orWords: the root is an OR of words decided by their rows (orHit);
	// highRank is the segment's higher rank.
	orWords  []orWord
	highRank int

	planner *planner // owns the nodes; see release
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
// against the forward index or, for phrases, the stored positions.
type pnode struct {
	kind  nodeKind
	exact bool
	est   float64 // estimated fraction of documents set, to order AND inputs

	rows   [][]uint64 // kRows: rank-0 rows to AND, sparsest first
	high   [][]uint64 // kRows: higher-rank rows (of the segment's rank), sparsest first
	rank   int        // kRows: the rank of high
	rowIdx []int      // kRows: the row numbers of both, for explain
	lists  []cursor   // kRows: exact document lists to intersect, shortest first
	loads  *int64     // when not nil, counts the 64-byte blocks of rows and lists read (countLoads)
	kids   []*pnode   // kAnd, kOr, kNot
	negs   []*pnode   // kAnd: exact negated children, applied as AND NOT

	// verification of a kRows node
	slots   []int   // slots (into plan.ids) of the terms that must all be present
	vslots  []int   // the slots of those with shared rows: the rest are proved by their bits
	phrase  *Phrase // when the node is a phrase, its positions are checked
	pairs   int     // of a phrase: how many of its word pairs have rows here
	prefix  bool    // a prefix expansion leaf (for messages only)
	scratch [bitrow.BlockWords]uint64
}

// planner compiles AST nodes for one segment. A query has few terms, so
// slots are found by a linear search until there are many (a broad prefix).
type planner struct {
	s      *Searcher
	seg    *segment.Segment
	si     int                    // the segment's index in the compiled query's entries
	slotOf map[segment.TermID]int // once ids is long
	ids    []segment.TermID
	ents   []segment.Entry // the lexicon entry of each slot's term
	score  []scoreSlot
	rowBuf []int
	words  []string // compileAnd's scratch
	// sortSlots' scratch
	order, newSlot []int
	oldIDs         []segment.TermID
	oldEnts        []segment.Entry
	freqs          []segment.Freqs
	dens           []float64  // scratch of finishRows
	fps            []uint32   // the plan's false positives (plan.falsePositives)
	orWords        []orWord   // plan.orWords
	orRows         [][]uint64 // their rows
	need           []bool     // scratch of verifySlots
	pl             plan       // the plan it returns, reused
	v              verifier
	blocks         []candBlock // ranking's scratch
	docs           []int32     // rankBlock's: the documents of the block it scores
	bound          blockBound

	// Nodes come from chunks that are never grown in place (so pointers
	// stay valid) and are reused by the next plan once this one is released.
	chunks [][]pnode
	used   int
}

// planners recycles planners and their node chunks across segments and
// queries, so planning allocates little.
var planners = sync.Pool{New: func() any { return new(planner) }}

// node returns a new node.
func (p *planner) node(kind nodeKind, exact bool, est float64) *pnode {
	if p.used == 0 || len(p.chunks[p.used-1]) == cap(p.chunks[p.used-1]) {
		if p.used == len(p.chunks) {
			p.chunks = append(p.chunks, make([]pnode, 0, 8))
		}
		p.chunks[p.used] = p.chunks[p.used][:0]
		p.used++
	}
	c := &p.chunks[p.used-1]
	*c = (*c)[:len(*c)+1]
	n := &(*c)[len(*c)-1]
	// A recycled node keeps the capacity of its slices.
	*n = pnode{kind: kind, exact: exact, est: est,
		rows: n.rows[:0], high: n.high[:0], rowIdx: n.rowIdx[:0], lists: n.lists[:0],
		kids: n.kids[:0], negs: n.negs[:0], slots: n.slots[:0], vslots: n.vslots[:0]}
	return n
}

// release returns the plan's planner to the pool; the plan must not be used
// afterwards.
func (pl *plan) release() {
	p := pl.planner
	pl.planner, pl.root = nil, nil
	p.s, p.seg, p.slotOf = nil, nil, nil
	p.ids, p.ents, p.score, p.used = p.ids[:0], p.ents[:0], p.score[:0], 0
	planners.Put(p)
}

// plan compiles root for seg, the si-th segment of the Searcher's index
// (the index of its entries in q), into a plan with its slots sorted by
// termID; the plan is released with release.
func (s *Searcher) plan(seg *segment.Segment, si int, root Node, q *compiled) (*plan, error) {
	p := planners.Get().(*planner)
	p.s, p.seg, p.si = s, seg, si
	n, err := p.compile(root, false, q)
	if err != nil {
		(&plan{planner: p}).release()
		return nil, err
	}
	// Slots were handed out in query order; renumber them so ids is sorted,
	// as ForwardLookup needs.
	if !slices.IsSorted(p.ids) {
		p.sortSlots(n)
	}
	sortScore(p.score)
	p.pl = plan{seg: seg, root: n, ids: p.ids, ents: p.ents, score: p.score, planner: p,
		vids: p.pl.vids[:0], vslots: p.pl.vslots[:0]}
	pl := &p.pl
	pl.verifySlots()
	pl.prepareOrWords(q)
	pl.direct = n.exact && !pl.phrases
	pl.freqs = p.freqs[:0]
	for _, sc := range pl.score {
		if !pl.direct {
			break
		}
		f, ok := seg.FreqsOf(pl.ents[sc.slot])
		pl.freqs, pl.direct = append(pl.freqs, f), ok
	}
	p.freqs = pl.freqs
	return pl, nil
}

// sortSlots renumbers the slots so that ids is sorted, in the planner's
// scratch.
func (p *planner) sortSlots(root *pnode) {
	n := len(p.ids)
	order := slices.Grow(p.order[:0], n)[:n]
	for i := range order {
		order[i] = i
	}
	if n <= 16 { // a query's words: no call per comparison
		for i := 1; i < n; i++ {
			for j := i; j > 0 && p.ids[order[j]] < p.ids[order[j-1]]; j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
	} else { // a broad prefix's expansions
		slices.SortFunc(order, func(a, b int) int { return int(p.ids[a]) - int(p.ids[b]) })
	}
	newSlot := slices.Grow(p.newSlot[:0], n)[:n]
	oldIDs := append(p.oldIDs[:0], p.ids...)
	oldEnts := append(p.oldEnts[:0], p.ents...)
	for ns, old := range order {
		newSlot[old] = ns
		p.ids[ns] = oldIDs[old]
		p.ents[ns] = oldEnts[old]
	}
	p.order, p.newSlot, p.oldIDs, p.oldEnts = order, newSlot, oldIDs, oldEnts
	root.renumber(newSlot)
	for i := range p.score {
		p.score[i].slot = newSlot[p.score[i].slot]
	}
}

// renumber gives the slots of n and its descendants their new numbers.
func (n *pnode) renumber(newSlot []int) {
	for i, sl := range n.slots {
		n.slots[i] = newSlot[sl]
	}
	for i, sl := range n.vslots {
		n.vslots[i] = newSlot[sl]
	}
	for _, k := range n.kids {
		k.renumber(newSlot)
	}
	for _, k := range n.negs {
		k.renumber(newSlot)
	}
}

// verifySlots finds the slots that verification reads: those of the terms
// with shared rows under inexact nodes (an exact node, and a term with a
// private row or a list, is decided from its bits alone).
func (pl *plan) verifySlots() {
	need := slices.Grow(pl.planner.need[:0], len(pl.ids))[:len(pl.ids)]
	clear(need)
	pl.planner.need = need
	var walk func(n *pnode)
	walk = func(n *pnode) {
		if n.exact {
			return
		}
		for _, sl := range n.vslots {
			need[sl] = true
		}
		pl.phrases = pl.phrases || n.phrase != nil
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

// slot returns the verification slot of a term's entry.
func (p *planner) slot(e segment.Entry) int {
	id := e.ID
	if p.slotOf != nil {
		if s, ok := p.slotOf[id]; ok {
			return s
		}
	} else if s := slices.Index(p.ids, id); s >= 0 {
		return s
	} else if len(p.ids) == 32 {
		p.slotOf = make(map[segment.TermID]int, 64)
		for i, x := range p.ids {
			p.slotOf[x] = i
		}
	}
	s := len(p.ids)
	if p.slotOf != nil {
		p.slotOf[id] = s
	}
	p.ids = append(p.ids, id)
	p.ents = append(p.ents, e)
	return s
}

// scoreTerm adds a positive term (ti, its index in the compiled query) to
// BM25 once. Each slot holds one term (a term has one TermID), so the slot
// identifies it.
func (p *planner) scoreTerm(ti, slot int) {
	for _, sc := range p.score {
		if sc.slot == slot {
			return
		}
	}
	p.score = append(p.score, scoreSlot{slot: slot, term: ti})
}

// leaf builds a kRows node for terms that must all be present; its inputs
// are left unordered, for finishRows once the node is complete.
func (p *planner) leaf(terms []string, negated bool, q *compiled) *pnode {
	n := p.node(kRows, true, 1)
	for _, t := range terms {
		ti := q.termIndex(t)
		e, ok := q.entry(ti, p.si)
		if !ok {
			// The leaf matches nothing here, but a document matched through
			// another branch is still scored on every query term it holds,
			// whichever segment it is in.
			if !negated {
				for _, u := range terms {
					ui := q.termIndex(u)
					if ue, ok := q.entry(ui, p.si); ok {
						p.scoreTerm(ui, p.slot(ue))
					}
				}
			}
			return p.node(kNone, true, 0)
		}
		sl := p.slot(e)
		n.slots = append(n.slots, sl)
		if !negated {
			p.scoreTerm(ti, sl)
		}
		tr := e.Treatment()
		if tr.List {
			if !slices.ContainsFunc(n.lists, func(c cursor) bool { return c.id == e.ID }) {
				n.lists = append(n.lists, newCursor(e.ID, p.seg.ListOf(e)))
			}
			continue
		}
		if !tr.Private {
			n.exact = false
			if !slices.Contains(n.vslots, sl) {
				n.vslots = append(n.vslots, sl)
			}
		}
		p.rowBuf = p.seg.TermRowsOf(p.rowBuf[:0], q.hashes[ti], tr)
		for _, r := range p.rowBuf {
			if !slices.Contains(n.rowIdx, r) {
				n.rowIdx = append(n.rowIdx, r)
			}
		}
	}
	return n
}

// pairRows adds to a phrase's node the rows of its word pairs that the
// segment indexes (two words at consecutive offsets, at least one with a
// private row; index.Params.PairK), so that its candidates hold its pairs,
// not only its words.
func (p *planner) pairRows(n *pnode, x *Phrase, q *compiled) {
	for j := 1; j < len(x.Terms); j++ {
		if x.Offsets[j] != x.Offsets[j-1]+1 {
			continue
		}
		a, _ := q.entry(q.termIndex(x.Terms[j-1]), p.si)
		b, _ := q.entry(q.termIndex(x.Terms[j]), p.si)
		if !p.seg.PairsIndexed(a.Treatment(), b.Treatment()) {
			continue
		}
		p.rowBuf = p.seg.PairRows(p.rowBuf[:0], q.hash(x.Terms[j-1]), q.hash(x.Terms[j]))
		for _, r := range p.rowBuf {
			if !slices.Contains(n.rowIdx, r) {
				n.rowIdx = append(n.rowIdx, r)
			}
		}
		n.pairs++
	}
}

// finished returns n after finishRows, when it is a kRows node.
func (p *planner) finished(n *pnode) *pnode {
	if n.kind == kRows {
		p.finishRows(n)
	}
	return n
}

// orderedRows is how many of a node's sparsest rows of each rank
// finishRows orders.
const orderedRows = 4

// finishRows orders a kRows node's inputs sparsest first (its lists all,
// its rows of each rank the orderedRows sparsest) and estimates its
// density. A row's density is segment.RowDensity: a shared row's is its
// rank's mean, so planning reads no count of the shared rows of words
// and word pairs, only those of private rows. It asks for the first line of
// each higher-rank row, where matching starts (nextHigh).
func (p *planner) finishRows(n *pnode) {
	seg := p.seg
	docs := float64(max(1, seg.NumDocs()))
	k0 := 0 // rank-0 rows first
	for i, r := range n.rowIdx {
		if seg.RowRank(r) == 0 {
			n.rowIdx[i], n.rowIdx[k0] = n.rowIdx[k0], r
			k0++
		}
	}
	ds := p.dens[:0]
	n.est = 1
	for _, r := range n.rowIdx {
		d := seg.RowDensity(r)
		ds = append(ds, d)
		n.est *= d
	}
	p.dens = ds
	sparsestFirst(ds[:k0], n.rowIdx[:k0])
	sparsestFirst(ds[k0:], n.rowIdx[k0:])
	n.rows, n.high = n.rows[:0], n.high[:0]
	n.rank = seg.Rank()
	for i, r := range n.rowIdx {
		if i < k0 {
			n.rows = append(n.rows, seg.Row(r))
		} else {
			n.high = append(n.high, seg.Row(r))
			prefetch.Words(n.high[len(n.high)-1][:1])
		}
	}
	// Lists are exact and the sparsest inputs: the shortest drives matching.
	for i := 1; i < len(n.lists); i++ {
		for j := i; j > 0 && n.lists[j].n < n.lists[j-1].n; j-- {
			n.lists[j], n.lists[j-1] = n.lists[j-1], n.lists[j]
		}
	}
	for _, l := range n.lists {
		n.est *= float64(l.n) / docs
	}
}

// sparsestFirst moves the orderedRows sparsest of rows (densities ds) to
// the front, sparsest first; the others follow in no particular order. An
// AND of a block stops at its first all-zero input, almost always among
// the sparsest few, so ordering a conjunction's dozens of rows all would
// cost more than it saves.
func sparsestFirst(ds []float64, rows []int) {
	for i := 0; i < min(len(ds)-1, orderedRows); i++ {
		m := i
		for j := i + 1; j < len(ds); j++ {
			if ds[j] < ds[m] {
				m = j
			}
		}
		ds[i], ds[m] = ds[m], ds[i]
		rows[i], rows[m] = rows[m], rows[i]
	}
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
		for _, c := range k.lists {
			if !slices.ContainsFunc(into.lists, func(x cursor) bool { return x.id == c.id }) {
				into.lists = append(into.lists, c)
			}
		}
		for _, sl := range k.slots {
			if !slices.Contains(into.slots, sl) {
				into.slots = append(into.slots, sl)
			}
		}
		for _, sl := range k.vslots {
			if !slices.Contains(into.vslots, sl) {
				into.vslots = append(into.vslots, sl)
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

// compile builds the plan node of node for this segment; negated says
// whether node is under an odd number of negations (its terms are then not
// scored).
func (p *planner) compile(node Node, negated bool, q *compiled) (*pnode, error) {
	switch x := node.(type) {
	case *Term:
		return p.finished(p.leaf([]string{x.Term}, negated, q)), nil
	case *Phrase:
		return p.compilePhrase(x, negated, q), nil
	case *Prefix:
		return p.compilePrefix(x, negated, q), nil
	case *Not:
		return p.compileNot(x, negated, q)
	case *And:
		return p.compileAnd(x, negated, q)
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

// compilePhrase builds a phrase's node: the leaf of its terms plus the rows
// of its word pairs, inexact, since only its positions prove the phrase.
func (p *planner) compilePhrase(x *Phrase, negated bool, q *compiled) *pnode {
	n := p.leaf(x.Terms, negated, q)
	if n.kind == kRows {
		n.exact = false
		n.phrase = x
		p.pairRows(n, x, q)
	}
	return p.finished(n)
}

// compilePrefix builds the OR of the leaves of a prefix's expansions that
// this segment holds.
func (p *planner) compilePrefix(x *Prefix, negated bool, q *compiled) *pnode {
	var kids []*pnode
	for _, term := range q.prefixes[x.Prefix] {
		if _, ok := q.entry(q.termIndex(term), p.si); !ok {
			continue
		}
		k := p.finished(p.leaf([]string{term}, negated, q))
		k.prefix = true
		kids = append(kids, k)
	}
	return p.or(kids)
}

// compileNot builds a negation, folding it into kAll or kNone when its
// child matches nothing or everything.
func (p *planner) compileNot(x *Not, negated bool, q *compiled) (*pnode, error) {
	k, err := p.compile(x.Child, !negated, q)
	if err != nil {
		return nil, err
	}
	switch k.kind {
	case kNone:
		return p.node(kAll, true, 1), nil
	case kAll:
		return p.node(kNone, true, 0), nil
	}
	est := 1.0 // an inexact negation matches every document until verified
	if k.exact {
		est = 1 - k.est
	}
	n := p.node(kNot, k.exact, est)
	n.kids = []*pnode{k}
	return n, nil
}

// compileAnd builds a conjunction: exact negations become its negs, plain
// conjunctions merge into one kRows node, and the kids are ordered
// sparsest first. It folds into kNone when a child matches nothing, into
// kAll when nothing is left, and into its only kid when that is all.
func (p *planner) compileAnd(x *And, negated bool, q *compiled) (*pnode, error) {
	// The words among the children make one leaf, which mergeRows orders
	// with any other plain conjunction's once.
	words := p.words[:0]
	for _, c := range x.Children {
		if t, ok := c.(*Term); ok {
			words = append(words, t.Term)
		}
	}
	p.words = words[:0] // the leaf is built before any child reuses it
	if len(words) == len(x.Children) {
		// Words alone, the commonest query: their leaf is the plan.
		return p.finished(p.leaf(words, negated, q)), nil
	}
	n := p.node(kAnd, true, 1)
	none := false
	if len(words) > 0 {
		none = !n.and(p.leaf(words, negated, q))
	}
	for _, c := range x.Children {
		if _, ok := c.(*Term); ok {
			continue
		}
		k, err := p.compile(c, negated, q)
		if err != nil {
			return nil, err
		}
		// After a child that matches nothing, the rest are compiled all
		// the same: their terms are scored.
		none = !n.and(k) || none
	}
	if none {
		return p.node(kNone, true, 0), nil
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
		return p.node(kAll, true, 1), nil
	}
	if len(n.kids) == 1 && len(n.negs) == 0 {
		return n.kids[0], nil
	}
	return n, nil
}

// and adds k to the conjunction n, as a negation when it is an exact one,
// and reports false when k matches nothing (kAll adds nothing).
func (n *pnode) and(k *pnode) bool {
	switch {
	case k.kind == kNone:
		return false
	case k.kind == kAll:
	case k.kind == kNot && k.kids[0].exact:
		n.negs = append(n.negs, k.kids[0])
	default:
		n.kids = append(n.kids, k)
		n.exact = n.exact && k.exact
		n.est *= k.est
	}
	return true
}

// or combines kids, dropping those that match nothing.
func (p *planner) or(kids []*pnode) *pnode {
	n := p.node(kOr, true, 0)
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
		return p.node(kNone, true, 0)
	case 1:
		return n.kids[0]
	}
	return n
}
