package segment

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/klauspost/compress/zstd"
)

func (s *Segment) block(b int) (off uint64, clen, rawLen uint32) {
	e := s.blocks[b*blockEntrySize:]
	return binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint32(e[8:]), uint32(binary.LittleEndian.Uint16(e[12:]))
}

// blockNewlines is the number of newline bytes in store block b.
func (s *Segment) blockNewlines(b int) int {
	return int(binary.LittleEndian.Uint16(s.blocks[b*blockEntrySize+14:]))
}

// Text appends the stored text of doc to dst. The block it decompresses
// into is pooled, so that texts read one at a time (snippets, the document
// view) leave no garbage behind.
func (s *Segment) Text(dst []byte, doc int) ([]byte, error) {
	err := s.withText(doc, func(t []byte) error {
		dst = append(dst, t...)
		return nil
	})
	return dst, err
}

// withText calls fn with the stored text of doc, read in place from the
// decompressed block: the slice is valid only during the call.
func (s *Segment) withText(doc int, fn func(text []byte) error) error {
	return s.WithTextRange(doc, 0, s.Doc(doc).TextLen, func(t []byte, _ int) error { return fn(t) })
}

// WithTextRange calls fn with bytes of doc's stored text that include
// [from, to) and the offset in the text of the first (TextReader.Range):
// a long text's blocks outside the range are not decompressed. The slice is
// valid only during the call.
func (s *Segment) WithTextRange(doc, from, to int, fn func(text []byte, at int) error) error {
	r, _ := textReaders.Get().(*TextReader)
	if r == nil {
		r = new(TextReader)
	}
	r.seg, r.block = s, -1
	t, at, err := r.Range(doc, from, to)
	if err == nil {
		err = fn(t, at)
	}
	r.seg = nil
	textReaders.Put(r)
	return err
}

// NewlinesBefore returns the number of newline bytes in doc's stored text
// before byte at. Where at is a block boundary of a long text (as the
// offsets TextReader.Range returns are), the block table's counts give it
// without decompressing anything; elsewhere the text before at is read.
func (s *Segment) NewlinesBefore(doc, at int) (int, error) {
	rec := s.docRecord(doc)
	blk, n := rec.block(), rec.textLen()
	at = min(at, n)
	if at <= 0 {
		return 0, nil
	}
	if n > StoreBlockSize && at%StoreBlockSize == 0 {
		last := blk + at/StoreBlockSize
		if last > s.hdr.Blocks {
			return 0, &sectioned.CorruptError{File: s.name, Section: "docs", Detail: fmt.Sprintf("text of document %d runs past the last store block", doc)}
		}
		lines := 0
		for b := blk; b < last; b++ {
			lines += s.blockNewlines(b)
		}
		return lines, nil
	}
	lines := 0
	err := s.WithTextRange(doc, 0, at, func(text []byte, from int) error {
		lines = bytes.Count(text[:at-from], []byte{'\n'})
		return nil
	})
	return lines, err
}

// textReaders recycles readers and their buffers of decompressed blocks.
var textReaders sync.Pool

// TextReader reads stored texts of one segment, keeping the last
// decompressed block: reading documents in order decompresses each block once.
// It is not safe for concurrent use.
type TextReader struct {
	seg   *Segment
	block int
	raw   []byte
	span  []byte // a text read from several blocks
}

// NewTextReader returns a reader of the segment's stored texts.
func (s *Segment) NewTextReader() *TextReader { return &TextReader{seg: s, block: -1} }

// Text returns the stored text of doc. The slice is valid until the next call.
func (r *TextReader) Text(doc int) ([]byte, error) {
	t, _, err := r.Range(doc, 0, r.seg.Doc(doc).TextLen)
	return t, err
}

// Range returns bytes of doc's stored text that include [from, to), decompressing
// only the blocks they lie in, and the offset in the text of the first
// byte returned. The slice is valid until the next call.
func (r *TextReader) Range(doc, from, to int) ([]byte, int, error) {
	s := r.seg
	rec := s.docRecord(doc)
	blk, at, n := rec.block(), rec.blockOff(), rec.textLen()
	from, to = max(0, from), min(n, to)
	if n == 0 || from >= to {
		return nil, from, nil
	}
	bad := func(format string, a ...any) error {
		return &sectioned.CorruptError{File: s.name, Section: "docs", Detail: fmt.Sprintf("text of document %d: ", doc) + fmt.Sprintf(format, a...)}
	}
	if n <= StoreBlockSize {
		// In one block.
		if err := r.load(blk); err != nil {
			return nil, 0, err
		}
		if at+n > len(r.raw) {
			return nil, 0, bad("it lies outside its block")
		}
		return r.raw[at : at+n], 0, nil
	}
	// A long text from the start of its first block, in whole blocks.
	if at != 0 {
		return nil, 0, bad("it is longer than a block but starts inside one")
	}
	first, last := blk+from/StoreBlockSize, blk+(to-1)/StoreBlockSize
	r.span = r.span[:0]
	for b := first; b <= last; b++ {
		if b >= s.hdr.Blocks {
			return nil, 0, bad("it runs past the last store block")
		}
		if err := r.load(b); err != nil {
			return nil, 0, err
		}
		want := min(StoreBlockSize, n-(b-blk)*StoreBlockSize)
		if len(r.raw) < want || (want < n-(b-blk)*StoreBlockSize && len(r.raw) != StoreBlockSize) {
			return nil, 0, bad("store block %d holds %d bytes of it, not %d", b, len(r.raw), want)
		}
		r.span = append(r.span, r.raw[:want]...)
	}
	return r.span, (first - blk) * StoreBlockSize, nil
}

// load decompresses store block blk into r.raw, unless it is there.
func (r *TextReader) load(blk int) error {
	if blk == r.block {
		return nil
	}
	s := r.seg
	if blk >= s.hdr.Blocks {
		return &sectioned.CorruptError{File: s.name, Section: "docs", Detail: fmt.Sprintf("store block %d of %d", blk, s.hdr.Blocks)}
	}
	off, clen, rawLen := s.block(blk)
	frame := s.store[off : off+uint64(clen)]
	// A size the frame header declares is allocated at once: it must be
	// the block table's. (Small frames declare none; their output is
	// bounded by zstdMaxRatio, checked at open.)
	var fh zstd.Header
	if err := fh.Decode(frame); err != nil || (fh.HasFCS && fh.FrameContentSize != uint64(rawLen)) {
		r.block = -1
		return &sectioned.CorruptError{File: s.name, Section: "store", Detail: fmt.Sprintf("block %d has a damaged frame header", blk)}
	}
	raw, err := storeDecoder().DecodeAll(frame, r.raw[:0])
	if err != nil || uint64(len(raw)) != uint64(rawLen) {
		r.block = -1
		return &sectioned.CorruptError{File: s.name, Section: "store", Detail: fmt.Sprintf("block %d does not decompress: %v", blk, err)}
	}
	r.raw, r.block = raw, blk
	return nil
}
