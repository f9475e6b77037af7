package query

import (
	"errors"
	"fmt"
	"strings"
)

// Stats are the collection statistics BM25 scores with: how many live
// documents there are, their total length in tokens, and how many of them
// hold each term of a query. A Searcher takes them from its snapshot. A
// search over several indexes as one (the shards of a cluster) gathers
// each index's Stats for the query (Searcher.Stats), sums them (Add) and
// passes the sum to every index in Request.Stats: each then scores as one
// index holding all their documents would, to the last bit, since the sums
// are of whole numbers and the scores are computed from them alone.
type Stats struct {
	Docs   int64 `json:"docs"`   // live documents
	Tokens int64 `json:"tokens"` // their indexed tokens
	// DF is the live document frequency of each analyzed term of the
	// query (a prefix's words included); a term the index lacks is 0 or
	// absent.
	DF map[string]int64 `json:"df"`
}

// ErrStatsMismatch is the error of a search whose Request.Stats do not
// cover a term the index holds: the statistics were gathered for another
// query, or from another snapshot of an index that has changed since.
var ErrStatsMismatch = errors.New("query: the statistics do not cover the query")

// Add adds o's counts to st.
func (st *Stats) Add(o *Stats) {
	st.Docs += o.Docs
	st.Tokens += o.Tokens
	if st.DF == nil {
		st.DF = make(map[string]int64, len(o.DF))
	}
	for t, n := range o.DF {
		st.DF[t] += n
	}
}

// AvgDocLen is the mean length of a live document, in tokens.
func (st *Stats) AvgDocLen() float64 {
	if st.Docs == 0 {
		return 0
	}
	return float64(st.Tokens) / float64(st.Docs)
}

// Stats returns the statistics of q's terms in the snapshot: its live
// documents and tokens, and the live document frequency of every analyzed
// term of q (each prefix expanded to the snapshot's words). A query that
// does not parse gets the parser's error, as Search would.
func (s *Searcher) Stats(q string) (*Stats, error) {
	st, err := s.begin(q, false, nil)
	if err != nil {
		return nil, err
	}
	defer s.states.Put(st)
	c, segs := &st.c, s.ix.Segments()
	out := &Stats{Docs: int64(s.ix.NumDocs()), Tokens: s.ix.Tokens(), DF: make(map[string]int64, len(c.terms))}
	for i, t := range c.terms {
		out.DF[t] = int64(c.df(segs, i))
	}
	return out, nil
}

// statsFrom sets c's BM25 statistics from st (Request.Stats). Each prefix
// is checked against the words st holds, so that a search over several
// indexes refuses a prefix that stands for more than MaxPrefixTerms words
// of them all, as one index would.
func (c *compiled) statsFrom(st *Stats) error {
	c.avgdl = st.AvgDocLen()
	if c.div == nil || c.div.avgdl != c.avgdl {
		c.div = newBoundDivisors(c.avgdl)
	}
	docs := float64(st.Docs)
	for i, t := range c.terms {
		df, ok := st.DF[t]
		if !ok && c.anyEntry(i) {
			return fmt.Errorf("%w: no document frequency for %q", ErrStatsMismatch, t)
		}
		c.idf = append(c.idf, bm25IDF(docs, float64(df)))
	}
	for prefix := range c.prefixes {
		n := 0
		for t, df := range st.DF {
			if df > 0 && strings.HasPrefix(t, prefix) {
				n++
			}
		}
		if n > MaxPrefixTerms {
			return prefixTooBroad(prefix)
		}
	}
	return nil
}

// anyEntry reports whether some segment holds term i.
func (c *compiled) anyEntry(i int) bool {
	for _, e := range c.ents[i] {
		if e.DF > 0 {
			return true
		}
	}
	return false
}
