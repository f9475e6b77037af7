package kit

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bitsieve/bitsieve/tokenize"
)

// ErrNoTerms is Match's error for a query with no searchable word: every
// word, phrase and prefix in it is a stop word or analyzes to nothing. The
// engine refuses such a query.
var ErrNoTerms = errors.New("no searchable term")

// An Oracle holds documents as an analyzer reads them and answers queries
// by brute force. It is not safe for concurrent use (its analyzer caches
// stems).
type Oracle struct {
	a       *tokenize.Analyzer
	keys    []string
	texts   [][]byte
	toks    [][]token        // per document, its terms in position order
	ids     map[string]int32 // term → index in terms
	terms   []string
	holders [][]int32 // per term, the documents holding it, ascending
	scratch []tokenize.Token
}

// token is one term of a document at its position.
type token struct{ pos, term int32 }

// NewOracle returns an empty Oracle that analyzes with the named analyzer
// (tokenize.New's names); it panics on an unknown name.
func NewOracle(analyzer string) *Oracle {
	return &Oracle{a: tokenize.MustNew(analyzer), ids: map[string]int32{}}
}

// Add analyzes text and adds it as the document key. The Oracle keeps text
// (GenQuery draws words from it) and does not change it.
func (o *Oracle) Add(key string, text []byte) {
	d := int32(len(o.keys))
	o.scratch = o.a.Analyze(o.scratch[:0], text)
	toks := make([]token, len(o.scratch))
	for i, t := range o.scratch {
		id, ok := o.ids[t.Term]
		if !ok {
			id = int32(len(o.terms))
			o.ids[t.Term] = id
			o.terms = append(o.terms, t.Term)
			o.holders = append(o.holders, nil)
		}
		if h := o.holders[id]; len(h) == 0 || h[len(h)-1] != d {
			o.holders[id] = append(h, d)
		}
		toks[i] = token{pos: int32(t.Pos), term: id}
	}
	slices.SortStableFunc(toks, func(a, b token) int { return int(a.pos - b.pos) })
	o.keys = append(o.keys, key)
	o.texts = append(o.texts, text)
	o.toks = append(o.toks, toks)
}

// Len returns the number of documents added.
func (o *Oracle) Len() int { return len(o.keys) }

// Terms returns every term of the documents, sorted, once each.
func (o *Oracle) Terms() []string { return slices.Sorted(slices.Values(o.terms)) }

// Holders returns the sorted keys of the documents that hold term (an
// analyzed term, as Terms lists them).
func (o *Oracle) Holders(term string) []string {
	id, ok := o.ids[term]
	if !ok {
		return nil
	}
	keys := make([]string, len(o.holders[id]))
	for i, d := range o.holders[id] {
		keys[i] = o.keys[d]
	}
	slices.Sort(keys)
	return keys
}

// Match returns the sorted keys of the documents q matches. It fails if q
// is not in the query language, and with ErrNoTerms if nothing in q is
// searchable.
func (o *Oracle) Match(q string) ([]string, error) {
	root, err := parse(q, o.a)
	if err != nil {
		return nil, err
	}
	set, ok := o.eval(root)
	if !ok {
		return nil, fmt.Errorf("%q: %w", q, ErrNoTerms)
	}
	var keys []string
	for d, m := range set {
		if m {
			keys = append(keys, o.keys[d])
		}
	}
	slices.Sort(keys)
	return keys, nil
}

// eval returns the documents n matches, one flag per document, and whether
// n has anything searchable; a parent ignores a child that has not.
func (o *Oracle) eval(n *node) ([]bool, bool) {
	if n == nil {
		return nil, false
	}
	set := make([]bool, len(o.keys))
	switch n.op {
	case opWord:
		for d := range set {
			set[d] = true
		}
		for _, t := range n.terms {
			o.keep(set, t)
		}
	case opPhrase:
		for d := range set {
			set[d] = true
		}
		for _, t := range n.terms {
			o.keep(set, t)
		}
		for d, m := range set {
			set[d] = m && o.hasPhrase(d, n.terms, n.offsets)
		}
	case opPrefix:
		for id, t := range o.terms {
			if strings.HasPrefix(t, n.prefix) {
				for _, d := range o.holders[id] {
					set[d] = true
				}
			}
		}
	case opNot:
		kid, ok := o.eval(n.kids[0])
		if !ok {
			return nil, false
		}
		for d, m := range kid {
			set[d] = !m
		}
	case opAnd, opOr:
		any := false
		for _, k := range n.kids {
			kid, ok := o.eval(k)
			if !ok {
				continue
			}
			if !any {
				copy(set, kid)
				any = true
				continue
			}
			for d, m := range kid {
				if n.op == opAnd {
					set[d] = set[d] && m
				} else {
					set[d] = set[d] || m
				}
			}
		}
		if !any {
			return nil, false
		}
	}
	return set, true
}

// keep clears in set the documents that do not hold term.
func (o *Oracle) keep(set []bool, term string) {
	held := make([]bool, len(set))
	if id, ok := o.ids[term]; ok {
		for _, d := range o.holders[id] {
			held[d] = true
		}
	}
	for d := range set {
		set[d] = set[d] && held[d]
	}
}

// hasPhrase reports whether document d holds terms[i] at p+offsets[i] for
// some position p.
func (o *Oracle) hasPhrase(d int, terms []string, offsets []int) bool {
	ids := make([]int32, len(terms))
	for i, t := range terms {
		ids[i] = o.ids[t] // every term is held: keep cleared the rest
	}
	toks := o.toks[d]
	for _, t := range toks {
		if t.term != ids[0] {
			continue
		}
		ok := true
		for i := 1; i < len(ids) && ok; i++ {
			ok = hasAt(toks, t.pos+int32(offsets[i]), ids[i])
		}
		if ok {
			return true
		}
	}
	return false
}

// hasAt reports whether toks (in position order) hold term at pos.
func hasAt(toks []token, pos, term int32) bool {
	i, _ := slices.BinarySearchFunc(toks, pos, func(t token, pos int32) int { return int(t.pos - pos) })
	for ; i < len(toks) && toks[i].pos == pos; i++ {
		if toks[i].term == term {
			return true
		}
	}
	return false
}
