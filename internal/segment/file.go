package segment

import "github.com/bitsieve/bitsieve/internal/sectioned"

// A segment file is framed as package internal/sectioned describes: a
// header, 64-byte-aligned sections, a checksummed table of them and a tail.

// FormatVersion is the version of the index files this bitsieve reads and
// writes (docs/format.md). It is part of every file name.
const FormatVersion = 11

const (
	segmentKind   = "SEG\x00"
	formatVersion = FormatVersion
)

// Section ids of a segment file.
const (
	secParams    = 1  // fixed-size parameters (segmentHeader, build.go)
	secRows      = 3  // the bit-sliced signature matrix
	secRowStats  = 4  // popcount of every row
	secForward   = 5  // per-document sorted termIDs with tf
	secDocs      = 6  // document table
	secBlocks    = 7  // doc store block table
	secStore     = 8  // zstd-compressed document text
	secLists     = 9  // exact document lists of rare terms
	secPositions = 11 // per-document positions of every term (positions.go)
	secImpacts   = 12 // per-block maximum tf of every private row (impacts.go)
	secFreqs     = 13 // the frequencies of the private rows' and lists' terms (freqs.go)
	secLengths   = 14 // every document's length in tokens (freqs.go)

	secFalsePositives = 15 // the false positives of every term with shared rows (falsepos.go)
)

// Section ids 2 and 10 held a segment's dictionary and its hash slots until
// format 4, which keeps every segment's words in the index's lexicon.

var sectionNames = map[uint32]string{
	secParams: "params", secRows: "rows", secRowStats: "rowstats",
	secForward: "forward", secDocs: "docs", secBlocks: "blocks", secStore: "store",
	secLists: "lists", secPositions: "positions", secImpacts: "impacts",
	secFreqs: "frequencies", secLengths: "lengths", secFalsePositives: "falsepositives",
}

// segmentSectionName is the human name of a segment section id, for messages and stats.
func segmentSectionName(id uint32) string { return sectioned.SectionName(sectionNames, id) }

// Sections validates a segment file's framing (sectioned.Open) and
// returns its sections by id. Section checksums are not checked here
// (Section.Check).
func Sections(name string, data []byte) (map[uint32]sectioned.Section, error) {
	return sectioned.Open(name, data, segmentKind, formatVersion, sectionNames)
}
