package query

// Cost estimates the work of a query before it runs, from the lexicon's
// document frequencies alone, so that a server can admit an expensive
// query differently from a cheap one. The estimates bound the work from
// above rather than predict it (the signature's false positives, a few
// percent of its candidates, come on top):
//
//   - Candidates: the documents that can match, so the candidates to
//     verify and rank. A word has its documents, a phrase those of its
//     rarest word (before its pair rows narrow them), a prefix those of its
//     words; an AND at most its rarest positive input, an OR the sum of its
//     inputs, a NOT alone every document. It is never below the true number
//     of hits.
//   - Positions: the candidates whose positions a phrase check reads: a
//     phrase's candidates, capped by the AND around it.
//   - RowBlocks: 512-document blocks of rows or lists read, one per block of
//     the index for every word.
type Cost struct {
	Candidates int64 `json:"candidates"`
	Positions  int64 `json:"positions"`
	RowBlocks  int64 `json:"row_blocks"`
}

// Units weighs a Cost into one number, about the documents' worth of work
// it stands for: a block of rows is read in the time a candidate is
// verified, and a phrase check reads positions besides frequencies.
func (c Cost) Units() int64 { return c.RowBlocks + c.Candidates + 4*c.Positions }

// Cost parses q and estimates its work (see Cost). A query that does not
// parse gets the parser's error, as Search would.
func (s *Searcher) Cost(q string) (Cost, error) {
	st, err := s.begin(q, false, nil)
	if err != nil {
		return Cost{}, err
	}
	defer s.states.Put(st)
	return s.costOf(&st.c), nil
}

// costOf estimates the work of a compiled query.
func (s *Searcher) costOf(c *compiled) Cost {
	n := int64(s.ix.NumDocs())
	e := costEstimator{c: c, n: n}
	cand := e.node(c.root, n, true)
	blocks := (n + 511) / 512
	return Cost{Candidates: cand, Positions: e.positions, RowBlocks: e.words * blocks}
}

type costEstimator struct {
	c         *compiled
	n         int64 // live documents
	words     int64 // leaf words seen
	positions int64
}

// df is a term's document frequency over every segment.
func (e *costEstimator) df(t string) int64 {
	i, ok := e.c.termIdx[t]
	if !ok {
		return 0
	}
	var d int64
	for _, en := range e.c.ents[i] {
		d += int64(en.DF)
	}
	return d
}

// node returns n's candidates, at most limit (the candidates of the AND
// around it). count says whether its words and positions are counted: an
// AND first sizes its inputs without counting, to find its limit.
func (e *costEstimator) node(n Node, limit int64, count bool) int64 {
	switch x := n.(type) {
	case *Term:
		if count {
			e.words++
		}
		return min(e.df(x.Term), limit)
	case *Phrase:
		m := limit
		for _, t := range x.Terms {
			m = min(m, e.df(t))
		}
		if count {
			e.words += int64(len(x.Terms))
			e.positions += m
		}
		return m
	case *Prefix:
		var d int64
		for _, w := range e.c.prefixes[x.Prefix] {
			d += e.df(w)
		}
		if count {
			e.words += int64(len(e.c.prefixes[x.Prefix]))
		}
		return min(d, limit)
	case *Not:
		e.node(x.Child, limit, count)
		return limit
	case *And:
		m := limit
		for _, k := range x.Children {
			if _, neg := k.(*Not); !neg {
				m = min(m, e.node(k, limit, false))
			}
		}
		if count {
			for _, k := range x.Children {
				e.node(k, m, true)
			}
		}
		return m
	case *Or:
		var sum int64
		for _, k := range x.Children {
			sum += e.node(k, limit, count)
		}
		return min(sum, limit)
	}
	return 0
}
