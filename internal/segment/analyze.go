package segment

import (
	"bytes"
	"slices"
	"strings"

	"github.com/bitsieve/bitsieve/tokenize"
	"github.com/cespare/xxhash/v2"
)

// maxKeptTokens bounds the per-token buffers an analysis goroutine keeps
// between documents.
const maxKeptTokens = 1 << 16

// Analysis is one analysis goroutine's state: its analyzer and buffers
// reused from one document to the next. A document's terms are the
// analyzer's strings: its stem cache hands out one copy of a term for each
// surface form in use, which buffered documents share. It keeps 8
// bytes per token of a document (its term and position) while it is
// analyzed, so that a text of millions of words costs tens of megabytes.
type Analysis struct {
	a         *tokenize.Analyzer
	ids       map[string]uint32 // the document's terms → their order of first occurrence
	terms     []string          // by order of first occurrence
	counts    []uint32          // their frequencies
	sorted    []uint32          // first-occurrence orders, sorted by term
	local     []uint32          // first-occurrence order → index in sorted
	toks      []uint32          // per token: its term (first occurrence order, then local)
	positions []uint32          // per token: its position
	marks     []uint32          // the byte offset of every MarkStride-th token
	pos       []byte
}

// NewAnalysis returns an analysis with the analyzer of language lang
// (tokenize.New).
func NewAnalysis(lang string) *Analysis {
	return &Analysis{a: tokenize.MustNew(lang), ids: map[string]uint32{}}
}

// Analyze analyzes d.Text into the rest of d: its distinct terms sorted,
// with their frequencies, and its token stream (Pos), each token naming its
// term by its index among them (Build renumbers them in termID order).
func (an *Analysis) Analyze(d *Doc) {
	clear(an.ids)
	an.terms, an.counts = an.terms[:0], an.counts[:0]
	an.toks, an.positions, an.marks = an.toks[:0], an.positions[:0], an.marks[:0]
	an.a.Tokens(d.Text, func(t tokenize.Token) {
		id, ok := an.ids[t.Term]
		if !ok {
			id = uint32(len(an.terms))
			an.ids[t.Term] = id
			an.terms = append(an.terms, t.Term)
			an.counts = append(an.counts, 0)
		}
		an.counts[id]++
		if len(an.toks)%MarkStride == 0 {
			an.marks = append(an.marks, uint32(t.Start))
		}
		an.toks = append(an.toks, id)
		an.positions = append(an.positions, uint32(t.Pos))
	})
	an.sorted, an.local = an.sorted[:0], slices.Grow(an.local[:0], len(an.terms))[:len(an.terms)]
	for i := range an.terms {
		an.sorted = append(an.sorted, uint32(i))
	}
	slices.SortFunc(an.sorted, func(x, y uint32) int { return strings.Compare(an.terms[x], an.terms[y]) })
	tf := make([]TermFreq, len(an.sorted))
	for k, i := range an.sorted {
		tf[k] = TermFreq{an.terms[i], an.counts[i]}
		an.local[i] = uint32(k)
	}
	for i, id := range an.toks {
		an.toks[i] = an.local[id]
	}
	// Encoded in a reused buffer, then copied: a slice grown by append
	// would hold up to twice its bytes while the document is buffered.
	an.pos = appendTokens(an.pos[:0], an.toks, an.positions, an.marks)
	d.Terms, d.Tokens, d.Hash, d.Pos = tf, len(an.toks), xxhash.Sum64(d.Text), bytes.Clone(an.pos)
	if cap(an.toks) > maxKeptTokens {
		// Grown by a very long document: not kept for the next ones.
		an.toks, an.positions, an.marks, an.pos = nil, nil, nil, nil
	}
	if len(an.terms) > maxKeptTokens {
		an.ids, an.terms, an.counts, an.sorted, an.local = map[string]uint32{}, nil, nil, nil, nil
	}
}
