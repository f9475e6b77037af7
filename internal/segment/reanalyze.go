package segment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/cespare/xxhash/v2"
)

// DocReader gives a segment's documents back as the Docs they were built
// from, for compaction and resealing: terms from the forward index,
// positions from the positions section, text from the store, each checked
// against the document table. It is not safe for concurrent use.
type DocReader struct {
	s     *Segment
	terms []string // by termID
	text  *TextReader
	post  []Posting

	locals, positions, marks, tfs []uint32
}

// NewDocReader returns a reader of the segment's documents; it loads the
// segment's terms (LoadTerms).
func (s *Segment) NewDocReader() (*DocReader, error) {
	if err := s.LoadTerms(); err != nil {
		return nil, err
	}
	terms := make([]string, s.NumTerms())
	s.Terms(func(t string, id TermID) bool {
		terms[id] = t
		return true
	})
	return &DocReader{s: s, terms: terms, text: s.NewTextReader()}, nil
}

// Doc rebuilds document d.
func (src *DocReader) Doc(d int) (*Doc, error) {
	s := src.s
	var err error
	if src.post, err = s.Forward(src.post[:0], d); err != nil {
		return nil, err
	}
	info := s.Doc(d)
	if len(src.post) != info.Distinct {
		return nil, &sectioned.CorruptError{File: s.name, Section: "forward", Detail: fmt.Sprintf("document %d has %d terms, its table entry says %d", d, len(src.post), info.Distinct)}
	}
	// Terms in term order; the positions' tokens, which name terms in
	// forward (termID) order, are renumbered to match.
	order := make([]int, len(src.post))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return strings.Compare(src.terms[src.post[a].Term], src.terms[src.post[b].Term])
	})
	terms := make([]TermFreq, len(src.post))
	perm := make([]uint32, len(src.post))
	for i, o := range order {
		p := src.post[o]
		terms[i] = TermFreq{src.terms[p.Term], p.TF}
		perm[o] = uint32(i)
	}
	e := s.pos[s.posOff[d]:s.posOff[d+1]]
	if src.locals, src.positions, src.marks, err = decodePositionsEntry(e, tfsOf(src.post, &src.tfs), src.locals[:0], src.positions[:0], src.marks[:0]); err != nil {
		return nil, s.badPositions(d, err.Error())
	}
	if len(src.locals) != info.Tokens {
		return nil, s.badPositions(d, fmt.Sprintf("%d tokens, its table entry says %d", len(src.locals), info.Tokens))
	}
	for i, l := range src.locals {
		src.locals[i] = perm[l]
	}
	text, err := src.text.Text(d)
	if err != nil {
		return nil, err
	}
	if len(text) != info.TextLen || xxhash.Sum64(text) != info.Hash {
		return nil, &sectioned.CorruptError{File: s.name, Section: "store", Detail: fmt.Sprintf("text of document %d (%s) does not match its hash", d, info.Key)}
	}
	return &Doc{
		Key: info.Key, Title: info.Title, Text: slices.Clone(text), Size: info.Size, ModTime: info.ModTime,
		Terms: terms, Tokens: info.Tokens, Hash: info.Hash, Source: info.Source,
		Pos: appendTokens(nil, src.locals, src.positions, src.marks),
	}, nil
}
