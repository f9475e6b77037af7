// Package kit is bitsieve's test kit: the generated corpora every package's
// tests index, the generated queries they run, and the brute-force oracle
// that says what each query must match.
//
// Corpus and CodeCorpus make deterministic documents (the same n and seed
// give the same documents on every machine and every run): English-like
// words from a Zipfian vocabulary with stop words mixed in, or source-like
// lines of identifiers for the code analyzer. Common words share signature
// rows, rare ones get private rows and lists, and the documents run from one
// word to a few hundred, so every treatment, length class, phrase and prefix
// the engine knows occurs.
//
// An Oracle holds documents as the analyzer reads them and answers a query
// string by brute force: it parses the query language on its own, analyzes
// every word, phrase and prefix with package tokenize, and evaluates the
// tree on each document's terms and positions. The rules are the ones
// query.Parse documents, written out again here without any of the
// engine's code:
//
//   - words side by side, or joined by AND, must all match; OR binds tighter
//     than AND; NOT and a leading - negate a word, phrase, prefix or group;
//   - a bare word the analyzer splits (foo-bar) is the AND of its terms, not
//     a phrase;
//   - a quoted phrase matches its terms at their positions relative to the
//     first kept one (stop words inside hold their places);
//   - word* matches every term that starts with the lowercased word;
//   - a word, phrase or group with nothing searchable (stop words only) is
//     ignored by its parent, negated or not; a query with nothing searchable
//     at all is ErrNoTerms.
//
// The oracle answers queries the engine refuses for their cost (only negated
// words, -a alone); telling those apart is the engine's business.
//
// GenQuery draws queries of one to four leaves (words, phrases and prefixes
// taken from an Oracle's own documents) joined by AND, OR and NOT, rendered
// in the query language, so that most of them match something.
//
// The package imports neither index nor internal/segment, so that the
// internal tests of those two packages can use it: package indextest, which
// builds indexes for tests and so imports index, offers the same corpora and
// the oracle typed as index.Documents for every package above them.
package kit
