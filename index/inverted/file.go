package inverted

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"

	"github.com/bitsieve/bitsieve/index"
)

// The framing of an .inv file is the one segment files use (docs/format.md):
// header, 64-byte-aligned sections, a table of (id, offset, length, crc32c)
// entries and a tail with the table's checksum.

const (
	headerSize   = 64
	sectionAlign = 64
	tableEntry   = 32
	tailSize     = 16
	fileMagic    = "BITSIEVE"
	tailMagic    = "BSVTAIL1"
	fileKind     = "INV\x00"
	// FormatVersion is the version of the .inv format this package reads and writes.
	FormatVersion = 1

	secParams   = 1
	secOffsets  = 2
	secPostings = 3

	paramsFixed = 32 // params section bytes before the segment name
)

// Suffix is the file name suffix of postings files.
const Suffix = ".inv"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrStale is wrapped by the error Open returns when a postings file does not
// belong to the segment it sits beside (the segment was rebuilt without
// postings); building again replaces it.
var ErrStale = errors.New("postings file is stale")

// ErrMissing is wrapped by the error Open returns when a segment has no
// postings file.
var ErrMissing = errors.New("no postings file")

// FileName is the postings file name of a segment file name:
// 00000007.v2.seg → 00000007.v2.inv.
func FileName(segment string) string { return strings.TrimSuffix(segment, ".seg") + Suffix }

var sectionNames = map[uint32]string{secParams: "params", secOffsets: "offsets", secPostings: "postings"}

func sectionName(id uint32) string {
	if n, ok := sectionNames[id]; ok {
		return n
	}
	return fmt.Sprintf("section-%d", id)
}

// params is the decoded params section.
type params struct {
	docs, terms int
	postings    int64
	segBytes    int64
	segName     string
}

func (p params) encode() []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(p.docs))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.terms))
	b = binary.LittleEndian.AppendUint64(b, uint64(p.postings))
	b = binary.LittleEndian.AppendUint64(b, uint64(p.segBytes))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p.segName)))
	b = binary.LittleEndian.AppendUint32(b, 0)
	return append(b, p.segName...)
}

func decodeParams(b []byte) (params, bool) {
	if len(b) < paramsFixed {
		return params{}, false
	}
	n := uint64(binary.LittleEndian.Uint32(b[24:]))
	if uint64(len(b)-paramsFixed) != n {
		return params{}, false
	}
	return params{
		docs:     int(binary.LittleEndian.Uint32(b)),
		terms:    int(binary.LittleEndian.Uint32(b[4:])),
		postings: int64(binary.LittleEndian.Uint64(b[8:])),
		segBytes: int64(binary.LittleEndian.Uint64(b[16:])),
		segName:  string(b[paramsFixed:]),
	}, true
}

// section locates one section of a file.
type section struct {
	id             uint32
	offset, length uint64
	crc            uint32
}

// encodeFile frames the sections (in order, ids 1..len) into a whole file.
func encodeFile(sections ...[]byte) []byte {
	size := headerSize
	for _, s := range sections {
		size += (len(s) + sectionAlign - 1) / sectionAlign * sectionAlign
	}
	out := make([]byte, headerSize, size+len(sections)*tableEntry+tailSize)
	copy(out, fileMagic)
	copy(out[8:], fileKind)
	binary.LittleEndian.PutUint32(out[12:], FormatVersion)
	var table []byte
	for i, s := range sections {
		for len(out)%sectionAlign != 0 {
			out = append(out, 0)
		}
		table = binary.LittleEndian.AppendUint32(table, uint32(i+1))
		table = binary.LittleEndian.AppendUint32(table, 0)
		table = binary.LittleEndian.AppendUint64(table, uint64(len(out)))
		table = binary.LittleEndian.AppendUint64(table, uint64(len(s)))
		table = binary.LittleEndian.AppendUint32(table, crc32.Checksum(s, castagnoli))
		table = binary.LittleEndian.AppendUint32(table, 0)
		out = append(out, s...)
	}
	out = append(out, table...)
	tail := binary.LittleEndian.AppendUint32(nil, uint32(len(sections)))
	tail = binary.LittleEndian.AppendUint32(tail, crc32.Checksum(append(table, tail...), castagnoli))
	out = append(out, tail...)
	return append(out, tailMagic...)
}

// readSections validates the header, table and tail of a file and the
// bounds and checksum of every section, and returns the sections by id.
func readSections(name string, data []byte) (map[uint32][]byte, error) {
	bad := func(format string, a ...any) error {
		return &index.CorruptError{File: name, Detail: fmt.Sprintf(format, a...)}
	}
	if len(data) < headerSize+tailSize {
		return nil, bad("file is %d bytes, too short to be a postings file", len(data))
	}
	if string(data[:8]) != fileMagic || string(data[8:12]) != fileKind {
		return nil, bad("not a bitsieve postings file (bad magic)")
	}
	if v := binary.LittleEndian.Uint32(data[12:]); v != FormatVersion {
		return nil, fmt.Errorf("%s: postings format version %d is not supported (this bitsieve reads version %d): %w", name, v, FormatVersion, ErrStale)
	}
	for _, b := range data[16:headerSize] {
		if b != 0 {
			return nil, bad("reserved header bytes are not zero")
		}
	}
	tail := data[len(data)-tailSize:]
	if string(tail[8:]) != tailMagic {
		return nil, bad("missing tail (file truncated?)")
	}
	count := uint64(binary.LittleEndian.Uint32(tail))
	if count > 16 || count*tableEntry > uint64(len(data)-headerSize-tailSize) {
		return nil, bad("section table of %d entries does not fit the file", count)
	}
	tableStart := uint64(len(data)-tailSize) - count*tableEntry
	if crc32.Checksum(data[tableStart:len(data)-tailSize+4], castagnoli) != binary.LittleEndian.Uint32(tail[4:]) {
		return nil, bad("section table checksum mismatch")
	}
	secs := make(map[uint32][]byte, count)
	var spans [][2]uint64
	for i := uint64(0); i < count; i++ {
		e := data[tableStart+i*tableEntry:]
		s := section{
			id:     binary.LittleEndian.Uint32(e),
			offset: binary.LittleEndian.Uint64(e[8:]),
			length: binary.LittleEndian.Uint64(e[16:]),
			crc:    binary.LittleEndian.Uint32(e[24:]),
		}
		if s.offset < headerSize || s.offset%sectionAlign != 0 || s.length > tableStart || s.offset > tableStart-s.length {
			return nil, bad("section %s lies outside the file", sectionName(s.id))
		}
		b := data[s.offset : s.offset+s.length]
		if crc32.Checksum(b, castagnoli) != s.crc {
			return nil, &index.CorruptError{File: name, Section: sectionName(s.id), Detail: "checksum mismatch"}
		}
		secs[s.id] = b
		spans = append(spans, [2]uint64{s.offset, s.offset + s.length})
	}
	// Every byte between the header and the table lies in a section or is
	// zero padding, and no two sections overlap.
	slices.SortFunc(spans, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
	at := uint64(headerSize)
	for _, sp := range append(spans, [2]uint64{tableStart, tableStart}) {
		if sp[0] < at {
			return nil, bad("sections overlap")
		}
		for _, b := range data[at:sp[0]] {
			if b != 0 {
				return nil, bad("padding between sections is not zero")
			}
		}
		at = sp[1]
	}
	return secs, nil
}
