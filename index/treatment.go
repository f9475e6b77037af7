package index

import (
	"math"
)

// Params are the signature parameters of a segment. They are chosen by the
// writer and recorded in the segment's params section, so a reader never
// guesses how rows were built.
type Params struct {
	Density float64 // target density d of shared rows (and the private-row threshold on df/n)
	SNR     float64 // signal-to-noise target: a term's expected false positives ≤ df/SNR
	KMin    int     // fewest shared rows for a term
	KMax    int     // most shared rows for a term

	// ListDensity: a term with df/n below it is stored as an exact list of
	// its documents instead of rows (0: never). Lists are kept only in
	// segments of at most MaxListDocs documents, where an entry is 16 bits.
	ListDensity float64
}

// DefaultParams are the parameters used when a writer is given none.
var DefaultParams = Params{Density: 0.1, SNR: 10, KMin: 1, KMax: 12, ListDensity: 1.0 / 64}

// MaxListDocs is the largest segment whose rare terms get lists: a document
// number then fits a uint16.
const MaxListDocs = 1 << 16

func (p Params) validate() error {
	switch {
	case !(p.Density > 0 && p.Density < 1):
		return errorf("density %v must be between 0 and 1", p.Density)
	case !(p.SNR >= 1):
		return errorf("snr %v must be at least 1", p.SNR)
	case p.KMin < 1 || p.KMax < p.KMin || p.KMax > 64:
		return errorf("row counts kmin %d, kmax %d must satisfy 1 ≤ kmin ≤ kmax ≤ 64", p.KMin, p.KMax)
	case !(p.ListDensity >= 0 && p.ListDensity <= p.Density):
		return errorf("list density %v must be between 0 and the row density %v", p.ListDensity, p.Density)
	}
	return nil
}

// Treatment says how a term is stored in the signature of one segment.
//
// With f = df/n: a term with f ≥ Density gets a private row, an exact bitmap
// of its documents. Any other term gets K = clamp(ceil(ln(f/SNR)/ln(Density)))
// shared rows, so that its expected false-positive count n·Density^K is at
// most df/SNR.
//
// When lists are on (ListDensity > 0, and the segment has at most
// MaxListDocs documents), a term gets a list instead, the exact sorted numbers
// of its documents, if f < ListDensity or if the list is smaller than its
// rows. With W the bits of a row (n rounded up to whole 512-document blocks),
// a list costs 16 bits a posting, a private row W/df, and k shared rows about
// k·W/(Density·n). So at Density 0.1 every shared term is smaller as a list
// (k ≥ 2), while at Density 0.5 only terms with k > 8 are; and in a segment
// much smaller than a block, where rows are mostly padding, every term is.
// Lists are exact: only terms with shared rows need verifying.
type Treatment struct {
	Private bool
	Row     int // the private row (when Private)
	List    bool
	ListAt  int // the byte offset of the term's list in the lists section (when List)
	K       int // number of shared rows (when neither)
}

// Exact reports whether the term's bits are exactly its documents.
func (t Treatment) Exact() bool { return t.Private || t.List }

// treat computes a term's treatment from its df in a segment of n documents
// (Row and ListAt are assigned later).
func (p Params) treat(df, n int) Treatment {
	f := float64(df) / float64(n)
	lists := p.ListDensity > 0 && n <= MaxListDocs
	listBits, rowBits := 16*float64(df), float64(64*rowWords(n))
	if f >= p.Density {
		if lists && listBits < rowBits {
			return Treatment{List: true}
		}
		return Treatment{Private: true}
	}
	k := int(math.Ceil(math.Log(f/p.SNR) / math.Log(p.Density)))
	k = min(max(k, p.KMin), p.KMax)
	if lists && (f < p.ListDensity || listBits < float64(k*df)*rowBits/(p.Density*float64(n))) {
		return Treatment{List: true}
	}
	return Treatment{K: k}
}

// sharedRowCount is m, the number of shared rows that gives the target density:
// ceil(Σ k·df / (d·n)) over the shared terms, at least 1 when any term is shared.
func (p Params) sharedRowCount(bitsSet, n int) int {
	if bitsSet == 0 {
		return 0
	}
	return max(1, int(math.Ceil(float64(bitsSet)/(p.Density*float64(n)))))
}

// sharedRows appends the k shared row positions of a term with hash h among m
// shared rows, by double hashing: (h1 + i·h2) mod m for i in 0..k-1, with h1,
// h2 the low and high halves of h and h2 forced odd. Positions may repeat when
// m is small; callers that AND rows dedupe them.
func sharedRows(dst []int, h uint64, k, m int) []int {
	h1, h2 := h&0xffffffff, (h>>32)|1
	for i := 0; i < k; i++ {
		dst = append(dst, int((h1+uint64(i)*h2)%uint64(m)))
	}
	return dst
}

// rowWords is the length in uint64 words of a row for n documents: a whole
// number of 512-document blocks (one 64-byte cache line each).
func rowWords(n int) int { return (n + 511) / 512 * 8 }

// BlockWords is the number of words in one 512-document block.
const BlockWords = 8
