package inverted

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/bitsieve/bitsieve/internal/sectioned"
	"strings"

	"github.com/bitsieve/bitsieve/index"
)

// The framing of an .inv file is the one segment files use (docs/format.md,
// internal/sectioned): header, 64-byte-aligned sections, a table of (id,
// offset, length, crc32c) entries and a tail with the table's checksum.

const (
	fileKind = "INV\x00"
	// FormatVersion is the version of the .inv format this package reads and writes.
	FormatVersion = 1

	secParams   = 1
	secOffsets  = 2
	secPostings = 3

	paramsFixed = 32 // params section bytes before the segment name
)

// Suffix is the file name suffix of postings files.
const Suffix = ".inv"

// ErrStale is wrapped by the error Open returns when a postings file does not
// belong to the segment it sits beside (the segment was rebuilt without
// postings); building again replaces it.
var ErrStale = errors.New("postings file is stale")

// ErrMissing is wrapped by the error Open returns when a segment has no
// postings file.
var ErrMissing = errors.New("no postings file")

// FileName is the postings file name of a segment file name:
// 00000007.v11.seg → 00000007.v11.inv.
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

// encodeFile frames the sections (in order, ids 1..len) into a whole file.
func encodeFile(sections ...[]byte) []byte {
	var buf bytes.Buffer
	fw, _ := sectioned.NewWriter(&buf, fileKind, FormatVersion) // in memory: writing cannot fail
	for i, s := range sections {
		fw.Begin(uint32(i + 1))
		fw.Write(s)
		fw.End()
	}
	fw.Finish()
	return buf.Bytes()
}

// readSections validates the framing of a file and the checksum of every
// section, and returns the sections' bytes by id.
func readSections(name string, data []byte) (map[uint32][]byte, error) {
	secs, err := sectioned.Read(data, fileKind, FormatVersion, sectionName)
	var ve *sectioned.VersionError
	switch {
	case errors.As(err, &ve):
		return nil, fmt.Errorf("%s: postings format version %d is not supported (this bitsieve reads version %d): %w", name, ve.Got, FormatVersion, ErrStale)
	case err != nil:
		return nil, &index.CorruptError{File: name, Detail: err.Error()}
	}
	out := make(map[uint32][]byte, len(secs))
	for id, s := range secs {
		if !s.Verify(data) {
			return nil, &index.CorruptError{File: name, Section: sectionName(id), Detail: "checksum mismatch"}
		}
		out[id] = s.Bytes(data)
	}
	return out, nil
}
