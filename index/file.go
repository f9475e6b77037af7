package index

import (
	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// Every binary file of an index (segments, tombstones, lexicons) is framed
// as package internal/sectioned describes: a header, 64-byte-aligned
// sections, a checksummed table of them and a tail.

// FormatVersion is the version of the index files this bitsieve reads and
// writes (docs/format.md). It is part of every file name.
const FormatVersion = segment.FormatVersion

const formatVersion = FormatVersion

// kindSectionNames names the sections of every kind of file.
var kindSectionNames = map[string]map[uint32]string{
	tombstoneKind: tombstoneSectionNames,
	lexiconKind:   lexiconSectionNames,
}

// sectionName is the name of section id of a file of the kind, for messages.
func sectionName(kind string, id uint32) string {
	return sectioned.SectionName(kindSectionNames[kind], id)
}

// section locates one section inside a file.
type section = sectioned.Section

// readSections validates a file's framing (sectioned.Open) and returns its
// sections by id. Section checksums are not checked here
// (sectioned.Section.Check).
func readSections(name string, data []byte, kind string) (map[uint32]section, error) {
	return sectioned.Open(name, data, kind, formatVersion, kindSectionNames[kind])
}
