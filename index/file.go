package index

import (
	"fmt"

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

func sectionName(kind string, id uint32) string {
	if n, ok := kindSectionNames[kind][id]; ok {
		return n
	}
	return fmt.Sprintf("section-%d", id)
}

// section locates one section inside a file.
type section = sectioned.Section

// readSections validates a file's framing (sectioned.Open) and returns its
// sections by id. Section checksums are not checked here (see
// verifySection).
func readSections(name string, data []byte, kind string) (map[uint32]section, error) {
	return sectioned.Open(name, data, kind, formatVersion, kindSectionNames[kind])
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
func verifySection(name string, data []byte, s section) error { return s.Check(name, data) }
