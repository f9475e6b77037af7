// Package segment reads and writes one segment file of a bitsieve index: an
// immutable, memory-mapped group of documents with its signature rows,
// lists, forward index, positions, frequencies, document table and store
// (docs/format.md describes every byte; package index's documentation tells
// how the structures are chosen).
//
// Writing: an Analysis turns a document's text into a Doc (its terms with
// their frequencies and its token positions), and Build seals Docs into a
// file, returning the segment's dictionary for the index's lexicon.
// DocReader gives a segment's documents back as Docs, so that compaction
// and resealing rebuild segments without analyzing text again.
//
// Reading: New validates a file's framing and sections (their checksums as
// far as the Verify level asks) and reads it in place. The segment holds no
// dictionary of its own: the index hands it one (SetDict) from its lexicon,
// whose Entries say where each word's rows, list and statistics are. Check
// verifies every invariant of a segment, down to every posting.
//
// Files: build.go and segment.go write and read the sections in order
// (segment.go also the Segment's counts and sizes); file.go holds the
// format version and the section ids; analyze.go turns a document's text
// into a Doc; rows.go reads its rows and lists, terms.go its dictionary
// and a term's treatment and rows, documents.go its document table,
// text.go its stored texts; signature.go, treatment.go (rows and how a
// term is stored), forward.go, positions.go, freqs.go, impacts.go,
// store.go and docrecord.go each own one section; falsepos.go finds each
// shared-row term's false positives at seal time and reads them back
// (section 15); entry.go the lexicon's view of a term; deletions.go a
// tombstone's effect; reanalyze.go gives a segment's documents back as
// Docs (DocReader), for compaction and resealing; order.go the document
// orders a reseal may lay them out in (DocOrder); check.go and quality.go
// the checks.
package segment
