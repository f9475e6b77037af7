package index

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// File layout shared by every binary file of an index (segments and
// tombstones):
//
//	header   64 bytes: magic "BITSIEVE", kind [4]byte, version uint32, zeros
//	sections each starts at a multiple of 64 bytes (zero padding between)
//	table    one 32-byte entry per section:
//	           id uint32, zero uint32, offset uint64, length uint64,
//	           crc32c uint32 (Castagnoli, over the section's bytes), zero uint32
//	tail     16 bytes: section count uint32, crc32c of the table uint32,
//	         magic "BSVTAIL1"
//
// All integers are little-endian. A reader finds the tail at the end of the
// file, checks the table's checksum, then each section's bounds; a section's
// own checksum is checked before its bytes are trusted.

// FormatVersion is the version of the index files this bitsieve reads and
// writes (docs/format.md). It is part of every file name.
const FormatVersion = 7

const (
	headerSize    = 64
	sectionAlign  = 64
	tableEntry    = 32
	tailSize      = 16
	fileMagic     = "BITSIEVE"
	tailMagic     = "BSVTAIL1"
	segmentKind   = "SEG\x00"
	formatVersion = FormatVersion
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

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
)

// Section ids 2 and 10 held a segment's dictionary and its hash slots until
// format 4, which keeps every segment's words in the index's lexicon.

var sectionNames = map[uint32]string{
	secParams: "params", secRows: "rows", secRowStats: "rowstats",
	secForward: "forward", secDocs: "docs", secBlocks: "blocks", secStore: "store",
	secLists: "lists", secPositions: "positions", secImpacts: "impacts",
}

// kindSectionNames names the sections of every kind of file.
var kindSectionNames = map[string]map[uint32]string{
	segmentKind:   sectionNames,
	tombstoneKind: tombstoneSectionNames,
	lexiconKind:   lexiconSectionNames,
}

// SectionName is the human name of a segment section id, for messages and stats.
func SectionName(id uint32) string { return sectionName(segmentKind, id) }

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

// fileWriter writes a sectioned file, tracking offsets and checksums.
type fileWriter struct {
	w        io.Writer
	off      uint64
	sections []section
	crc      uint32
	cur      *section
}

func newFileWriter(w io.Writer, kind string) (*fileWriter, error) {
	fw := &fileWriter{w: w}
	var h [headerSize]byte
	copy(h[:], fileMagic)
	copy(h[8:], kind)
	binary.LittleEndian.PutUint32(h[12:], formatVersion)
	if err := fw.raw(h[:]); err != nil {
		return nil, err
	}
	return fw, nil
}

func (fw *fileWriter) raw(b []byte) error {
	n, err := fw.w.Write(b)
	fw.off += uint64(n)
	return err
}

// begin starts a new section at the next 64-byte boundary.
func (fw *fileWriter) begin(id uint32) error {
	if pad := (sectionAlign - fw.off%sectionAlign) % sectionAlign; pad > 0 {
		if err := fw.raw(make([]byte, pad)); err != nil {
			return err
		}
	}
	fw.sections = append(fw.sections, section{ID: id, Offset: fw.off})
	fw.cur = &fw.sections[len(fw.sections)-1]
	fw.crc = 0
	return nil
}

// Write appends to the current section.
func (fw *fileWriter) Write(b []byte) (int, error) {
	fw.crc = crc32.Update(fw.crc, castagnoli, b)
	err := fw.raw(b)
	return len(b), err
}

// end closes the current section.
func (fw *fileWriter) end() {
	fw.cur.Length = fw.off - fw.cur.Offset
	fw.cur.CRC = fw.crc
	fw.cur = nil
}

// finish writes the section table and tail.
func (fw *fileWriter) finish() error {
	table := make([]byte, 0, len(fw.sections)*tableEntry)
	for _, s := range fw.sections {
		table = binary.LittleEndian.AppendUint32(table, s.ID)
		table = binary.LittleEndian.AppendUint32(table, 0)
		table = binary.LittleEndian.AppendUint64(table, s.Offset)
		table = binary.LittleEndian.AppendUint64(table, s.Length)
		table = binary.LittleEndian.AppendUint32(table, s.CRC)
		table = binary.LittleEndian.AppendUint32(table, 0)
	}
	tail := binary.LittleEndian.AppendUint32(nil, uint32(len(fw.sections)))
	tail = binary.LittleEndian.AppendUint32(tail, checksum(append(table, tail...)))
	tail = append(tail, tailMagic...)
	if err := fw.raw(table); err != nil {
		return err
	}
	return fw.raw(tail)
}

// readSections validates a file's header, table and tail and returns its
// sections by id. Section checksums are not checked here (see verifySection),
// but every byte outside the sections is: the header's reserved bytes and the
// padding between sections must be zero, so no byte of a file can change
// unnoticed.
func readSections(name string, data []byte, kind string) (map[uint32]section, error) {
	bad := func(format string, a ...any) error {
		return &CorruptError{File: name, Detail: fmt.Sprintf(format, a...)}
	}
	if len(data) < headerSize+tailSize {
		return nil, bad("file is %d bytes, too short to be an index file", len(data))
	}
	if string(data[:8]) != fileMagic || string(data[8:12]) != kind {
		return nil, bad("not a bitsieve %q file (bad magic)", kind)
	}
	if v := binary.LittleEndian.Uint32(data[12:]); v != formatVersion {
		return nil, fmt.Errorf("%s: index format version %d is not supported (this bitsieve reads version %d); rebuild the index with bitsieve index --rebuild", name, v, formatVersion)
	}
	if !allZero(data[16:headerSize]) {
		return nil, bad("reserved header bytes are not zero")
	}
	tail := data[len(data)-tailSize:]
	if string(tail[8:]) != tailMagic {
		return nil, bad("missing tail (file truncated?)")
	}
	count := uint64(binary.LittleEndian.Uint32(tail))
	if count > 64 || count*tableEntry > uint64(len(data)-headerSize-tailSize) {
		return nil, bad("section table of %d entries does not fit the file", count)
	}
	tableStart := uint64(len(data)-tailSize) - count*tableEntry
	table := data[tableStart : len(data)-tailSize]
	if checksum(data[tableStart:len(data)-tailSize+4]) != binary.LittleEndian.Uint32(tail[4:]) {
		return nil, bad("section table checksum mismatch")
	}
	secs := make(map[uint32]section, count)
	for i := uint64(0); i < count; i++ {
		e := table[i*tableEntry:]
		s := section{
			ID:     binary.LittleEndian.Uint32(e),
			Offset: binary.LittleEndian.Uint64(e[8:]),
			Length: binary.LittleEndian.Uint64(e[16:]),
			CRC:    binary.LittleEndian.Uint32(e[24:]),
		}
		s.Name = sectionName(kind, s.ID)
		if s.Offset < headerSize || s.Offset%sectionAlign != 0 || s.Length > tableStart || s.Offset > tableStart-s.Length {
			return nil, bad("section %s lies outside the file", s.Name)
		}
		if _, dup := secs[s.ID]; dup {
			return nil, bad("section %s appears twice", s.Name)
		}
		if binary.LittleEndian.Uint32(e[4:]) != 0 || binary.LittleEndian.Uint32(e[28:]) != 0 {
			return nil, bad("reserved bytes of section %s are not zero", s.Name)
		}
		secs[s.ID] = s
	}
	// Sections are written in order, without overlap, separated by zero
	// padding only.
	end := uint64(headerSize)
	for i := uint64(0); i < count; i++ {
		e := table[i*tableEntry:]
		s := secs[binary.LittleEndian.Uint32(e)]
		if s.Offset < end {
			return nil, bad("section %s overlaps the one before it", s.Name)
		}
		if !allZero(data[end:s.Offset]) {
			return nil, bad("padding before section %s is not zero", s.Name)
		}
		end = s.Offset + s.Length
	}
	if !allZero(data[end:tableStart]) {
		return nil, bad("padding before the section table is not zero")
	}
	return secs, nil
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
	if checksum(data[s.Offset:s.Offset+s.Length]) != s.CRC {
		return &CorruptError{File: name, Section: s.Name, Detail: "checksum mismatch"}
	}
	return nil
}
