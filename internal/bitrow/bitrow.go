// Package bitrow holds the shape of signature rows, as the index stores them
// and the matcher reads them: 64 documents a word, 512 documents a block,
// and a higher-rank row's block of 512>>r bits, each standing for 2^r
// documents.
package bitrow

import "math/bits"

// BlockDocs is the number of documents of one block of a row.
const BlockDocs = 512

// BlockWords is the number of words in one 512-document block.
const BlockWords = BlockDocs / 64

// Count is the number of bits set in row.
func Count(row []uint64) int {
	c := 0
	for _, w := range row {
		c += bits.OnesCount64(w)
	}
	return c
}

// ExpandRank sets in out the documents of the rank-r bits hb of one block:
// each bit becomes 2^r document bits.
func ExpandRank(hb uint64, rank int, out *[BlockWords]uint64) {
	if rank == 3 {
		for i := range out {
			out[i] = spread8[byte(hb>>(8*i))]
		}
		return
	}
	per := 64 >> rank // bits of hb for each word of out
	span := uint(1) << rank
	fill := ^uint64(0)
	if span < 64 {
		fill = 1<<span - 1
	}
	for i := range out {
		x, w := hb>>(uint(i*per))&(1<<per-1), uint64(0)
		for j := 0; x != 0; j, x = j+1, x>>1 {
			if x&1 != 0 {
				w |= fill << (uint(j) * span)
			}
		}
		out[i] = w
	}
}

// spread8[x] turns each bit of x into a byte of ones: rank 3's expansion.
var spread8 = func() (t [256]uint64) {
	for x := range t {
		for j := 0; j < 8; j++ {
			if x>>j&1 != 0 {
				t[x] |= 0xff << (8 * j)
			}
		}
	}
	return t
}()
