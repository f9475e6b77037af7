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
// forward (each document's sorted termIDs and frequencies, delta-uvarint),
// docs (the document table), blocks and store (the texts, zstd-compressed in
// blocks). docs/format.md describes every byte.
//
// # Commits and snapshots
//
// A Writer holds the directory's LOCK. Segment files are written to a
// temporary name, fsynced and renamed; then the MANIFEST naming the new set of
// files is replaced atomically and the directory fsynced, and only then are
// files of the previous index removed. A crash at any moment leaves the old or
// the new index, never a mix; leftovers are removed by the next writer. An
// Index is a snapshot of one MANIFEST: its files are mapped, and unlinking them
// does not disturb it. Every length and checksum read from disk is validated:
// damage is reported as a *CorruptError naming the file and section, never as a
// panic. Check validates everything, including that every term of every
// document has all its rows set (so the signature cannot drop a true hit).
package index
