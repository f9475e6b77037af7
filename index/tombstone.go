package index

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// A tombstone file records the deleted documents of one segment. Segments
// are immutable, so deleting a document writes a new tombstone file for its
// segment (the old deletions plus the new ones) under a fresh name, and the
// MANIFEST entry of the segment names it; the previous tombstone file is
// removed with the other files the new MANIFEST no longer names. A reader
// applies the tombstone at open: it copies the segment's live row and clears
// the deleted documents' bits, and every query ANDs that row.
//
// The file has the sectioned layout of file.go with kind "DEL\0":
//
//	section 1, params (64 bytes): docs n uint32 (the segment's document
//	  count), deleted uint32 (bits set below), segment sequence number
//	  uint64 (the NNNNNNNN of the segment's file name), generation uint64
//	  (of the commit that wrote the file), 40 zero bytes
//
// The generation tells a tombstone that a commit made from one that a
// writer left behind when it stopped before committing: a MANIFEST of that
// generation or a later one that names neither it nor a newer tombstone of
// its segment has lost it (crosscheck.go).
//	section 2, deleted: ceil(n/64) uint64 words, bit d%64 of word d/64 set
//	  when document d is deleted; bits past n are zero

const (
	tombstoneKind = "DEL\x00"

	secDelParams = 1
	secDelBits   = 2

	delParamsSize = 64
)

var tombstoneSectionNames = map[uint32]string{secDelParams: "params", secDelBits: "deleted"}

// tombstoneFileName is the name of the tombstone file with sequence number seq.
func tombstoneFileName(seq uint64) string {
	return fmt.Sprintf("%08d.v%d.del", seq, formatVersion)
}

// fileSeq returns the sequence number at the start of an index file's name.
func fileSeq(name string) (uint64, bool) {
	digits, _, ok := strings.Cut(name, ".")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	return n, err == nil
}

// tombstone is a decoded tombstone file.
type tombstone struct {
	segSeq  uint64   // sequence number of the segment it belongs to
	gen     uint64   // generation of the commit that wrote it
	docs    int      // documents in that segment
	deleted []uint64 // bitmap of deleted documents, ceil(docs/64) words
	count   int      // bits set in deleted
}

// encodeTombstone builds a tombstone file for the segment with sequence
// number segSeq and docs documents, written by the commit of generation gen;
// deleted has ceil(docs/64) words.
func encodeTombstone(segSeq, gen uint64, docs int, deleted []uint64) []byte {
	p := make([]byte, delParamsSize)
	binary.LittleEndian.PutUint32(p, uint32(docs))
	binary.LittleEndian.PutUint32(p[4:], uint32(bitrow.Count(deleted)))
	binary.LittleEndian.PutUint64(p[8:], segSeq)
	binary.LittleEndian.PutUint64(p[16:], gen)
	var buf sliceWriter // in memory: writing cannot fail
	sectioned.WriteFile(&buf, tombstoneKind, formatVersion, []sectioned.Part{
		{ID: secDelParams, Bytes: [][]byte{p}},
		{ID: secDelBits, Bytes: [][]byte{inplace.Uint64Bytes(deleted)}},
	})
	return buf.b
}

// decodeTombstone validates and decodes a tombstone file; name is for messages.
func decodeTombstone(name string, data []byte) (*tombstone, error) {
	secs, err := readSections(name, data, tombstoneKind)
	if err != nil {
		return nil, err
	}
	get := func(id uint32) ([]byte, error) {
		sec, ok := secs[id]
		if !ok {
			return nil, &CorruptError{File: name, Section: sectionName(tombstoneKind, id), Detail: "section is missing"}
		}
		if err := sec.Check(name, data); err != nil {
			return nil, err
		}
		return data[sec.Offset : sec.Offset+sec.Length], nil
	}
	bad := func(id uint32, format string, a ...any) error {
		return &CorruptError{File: name, Section: sectionName(tombstoneKind, id), Detail: fmt.Sprintf(format, a...)}
	}
	p, err := get(secDelParams)
	if err != nil {
		return nil, err
	}
	if len(p) != delParamsSize || !sectioned.AllZero(p[24:]) {
		return nil, bad(secDelParams, "malformed parameters")
	}
	t := &tombstone{
		docs:   int(binary.LittleEndian.Uint32(p)),
		count:  int(binary.LittleEndian.Uint32(p[4:])),
		segSeq: binary.LittleEndian.Uint64(p[8:]),
		gen:    binary.LittleEndian.Uint64(p[16:]),
	}
	b, err := get(secDelBits)
	if err != nil {
		return nil, err
	}
	words := (t.docs + 63) / 64
	if len(b) != 8*words {
		return nil, bad(secDelBits, "%d bytes for %d documents", len(b), t.docs)
	}
	t.deleted = make([]uint64, words)
	for i := range t.deleted {
		t.deleted[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	if r := t.docs % 64; r != 0 && t.deleted[words-1]>>r != 0 {
		return nil, bad(secDelBits, "a document past the last one is deleted")
	}
	if c := bitrow.Count(t.deleted); c != t.count {
		return nil, bad(secDelBits, "%d documents deleted, the params say %d", c, t.count)
	}
	return t, nil
}

// applyTombstone applies tombstone t, of file name, to segment s, number seq.
func applyTombstone(s *segment.Segment, name string, t *tombstone, seq uint64) error {
	if t.segSeq != seq || t.docs != s.NumDocs() {
		return &CorruptError{File: name, Detail: fmt.Sprintf("belongs to segment %d of %d documents, not %s of %d", t.segSeq, t.docs, s.Name(), s.NumDocs())}
	}
	return s.ApplyDeletions(name, t.deleted)
}

// sliceWriter is an io.Writer appending to a byte slice.
type sliceWriter struct{ b []byte }

func (w *sliceWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
