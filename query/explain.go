package query

import (
	"context"
	"math/bits"
	"slices"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// Explanation shows how the signature answers a query: for every term its
// document frequency, row treatment, rows and their densities, and the false
// positives its rows predict and produce; per segment, how many candidates
// survive each step of the AND. It is what `bitsieve explain` prints and what
// the web page draws.
type Explanation struct {
	Query          string              `json:"query"`
	Parsed         string              `json:"parsed"`
	Docs           int                 `json:"docs"`
	Candidates     int                 `json:"candidates"`
	Hits           int                 `json:"hits"`
	FalsePositives int                 `json:"false_positives"`
	Cost           Cost                `json:"cost"`       // estimated before running (Searcher.Cost)
	CostUnits      int64               `json:"cost_units"` // Cost.Units
	Terms          []TermExplanation   `json:"terms"`
	Phrases        []PhraseExplanation `json:"phrases,omitempty"`
	Segments       []SegmentSteps      `json:"segments"`
}

// PhraseExplanation shows a phrase as it is matched: its terms at their
// offsets (a stop word holds a position), and the word pairs whose shared
// rows its candidates must hold, with the segments where they have them.
type PhraseExplanation struct {
	Text    string       `json:"text"`
	Terms   []string     `json:"terms"`
	Offsets []int        `json:"offsets"`
	Pairs   []PairRowUse `json:"pairs"`
}

// PairRowUse is one pair of adjacent phrase terms and the number of
// segments that index it (at least one of the terms has a private row
// there).
type PairRowUse struct {
	First    string `json:"first"`
	Second   string `json:"second"`
	Segments int    `json:"segments"`
}

// TermExplanation describes one analyzed query term across all segments.
type TermExplanation struct {
	Word        string  `json:"word"` // as the user wrote it (or the prefix expansion)
	Term        string  `json:"term"` // analyzed
	Negated     bool    `json:"negated"`
	DF          int     `json:"df"`
	Private     int     `json:"private_segments"` // segments where it has a private (exact) row
	Shared      int     `json:"shared_segments"`  // segments where it has k shared rows
	Lists       int     `json:"list_segments"`    // segments where it has an exact list of documents
	Absent      int     `json:"absent_segments"`  // segments without it
	Rows        int     `json:"rows"`             // rows (and lists) read, over all segments
	Density     float64 `json:"density"`          // mean density of those rows
	PredictedFP float64 `json:"predicted_fp"`     // Σ (n−df)·P(a document without it passes its rows), segment.Treatment's model
	ObservedFP  int     `json:"observed_fp"`      // documents its rows admit that lack it
}

// SegmentSteps is the AND of the positive terms' rows in one segment, term by
// term (rarest first): which rows, how dense, how many documents survive,
// and where. For a drawing, the segment's documents are divided into
// Buckets stretches of about equal length (bucket b holds the documents
// from b·Docs/Buckets up to (b+1)·Docs/Buckets), and Live, each row's Bits
// and each step's Bits count the documents of each stretch that are live,
// that the row admits, and that survive the step.
type SegmentSteps struct {
	Segment string `json:"segment"`
	Docs    int    `json:"docs"`
	Class   int    `json:"class"`
	Buckets int    `json:"buckets"`
	Live    []int  `json:"live"`
	Steps   []Step `json:"steps"`
}

// Step is one term's rows ANDed into the running candidate set.
type Step struct {
	Term      string    `json:"term"`
	Rows      []RowInfo `json:"rows"`
	Survivors int       `json:"survivors"` // candidates after this step
	Bits      []int     `json:"bits"`      // survivors by bucket (SegmentSteps)
}

// RowInfo is one row, or a term's list, and its density.
type RowInfo struct {
	Row     int     `json:"row"`  // -1 for a list
	Rank    int     `json:"rank"` // each bit stands for 2^rank documents
	Private bool    `json:"private"`
	List    bool    `json:"list"`
	Density float64 `json:"density"` // bits set of the row's columns
	Bits    []int   `json:"bits"`    // documents it admits, by bucket (SegmentSteps)
}

// ExplainBuckets is how many stretches of documents Explain divides a
// segment into (fewer when it has fewer documents).
const ExplainBuckets = 120

// maxExplainPrefix bounds how many prefix expansions are listed.
const maxExplainPrefix = 16

// Explain analyzes q against the index.
func (s *Searcher) Explain(ctx context.Context, q string) (*Explanation, error) {
	c, err := s.compile(q)
	if err != nil {
		return nil, err
	}
	cost := s.costOf(c)
	res, err := s.Search(ctx, Request{Query: q, CountOnly: true})
	if err != nil {
		return nil, err
	}
	ex := &Explanation{Query: q, Parsed: c.root.String(), Docs: s.ix.NumDocs(),
		Candidates: res.Candidates, Hits: res.Total, FalsePositives: res.FalsePositives,
		Cost: cost, CostUnits: cost.Units()}
	leaves, phrases := s.explainLeaves(c)
	for _, ph := range phrases {
		ex.Phrases = append(ex.Phrases, s.explainPhrase(c, ph))
	}
	for _, l := range leaves {
		te, err := s.explainTerm(l)
		if err != nil {
			return nil, err
		}
		ex.Terms = append(ex.Terms, te)
	}
	if ex.Segments, err = s.explainSteps(ex.Terms); err != nil {
		return nil, err
	}
	return ex, nil
}

// explainLeaf is one analyzed term of a query as Explain lists it: the
// word the user wrote (a phrase's text, or a prefix with its star) and
// the term it stands for.
type explainLeaf struct {
	word, term string
	negated    bool
}

// explainLeaves returns the terms of c's query in query order, each
// phrase term and up to maxExplainPrefix expansions of each prefix
// included, and its phrases.
func (s *Searcher) explainLeaves(c *compiled) ([]explainLeaf, []*Phrase) {
	var leaves []explainLeaf
	var phrases []*Phrase
	Walk(c.root, func(n Node, neg bool) bool {
		switch x := n.(type) {
		case *Term:
			leaves = append(leaves, explainLeaf{x.Word, x.Term, neg})
		case *Phrase:
			for _, t := range x.Terms {
				leaves = append(leaves, explainLeaf{x.Text, t, neg})
			}
			phrases = append(phrases, x)
		case *Prefix:
			n := 0
			s.ix.Prefix(x.Prefix, func(t string, _ []segment.Entry) bool {
				leaves = append(leaves, explainLeaf{x.Prefix + "*", t, neg})
				n++
				return n < maxExplainPrefix
			})
		}
		return true
	})
	return leaves, phrases
}

// explainPhrase describes ph: its adjacent term pairs and, for each, how
// many segments index the pair's shared rows.
func (s *Searcher) explainPhrase(c *compiled, ph *Phrase) PhraseExplanation {
	pe := PhraseExplanation{Text: ph.Text, Terms: ph.Terms, Offsets: ph.Offsets}
	for j := 1; j < len(ph.Terms); j++ {
		if ph.Offsets[j] != ph.Offsets[j-1]+1 {
			continue
		}
		use := PairRowUse{First: ph.Terms[j-1], Second: ph.Terms[j]}
		for _, seg := range s.ix.Segments() {
			a, _ := c.lookup(seg, use.First)
			b, _ := c.lookup(seg, use.Second)
			if a.DF > 0 && b.DF > 0 && seg.PairsIndexed(a.Treatment(), b.Treatment()) {
				use.Segments++
			}
		}
		pe.Pairs = append(pe.Pairs, use)
	}
	return pe
}

// explainTerm describes one term across all segments: how each treats it,
// the rows read and their mean density, and the false positives its rows
// predict and admit.
func (s *Searcher) explainTerm(l explainLeaf) (TermExplanation, error) {
	te := TermExplanation{Word: l.word, Term: l.term, Negated: l.negated}
	var densSum float64
	ents, err := lookupAll(s.ix, l.term)
	if err != nil {
		return te, err
	}
	for si, seg := range s.ix.Segments() {
		e := ents[si]
		if e.DF == 0 {
			te.Absent++
			continue
		}
		df := e.DF
		te.DF += df
		tr := e.Treatment()
		switch {
		case tr.Private:
			te.Private++
		case tr.List:
			te.Lists++
			te.Rows++
			densSum += float64(df) / float64(max(1, seg.NumDocs()))
			continue // exact: no false positives
		default:
			te.Shared++
		}
		rows := seg.TermRowsOf(nil, tokenize.Hash(l.term), tr)
		for _, r := range rows {
			densSum += rowDensity(seg, r)
		}
		te.Rows += len(rows)
		if !tr.Private { // a private row is exact
			te.PredictedFP += float64(seg.NumDocs()-df) * passProbability(seg, rows, df)
		}
		te.ObservedFP += max(0, countAnd(seg, rows, nil)-df)
	}
	if te.Rows > 0 {
		te.Density = densSum / float64(te.Rows)
	}
	return te, nil
}

// passProbability is the chance that a document of seg without a term
// (held by df documents) passes the term's rows, segment.Treatment's model:
// it passes its rank-0 rows with the product of their densities; its
// higher-rank rows for sure when a neighbour in its group of 2^rank holds
// the term, else with the product of theirs.
func passProbability(seg *segment.Segment, rows []int, df int) float64 {
	low, high, anyHigh := 1.0, 1.0, false
	for _, r := range rows {
		d := rowDensity(seg, r)
		if seg.RowRank(r) == 0 {
			low *= d
		} else {
			high *= d
			anyHigh = true
		}
	}
	if anyHigh {
		f := float64(df) / float64(max(1, seg.NumDocs()))
		low *= min(1, float64(int(1)<<seg.Rank()-1)*f) + high
	}
	return low
}

// explainSteps returns, per segment, the AND of the rows of the positive
// terms among terms (each once, rarest first) step by step.
func (s *Searcher) explainSteps(terms []TermExplanation) ([]SegmentSteps, error) {
	pos := positiveByDF(terms)
	posEnts := make([][]segment.Entry, len(pos))
	for i, t := range pos {
		var err error
		if posEnts[i], err = lookupAll(s.ix, t.Term); err != nil {
			return nil, err
		}
	}
	var out []SegmentSteps
	for si, seg := range s.ix.Segments() {
		out = append(out, segmentSteps(seg, si, pos, posEnts))
	}
	return out, nil
}

// positiveByDF returns the terms that are not negated, each term once,
// rarest first (query order among equals): the order the AND reads them.
func positiveByDF(terms []TermExplanation) []TermExplanation {
	var pos []TermExplanation
	for _, t := range terms {
		if !t.Negated && !slices.ContainsFunc(pos, func(p TermExplanation) bool { return p.Term == t.Term }) {
			pos = append(pos, t)
		}
	}
	slices.SortStableFunc(pos, func(a, b TermExplanation) int { return a.DF - b.DF })
	return pos
}

// segmentSteps ANDs the rows (or list) of each term of pos into the live
// documents of seg, segment si, recording each step's rows and survivors.
// posEnts[i] holds the lexicon entries of pos[i] by segment.
func segmentSteps(seg *segment.Segment, si int, pos []TermExplanation, posEnts [][]segment.Entry) SegmentSteps {
	n := seg.NumDocs()
	ss := SegmentSteps{Segment: seg.Name(), Docs: n, Class: seg.LengthClass(), Buckets: min(ExplainBuckets, n)}
	acc := slices.Clone(seg.Live())
	ss.Live = bucketCounts(acc, n, ss.Buckets)
	for i, t := range pos {
		st := Step{Term: t.Term}
		e := posEnts[i][si]
		ok := e.DF > 0
		if ok && e.Treatment().List {
			l := seg.ListDocs(e)
			st.Rows = []RowInfo{{Row: -1, List: true, Density: float64(e.DF) / float64(max(1, n)), Bits: bucketCounts(l, n, ss.Buckets)}}
			for i := range acc {
				acc[i] &= l[i]
			}
		} else if ok {
			tr := e.Treatment()
			for _, r := range seg.TermRowsOf(nil, tokenize.Hash(t.Term), tr) {
				docs := seg.RowDocs(r)
				st.Rows = append(st.Rows, RowInfo{Row: r, Rank: seg.RowRank(r), Private: tr.Private,
					Density: rowDensity(seg, r), Bits: bucketCounts(docs, n, ss.Buckets)})
				for i := range acc {
					acc[i] &= docs[i]
				}
			}
		} else {
			clear(acc)
		}
		st.Bits = bucketCounts(acc, n, ss.Buckets)
		for _, b := range st.Bits {
			st.Survivors += b
		}
		ss.Steps = append(ss.Steps, st)
	}
	return ss
}

// bucketCounts counts the bits set of words, a bit per document of n, in
// each of buckets stretches (SegmentSteps).
func bucketCounts(words []uint64, n, buckets int) []int {
	out := make([]int, buckets)
	for b := range out {
		out[b] = countRange(words, b*n/buckets, (b+1)*n/buckets)
	}
	return out
}

// countRange counts the bits set for documents [lo, hi).
func countRange(words []uint64, lo, hi int) int {
	n := 0
	for d := lo; d < hi; {
		w := d / 64
		if w >= len(words) {
			break
		}
		end := min(hi, (w+1)*64)
		mask := ^uint64(0) << (d % 64)
		if end-w*64 < 64 {
			mask &= (uint64(1) << (end - w*64)) - 1
		}
		n += bits.OnesCount64(words[w] & mask)
		d = end
	}
	return n
}

// lookupAll returns a term's lexicon entries by segment position (DF 0
// where a segment lacks it).
func lookupAll(ix *index.Index, term string) ([]segment.Entry, error) {
	out := make([]segment.Entry, len(ix.Segments()))
	es, err := ix.Lookup(term, nil)
	for _, e := range es {
		out[e.Seg] = e
	}
	return out, err
}

// countAnd ANDs rows into acc (or into the live row when acc is nil) and
// returns the number of bits left.
func countAnd(seg *segment.Segment, rows []int, acc []uint64) int {
	if acc == nil {
		acc = slices.Clone(seg.Live())
	}
	n := 0
	docRows := make([][]uint64, len(rows))
	for j, r := range rows {
		docRows[j] = seg.RowDocs(r)
	}
	for i := range acc {
		for _, row := range docRows {
			acc[i] &= row[i]
		}
		n += bits.OnesCount64(acc[i])
	}
	return n
}

// rowDensity is the share of row r's columns that are set.
func rowDensity(seg *segment.Segment, r int) float64 {
	return float64(seg.RowCount(r)) / float64(max(1, seg.RowColumns(r)))
}
