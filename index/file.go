package index

import (
	"errors"
	"fmt"
	"github.com/bitsieve/bitsieve/internal/sectioned"
)

// Every binary file of an index (segments, tombstones, lexicons) is framed
// as package internal/sectioned describes: a header, 64-byte-aligned
// sections, a checksummed table of them and a tail.

// FormatVersion is the version of the index files this bitsieve reads and
// writes (docs/format.md). It is part of every file name.
const FormatVersion = 8

const (
	segmentKind   = "SEG\x00"
	formatVersion = FormatVersion
)

func checksum(b []byte) uint32 { return sectioned.Checksum(b) }

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
)

// Section ids 2 and 10 held a segment's dictionary and its hash slots until
// format 4, which keeps every segment's words in the index's lexicon.

var sectionNames = map[uint32]string{
	secParams: "params", secRows: "rows", secRowStats: "rowstats",
	secForward: "forward", secDocs: "docs", secBlocks: "blocks", secStore: "store",
	secLists: "lists", secPositions: "positions", secImpacts: "impacts",
	secFreqs: "frequencies", secLengths: "lengths",
}

// kindSectionNames names the sections of every kind of file.
var kindSectionNames = map[string]map[uint32]string{
	segmentKind:   sectionNames,
	tombstoneKind: tombstoneSectionNames,
	lexiconKind:   lexiconSectionNames,
}

// segmentSectionName is the human name of a segment section id, for messages and stats.
func segmentSectionName(id uint32) string { return sectionName(segmentKind, id) }

func sectionName(kind string, id uint32) string {
	if n, ok := kindSectionNames[kind][id]; ok {
		return n
	}
	return fmt.Sprintf("section-%d", id)
}

// section locates one section inside a file.
type section struct {
	ID     uint32
	Name   string // for messages
	Offset uint64
	Length uint64
	CRC    uint32
}

// readSections validates a file's framing (sectioned.Read) and returns its
// sections by id. Section checksums are not checked here (see
// verifySection).
func readSections(name string, data []byte, kind string) (map[uint32]section, error) {
	secs, err := sectioned.Read(data, kind, formatVersion, func(id uint32) string { return sectionName(kind, id) })
	var ve *sectioned.VersionError
	switch {
	case errors.As(err, &ve):
		return nil, fmt.Errorf("%s: index format version %d is not supported (this bitsieve reads version %d); rebuild the index with bitsieve index --rebuild", name, ve.Got, formatVersion)
	case err != nil:
		return nil, &CorruptError{File: name, Detail: err.Error()}
	}
	out := make(map[uint32]section, len(secs))
	for id, s := range secs {
		out[id] = section{ID: s.ID, Name: sectionName(kind, id), Offset: s.Offset, Length: s.Length, CRC: s.CRC}
	}
	return out, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// verifySection checks a section's checksum.
func verifySection(name string, data []byte, s section) error {
	if !(sectioned.Section{Offset: s.Offset, Length: s.Length, CRC: s.CRC}).Verify(data) {
		return &CorruptError{File: name, Section: s.Name, Detail: "checksum mismatch"}
	}
	return nil
}
