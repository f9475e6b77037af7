package segment

import (
	"encoding/binary"
	"math/bits"

	"github.com/bitsieve/bitsieve/internal/inplace"
)

// A term with shared rows admits, besides its own documents, every
// document whose bits other terms (and word pairs) happen to set in all of
// its rows: its false positives. A query verifies the documents it scores
// against their forward entries, which it reads for their frequencies
// anyway; but a conjunction's total counts every candidate, and reading
// the forward entry of each candidate only to learn that it is a hit is
// what made queries with thousands of hits slow. So the segment finds each
// term's false positives when it is sealed, by checking every document its
// rows admit against its postings, and keeps them (section 15): a
// candidate of a conjunction of words, having passed every row of every
// word, holds a word with shared rows exactly when it is not among that
// word's false positives. Expected at most df/snr for each term (its
// treatment is chosen so), they are a small fraction of its postings.
//
// Section 15, false positives:
//
//	T uint32: one past the largest termID with shared rows (0: none)
//	E uint32: the false positives of all terms together
//	T+1 uint32: the directory; term id's false positives are entries
//	  dir[id] to dir[id+1] (none for a term with a private row or a list)
//	E uint32: the entries, each term's documents in ascending order

// falsePositivesOf appends to dst the documents below n whose bits are set
// in every row of a term, rank0 its rows of rank 0 and high those of the
// higher rank (rank), but which are not among its documents post
// (ascending): the term's false positives, ascending.
func falsePositivesOf(dst []uint32, n int, rank0, high [][]uint64, rank int, post []uint32) []uint32 {
	j := 0
	for w := 0; w < rowWords(n); w++ {
		acc := ^uint64(0)
		for _, r := range rank0 {
			if acc &= r[w]; acc == 0 {
				break
			}
		}
		for ; acc != 0; acc &= acc - 1 {
			d := w*64 + bits.TrailingZeros64(acc)
			if d >= n {
				break
			}
			admitted := true
			for _, r := range high {
				if g := d >> rank; r[g/64]&(1<<(g%64)) == 0 {
					admitted = false
					break
				}
			}
			if !admitted {
				continue
			}
			for j < len(post) && int(post[j]) < d {
				j++
			}
			if j < len(post) && int(post[j]) == d {
				continue
			}
			dst = append(dst, uint32(d))
		}
	}
	return dst
}

// byRank appends a term's rows (by number) to rank0 and high, those of rank
// 0 and those of the higher rank, as falsePositivesOf takes them.
func byRank(rank0, high [][]uint64, rows []int, row func(int) []uint64, isHigh func(int) bool) ([][]uint64, [][]uint64) {
	for _, r := range rows {
		if isHigh(r) {
			high = append(high, row(r))
		} else {
			rank0 = append(rank0, row(r))
		}
	}
	return rank0, high
}

// encodeFalsePositives lays out section 15 from each term's false
// positives, by termID (nil for a term without shared rows).
func encodeFalsePositives(fps [][]uint32) []byte {
	t := len(fps)
	for t > 0 && fps[t-1] == nil {
		t--
	}
	e := 0
	for _, f := range fps[:t] {
		e += len(f)
	}
	le := binary.LittleEndian
	b := make([]byte, 0, 8+4*(t+1)+4*e)
	b = le.AppendUint32(b, uint32(t))
	b = le.AppendUint32(b, uint32(e))
	at := 0
	b = le.AppendUint32(b, 0)
	for _, f := range fps[:t] {
		at += len(f)
		b = le.AppendUint32(b, uint32(at))
	}
	for _, f := range fps[:t] {
		for _, d := range f {
			b = le.AppendUint32(b, d)
		}
	}
	return b
}

// falsePositives finds the false positives of every term with shared rows
// (falsePositivesOf), once the rows are set (post), and returns section 15.
func (b *segmentBuilder) falsePositives() []byte {
	// The documents of each term with shared rows, by termID.
	start := make([]int, len(b.terms)+1)
	for id, li := range b.order {
		start[id+1] = start[id]
		if b.shared(id) {
			start[id+1] += b.dfs[li]
		}
	}
	post := make([]uint32, start[len(b.terms)])
	fill := make([]int, len(b.terms))
	for doc := 0; doc < b.n; doc++ {
		for _, li := range b.docLi[b.docStart[doc]:b.docStart[doc+1]] {
			if id := b.idOf[li]; b.shared(int(id)) {
				post[start[id]+fill[id]] = uint32(doc)
				fill[id]++
			}
		}
	}
	firstHigh := 1 + b.private + b.m0
	isHigh := func(r int) bool { return r >= firstHigh }
	fps := make([][]uint32, len(b.terms))
	var rows []int
	var rank0, high [][]uint64
	var all []uint32
	for id := range b.terms {
		if !b.shared(id) {
			continue
		}
		rows = rows[:0]
		for _, r := range b.rowsOf[b.rowStart[id]:b.rowStart[id+1]] {
			rows = append(rows, int(r))
		}
		rank0, high = byRank(rank0[:0], high[:0], rows, b.sig.row, isHigh)
		from := len(all)
		all = falsePositivesOf(all, b.n, rank0, high, b.sig.rank, post[start[id]:start[id+1]])
		fps[id] = all[from:len(all):len(all)]
		if fps[id] == nil {
			fps[id] = []uint32{}
		}
	}
	return encodeFalsePositives(fps)
}

// shared reports whether term id has shared rows.
func (b *segmentBuilder) shared(id int) bool { return b.treat[id]&(privateFlag|listFlag) == 0 }

// falsePositives reads section 15 and checks its directory.
func (r *segmentReader) falsePositives() error {
	s, h := r.s, r.s.hdr
	sec, err := r.section(secFalsePositives)
	if err != nil {
		return err
	}
	if len(sec) < 8 {
		return r.bad(secFalsePositives, "%d bytes, too short for its counts", len(sec))
	}
	t, e := uint64(binary.LittleEndian.Uint32(sec)), uint64(binary.LittleEndian.Uint32(sec[4:]))
	if t > uint64(h.Terms) || uint64(len(sec)) != 8+4*(t+1)+4*e {
		return r.bad(secFalsePositives, "%d bytes, want %d terms' directory and %d entries", len(sec), t, e)
	}
	dir := inplace.Uint32s(sec[8 : 8+4*(t+1)])
	if dir[0] != 0 || uint64(dir[t]) != e {
		return r.bad(secFalsePositives, "the directory does not cover the entries")
	}
	for i := uint64(0); i < t; i++ {
		if dir[i] > dir[i+1] {
			return r.bad(secFalsePositives, "the directory is out of order at term %d", i)
		}
	}
	s.fpDir, s.fps = dir, inplace.Uint32s(sec[8+4*(t+1):])
	return nil
}

// FalsePositives returns the false positives of a term with shared rows in
// this segment, ascending: the documents that all of its rows admit but
// which do not contain it (section 15). It returns none for a term with a
// private row or a list.
func (s *Segment) FalsePositives(e Entry) []uint32 {
	if id := int(e.ID); id+1 < len(s.fpDir) {
		return s.fps[s.fpDir[id]:s.fpDir[id+1]]
	}
	return nil
}
