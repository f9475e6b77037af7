// Package query answers queries over an index: it parses them (Parse, the
// language and its limits), matches them against the segments' signature
// rows, verifies the candidates exactly, ranks the matches with BM25 and cuts
// snippets. Results are exact: Total equals a brute-force evaluation of the
// query with the index's analyzer.
//
// # Life cycle
//
// A Searcher reads one snapshot of an index directory:
//
//	ix, err := index.Open(dir)       // one MANIFEST's segments, mapped
//	...
//	s, err := query.NewSearcher(ix)  // queries analyzed with ix's analyzer
//	...
//	res, err := s.Search(ctx, query.Request{Query: q, Limit: 10, Snippets: true})
//	...
//	ix.Close()                       // after the last call on s has returned
//
// A Searcher has no Close of its own: it holds nothing but the Index and
// pools of memory. Closing the Index unmaps its segments, so it must wait
// until no call on a Searcher over it is running; what the calls returned
// (Result, DocumentView, Explanation, Cost) is copied out of the index and
// stays valid after Close. A snapshot never changes: documents committed
// after index.Open are not seen. To follow a directory, open the new
// snapshot, make a Searcher over it, send new queries there, and close the
// old Index when the searches still running on it have ended: Live does
// this, with a Snapshot that counts its references and closes its index
// with the last, and Watch, which follows the directory's MANIFEST.
//
// # Several indexes as one
//
// The shards of a cluster are indexes searched as one. Each gives its
// Stats for the query; their sum, passed in Request.Stats, makes every
// shard score as one index of all their documents would, and Merge
// combines the shards' pages into the page one index would return.
//
// # Engines
//
// WithEngine makes a
// Searcher that matches each segment with another engine (SegmentEngine,
// such as the roaring baseline of index/inverted) instead of the signature
// rows; everything else is the same.
//
// # Stages
//
// Search compiles the query first: it parses it with the index's analyzer,
// looks every term up once in the index's lexicon (the lexicon blocks of
// all its words prefetched first, so that their misses overlap), and
// expands each prefix
// to the words of the index that start with it (more than MaxPrefixTerms is
// refused with a *ParseError of class ErrTooLarge, as the parser's limits
// are). Request.Admit, when set, is then called with the query's estimated
// Cost, before any matching. Each segment (several at once, SetWorkers;
// segments of shorter documents first, whose scores tend to be higher) then
// goes through:
//
//  1. match: the query is planned over the segment's rows and evaluated a
//     512-document block at a time into candidates, a superset of the
//     matches: rows shared by several terms let false positives through,
//     and a negation whose rows are not exact is left to verification.
//     Deleted documents are masked out, and a segment lacking a word every
//     match needs is skipped without being planned. Planning prefetches
//     where matching starts (each list's head, each higher-rank row's
//     first line), and a plan without lists finds its next block before it
//     evaluates this one, and prefetches that block's rows
//     (internal/prefetch). A query of words and phrases alone, in a segment
//     where one of its words has a list, is not planned: the shortest
//     list's documents are tested one by one against the other words'
//     lists and rows and the phrases' pair rows (searchWords), then
//     verified and ranked as a plan's would be.
//  2. verify: the candidates of a plan that is not exact are checked against
//     the forward index (which terms the document holds) and, for phrases,
//     the stored positions. An exact plan's candidates are the matches.
//     The forward entries of the next eight candidates to be looked up are
//     kept prefetched, and their offsets sixteen ahead, so that their cache
//     misses overlap instead of waiting one after another.
//  3. rank: each match is scored with BM25, from its term frequencies and
//     the terms' document frequencies over the whole snapshot. An exact
//     plan whose scored terms have private rows or lists reads the
//     frequencies beside their bits (segment.Freqs); any other reads them
//     from the forward index, once with verification's. Each worker keeps
//     the best Offset+Limit of the segments it searches, and the heaps are
//     merged, ties going to the smaller key. Documents whose block score
//     bound cannot reach the page (the k-th best score any worker holds)
//     are counted, not scored. A plan whose total needs no candidate (one
//     word in rows: its live df; an exact conjunction of rows: a popcount)
//     is ranked block by block: once every segment is searched, the blocks
//     of all such plans are taken best bound first, as if from one
//     segment, and ranking stops at the first block below the page; the
//     blocks after it are never evaluated. The page's documents are read
//     last: their records, then their keys and titles, are all asked for
//     before the first is read.
//  4. snippets: for the hits of the page only, when Request.Snippets is set,
//     a window of the stored text that holds the most distinct query words,
//     with the byte ranges to highlight.
//
// Result.Stages times the stages. A CountOnly request stops after
// verification; Count, Cost, Explain, Matches and Document run the parts
// they need. A search checks its context between segments and every few
// hundred candidates, and returns the context's error once it is done.
//
// # Concurrency
//
// Every method of a Searcher may be called from many goroutines at once;
// SetWorkers too, and it applies to the searches that start after it.
// The package function Parse uses the caches of the Analyzer it is given and
// is no more safe for concurrent use than it; Searcher.Parse takes its own.
// The trees Parse returns are never changed afterwards and may be read (Walk,
// String) concurrently.
//
// # Files
//
// Parsing: lex.go reads a query's tokens; parse.go builds the tree, its
// words analyzed, within the limits (Parse); simplify.go flattens it,
// keeps repeated leaves once and checks that it requires a word; string.go
// writes a tree back as query text (String, PlainWords). ast.go holds the
// nodes and Walk, errors.go the errors. Searching: search.go holds the
// Searcher and runs the segments through the stages; compile.go compiles
// a query (lexicon lookups, document frequencies); plan.go plans a query
// over a segment's rows, match.go evaluates a plan block by block,
// words.go answers a conjunction of words document by document, orrows.go
// decides an OR of words from its rows, verify.go verifies candidates
// (phrasecheck.go checks a phrase for an engine), rank.go scores and keeps
// the best, snippet.go cuts snippets, document.go reads a stored document
// a window at a time with its highlights (Document). result.go
// holds Request and Result, cost.go the Cost estimate, explain.go Explain.
// Seams: engine.go plugs another engine into a segment's match stage
// (SegmentEngine) and matches.go compares engines (Matches); stats.go
// holds the statistics BM25 scores with (Stats) and merge.go the merge of
// several indexes' pages (Merge); snapshot.go the live, reference-counted
// snapshots of a directory (Live; inode_*.go tell one MANIFEST file from
// another).
package query
