package inverted

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/segment"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/bitsieve/bitsieve/index"
)

// Segment is the postings of one signature segment: a roaring bitmap of
// local document ids for every termID of the segment's dictionary. It is
// immutable and safe for concurrent use.
type Segment struct {
	seg    *segment.Segment
	name   string // file name, for messages
	data   []byte // the whole file, mapped or in memory
	mapped bool
	p      params
	offs   []byte // (terms+1) little-endian uint32 offsets into post
	post   []byte
	live   *roaring.Bitmap // the live documents; nil when none is deleted
}

// newSegment validates a postings file image against the segment it
// belongs to.
func newSegment(seg *segment.Segment, name string, data []byte) (*Segment, error) {
	secs, err := readSections(name, data)
	if err != nil {
		return nil, err
	}
	bad := func(id uint32, format string, a ...any) error {
		return &index.CorruptError{File: name, Section: sectionName(id), Detail: fmt.Sprintf(format, a...)}
	}
	for _, id := range []uint32{secParams, secOffsets, secPostings} {
		if _, ok := secs[id]; !ok {
			return nil, bad(id, "section is missing")
		}
	}
	p, ok := decodeParams(secs[secParams])
	if !ok {
		return nil, bad(secParams, "%d bytes do not decode", len(secs[secParams]))
	}
	if p.segName != seg.Name() || p.segBytes != seg.FileBytes() || p.docs != seg.NumDocs() ||
		p.terms != seg.NumTerms() || p.postings != seg.Postings() {
		return nil, fmt.Errorf("%s: %w: it was built for %s (%d bytes, %d documents, %d terms), not for this %s (%d bytes, %d documents, %d terms)",
			name, ErrStale, p.segName, p.segBytes, p.docs, p.terms, seg.Name(), seg.FileBytes(), seg.NumDocs(), seg.NumTerms())
	}
	s := &Segment{seg: seg, name: name, data: data, p: p, offs: secs[secOffsets], post: secs[secPostings]}
	if uint64(len(s.offs)) != 4*(uint64(p.terms)+1) {
		return nil, bad(secOffsets, "%d bytes, want %d offsets", len(s.offs), p.terms+1)
	}
	prev := uint64(0)
	for i := 0; i <= p.terms; i++ {
		o := uint64(binary.LittleEndian.Uint32(s.offs[4*i:]))
		switch {
		case i == 0 && o != 0, i > 0 && o <= prev, o > uint64(len(s.post)):
			return nil, bad(secOffsets, "offset %d of %d is out of order or range", i, p.terms+1)
		}
		prev = o
	}
	if prev != uint64(len(s.post)) {
		return nil, bad(secOffsets, "offsets do not cover the postings")
	}
	if seg.NumLive() < seg.NumDocs() {
		s.live = roaring.New()
		for w, x := range seg.Live() {
			for ; x != 0; x &= x - 1 {
				s.live.Add(uint32(w*64 + bits.TrailingZeros64(x)))
			}
		}
	}
	return s, nil
}

// Name is the postings file name.
func (s *Segment) Name() string { return s.name }

// Segment is the signature segment these postings mirror.
func (s *Segment) Segment() *segment.Segment { return s.seg }

// FileBytes is the size of the postings file.
func (s *Segment) FileBytes() int64 { return int64(len(s.data)) }

// PostingsBytes is the size of the serialized bitmaps (the postings section).
func (s *Segment) PostingsBytes() int64 { return int64(len(s.post)) }

// OffsetsBytes is the size of the termID → bitmap offset table.
func (s *Segment) OffsetsBytes() int64 { return int64(len(s.offs)) }

// Live is the set of documents that are not deleted, or nil when no document
// of the segment is deleted. Callers must not modify it.
func (s *Segment) Live() *roaring.Bitmap { return s.live }

// span returns where term id's bitmap lies in the postings section.
func (s *Segment) span(id segment.TermID) (uint64, uint64, error) {
	if int(id) >= s.p.terms {
		return 0, 0, fmt.Errorf("inverted: %s: term %d of %d", s.name, id, s.p.terms)
	}
	return uint64(binary.LittleEndian.Uint32(s.offs[4*id:])), uint64(binary.LittleEndian.Uint32(s.offs[4*id+4:])), nil
}

// SizeOf is the serialized size of term id's bitmap: the bytes a query
// touches to read it.
func (s *Segment) SizeOf(id segment.TermID) int {
	a, b, err := s.span(id)
	if err != nil {
		return 0
	}
	return int(b - a)
}

// Postings returns the documents containing term id. The bitmap is a view
// of the file's bytes: callers must not modify it (the roaring operations
// that return a new bitmap, And, Or, AndNot, FastAnd, FastOr, are fine).
func (s *Segment) Postings(id segment.TermID) (bm *roaring.Bitmap, err error) {
	a, b, err := s.span(id)
	if err != nil {
		return nil, err
	}
	// The section's checksum was verified when the file was opened, so the
	// bytes are the ones Build wrote; the recover turns a decoder panic on
	// damage the checksum could not see into an error.
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, s.badTerm(id, fmt.Sprint(r))
		}
	}()
	bm = roaring.New()
	if _, err := bm.FromBuffer(s.post[a:b]); err != nil {
		return nil, s.badTerm(id, err.Error())
	}
	return bm, nil
}

func (s *Segment) badTerm(id segment.TermID, detail string) error {
	return &index.CorruptError{File: s.name, Section: "postings", Detail: fmt.Sprintf("bitmap of term %d does not decode: %s", id, detail)}
}

func (s *Segment) close() error {
	var err error
	if s.mapped {
		err = mmap.Unmap(s.data)
	}
	s.data, s.post, s.offs = nil, nil, nil
	return err
}
