// Package bitrow counts the bits of signature rows: rows of 64 documents
// per word, as the index stores them.
package bitrow

import "math/bits"

// Count is the number of bits set in row.
func Count(row []uint64) int {
	c := 0
	for _, w := range row {
		c += bits.OnesCount64(w)
	}
	return c
}
