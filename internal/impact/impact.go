// Package impact encodes the two bytes that bound a term's BM25
// contribution in a 512-document block: the largest tf there, and the
// largest tf/dl as a ratio byte. The index writes them (section 12) and the
// query ranker reads them to skip blocks that cannot enter the top k.
package impact

import "math"

// Max is the largest tf an impact byte records; it stands for every tf from
// it on.
const Max = 255

// Ratio is the bound on tf/dl that a ratio byte q stands for: 2^((q−255)/16).
func Ratio(q byte) float64 { return ratioOf[q] }

var ratioOf = func() (t [256]float64) {
	for q := range t {
		t[q] = math.Exp2(float64(q-255) / 16)
	}
	return t
}()

// RatioByte is the smallest q with tf/dl ≤ Ratio(q).
func RatioByte(tf, dl int) byte {
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

// Add folds a document's tf of a term (its length dl) into the term's two
// impact bytes imp of the document's block.
func Add(imp []byte, tf, dl int) {
	imp[0] = max(imp[0], byte(min(tf, Max)))
	imp[1] = max(imp[1], RatioByte(tf, dl))
}
