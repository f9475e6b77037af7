// Package inverted is bitsieve's baseline: an inverted index over exactly the
// segments, local document ids and analyzer of a signature index, so the two
// engines can be measured side by side on the same corpus, queries and
// process.
//
// Each segment's postings are built from its forward index: one roaring
// bitmap (github.com/RoaringBitmap/roaring/v2) of local document ids per
// termID, the termIDs of the segment's own dictionary. Postings are exact, so
// the engine over them (Engine, a query.SegmentEngine) needs no verification:
// it evaluates conjunctions with FastAnd (smallest bitmap first), OR and NOT
// with the bitmap operations, and the query.Searcher it plugs into ranks its
// matches with the same BM25 as the signature engine's (NewSearcher).
//
// # Files
//
// A segment's postings live beside it, in a file named after it with the
// suffix .inv instead of .seg (00000007.v11.seg → 00000007.v11.inv), framed
// like a segment file (docs/format.md): a 64-byte header with magic
// "BITSIEVE" and kind "INV\0", 64-byte-aligned sections, a section table with
// a CRC32C per section, and a 16-byte tail.
//
//	section 1 params    docs uint32, terms uint32, postings uint64 (Σ df),
//	                    segment file bytes uint64, segment name length uint32,
//	                    zero uint32, then the segment file name
//	section 2 offsets   (terms+1) × uint32: where each termID's bitmap starts
//	                    in the postings section; the last is its length
//	section 3 postings  the bitmaps in termID order, each in roaring's portable
//	                    serialization (github.com/RoaringBitmap/RoaringFormatSpec)
//
// The offsets are what the baseline stores beyond its bitmaps because it
// shares the signature index's dictionary; a standalone inverted index would
// keep them in its own dictionary entries.
//
// The params tie the file to its segment: a file whose name, size, document,
// term or posting count differs from the segment it sits beside is stale
// (ErrStale). Segment files are never rewritten and their sequence numbers
// never reused, so a stale file only survives a crash or a rebuild that did
// not ask for postings; Build removes .inv files whose segment is gone.
//
// # Trust
//
// Open maps a file and checks the table, the bounds and the checksum of every
// section before any byte is given to roaring, whose deserialisation is not
// hardened against hostile input; decoding is further guarded so a damaged
// file is an error (wrapping index.ErrCorrupt), never a panic. Check validates
// every bitmap and compares it with the forward index.
package inverted
