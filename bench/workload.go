package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/query"
)

// Query is one benchmark query with its class.
type Query struct {
	Text   string `json:"query"`
	Source string `json:"source"` // the query file's base name, or "sample"
	// Terms is the number of distinct positive terms (a prefix counts one).
	Terms int `json:"terms"`
	// MinDF is the document frequency, over the whole index, of the rarest
	// positive term (0: a term is in no document).
	MinDF int `json:"min_df"`
}

// TermsClass is the query's class by number of terms.
func (q Query) TermsClass() string {
	if q.Terms >= 5 {
		return "5+ terms"
	}
	if q.Terms == 1 {
		return "1 term"
	}
	return fmt.Sprintf("%d terms", q.Terms)
}

// DFClasses are the classes by document frequency of the rarest term, in
// order.
var DFClasses = []string{"df 0", "df 1–9", "df 10–99", "df 100–999", "df 1k–9.9k", "df ≥10k"}

// TermsClasses are the classes by number of terms, in order.
var TermsClasses = []string{"1 term", "2 terms", "3 terms", "4 terms", "5+ terms"}

// Overall is the class of every query.
const Overall = "all"

// DFClass is the query's class by the document frequency of its rarest term.
func (q Query) DFClass() string { return DFClasses[dfBucket(q.MinDF)] }

func dfBucket(df int) int {
	switch {
	case df <= 0:
		return 0
	case df < 10:
		return 1
	case df < 100:
		return 2
	case df < 1000:
		return 3
	case df < 10000:
		return 4
	}
	return 5
}

// ReadQueries reads a query file: one query per line, blank lines skipped.
func ReadQueries(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), query.MaxQueryBytes*4)
	for sc.Scan() {
		if q := strings.TrimSpace(sc.Text()); q != "" {
			out = append(out, q)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read queries %s: %w", path, err)
	}
	return out, nil
}

// SourceName is how a query file is named in reports.
func SourceName(path string) string { return filepath.Base(path) }

// Classify parses text with the searcher's analyzer and classifies it. It
// returns the parser's error for a query bitsieve refuses.
func Classify(s *query.Searcher, text, source string) (Query, error) {
	root, err := s.Parse(text)
	if err != nil {
		return Query{}, err
	}
	q := Query{Text: text, Source: source, MinDF: -1}
	ix := s.Index()
	seen := map[string]bool{}
	note := func(key string, df int) {
		if seen[key] {
			return
		}
		seen[key] = true
		q.Terms++
		if q.MinDF < 0 || df < q.MinDF {
			q.MinDF = df
		}
	}
	query.Walk(root, func(n query.Node, _ bool) bool {
		switch x := n.(type) {
		case *query.Term:
			note(x.Term, GlobalDF(ix, x.Term))
		case *query.Phrase:
			for _, t := range x.Terms {
				note(t, GlobalDF(ix, t))
			}
		case *query.Prefix:
			df := 0
			ix.Prefix(x.Prefix, func(_ string, es []segment.Entry) bool {
				for _, e := range es {
					df += e.DF
				}
				return true
			})
			note(x.Prefix+"*", min(df, ix.NumDocs()))
		case *query.Not:
			// A negation's terms do not make the query cheaper or dearer
			// to find: they are not counted.
			return false
		}
		return true
	})
	q.MinDF = max(q.MinDF, 0)
	return q, nil
}

// GlobalDF is the number of documents of ix containing term, over all
// segments.
func GlobalDF(ix *index.Index, term string) int {
	df := 0
	es, _ := ix.Lookup(term, nil)
	for _, e := range es {
		df += e.DF
	}
	return df
}
