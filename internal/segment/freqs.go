package segment

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/inplace"
)

// Frequencies and lengths. Ranking needs, for every hit it scores, the
// frequency of each query term and the document's length. The forward
// index holds both, but reaching a term there costs a few cache misses a
// document (its offset, its entry, a skip); for the terms whose documents
// are known exactly, section 13 keeps the frequencies where the matcher
// finds them in O(1), beside the bits it has just read:
//
//   - a private row's: the tf of each of its documents, in document order,
//     so that document d's is at the row's rank of d (its bits before d):
//     a directory gives the row's bits before each 512-document block, and
//     at most eight popcounts the rest;
//   - a list's: the tf of each entry, at the byte offset in the lists
//     section of the entry's low byte: the first byte of a plain list's
//     entry (little-endian), the byte of a chunked list's entry. The lists'
//     frequencies mirror the lists section byte for byte, so that a reader
//     finds an entry's tf where it found the entry; every other byte (a
//     plain entry's high byte, a chunk's two head bytes, padding) is zero.
//
// A frequency is one byte, min(tf, 255); 255 stands for every tf from 255
// on, which is then read from the forward index, as are the frequencies of
// terms with shared rows.
//
// Section 13, with P private rows, NB = ceil(n/512) blocks, F the bits of
// the private rows (their rowstats) and L the length of the lists section:
//
//	P × NB uint32  the directory: entry (r−1)·NB + b is the bits of private
//	               row r in the blocks before block b
//	F bytes        the private rows' frequencies, row after row
//	L bytes        the lists' frequencies
//
// Section 14 is n uint32: the length of each document in indexed tokens
// (its docs record's tokens field), dense, as BM25 reads it for every hit.

// freqSaturated is the frequency byte of every tf from 255 on.
const freqSaturated = 255

// freqByte is the frequency byte of tf.
func freqByte(tf uint32) byte { return byte(min(tf, freqSaturated)) }

// freqsSize is the length of section 13 of a segment with the given header,
// private-row popcounts (rows 1..P) and lists section length.
func freqsSize(h segmentHeader, privatePop []uint32, lists int) uint64 {
	size := 4*uint64(h.PrivateRows)*uint64(blocksOf(h.Docs)) + uint64(lists)
	for _, c := range privatePop {
		size += uint64(c)
	}
	return size
}

// encodeFreqs makes section 13 from the private rows (row(r), r = 1..P),
// their frequencies (private[r−1], in document order) and the lists'
// frequencies (listFreqs, placed by placeListFreqs), padded to lists.
func encodeFreqs(n int, row func(r int) []uint64, private [][]byte, listFreqs []byte, lists int) []byte {
	nb := blocksOf(n)
	size := 4*len(private)*nb + lists
	for _, tf := range private {
		size += len(tf)
	}
	out := make([]byte, 0, size)
	for r := 1; r <= len(private); r++ {
		words, before := row(r), uint32(0)
		for b := range nb {
			out = binary.LittleEndian.AppendUint32(out, before)
			for _, w := range words[b*bitrow.BlockWords : (b+1)*bitrow.BlockWords] {
				before += uint32(bits.OnesCount64(w))
			}
		}
	}
	for _, tf := range private {
		out = append(out, tf...)
	}
	out = append(out, listFreqs...)
	return append(out, make([]byte, lists-len(listFreqs))...)
}

// placeListFreqs puts the frequencies tf (one byte an entry, in document
// order) of list l, at byte offset off of the lists section, into dst, the
// lists' frequencies, at the offsets of the entries' low bytes, and returns
// it.
func placeListFreqs(dst []byte, l doclist.List, off int, tf []byte) []byte {
	grow := func(need int) {
		if need > len(dst) {
			dst = append(dst, make([]byte, need-len(dst))...)
		}
	}
	if !l.Chunked() {
		grow(off + 2*len(tf))
		for i, f := range tf {
			dst[off+2*i] = f
		}
		return dst
	}
	b := l.Bytes()
	for i, seen := 0, 0; seen < len(tf); {
		cnt := int(b[i+1]) + 1
		grow(off + i + 2 + cnt)
		copy(dst[off+i+2:], tf[seen:seen+cnt])
		i += 2 + cnt
		seen += cnt
	}
	return dst
}

// freqs reads sections 13 and 14; the rows and the lists must be read.
func (r *segmentReader) freqs() error {
	s, h := r.s, r.s.hdr
	sec, err := r.section(secFreqs)
	if err != nil {
		return err
	}
	privatePop := s.rowPop[1 : 1+h.PrivateRows]
	if want := freqsSize(h, privatePop, len(s.lists)); uint64(len(sec)) != want {
		return r.bad(secFreqs, "%d bytes, want %d", len(sec), want)
	}
	dir := 4 * h.PrivateRows * blocksOf(h.Docs)
	s.freqDir = inplace.Uint32s(sec[:dir])
	s.privStart = make([]int, h.PrivateRows+1)
	for i, c := range privatePop {
		s.privStart[i+1] = s.privStart[i] + int(c)
	}
	s.privFreqs = sec[dir : dir+s.privStart[h.PrivateRows]]
	s.listFreqs = sec[dir+s.privStart[h.PrivateRows]:]

	lengths, err := r.section(secLengths)
	if err != nil {
		return err
	}
	if uint64(len(lengths)) != 4*uint64(h.Docs) {
		return r.bad(secLengths, "%d bytes, want %d documents", len(lengths), h.Docs)
	}
	s.lengths = inplace.Uint32s(lengths)
	return nil
}

// Freqs reads one term's frequencies in one segment from section 13,
// without the forward index (Segment.FreqsOf).
type Freqs struct {
	row     []uint64 // a private row
	dir     []uint32 // its directory
	list    []uint16 // or a plain list
	chunked []byte   // or a chunked list, from its first byte
	n       int      // its entries
	tf      []byte   // the row's frequencies, or the list's from its first byte
	// at is the byte offset in chunked of the chunk that Of read last, and
	// seen the entries before it, or in a plain list the entry it found
	// last: the candidates of a segment come in ascending order, mostly, so
	// Of goes on from there.
	at, seen int
}

// FreqsOf returns the frequencies of a term from its entry; false when the
// segment keeps them only in the forward index (a term with shared rows).
func (s *Segment) FreqsOf(e Entry) (Freqs, bool) {
	t := e.treat
	switch {
	case t&privateFlag != 0:
		r, nb := int(t&^privateFlag), blocksOf(s.hdr.Docs)
		return Freqs{row: s.Row(r), dir: s.freqDir[(r-1)*nb : r*nb], tf: s.privFreqs[s.privStart[r-1]:s.privStart[r]]}, true
	case t&listFlag != 0:
		l, off := s.list(t, e.DF), 2*int(t&^(listFlag|chunkedFlag))
		if l.Chunked() {
			return Freqs{chunked: l.Bytes(), n: e.DF, tf: s.listFreqs[off:]}, true
		}
		return Freqs{list: l.Plain(), tf: s.listFreqs[off : off+2*e.DF]}, true
	}
	return Freqs{}, false
}

// Of returns the term's frequency in document doc (0 when doc does not hold
// it); false when it must be read from the forward index instead (a tf of
// 255 or more).
func (f *Freqs) Of(doc int) (uint32, bool) {
	var i int
	if f.row != nil {
		w, bit := doc>>6, uint64(1)<<(doc&63)
		if f.row[w]&bit == 0 {
			return 0, true
		}
		b := doc / bitrow.BlockDocs
		i = int(f.dir[b]) + bits.OnesCount64(f.row[w]&(bit-1))
		for _, x := range f.row[b*bitrow.BlockWords : w] {
			i += bits.OnesCount64(x)
		}
	} else if f.chunked != nil {
		var ok bool
		if i, ok = f.chunkedAt(doc); !ok {
			return 0, true
		}
	} else {
		j, ok := f.plainAt(doc)
		if !ok {
			return 0, true
		}
		i = 2 * j
	}
	if i >= len(f.tf) || f.tf[i] == freqSaturated {
		return 0, false // (a directory past its row is damage: the forward index decides)
	}
	return uint32(f.tf[i]), true
}

// plainAt returns the index of doc in a plain list, false when the list
// lacks it. It goes on from the entry it found last (at), galloping, when
// doc lies after it, and searches the whole list otherwise.
func (f *Freqs) plainAt(doc int) (int, bool) {
	l, d := f.list, uint16(doc)
	lo := 0
	if len(l) == 0 {
		return 0, false
	}
	if f.at < len(l) && l[f.at] <= d {
		lo = f.at
		step := 1
		for lo+step < len(l) && l[lo+step] <= d {
			lo += step
			step *= 2
		}
		l = l[:min(len(l), lo+step)]
	}
	j, ok := slices.BinarySearch(l[lo:], d)
	j += lo
	f.at = min(j, len(f.list)-1)
	return j, ok
}

// chunkedAt returns the byte offset of doc's entry in a chunked list, false
// when the list lacks doc. It finds doc's chunk from the one it found last,
// or from the first when doc lies before that one.
func (f *Freqs) chunkedAt(doc int) (int, bool) {
	b, hi := f.chunked, byte(doc>>8)
	if b[f.at] > hi {
		f.at, f.seen = 0, 0
	}
	for b[f.at] < hi {
		cnt := int(b[f.at+1]) + 1
		if f.seen+cnt >= f.n {
			return 0, false // past the last chunk
		}
		f.at += 2 + cnt
		f.seen += cnt
	}
	if b[f.at] != hi {
		return 0, false
	}
	lo := f.at + 2
	j, ok := slices.BinarySearch(b[lo:lo+int(b[f.at+1])+1], byte(doc))
	return lo + j, ok
}
