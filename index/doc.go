// Package index owns bitsieve's on-disk index: bit-sliced signatures with a
// forward index and a document store, grouped in immutable segments, named
// by a MANIFEST, and read in place through mmap.
//
// # Signatures
//
// Every document is a Bloom filter over its terms; the filters of a segment
// are stored column-wise, one long row of bits per hash position, so a
// conjunctive query ANDs a few rows 64 documents per machine word. Rows are
// frequency-conscious (BitFunnel): with f = df/n, a term with f ≥ d (the target
// density, 0.1) gets a private row, an exact bitmap of its documents; any other
// term gets k = clamp(ceil(ln(f/snr)/ln d)) shared rows at positions
// (h1 + i·h2) mod m of its xxhash64, and the number of shared rows m is chosen
// at seal time so shared rows are about d dense. A term's expected false
// positives are then n·d^k ≤ df/snr, and a term that is not in a segment's
// dictionary rules the segment out of any conjunction with it.
//
// # Lists
//
// Rows cost bits whether or not they are set: a private row W/df bits a
// posting (W the row's width, n rounded up to 512-document blocks), k shared
// rows about k·W/(d·n). A sorted list of a term's documents costs 16 bits a
// posting (uint16 entries, in segments of at most 65,536 documents), or close
// to 8 in a chunked encoding for dense lists (lists.go). So a term whose list
// is smaller than its rows, or whose f is below the list density, is stored as
// a list. Lists are exact, and a query visits only the blocks its shortest
// list touches; with d = 0.1 every term without a private row is smaller as a
// list, which is why the default index has private rows and lists and no
// shared rows (docs/BENCHMARKS.md has the sweep that chose it).
//
// # Segments and length classes
//
// The Writer routes each analyzed document to a length class by its count of
// distinct terms (class c holds 2^(c-1) ≤ distinct < 2^c) and seals a class's
// buffer into a segment when it reaches Capacity documents (65,536: a row is
// then 8 KiB) or MaxSegmentBytes of text. Documents of similar length share a
// segment and so a signature width: without classes, long documents saturate
// the rows and dominate the false positives.
//
// A segment file holds sections, each 64-byte aligned and checksummed with
// CRC32C: params, terms (a sorted dictionary with termIDs assigned in
// descending df order, and each term's df and row treatment), rows (the live
// row, the private rows, the shared rows; each row a whole number of
// 512-document blocks, so one block is one cache line), rowstats (popcounts),
// lists,
// forward (each document's sorted termIDs and frequencies, delta-uvarint),
// docs (the document table), blocks and store (the texts, zstd-compressed in
// blocks). docs/format.md describes every byte.
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
// in a tombstone file of its segment, NNNNNNNN.v1.del: a checksummed bitmap
// of the segment's deleted documents, named by the segment's MANIFEST entry
// with their count. Deleting more documents of a segment writes a new
// tombstone file. A reader copies the segment's live row and clears the
// deleted documents' bits, and every query ANDs that row, so a deleted
// document is never a candidate. BM25 uses live documents only: at open, the
// deleted documents' forward entries are subtracted from the segment's df
// (Segment.LiveDF) and their lengths from its token count (AvgDocLen); the
// cost is proportional to the deleted documents, which compaction keeps few.
// Row treatments stay those chosen for the df at seal time until a merge
// recomputes them.
//
// Compaction merges segments and drops deleted documents. After every
// commit of an OpenWriter writer, CompactPolicy merges small segments once
// MergeFactor of them share a size tier, and rewrites any segment with more
// than MaxDeletedFraction of its documents deleted; Compact (bitsieve
// compact) merges everything that is not a full, clean segment. A merge
// rebuilds documents from the forward index (which holds exactly the
// analyzer's output: terms and frequencies) and the document table, rather
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
package index
