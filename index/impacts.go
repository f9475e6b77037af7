package index

import "math"

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
// row's terms there (MaxImpact for any tf from MaxImpact on; 0 where no
// document of the block holds one), then the largest tf/dl as a byte q with
// tf/dl ≤ 2^((q−255)/16), the smallest such q (ImpactRatio).

// BlockDocs is the number of documents of one block of a row.
const BlockDocs = 512

// MaxImpact is the largest tf an impact byte records; it stands for every tf
// from it on.
const MaxImpact = 255

// blocksOf is the number of blocks of a segment of n documents.
func blocksOf(n int) int { return (n + BlockDocs - 1) / BlockDocs }

// ImpactRatio is the bound on tf/dl that a ratio byte q stands for.
func ImpactRatio(q byte) float64 { return ratioOf[q] }

var ratioOf = func() (t [256]float64) {
	for q := range t {
		t[q] = math.Exp2(float64(q-255) / 16)
	}
	return t
}()

// ratioByte is the smallest q with tf/dl ≤ ImpactRatio(q).
func ratioByte(tf, dl int) byte {
	r := float64(tf) / float64(max(dl, 1))
	q := int(math.Ceil(255 + 16*math.Log2(r)))
	q = min(255, max(0, q))
	for q < 255 && ratioOf[q] < r {
		q++
	}
	for q > 0 && ratioOf[q-1] >= r {
		q--
	}
	return byte(q)
}

// addImpact folds a document's tf of a term (its length dl) into the
// term's impact bytes of the document's block.
func addImpact(imp []byte, tf, dl int) {
	imp[0] = max(imp[0], byte(min(tf, MaxImpact)))
	imp[1] = max(imp[1], ratioByte(tf, dl))
}

// Impacts returns the impacts of term row r of rank 0 (1 ≤ r ≤
// PrivateRows+SharedRows): two bytes a block, the largest tf (MaxImpact:
// that or more) and the ratio byte of the largest tf/dl of the row's terms
// there.
func (s *Segment) Impacts(r int) []byte {
	nb := 2 * blocksOf(s.hdr.Docs)
	return s.impacts[(r-1)*nb : r*nb]
}
