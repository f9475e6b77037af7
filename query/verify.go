package query

import (
	"slices"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/tokenize"
)

// verifier decides candidates exactly. It reads the candidate's forward index
// once (the frequencies of every termID the plan uses) and the stored text
// only for phrases, after every cheaper condition has passed.
type verifier struct {
	p       *plan
	tf      []uint32 // frequency of each plan slot in the current document
	vtf     []uint32 // scratch for loadVerify
	doc     int
	text    []byte
	texts   *index.TextReader
	toks    []tokenize.Token
	an      *tokenize.Analyzer
	textDoc int // the document toks were analyzed from
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
	tf, vtf, toks := slices.Grow(v.tf[:0], len(p.ids))[:len(p.ids)], slices.Grow(v.vtf[:0], len(p.vids))[:len(p.vids)], v.toks[:0]
	clear(tf)
	clear(vtf)
	*v = verifier{p: p, tf: tf, vtf: vtf, toks: toks, an: an, textDoc: -1}
	return v
}

// loadVerify reads only the frequencies verification needs (those of terms
// with shared rows) into tf.
func (v *verifier) loadVerify(doc int) error {
	v.doc = doc
	if err := v.p.seg.ForwardLookup(doc, v.p.vids, v.vtf); err != nil {
		return err
	}
	for i, sl := range v.p.vslots {
		v.tf[sl] = v.vtf[i]
	}
	return nil
}

// load reads the frequencies of the plan's terms in doc.
func (v *verifier) load(doc int) error {
	v.doc = doc
	return v.p.seg.ForwardLookup(doc, v.p.ids, v.tf)
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
			return v.phrase(n.phrase)
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

// phrase checks a phrase against the positions of the re-analyzed text.
func (v *verifier) phrase(ph *Phrase) (bool, error) {
	if v.textDoc != v.doc {
		var err error
		if v.texts == nil {
			v.texts = v.p.seg.NewTextReader()
		}
		v.text, err = v.texts.Text(v.doc)
		if err != nil {
			return false, err
		}
		v.toks = v.an.Analyze(v.toks[:0], v.text)
		v.textDoc = v.doc
	}
	return phraseAt(v.toks, ph), nil
}

// phraseAt reports whether toks contain the phrase's terms at its offsets.
func phraseAt(toks []tokenize.Token, ph *Phrase) bool {
	// Tokens are in position order; index positions → term for a lookup.
	for i, t := range toks {
		if t.Term != ph.Terms[0] {
			continue
		}
		ok := true
		for j := 1; j < len(ph.Terms) && ok; j++ {
			ok = termAtPos(toks, i, t.Pos+ph.Offsets[j]) == ph.Terms[j]
		}
		if ok {
			return true
		}
	}
	return false
}

// termAtPos finds the term at position pos, searching forward from toks[from]
// (positions increase with the index and a position holds one token).
func termAtPos(toks []tokenize.Token, from, pos int) string {
	for k := from; k < len(toks) && toks[k].Pos <= pos; k++ {
		if toks[k].Pos == pos {
			return toks[k].Term
		}
	}
	return ""
}
