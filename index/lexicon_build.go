package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// lexBuilder encodes a lexicon from words added in ascending order.
type lexBuilder struct {
	body, keys       []byte
	ents, rec        []byte // scratch: one word's entries, and its record
	blockOff, keyOff []uint32
	prev             []byte
	words            int
	entries          int64
}

func (b *lexBuilder) add(word []byte, es []segment.Entry) error {
	b.ents = binary.AppendUvarint(b.ents[:0], uint64(len(es)))
	next := 0
	for _, e := range es {
		b.ents = binary.AppendUvarint(b.ents, uint64(e.Seg-next))
		b.ents = binary.AppendUvarint(b.ents, uint64(e.ID))
		b.ents = binary.AppendUvarint(b.ents, uint64(e.DF))
		b.ents = binary.AppendUvarint(b.ents, e.Code())
		next = e.Seg + 1
	}
	rec := binary.AppendUvarint(b.rec[:0], uint64(len(b.ents)))
	b.rec = append(rec, b.ents...)
	return b.addRecord(word, b.rec, len(es))
}

// addRecord adds a word with its record as a lexicon holds it (length, count,
// entries), of c entries.
func (b *lexBuilder) addRecord(word, rec []byte, c int) error {
	if b.words > 0 && bytes.Compare(b.prev, word) >= 0 {
		return fmt.Errorf("lexicon: word %q after %q", word, b.prev)
	}
	pre := 0
	if b.words%lexBlockWords == 0 {
		b.blockOff = append(b.blockOff, uint32(len(b.body)))
		b.keyOff = append(b.keyOff, uint32(len(b.keys)))
		b.keys = append(b.keys, word...)
	} else {
		for pre < len(word) && pre < len(b.prev) && word[pre] == b.prev[pre] {
			pre++
		}
	}
	b.body = binary.AppendUvarint(b.body, uint64(pre))
	b.body = binary.AppendUvarint(b.body, uint64(len(word)-pre))
	b.body = append(b.body, word[pre:]...)
	b.body = append(b.body, rec...)
	b.prev = append(b.prev[:0], word...)
	b.words++
	b.entries += int64(c)
	if len(b.body) >= 1<<32-1 || len(b.keys) >= 1<<32-1 {
		return fmt.Errorf("lexicon: more than 4 GiB of words")
	}
	return nil
}

// encode writes the lexicon file for the segments with sequence numbers
// segSeq to w.
func (b *lexBuilder) encode(w io.Writer, segSeq []uint64) error {
	p := make([]byte, lexParamsSize)
	binary.LittleEndian.PutUint32(p, uint32(b.words))
	binary.LittleEndian.PutUint32(p[4:], uint32(len(b.blockOff)))
	binary.LittleEndian.PutUint32(p[8:], uint32(len(segSeq)))
	binary.LittleEndian.PutUint64(p[16:], uint64(b.entries))
	seqs := make([]byte, 0, 8*len(segSeq))
	for _, s := range segSeq {
		seqs = binary.LittleEndian.AppendUint64(seqs, s)
	}
	var body [][]byte
	for rest := b.body; len(rest) > 0; { // in pieces, so a failing disk shows between them
		n := min(len(rest), 1<<20)
		body, rest = append(body, rest[:n]), rest[n:]
	}
	return sectioned.WriteFile(w, lexiconKind, formatVersion, []sectioned.Part{
		{ID: secLexParams, Bytes: [][]byte{p}},
		{ID: secLexSegments, Bytes: [][]byte{seqs}},
		{ID: secLexIndex, Bytes: [][]byte{
			inplace.Uint32Bytes(append(b.blockOff, uint32(len(b.body)))),
			inplace.Uint32Bytes(append(b.keyOff, uint32(len(b.keys)))),
			b.keys,
		}},
		{ID: secLexBlocks, Bytes: body},
	})
}
