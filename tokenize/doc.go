// Package tokenize owns the analyzer: the one function from text to terms that
// every other part of bitsieve (index, query, verification, the brute-force
// test oracle) shares. If two components analyze differently, exactness is lost,
// so nothing else in the project splits, lowercases or stems text.
//
// The english analyzer, exactly:
//
//  0. every byte that is not part of valid UTF-8 becomes a space (byte offsets
//     are kept; segment v0.9.1 would otherwise stop at some invalid bytes and
//     silently lose the rest of the text);
//  1. the text is segmented into Unicode UAX#29 words by
//     github.com/blevesearch/segment; segments of type None (spaces,
//     punctuation) are discarded, Letter, Number, Kana and Ideo are kept;
//  2. each kept segment is lowercased with bytes.ToLower;
//  3. each kept segment advances the position counter by one, stop words
//     included, so phrase distances survive stop-word removal;
//  4. stop words are dropped (snowball's list, on the lowercased token, before
//     stemming: "it's" stays a term, "it" does not);
//  5. tokens longer than 64 bytes are dropped;
//  6. the token is stemmed with snowball (english.Stem(token, false)).
//
// Other snowball languages (french, spanish, russian, swedish, norwegian,
// hungarian) follow the same steps with their own stop list and stemmer.
//
// The code analyzer (code.go) is for source code: its words are identifiers,
// split into parts at underscores and case changes (sync.WaitGroup: sync,
// waitgroup, wait, group), lowercased, with no stop list and no stemming.
// A split identifier keeps its whole word as a term at the position before
// its parts, so each position holds one token and phrases stay exact.
//
// The analyzer's Name is recorded in every index so queries are analyzed the
// way the documents were.
//
// Stemming dominates analysis cost, so an Analyzer caches surface form → term.
// An Analyzer is therefore not safe for concurrent use: give each worker its
// own (New is cheap).
//
// A term's hash is xxhash64 of its bytes (Hash). It decides which signature
// rows a term sets, so it is part of the on-disk format and must never change.
package tokenize
