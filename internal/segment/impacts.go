package segment

import "github.com/bitsieve/bitsieve/internal/bitrow"

// Impacts. Ranking needs an upper bound on what a 512-document block can
// score, so that a top-k search skips the blocks that cannot enter it. A
// term's BM25 contribution is idf·(k1+1)·s with
//
//	s = tf / (tf + k1·(1−b) + k1·b·dl/avgdl) = 1 / (1 + k1·(1−b)/tf + (k1·b/avgdl)·dl/tf)
//
// so the largest tf of the term in a block and the largest tf/dl of its
// documents there bound s in that block, whatever the index's average
// length: no document has a smaller k1·(1−b)/tf or dl/tf. Section 12 holds
// both for every term row of rank 0, over the terms that set bits in it: a
// private row's are its term's own, and a shared row's bound every term
// that has it among its rows (a term's bound is the least of its rows').
// Terms with lists are bounded by s < 1: they are the rarest, their hits
// few.
//
// Section 12 is (P + m) × ceil(n/512) × 2 bytes: for each term row of rank
// 0 (rows 1..P+m), in row order, for each block: the largest tf of the
// row's terms there (impact.Max for any tf from impact.Max on; 0 where no
// document of the block holds one), then the largest tf/dl as a byte q with
// tf/dl ≤ 2^((q−255)/16), the smallest such q (impact.Ratio).

// blocksOf is the number of blocks of a segment of n documents.
func blocksOf(n int) int { return (n + bitrow.BlockDocs - 1) / bitrow.BlockDocs }

// Impacts returns the impacts of term row r of rank 0 (1 ≤ r ≤
// PrivateRows+SharedRows): two bytes a block, the largest tf (impact.Max:
// that or more) and the ratio byte of the largest tf/dl of the row's terms
// there.
func (s *Segment) Impacts(r int) []byte {
	nb := 2 * blocksOf(s.hdr.Docs)
	return s.impacts[(r-1)*nb : r*nb]
}
