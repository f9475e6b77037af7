package bench

import (
	"math/rand/v2"
	"strings"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/query"
	"github.com/bitsieve/bitsieve/tokenize"
)

// PhraseQueries makes up to n distinct phrase queries from the documents'
// own lines, as a user quoting a line of source would: a random document, a
// random run of 2 to 4 consecutive words on one line of it, quoted, with the
// query language's operator characters blanked. Each query has at least
// two words that the analyzer keeps. The same documents and seed give the
// same queries.
func PhraseQueries(docs []corpus.Document, n int, seed uint64, an *tokenize.Analyzer) []string {
	r := rand.New(rand.NewPCG(seed, 17))
	var out []string
	seen := map[string]bool{}
	var toks []tokenize.Token
	for tries := 0; len(out) < n && tries < 50*n && len(docs) > 0; tries++ {
		d := docs[r.IntN(len(docs))]
		toks = an.Analyze(toks[:0], d.Text)
		if len(toks) < 2 {
			continue
		}
		words := 2 + r.IntN(3)
		s := r.IntN(len(toks) - 1)
		e := min(len(toks)-1, s+words-1)
		span := string(d.Text[toks[s].Start:toks[e].End])
		if strings.ContainsAny(span, "\n\r") || len(span) > 80 {
			continue
		}
		q := `"` + query.PlainWords(span) + `"`
		if kept := an.Analyze(nil, []byte(q)); len(kept) < 2 || seen[q] {
			continue
		}
		seen[q] = true
		out = append(out, q)
	}
	return out
}
