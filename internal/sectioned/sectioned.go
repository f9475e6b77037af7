// Package sectioned reads and writes the framing that every binary file of a
// bitsieve index shares (segments, tombstones, lexicons and the inverted
// baseline's postings; docs/format.md):
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
// file, checks the table's checksum, then each section's bounds, and that
// every byte outside the sections is zero; a section's own checksum is
// checked (Section.Verify) before its bytes are trusted.
package sectioned

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// The sizes and magic numbers of the framing.
const (
	HeaderSize = 64
	TableEntry = 32
	TailSize   = 16
	Magic      = "BITSIEVE"

	headerSize   = HeaderSize
	sectionAlign = 64
	tableEntry   = TableEntry
	tailSize     = TailSize
	fileMagic    = Magic
	tailMagic    = "BSVTAIL1"
	maxSections  = 64
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum is the CRC-32C (Castagnoli) of b, the checksum of every section,
// table and MANIFEST.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// Section locates one section inside a file.
type Section struct {
	ID     uint32
	Name   string // the section's name, for messages
	Offset uint64
	Length uint64
	CRC    uint32
}

// Bytes are the section's bytes in the file data.
func (s Section) Bytes(data []byte) []byte { return data[s.Offset : s.Offset+s.Length] }

// Verify reports whether the section's bytes in data match its checksum.
func (s Section) Verify(data []byte) bool { return Checksum(s.Bytes(data)) == s.CRC }

// VersionError is returned by Read for a file of another version.
type VersionError struct{ Got, Want uint32 }

func (e *VersionError) Error() string {
	return fmt.Sprintf("version %d is not supported (this bitsieve reads version %d)", e.Got, e.Want)
}

// DamageError is returned by Read for a file whose framing is damaged; its
// message says what is wrong.
type DamageError struct{ Detail string }

func (e *DamageError) Error() string { return e.Detail }

// Read validates the framing of data, a file of the kind and version, and
// returns its sections by id; name names a section id in messages.
// Section checksums are not checked here (Section.Verify), but every byte
// outside the sections is: the header's reserved bytes and the padding
// between sections must be zero, so no byte of a file can change
// unnoticed.
func Read(data []byte, kind string, version uint32, name func(id uint32) string) (map[uint32]Section, error) {
	bad := func(format string, a ...any) error { return &DamageError{fmt.Sprintf(format, a...)} }
	if len(data) < headerSize+tailSize {
		return nil, bad("file is %d bytes, too short to be a bitsieve file", len(data))
	}
	if string(data[:8]) != fileMagic || string(data[8:12]) != kind {
		return nil, bad("not a bitsieve %q file (bad magic)", kind)
	}
	if v := binary.LittleEndian.Uint32(data[12:]); v != version {
		return nil, &VersionError{Got: v, Want: version}
	}
	if !AllZero(data[16:headerSize]) {
		return nil, bad("reserved header bytes are not zero")
	}
	tail := data[len(data)-tailSize:]
	if string(tail[8:]) != tailMagic {
		return nil, bad("missing tail (file truncated?)")
	}
	count := uint64(binary.LittleEndian.Uint32(tail))
	if count > maxSections || count*tableEntry > uint64(len(data)-headerSize-tailSize) {
		return nil, bad("section table of %d entries does not fit the file", count)
	}
	tableStart := uint64(len(data)-tailSize) - count*tableEntry
	table := data[tableStart : len(data)-tailSize]
	if Checksum(data[tableStart:len(data)-tailSize+4]) != binary.LittleEndian.Uint32(tail[4:]) {
		return nil, bad("section table checksum mismatch")
	}
	secs := make(map[uint32]Section, count)
	for i := uint64(0); i < count; i++ {
		e := table[i*tableEntry:]
		s := Section{
			ID:     binary.LittleEndian.Uint32(e),
			Offset: binary.LittleEndian.Uint64(e[8:]),
			Length: binary.LittleEndian.Uint64(e[16:]),
			CRC:    binary.LittleEndian.Uint32(e[24:]),
		}
		if s.Offset < headerSize || s.Offset%sectionAlign != 0 || s.Length > tableStart || s.Offset > tableStart-s.Length {
			return nil, bad("section %s lies outside the file", name(s.ID))
		}
		if _, dup := secs[s.ID]; dup {
			return nil, bad("section %s appears twice", name(s.ID))
		}
		if binary.LittleEndian.Uint32(e[4:]) != 0 || binary.LittleEndian.Uint32(e[28:]) != 0 {
			return nil, bad("reserved bytes of section %s are not zero", name(s.ID))
		}
		s.Name = name(s.ID)
		secs[s.ID] = s
	}
	// Sections are written in order, without overlap, separated by zero
	// padding only.
	end := uint64(headerSize)
	for i := uint64(0); i < count; i++ {
		s := secs[binary.LittleEndian.Uint32(table[i*tableEntry:])]
		if s.Offset < end {
			return nil, bad("section %s overlaps the one before it", name(s.ID))
		}
		if !AllZero(data[end:s.Offset]) {
			return nil, bad("padding before section %s is not zero", name(s.ID))
		}
		end = s.Offset + s.Length
	}
	if !AllZero(data[end:tableStart]) {
		return nil, bad("padding before the section table is not zero")
	}
	return secs, nil
}

// Open validates the framing of file name's data as Read does, naming its
// sections by names (section-N for an id not there), and says what is wrong
// as the index does: a file of another version gets one sentence telling the
// user to rebuild, damaged framing a *CorruptError.
func Open(name string, data []byte, kind string, version uint32, names map[uint32]string) (map[uint32]Section, error) {
	secs, err := Read(data, kind, version, func(id uint32) string { return SectionName(names, id) })
	var ve *VersionError
	switch {
	case errors.As(err, &ve):
		return nil, fmt.Errorf("%s: index format version %d is not supported (this bitsieve reads version %d); rebuild the index with bitsieve index --rebuild", name, ve.Got, ve.Want)
	case err != nil:
		return nil, &CorruptError{File: name, Detail: err.Error()}
	}
	return secs, nil
}

// SectionName is the name names gives section id, or section-N.
func SectionName(names map[uint32]string, id uint32) string {
	if n, ok := names[id]; ok {
		return n
	}
	return fmt.Sprintf("section-%d", id)
}

// Check verifies the section's checksum in data, the bytes of file name.
func (s Section) Check(name string, data []byte) error {
	if !s.Verify(data) {
		return &CorruptError{File: name, Section: s.Name, Detail: "checksum mismatch"}
	}
	return nil
}

// ErrCorrupt is wrapped by every error about bytes that fail a checksum or
// an invariant; errors.Is(err, ErrCorrupt) tells damage from I/O failure.
var ErrCorrupt = errors.New("index file is damaged")

// CorruptError names the file and section that failed validation.
type CorruptError struct {
	File    string
	Section string // "" when the damage is in the header, table or tail
	Detail  string
}

func (e *CorruptError) Error() string {
	if e.Section != "" {
		return fmt.Sprintf("%s: section %s is damaged: %s", e.File, e.Section, e.Detail)
	}
	return fmt.Sprintf("%s is damaged: %s", e.File, e.Detail)
}

func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// AllZero reports whether every byte of b is zero: the reserved bytes of a
// header or params section must be.
func AllZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Writer writes a sectioned file, tracking offsets and checksums: Begin a
// section, Write its bytes, End it; Finish writes the table and tail.
type Writer struct {
	w        io.Writer
	off      uint64
	sections []Section
	crc      uint32
	cur      *Section
}

// NewWriter writes the header of a file of the kind and version to w.
func NewWriter(w io.Writer, kind string, version uint32) (*Writer, error) {
	fw := &Writer{w: w}
	var h [headerSize]byte
	copy(h[:], fileMagic)
	copy(h[8:], kind)
	binary.LittleEndian.PutUint32(h[12:], version)
	if err := fw.raw(h[:]); err != nil {
		return nil, err
	}
	return fw, nil
}

func (fw *Writer) raw(b []byte) error {
	n, err := fw.w.Write(b)
	fw.off += uint64(n)
	return err
}

// Begin starts section id at the next 64-byte boundary.
func (fw *Writer) Begin(id uint32) error {
	if pad := (sectionAlign - fw.off%sectionAlign) % sectionAlign; pad > 0 {
		if err := fw.raw(make([]byte, pad)); err != nil {
			return err
		}
	}
	fw.sections = append(fw.sections, Section{ID: id, Offset: fw.off})
	fw.cur = &fw.sections[len(fw.sections)-1]
	fw.crc = 0
	return nil
}

// Write appends b to the current section.
func (fw *Writer) Write(b []byte) (int, error) {
	fw.crc = crc32.Update(fw.crc, castagnoli, b)
	err := fw.raw(b)
	return len(b), err
}

// End closes the current section.
func (fw *Writer) End() {
	fw.cur.Length = fw.off - fw.cur.Offset
	fw.cur.CRC = fw.crc
	fw.cur = nil
}

// Finish writes the section table and the tail.
func (fw *Writer) Finish() error {
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
	tail = binary.LittleEndian.AppendUint32(tail, Checksum(append(table, tail...)))
	tail = append(tail, tailMagic...)
	if err := fw.raw(table); err != nil {
		return err
	}
	return fw.raw(tail)
}

// Part is one section of a file to write: its id and its bytes, in pieces.
type Part struct {
	ID    uint32
	Bytes [][]byte
}

// WriteFile writes a file of the kind and version with the sections parts,
// in order.
func WriteFile(w io.Writer, kind string, version uint32, parts []Part) error {
	fw, err := NewWriter(w, kind, version)
	if err != nil {
		return err
	}
	for _, s := range parts {
		if err := fw.Begin(s.ID); err != nil {
			return err
		}
		for _, b := range s.Bytes {
			if _, err := fw.Write(b); err != nil {
				return err
			}
		}
		fw.End()
	}
	return fw.Finish()
}
