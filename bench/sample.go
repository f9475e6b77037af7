package bench

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/query"
	"github.com/bitsieve/bitsieve/tokenize"
)

// sampleTextBytes bounds how much of a drawn document is analyzed: enough
// words to choose from, without analyzing megabyte files.
const sampleTextBytes = 32 << 10

// Sample draws up to n conjunctive queries of 1–4 words from the index's own
// documents, with a fixed seed: the same index and seed give the same
// queries. Queries are stratified by the document frequency of their rarest
// word: the k-th query aims at DF class 1 + k mod 5 (1–9 ... ≥10k; classes the
// index is too small for are skipped). A query takes its rarest word from a
// random document, then up to three more words of the same document that are
// at least as frequent, so it has at least one match and stays in its class.
// Words are taken as written and lowercased, never as stems (stemming is not
// idempotent), and a query is kept only if it analyzes back to the words'
// terms.
func Sample(ix *index.Index, n int, seed uint64) ([]string, error) {
	segs := ix.Segments()
	total := 0
	for _, s := range segs {
		total += s.NumDocs()
	}
	if total == 0 || n <= 0 {
		return nil, nil
	}
	r := rand.New(rand.NewPCG(seed, 0x62697473))
	an, err := tokenize.New(ix.Analyzer())
	if err != nil {
		return nil, err
	}
	dfCache := map[string]int{}
	df := func(t string) int {
		v, ok := dfCache[t]
		if !ok {
			v = GlobalDF(ix, t)
			dfCache[t] = v
		}
		return v
	}
	var buckets []int // DF classes the index can have
	for b := 1; b < len(DFClasses); b++ {
		if lo := []int{0, 1, 10, 100, 1000, 10000}[b]; lo <= ix.NumDocs() {
			buckets = append(buckets, b)
		}
	}
	type word struct {
		surface string
		term    string
		df      int
	}
	var (
		out   []string
		seen  = map[string]bool{}
		toks  []tokenize.Token
		words []word
		text  []byte
	)
	readers := make([]*segment.TextReader, len(segs))
	for k := 0; len(out) < n && k < 4*n; k++ {
		bucket := buckets[k%len(buckets)]
		for attempt := 0; attempt < 40; attempt++ {
			g := r.IntN(total)
			si := 0
			for g >= segs[si].NumDocs() {
				g -= segs[si].NumDocs()
				si++
			}
			seg := segs[si]
			if !seg.IsLive(g) {
				continue
			}
			if readers[si] == nil {
				readers[si] = seg.NewTextReader()
			}
			t, err := readers[si].Text(g)
			if err != nil {
				return nil, err
			}
			text = append(text[:0], t[:min(len(t), sampleTextBytes)]...)
			toks = an.Analyze(toks[:0], text)
			if len(t) > len(text) && len(toks) > 0 {
				toks = toks[:len(toks)-1] // the last word may be cut
			}
			words = words[:0]
			have := map[string]bool{}
			for _, tk := range toks {
				if have[tk.Term] {
					continue
				}
				have[tk.Term] = true
				words = append(words, word{strings.ToLower(string(text[tk.Start:tk.End])), tk.Term, df(tk.Term)})
			}
			var rare []int
			for i, w := range words {
				if dfBucket(w.df) == bucket {
					rare = append(rare, i)
				}
			}
			if len(rare) == 0 {
				continue
			}
			first := words[rare[r.IntN(len(rare))]]
			var more []word
			for _, w := range words {
				if w.df >= first.df && w.term != first.term {
					more = append(more, w)
				}
			}
			r.Shuffle(len(more), func(i, j int) { more[i], more[j] = more[j], more[i] })
			chosen := append([]word{first}, more[:min(len(more), r.IntN(4))]...)
			r.Shuffle(len(chosen), func(i, j int) { chosen[i], chosen[j] = chosen[j], chosen[i] })
			surf := make([]string, len(chosen))
			terms := make([]string, len(chosen))
			for i, w := range chosen {
				surf[i], terms[i] = w.surface, w.term
			}
			q := strings.Join(surf, " ")
			if seen[q] || !analyzesTo(q, an, terms) {
				continue
			}
			seen[q] = true
			out = append(out, q)
			break
		}
	}
	return out, nil
}

// analyzesTo reports whether q parses to a conjunction of exactly terms.
func analyzesTo(q string, an *tokenize.Analyzer, terms []string) bool {
	root, err := query.Parse(q, an)
	if err != nil {
		return false
	}
	var got []string
	switch x := root.(type) {
	case *query.Term:
		got = []string{x.Term}
	case *query.And:
		for _, k := range x.Children {
			t, ok := k.(*query.Term)
			if !ok {
				return false
			}
			got = append(got, t.Term)
		}
	default:
		return false
	}
	want := slices.Clone(terms)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}
