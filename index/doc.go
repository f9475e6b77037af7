// Package index owns bitsieve's on-disk index: bit-sliced signatures with a
// forward index and a document store, grouped in immutable segments, named
// by a MANIFEST, and read in place through mmap.
//
// An embedding program opens an index (Open), searches it with package
// query, and changes it with a Writer (Create, OpenWriter); Check, Compact,
// Recover and Stats serve the bitsieve commands of the same names. One
// segment file, read and written, is package internal/segment's: this
// package holds what spans segments (the MANIFEST, the lexicon, tombstones,
// commits, compaction), and Index.Segments and Index.Lookup hand the
// segments and their words to package query.
//
// # Signatures
//
// Every document is a Bloom filter over its terms; the filters of a segment
// are stored column-wise, one long row of bits per hash position, so a
// conjunctive query ANDs a few rows 64 documents per machine word. Rows are
// frequency-conscious (BitFunnel). With f = df/n a term gets the cheapest of
// three structures (segment.Treatment has the rule and the false-positive model):
//
//   - a private row, an exact bitmap of its documents, when it is no larger
//     than the term's shared rows;
//   - an exact sorted list of its documents for the rarest tail, f below the
//     list density (1/256, halved in a segment until its shared rows hold at
//     least as many postings as its lists): there a term would need six or
//     more shared rows of about 5 bits a posting each, read at every query,
//     while its list is 16 bits a posting and lets a query skip to the
//     blocks it touches;
//   - otherwise, for the middle band, shared rows: k at rank 0 and k' at the
//     segment's higher rank r (3), at positions (h1 + i·h2) mod m of its
//     xxhash64 with h2 coprime with m, so that a term's rows never repeat.
//     A rank-r row has one bit per 2^r neighbouring documents (the OR of
//     their columns) and is 2^r times shorter; the numbers of shared rows of
//     each rank, m and m', are chosen at seal time so that each is filled to
//     the target density d (0.2). k and k' are the fewest rows that keep the
//     term's expected false positives at most df/snr (snr 30), preferring
//     high-rank rows, which are cheaper to read.
//
// Word pairs are signature terms too: where two words follow each other in
// a document and at least one of them has a private row, the pair sets
// Params.PairK shared rows of rank 0 (no df, no lexicon entry: its rows
// follow from its words' hashes). A phrase ANDs its pairs' rows beside its
// words', so its candidates are the documents that hold its pairs, not
// every document holding its words; positions then confirm them.
//
// A query ANDs the words of its high-rank rows for each 512-document block
// first; where they are zero the block is skipped without reading a rank-0
// row. Candidates from shared rows are verified against the forward index;
// private rows and lists are exact and never verified. A term that no
// segment holds rules the segment out of any conjunction with it.
//
// # Segments and length classes
//
// The Writer routes each analyzed document to a length class by its count of
// distinct terms (class c holds 2^(c-1) ≤ distinct < 2^c) and seals a class's
// buffer into a segment when it reaches Capacity documents (65,536: a row is
// then 8 KiB) or MaxSegmentBytes of text. Documents of similar length share a
// segment and so a signature width: without classes, long documents saturate
// the rows and dominate the false positives. The classes left at a commit
// share a segment only within a band of two (classBand), and compaction
// merges only within a band, so the longest documents of a corpus get small
// segments of their own rather than joining shorter ones.
//
// A segment file holds sections, each 64-byte aligned and checksummed with
// CRC32C: params, rows (the live
// row, the private rows, the shared rows of rank 0, each a whole number of
// 512-document blocks so that one block is one cache line; then the shared
// rows of the higher rank), rowstats (popcounts), lists,
// forward (each document's sorted termIDs and frequencies, delta-uvarint),
// positions (each term's positions in each document, in forward order, with
// marks that tie every 32nd token to its byte offset in the text), impacts
// (for each term row and 512-document block, the largest tf and tf/length
// of its terms: ranking's score bounds), frequencies (the tf of every
// document of each private row and list, where ranking reads it in
// O(1)), lengths (each document's tokens, dense), docs (the document
// table), blocks and store (the texts, zstd-compressed in blocks).
// docs/format.md describes every byte.
//
// # The lexicon
//
// The segments hold no dictionary. One lexicon file per generation (lexicon.go)
// holds every word of the index once, front-coded in blocks of 32
// under a binary-searched index of first words, with one entry for each
// segment holding it: the termID there (assigned in descending df order,
// which keeps forward-index deltas small), the df and the row treatment. A
// query looks each word up once (Index.Lookup) and gets every segment's
// answer; a prefix expands once (Index.Prefix). A commit that changes the
// segments merges the old lexicon, renumbered, with the new segments'
// dictionaries; per-termID views of one segment (segment.Segment.Terms, DF,
// segment.Treatment) are gathered from the lexicon when first asked for.
//
// # Changes: incremental writes, deletes, compaction
//
// Create starts an index afresh; OpenWriter changes an existing one. Both
// return a Writer. In an OpenWriter writer, Add replaces the live document
// with the same key, Delete removes one, AddIfChanged skips a document whose
// size, modification time, title and text hash (xxhash64) match the indexed
// one (neither analyzing nor rewriting it), and DeleteUnseen deletes what a
// run over a source did not see. Calls apply in call order.
//
// Segments are never modified. A deleted (or replaced) document is marked
// in a tombstone file of its segment, NNNNNNNN.vF.del (F the format
// version, as in every file name): a checksummed bitmap
// of the segment's deleted documents, named by the segment's MANIFEST entry
// with their count. Deleting more documents of a segment writes a new
// tombstone file. A reader copies the segment's live row and clears the
// deleted documents' bits, and every query ANDs that row, so a deleted
// document is never a candidate. BM25 uses live documents only: at open, the
// deleted documents' forward entries are subtracted from the segment's df
// (segment.Segment.LiveDFOf) and their lengths from its token count (AvgDocLen); the
// cost is proportional to the deleted documents, which compaction keeps few.
// Row treatments stay those chosen for the df at seal time until a merge
// recomputes them.
//
// Compaction merges segments and drops deleted documents. After every
// commit of an OpenWriter writer, CompactPolicy merges small segments once
// MergeFactor of them share a size tier, and rewrites any segment with more
// than MaxDeletedFraction of its documents deleted; Compact (bitsieve
// compact) merges everything that is not a full, clean segment. A merge
// rebuilds documents from the forward index and the positions (which hold
// exactly the analyzer's output: terms, frequencies, positions and the
// offsets of the marks) and the document table, rather
// than re-analyzing the stored texts: the result is byte-for-byte the
// segment a writer would build from the same documents, at a hundredth of
// the cost of analysis. Term tables, row treatments and the number of
// shared rows are computed afresh for the merged documents.
//
// # Commits, snapshots and crashes
//
// A Writer holds the directory's LOCK. Every file is written to a temporary
// name, fsynced and renamed; then the directory is fsynced, the MANIFEST
// naming the new set of files is replaced the same way, and the directory
// fsynced again; only then are files the new MANIFEST does not name removed.
// A crash at any moment leaves the old or the new index, never a mix;
// leftovers (*.tmp files, complete files no MANIFEST names) are removed by
// the next writer, or by the next Open when no writer holds the lock. An
// Index is a snapshot of one MANIFEST: its segments are mapped and its
// tombstones copied, so removing their files does not disturb it; Open
// retries when a writer removes the files of the MANIFEST it has just read.
// Every length and checksum read from disk is validated, and every byte of
// a segment or tombstone file is covered by a checksum or must be zero:
// damage is reported as a *CorruptError naming the file and section, never
// as a panic. Check validates everything, including that every term of
// every document has all its rows set (so the signature cannot drop a true
// hit).
//
// A MANIFEST is believed only where its files agree: every field of a
// segment's entry is checked against the file (its size, documents, length
// class and analyzer, its tombstone's count), and a tombstone of a listed
// segment that a committed generation wrote but the MANIFEST leaves out
// makes the index damaged (crosscheck.go). A writer that finds no MANIFEST
// writes an empty one before any other file, so index files without a
// MANIFEST are damage, never overwritten; Recover (bitsieve recover) writes
// a MANIFEST from the files' own headers.
//
// A writer holds at most about WriterOptions.MemoryBudget of analyzed
// documents: past it, it seals its largest buffer as a segment early. The
// texts of the documents it buffers wait in scratch files beside the
// index, not in memory (textspill.go), so the budget goes to what the
// segments are laid out from.
//
// # Files
//
// Reading: index.go opens a snapshot (Open) and its segments; manifest.go
// reads and writes the MANIFEST, tombstone.go the tombstone files, file.go
// the sections of any file. The lexicon: lexicon.go describes its format,
// opens it and finds a word's block; lexicon_read.go decodes the blocks
// (Lookup, Prefix); lexicon_build.go encodes one; lexicon_merge.go merges
// an old lexicon with new segments' dictionaries; lexicon_write.go writes
// the lexicon of a commit. Writing: writer.go holds the options, the Writer
// and its calls (Create, OpenWriter, Add, Delete); pipeline.go analyzes
// documents and applies the calls in order, within the memory budget;
// seal.go writes a buffer as a segment; commit.go commits or aborts
// (Commit, Abort); classes.go buffers documents by length class;
// textspill.go and dictspill.go keep their texts and the new segments'
// dictionaries on disk until they are needed; durable.go writes, fsyncs and
// renames files and holds the LOCK. compact.go merges segments (Compact and
// the policy), reseal.go rebuilds an index with other Params, check.go and
// crosscheck.go check an index, recover.go writes a MANIFEST from the
// files, and stats.go reports an index's Stats.
package index
