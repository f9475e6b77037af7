package query

import (
	"slices"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// compiled is a parsed query with its global term statistics.
type compiled struct {
	root     Node
	terms    []string // every term (prefix expansions included), negated ones too
	termIdx  map[string]int
	positive []bool // by term: it occurs outside a negation (scored, highlighted)
	idf      []float64
	// ents[termIdx[t]][segment] is t's lexicon entry in each segment (DF 0:
	// absent), and hashes[termIdx[t]] its hash: each word is looked up once,
	// in the index's lexicon, at compile time.
	ents     [][]segment.Entry
	entSlab  []segment.Entry // the ents, one block of segments per term
	es       []segment.Entry // scratch for lookups
	hashes   []uint64
	prefixes map[string][]string // the words of each prefix, expanded once
	segIdx   map[*segment.Segment]int
	required []int // indexes of the terms every match contains (requiredTerms)
	words    bool  // the query is words and phrases alone, all required (conjunctionOfWords)
	// avgdl is the mean document length BM25 scores with, and div its
	// block bounds' divisors: the snapshot's, or those of Request.Stats.
	avgdl float64
	div   *boundDivisors
}

// lookup returns a term's entry in a segment, from the compile-time lookups.
func (q *compiled) lookup(seg *segment.Segment, t string) (segment.Entry, bool) {
	i, ok := q.termIdx[t]
	if !ok {
		return segment.Entry{}, false
	}
	return q.entry(i, q.segIdx[seg])
}

// entry returns the entry of term i (an index into terms) in segment si.
func (q *compiled) entry(i, si int) (segment.Entry, bool) {
	e := q.ents[i][si]
	return e, e.DF > 0
}

// hash is the hash (tokenize.Hash) of a compiled term.
func (q *compiled) hash(t string) uint64 { return q.hashes[q.termIndex(t)] }

// termIndex is the index of term t in terms. A query of a few words scans
// them: its terms are the strings of the parsed query itself, so each
// comparison is decided by their lengths and addresses, where a map would
// hash t at every look-up (the planner looks each term up once a segment).
func (q *compiled) termIndex(t string) int {
	if len(q.terms) <= 16 {
		for i, u := range q.terms {
			if u == t {
				return i
			}
		}
	}
	return q.termIdx[t]
}

func (q *compiled) addTerm(t string, positive bool) {
	i, ok := q.termIdx[t]
	if !ok {
		i = len(q.terms)
		q.termIdx[t] = i
		q.terms = append(q.terms, t)
		q.positive = append(q.positive, false)
	}
	q.positive[i] = q.positive[i] || positive
}

// compile parses q and gathers the global document frequency of every
// positive term, summed over segments, for BM25.
func (s *Searcher) compile(q string) (*compiled, error) {
	an := s.analyzers.Get().(*tokenize.Analyzer)
	defer s.analyzers.Put(an)
	c := &compiled{}
	if err := s.compileInto(c, new(parser), an, q, true, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// compileInto parses q with p and compiles it into c, reusing the memory of
// both: in steady state it allocates nothing. Without rank (a count) it
// skips the document frequencies, which only BM25 needs; with stats, BM25
// takes them from there instead of the snapshot (Request.Stats).
func (s *Searcher) compileInto(c *compiled, p *parser, an *tokenize.Analyzer, q string, rank bool, stats *Stats) error {
	root, err := p.parse(q, an)
	if err != nil {
		return err
	}
	c.reset(root, s.segIdx)
	if err := c.gather(s.ix, root); err != nil {
		return err
	}
	// Each term is hashed once and looked up once, in the lexicon; the
	// planners and the segment filter reuse the answers.
	segs := s.ix.Segments()
	n := len(c.terms) * len(segs)
	c.entSlab = slices.Grow(c.entSlab[:0], n)[:n]
	clear(c.entSlab)
	for i, t := range c.terms {
		c.hashes = append(c.hashes, tokenize.Hash(t))
		c.ents = append(c.ents, c.entSlab[i*len(segs):(i+1)*len(segs)])
	}
	c.es, err = s.ix.LookupWords(c.terms, c.es, func(i int, es []segment.Entry) {
		for _, e := range es {
			c.ents[i][e.Seg] = e
		}
	})
	if err != nil {
		return err
	}
	c.required = requiredTerms(root, c, c.required[:0])
	c.words = conjunctionOfWords(root)
	if !rank {
		return nil
	}
	if stats != nil {
		return c.statsFrom(stats)
	}
	c.avgdl, c.div = s.ix.AvgDocLen(), s.divisors
	docs := float64(s.ix.NumDocs())
	for i := range c.terms {
		c.idf = append(c.idf, bm25IDF(docs, float64(c.df(segs, i))))
	}
	return nil
}

// df is the live document frequency of term i in the snapshot, summed over
// its segments.
func (c *compiled) df(segs []*segment.Segment, i int) int {
	df := 0
	for si, e := range c.ents[i] {
		if e.DF > 0 {
			df += segs[si].LiveDFOf(e)
		}
	}
	return df
}

// reset empties c for a new query, keeping its memory.
func (c *compiled) reset(root Node, segIdx map[*segment.Segment]int) {
	c.root, c.segIdx = root, segIdx
	if c.termIdx == nil {
		c.termIdx = map[string]int{}
	}
	clear(c.termIdx)
	clear(c.prefixes)
	c.terms, c.positive, c.idf = c.terms[:0], c.positive[:0], c.idf[:0]
	c.ents, c.hashes, c.required = c.ents[:0], c.hashes[:0], c.required[:0]
	c.avgdl = 0
}

// gather adds the terms of n to c, expanding prefixes once.
func (c *compiled) gather(ix *index.Index, n Node) error {
	var err error
	Walk(n, func(n Node, negated bool) bool {
		if err != nil {
			return false // stop at the first error
		}
		switch x := n.(type) {
		case *Term:
			c.addTerm(x.Term, !negated)
		case *Phrase:
			for _, t := range x.Terms {
				c.addTerm(t, !negated)
			}
		case *Prefix:
			words, ok := c.prefixes[x.Prefix]
			if !ok {
				if words, err = expandPrefix(ix, x.Prefix); err != nil {
					return false
				}
				if c.prefixes == nil {
					c.prefixes = map[string][]string{}
				}
				c.prefixes[x.Prefix] = words
			}
			for _, w := range words {
				c.addTerm(w, !negated)
			}
		}
		return true
	})
	return err
}

// requiredTerms appends the indexes (into c.terms) of the terms every match
// of n must contain: a term, a phrase's terms, and those of each child of an
// AND. A segment without one of them cannot match (canMatch).
func requiredTerms(n Node, c *compiled, dst []int) []int {
	Walk(n, func(n Node, _ bool) bool {
		switch x := n.(type) {
		case *Term:
			dst = append(dst, c.termIdx[x.Term])
		case *Phrase:
			for _, t := range x.Terms {
				dst = append(dst, c.termIdx[t])
			}
		case *And:
			return true
		}
		return false
	})
	return dst
}

// canMatch reports whether segment si holds every required term of the
// query: a segment that lacks one is skipped before it is planned.
func (q *compiled) canMatch(si int) bool {
	for _, t := range q.required {
		if q.ents[t][si].DF == 0 {
			return false
		}
	}
	return true
}

// expandPrefix returns the words of the index that start with prefix, looked
// up once in the lexicon; more than MaxPrefixTerms is an error.
func expandPrefix(ix *index.Index, prefix string) ([]string, error) {
	var words []string
	broad := false
	err := ix.Prefix(prefix, func(w string, _ []segment.Entry) bool {
		if len(words) == MaxPrefixTerms {
			broad = true
			return false
		}
		words = append(words, w)
		return true
	})
	if err != nil {
		return nil, err
	}
	if broad {
		return nil, prefixTooBroad(prefix)
	}
	return words, nil
}
