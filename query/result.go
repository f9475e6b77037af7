package query

import "time"

// Request is one search.
type Request struct {
	Query     string
	Limit     int  // hits to return (0: DefaultLimit)
	Offset    int  // hits to skip, for pagination
	CountOnly bool // only count the exact matches: no ranking, no hits
	Snippets  bool // fill Hit.Snippet and Hit.Highlights

	// Stats, when set, are the statistics BM25 scores with instead of the
	// snapshot's: those of several indexes searched as one (Stats).
	Stats *Stats

	// Admit, when set, is called once the query is parsed and its cost
	// estimated (see Cost), before any matching: it may wait, refuse (its
	// error is Search's), or return how many goroutines the search may
	// use (0: the Searcher's) and a release called when the search ends.
	// A server admits queries by cost with it, compiling each only once.
	Admit func(Cost) (workers int, release func(), err error)

	// Pause, when set, is called by the search's goroutines between the
	// segments they search and the blocks they rank, with how long the
	// caller worked since its last call (or its start): it may sleep, to
	// give the cores to other searches. A server slows its heavy searches
	// with it while cheap ones are waiting. It must be safe for concurrent
	// use.
	Pause func(worked time.Duration)
}

// DefaultLimit is the page size when a Request leaves Limit at zero.
const DefaultLimit = 10

// Result is the answer to a Request. Total is exact: it equals a brute-force
// evaluation of the query with the index's analyzer.
type Result struct {
	Query          string        `json:"query"`
	Total          int           `json:"total"`           // exact number of matching documents
	Candidates     int           `json:"candidates"`      // documents the signature stage proposed
	FalsePositives int           `json:"false_positives"` // candidates that verification rejected
	Scored         int           `json:"scored"`          // hits scored with BM25: the rest were in blocks whose bound could not enter the page
	Took           time.Duration `json:"-"`
	TookMicros     int64         `json:"took_us"`
	Hits           []Hit         `json:"hits"`
	Stages         Stages        `json:"stages"`
}

// Stages times the query pipeline, so its cost is always visible.
type Stages struct {
	Parse  time.Duration `json:"parse_ns"`
	Match  time.Duration `json:"match_ns"`
	Verify time.Duration `json:"verify_ns"`
	Rank   time.Duration `json:"rank_ns"`
	Snip   time.Duration `json:"snippet_ns"`
}

// Hit is one ranked document.
type Hit struct {
	Key        string  `json:"key"`
	Title      string  `json:"title"`
	Score      float64 `json:"score"`
	Snippet    string  `json:"snippet"`              // plain text excerpt
	Highlights []Range `json:"highlights,omitempty"` // byte ranges of Snippet to highlight
	Line       int     `json:"line,omitempty"`       // 1-based line of the document where the snippet's first highlight is; 0 when it has none
}

// Range is a half-open byte range [Start, End).
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}
