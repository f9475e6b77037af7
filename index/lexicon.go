package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/mmap"
	"github.com/bitsieve/bitsieve/internal/prefetch"
	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// The lexicon is the index-wide term table of one generation: every word of
// every segment the manifest names, once, with where each segment keeps it.
// A query looks a word up once, whatever the number of segments, and a
// segment that lacks a word costs nothing. Segments hold no dictionary of
// their own; a commit that changes the set of segments writes a new lexicon
// (merging the old one with the dictionaries of the new segments), and one
// that only deletes documents keeps the old.
//
// File NNNNNNNN.vF.lex (F the format version), kind "LEX\0", laid out
// like a segment file (header, sections, section table, tail):
//
//	section 1, params (64 bytes): words W uint32, blocks NB uint32,
//	  segments S uint32, zero uint32, entries E uint64, 40 zero bytes
//	section 2, segments: S uint64, the sequence number of each segment file,
//	  in manifest order (the ordinal an entry names is a position here)
//	section 3, index: NB+1 uint32 block offsets into section 4 (the last is
//	  its length), NB+1 uint32 offsets into the key bytes (the last is their
//	  length), then the key bytes: the first word of every block
//	section 4, blocks: the W words in ascending byte order, lexBlockWords to a
//	  block. A word is: uvarint prefix (bytes shared with the word before it
//	  in the block, 0 for the first), uvarint suffix length, the suffix
//	  bytes, uvarint n (the bytes of what follows for this word, so that a
//	  scan skips it in one step), uvarint c ≥ 1 (segments holding it), then
//	  c entries in ascending ordinal, each uvarint ordinal delta (from the
//	  previous entry's ordinal + 1, the first from 0), uvarint termID,
//	  uvarint df, uvarint treatment code
//
// The treatment code is kind | value<<2: kind 0 a private row (value the
// row, 1..P), 1 shared rows (value k | kr<<6), 2 a plain list and 3 a
// chunked list (value the list's byte offset in the lists section / 2).
//
// A lookup binary-searches the keys for the last block whose first word is
// not above the word, then decodes that block's words in order. Front coding
// and varints keep a word's bytes and its entries in about half the space of
// per-segment dictionaries, which repeated the word in every segment.

const (
	lexiconKind = "LEX\x00"

	secLexParams   = 1
	secLexSegments = 2
	secLexIndex    = 3
	secLexBlocks   = 4

	lexParamsSize = 64
	lexBlockWords = 32
)

var lexiconSectionNames = map[uint32]string{
	secLexParams: "params", secLexSegments: "segments", secLexIndex: "index", secLexBlocks: "blocks",
}

// lexiconFileName is the name of the lexicon file with sequence number seq.
func lexiconFileName(seq uint64) string { return fmt.Sprintf("%08d.v%d.lex", seq, formatVersion) }

// lexicon is an opened lexicon file, read in place from an mmap.
type lexicon struct {
	name     string
	data     []byte
	words    int
	entries  int64
	segSeq   []uint64
	blockOff []uint32
	keyOff   []uint32
	keys     []byte
	body     []byte
	segs     []*segment.Segment // by ordinal, for validating entries (attach)

	manifestBytes int64 // the size the manifest gives (-1: not from a manifest)

	headsOnce sync.Once
	heads     []lexHead // by block (block)
	top       []uint64  // the head8 of every lexTopStride-th block (block)

	// checked has a bit for every word, by its rank in the lexicon, set
	// once a Lookup has checked all of the word's entries against their
	// segments (entry). The file and the segments are immutable while they
	// are open, so the same bytes decode to the same entries and need no
	// second check: a word looked up again skips the bounds of its entries,
	// and above all the walk over the chunks of each chunked list.
	checked []atomic.Uint64
}

// openLexicon maps and validates a lexicon file: its structure, its
// checksums (those of the small sections only at segment.VerifyMeta: not the
// blocks) and the block index. A word's entries are checked against the
// segments attached with attach as they are decoded, the first time the
// word is looked up (lexicon.checked).
func openLexicon(dir, name string, verify segment.Verify, huge bool) (*lexicon, error) {
	data, err := mmap.Map(filepath.Join(dir, name), huge)
	if err != nil {
		return nil, fmt.Errorf("open lexicon: %w", err)
	}
	lx, err := newLexicon(name, data, verify)
	if err != nil {
		mmap.Unmap(data)
		return nil, err
	}
	return lx, nil
}

func newLexicon(name string, data []byte, verify segment.Verify) (*lexicon, error) {
	secs, err := readSections(name, data, lexiconKind)
	if err != nil {
		return nil, err
	}
	lx := &lexicon{name: name, data: data, manifestBytes: -1}
	get := func(id uint32) ([]byte, error) {
		sec, ok := secs[id]
		if !ok {
			return nil, &CorruptError{File: name, Section: sectionName(lexiconKind, id), Detail: "section is missing"}
		}
		if verify == segment.VerifyData || verify == segment.VerifyMeta && id != secLexBlocks {
			if err := sec.Check(name, data); err != nil {
				return nil, err
			}
		}
		return data[sec.Offset : sec.Offset+sec.Length], nil
	}
	bad := func(id uint32, format string, a ...any) error {
		return &CorruptError{File: name, Section: sectionName(lexiconKind, id), Detail: fmt.Sprintf(format, a...)}
	}
	p, err := get(secLexParams)
	if err != nil {
		return nil, err
	}
	if len(p) != lexParamsSize || binary.LittleEndian.Uint32(p[12:]) != 0 || !sectioned.AllZero(p[24:]) {
		return nil, bad(secLexParams, "malformed parameters")
	}
	lx.words = int(binary.LittleEndian.Uint32(p))
	nb := int(binary.LittleEndian.Uint32(p[4:]))
	ns := int(binary.LittleEndian.Uint32(p[8:]))
	lx.entries = int64(binary.LittleEndian.Uint64(p[16:]))
	if nb != (lx.words+lexBlockWords-1)/lexBlockWords || lx.entries < int64(lx.words) {
		return nil, bad(secLexParams, "%d blocks for %d words, %d entries", nb, lx.words, lx.entries)
	}
	segs, err := get(secLexSegments)
	if err != nil {
		return nil, err
	}
	if len(segs) != 8*ns {
		return nil, bad(secLexSegments, "%d bytes for %d segments", len(segs), ns)
	}
	lx.segSeq = make([]uint64, ns)
	for i := range lx.segSeq {
		lx.segSeq[i] = binary.LittleEndian.Uint64(segs[8*i:])
	}
	idx, err := get(secLexIndex)
	if err != nil {
		return nil, err
	}
	if len(idx) < 8*(nb+1) {
		return nil, bad(secLexIndex, "too short for %d blocks", nb)
	}
	lx.blockOff = inplace.Uint32s(idx[:4*(nb+1)])
	lx.keyOff = inplace.Uint32s(idx[4*(nb+1) : 8*(nb+1)])
	lx.keys = idx[8*(nb+1):]
	if lx.body, err = get(secLexBlocks); err != nil {
		return nil, err
	}
	if lx.blockOff[0] != 0 || int(lx.blockOff[nb]) != len(lx.body) || lx.keyOff[0] != 0 || int(lx.keyOff[nb]) != len(lx.keys) {
		return nil, bad(secLexIndex, "offsets do not cover the blocks and keys")
	}
	// Every offset first (so that each key lies inside the key bytes), then
	// the keys' order.
	for b := 0; b < nb; b++ {
		if lx.blockOff[b] >= lx.blockOff[b+1] || lx.keyOff[b] > lx.keyOff[b+1] {
			return nil, bad(secLexIndex, "block %d is out of order", b)
		}
	}
	for b := 1; b < nb; b++ {
		if bytes.Compare(lx.key(b-1), lx.key(b)) >= 0 {
			return nil, bad(secLexIndex, "block %d is out of order", b)
		}
	}
	return lx, nil
}

func (lx *lexicon) close() error {
	err := mmap.Unmap(lx.data)
	lx.data = nil
	return err
}

// attach records the bounds of the segments, in ordinal order, that entries
// are checked against, after checking that they are the lexicon's.
func (lx *lexicon) attach(segs []*segment.Segment) error {
	if lx.manifestBytes >= 0 && int64(len(lx.data)) != lx.manifestBytes {
		return &CorruptError{File: lx.name, Detail: fmt.Sprintf("is %d bytes, the manifest says %d", len(lx.data), lx.manifestBytes)}
	}
	if len(segs) != len(lx.segSeq) {
		return &CorruptError{File: lx.name, Section: "segments", Detail: fmt.Sprintf("names %d segments, the manifest %d", len(lx.segSeq), len(segs))}
	}
	for i, s := range segs {
		if seq, _ := fileSeq(s.Name()); seq != lx.segSeq[i] {
			return &CorruptError{File: lx.name, Section: "segments", Detail: fmt.Sprintf("segment %d is number %d, the manifest names %s", i, lx.segSeq[i], s.Name())}
		}
	}
	lx.segs = segs
	lx.checked = make([]atomic.Uint64, (lx.words+63)/64)
	return nil
}

// lendDict has segment s, at ordinal ord, load its dictionary from lx when
// it needs it (segment.Segment.SetDict).
func (lx *lexicon) lendDict(s *segment.Segment, ord int) {
	s.SetDict(func() (*segment.Dict, error) { return lx.dict(ord, s.NumTerms()) })
}

// numWords is the number of distinct words in the index.
func (lx *lexicon) numWords() int { return lx.words }

// Bytes is the size of the lexicon file.
func (lx *lexicon) Bytes() int64 { return int64(len(lx.data)) }

// Name is the lexicon's file name.
func (lx *lexicon) Name() string { return lx.name }

func (lx *lexicon) key(b int) []byte { return lx.keys[lx.keyOff[b]:lx.keyOff[b+1]] }

// lexHead is a block's place in the in-memory index of the blocks: head8
// of its first word, and where its bytes lie in the blocks section, side by
// side so that the offsets come in the cache line of the head that found
// them.
type lexHead struct {
	head     uint64
	from, to uint32
}

// lexTopStride is how many blocks one head of the top level stands for:
// the blocks a search narrows to are lexTopStride heads of 16 bytes, two
// cache lines.
const lexTopStride = 8

// block returns the last block whose first word is at most word, or -1.
//
// It searches the heads, in two levels: top, every lexTopStride-th head
// (13 KiB for 400,000 words, small enough to stay in cache between
// queries), then the lexTopStride heads between two of them, which are
// asked for together. Only among the blocks whose head is the word's own
// (rare: their first words share 8 bytes) are the keys' bytes read.
func (lx *lexicon) block(word string) int {
	lx.headsOnce.Do(lx.buildHeads)
	w := head8(word)
	top, heads := lx.top, lx.heads
	j, hi := 0, len(top) // j: the first top head ≥ w
	for j < hi {
		if mid := int(uint(j+hi) >> 1); top[mid] < w {
			j = mid + 1
		} else {
			hi = mid
		}
	}
	// Every head before block (j-1)·stride is below w, and the head of
	// block j·stride (when there is one) is not: the first head ≥ w is
	// among the stride blocks up to it.
	lo := 0
	if j > 0 {
		lo = (j-1)*lexTopStride + 1
		prefetch.Slice(heads[lo:min(lo+lexTopStride, len(heads))])
	}
	for lo < len(heads) && heads[lo].head < w {
		lo++
	}
	end := lo // the first head > w
	for end < len(heads) && heads[end].head == w {
		end++
	}
	for lo < end { // blocks before lo start below word, from end on above it
		if mid := int(uint(lo+end) >> 1); string(lx.key(mid)) <= word {
			lo = mid + 1
		} else {
			end = mid
		}
	}
	return lo - 1
}

// span is where block b's bytes lie in the blocks section, for a caller of
// block.
func (lx *lexicon) span(b int) (from, to int) {
	h := &lx.heads[b]
	return int(h.from), int(h.to)
}

// buildHeads fills heads and top from the block index.
func (lx *lexicon) buildHeads() {
	lx.heads = make([]lexHead, len(lx.blockOff)-1)
	for b := range lx.heads {
		lx.heads[b] = lexHead{head: head8(string(lx.key(b))), from: lx.blockOff[b], to: lx.blockOff[b+1]}
	}
	lx.top = make([]uint64, 0, (len(lx.heads)+lexTopStride-1)/lexTopStride)
	for b := 0; b < len(lx.heads); b += lexTopStride {
		lx.top = append(lx.top, lx.heads[b].head)
	}
}

// head8 is the first 8 bytes of s as a big-endian number, zero-padded:
// head8(a) < head8(b) implies a < b, and a < b implies head8(a) ≤ head8(b).
func head8(s string) uint64 {
	var h uint64
	for i := 0; i < 8; i++ {
		h <<= 8
		if i < len(s) {
			h |= uint64(s[i])
		}
	}
	return h
}
