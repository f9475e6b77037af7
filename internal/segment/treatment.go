package segment

import (
	"math"
	"math/bits"

	"github.com/bitsieve/bitsieve/internal/doclist"
)

// Params are the signature parameters of a segment. They are chosen by the
// writer and recorded in the segment's params section, so a reader never
// guesses how rows were built.
type Params struct {
	Density float64 // target density d of shared rows, at every rank
	SNR     float64 // signal-to-noise target: a term's expected false positives ≤ df/SNR
	KMin    int     // fewest shared rows for a term
	KMax    int     // most shared rows for a term (of all ranks together)

	// ListDensity: a term with df/n below it is stored as an exact list of
	// its documents instead of rows (0: never). Lists are kept only in
	// segments of at most doclist.MaxDocs documents, where an entry is 16 bits.
	ListDensity float64

	// Rank is the higher rank of shared rows (0: rank 0 only). A rank-r row
	// has one bit per 2^r neighbouring documents, the OR of their columns,
	// so it is 2^r times shorter than a rank-0 row (see Treatment).
	Rank int

	// PairK is the number of rank-0 shared rows of each word pair (0: no
	// pairs). Where two words, at least one of them with a private row,
	// directly follow each other in a document, the pair is a signature
	// term of its own, so a phrase finds its candidates in the rows instead
	// of among every document holding its words. A pair has no df and no list: its
	// expected false positives among the documents holding both words are
	// a fraction Density^PairK of them, removed by verification.
	PairK int
}

// DefaultParams are the parameters used when a writer is given none
// (docs/BENCHMARKS.md has the measurements that chose them).
var DefaultParams = Params{Density: 0.2, SNR: 30, KMin: 1, KMax: 12, ListDensity: 1.0 / 256, Rank: 3, PairK: 3}

// minRank and maxRank bound the higher rank of a segment's shared rows: a
// rank-r row holds 512>>r bits of each 512-document block, so from rank 3
// on a block's bits are one word or part of one, and up to rank 6 a byte.
const (
	minRank = 3
	maxRank = 6
)

// Validate reports whether p can be used to build segments: the errors a
// writer, Compact or Reseal would return for it. The zero Params stands for
// DefaultParams elsewhere but is not valid itself.
func (p Params) Validate() error {
	switch {
	case !(p.Density > 0 && p.Density < 1):
		return errorf("density %v must be between 0 and 1", p.Density)
	case !(p.SNR >= 1):
		return errorf("snr %v must be at least 1", p.SNR)
	case p.KMin < 1 || p.KMax < p.KMin || p.KMax > maxK:
		return errorf("row counts kmin %d, kmax %d must satisfy 1 ≤ kmin ≤ kmax ≤ %d", p.KMin, p.KMax, maxK)
	case !(p.ListDensity >= 0 && p.ListDensity <= p.Density):
		return errorf("list density %v must be between 0 and the row density %v", p.ListDensity, p.Density)
	case p.Rank != 0 && (p.Rank < minRank || p.Rank > maxRank):
		return errorf("rank %d must be 0 or between %d and %d", p.Rank, minRank, maxRank)
	case p.PairK < 0 || p.PairK > maxK:
		return errorf("pair rows %d must be between 0 and %d", p.PairK, maxK)
	}
	return nil
}

// maxK is the most shared rows of one rank a treatment word can hold.
const maxK = 63

// Treatment says how a term is stored in the signature of one segment.
//
// With f = df/n, a term gets whichever of three structures fits it:
//
//   - a private row, an exact bitmap of its documents, when that row is no
//     larger than the shared rows the term would need (f ≥ Density/k);
//   - an exact list of its documents (internal/doclist) for the rarest
//     tail, f below ListDensity (lowered in a segment where the tail would
//     otherwise hold more postings than the shared rows; see withTail),
//     where a Bloom row cannot pay for itself: such a term needs many
//     shared rows, each read at every query, while its list is a
//     few bytes that let a query skip straight to the blocks it touches. In a
//     segment whose rows would be mostly padding (under 256 documents) every
//     term whose list is smaller than one row gets a list;
//   - otherwise K shared rows at rank 0 and KHigh at the segment's Rank r,
//     chosen by double hashing of the term's hash among the shared rows of
//     each rank. Every shared row, of either rank, is filled to Density.
//
// The shared rows are the fewest that keep the term's expected false
// positives at most df/SNR, and among those the most high-rank rows (they
// are 2^r times shorter to read). A document without the term passes its
// rank-0 rows with probability d^K. It passes the rank-r rows for sure when
// one of its 2^r−1 neighbours holds the term (about (2^r−1)·f of documents),
// and otherwise with probability d^KHigh; so the expected false positives
// are n·d^K·((2^r−1)·f + d^KHigh), against n·d^K with rank-0 rows only.
// Rank-r rows are worth their neighbours only for terms rare enough that
// most groups of 2^r documents lack them: 2^r·f ≤ 1/4.
type Treatment struct {
	Private bool
	Row     int // the private row (when Private)
	List    bool
	ListAt  int // the byte offset of the term's list in the lists section (when List)
	K       int // shared rows at rank 0 (when neither)
	KHigh   int // shared rows at the segment's higher rank
}

// Shared reports whether the term has shared rows.
func (t Treatment) Shared() bool { return !t.Private && !t.List }

// treat computes a term's treatment from its df in a segment of n documents
// (Row and ListAt are assigned later).
func (p Params) treat(df, n int) Treatment {
	f := float64(df) / float64(n)
	lists := p.ListDensity > 0 && n <= doclist.MaxDocs
	listBits, rowBits := 16*float64(df), float64(64*rowWords(n))
	if lists && (f < p.ListDensity || (rowBits >= 2*float64(n) && listBits < rowBits)) {
		return Treatment{List: true}
	}
	if f >= p.Density {
		return Treatment{Private: true}
	}
	k0, kh := p.sharedCounts(f)
	if f*float64(k0+kh) >= p.Density {
		return Treatment{Private: true}
	}
	return Treatment{K: k0, KHigh: kh}
}

// withTail returns p with the list density lowered, by halves, until the
// terms with shared rows hold at least as many of a segment's postings as
// the terms with lists: lists are for the rarest tail of the terms without
// a private row, never for most of them. In prose the default cut already
// does this; in source code, whose vocabulary is mostly rare identifiers,
// a fixed cut would make lists the bulk of the signature. A list density
// equal to the row density asks for lists instead of any shared row, and is
// kept. dfs are the segment's document frequencies, in any order.
func (p Params) withTail(dfs []int, n int) Params {
	if p.ListDensity == 0 || p.ListDensity >= p.Density || n > doclist.MaxDocs {
		return p
	}
	postings := map[int]int64{} // df → postings of the terms with that df
	for _, df := range dfs {
		postings[df] += int64(df)
	}
	for {
		var shared, listed int64
		for df, c := range postings {
			switch t := p.treat(df, n); {
			case t.List:
				listed += c
			case !t.Private:
				shared += c
			}
		}
		if shared >= listed || p.ListDensity*float64(n) < 1 {
			return p
		}
		p.ListDensity /= 2
	}
}

// sharedCounts finds the fewest shared rows (k0 at rank 0, kh at the higher
// rank) whose expected false positives are at most df/SNR, preferring
// high-rank rows among equals; see Treatment for the model.
func (p Params) sharedCounts(f float64) (k0, kh int) {
	d := p.Density
	group := float64(int(1) << p.Rank)
	useRank := p.Rank > 0 && group*f <= 0.25
	for total := p.KMin; total <= p.KMax; total++ {
		hmax := 0
		if useRank {
			hmax = total - 1
		}
		for h := hmax; h >= 0; h-- {
			k := total - h
			fp := math.Pow(d, float64(k)) / f // expected false positives per true document
			if h > 0 {
				fp = math.Pow(d, float64(k)) * ((group - 1) + math.Pow(d, float64(h))/f)
			}
			if fp*p.SNR <= 1 {
				return k, h
			}
		}
	}
	return p.KMax, 0
}

// expectedFP is the model's expected false positives of a term with df
// documents among n under treatment t (see Treatment), at the density d the
// segment's shared rows actually have at ranks 0 and r.
func expectedFP(t Treatment, df, n, rank int, d0, dh float64) float64 {
	if !t.Shared() {
		return 0
	}
	f := float64(df) / float64(max(1, n))
	p := math.Pow(d0, float64(t.K))
	if t.KHigh > 0 {
		g := float64(int(1) << rank)
		p *= min(1, (g-1)*f) + math.Pow(dh, float64(t.KHigh))
	}
	return p * float64(max(0, n-df))
}

// sharedRowCount is m, the number of shared rows of one rank that gives the
// target density: ceil(bits / (d·columns)), where bits is the number of
// (term, row, column) bits the shared terms set at that rank; at least
// minRows (the most rows one term takes there, so its rows can be distinct)
// when any term is shared.
func (p Params) sharedRowCount(bitsSet, columns, minRows int) int {
	if bitsSet == 0 {
		return 0
	}
	return max(minRows, int(math.Ceil(float64(bitsSet)/(p.Density*float64(columns)))))
}

// sharedRows appends the k distinct shared row positions of a term with hash
// h among m shared rows (k ≤ m), by double hashing: (h1 + i·h2) mod m for i
// in 0..k-1, with h1 the low half of h and h2 drawn from [1, m) by the high
// half and moved to the next value coprime with m. A step coprime with m
// visits every row once before it repeats, so the k positions are distinct
// whatever m is. The rows of a higher rank take the same positions from a
// remixed hash (rankHash), so a term's rows at two ranks are independent.
func sharedRows(dst []int, h uint64, k, m int) []int {
	if m <= 0 || k <= 0 {
		return dst
	}
	mm := uint64(m)
	h1 := (h & 0xffffffff) % mm
	h2 := uint64(1)
	if m > 2 {
		h2 = 1 + (h>>32)%(mm-1)
		for gcd(h2, mm) != 1 {
			if h2++; h2 == mm {
				h2 = 1
			}
		}
	}
	pos := h1
	for i := 0; i < min(k, m); i++ {
		dst = append(dst, int(pos))
		if pos += h2; pos >= mm {
			pos -= mm
		}
	}
	return dst
}

// rowPlacer is sharedRows for one number of rows m, its divisions done
// once, when a segment is opened or built: a query places each of its
// shared words in each segment it visits. A remainder by m or by m−1 is
// then two multiplications (Lemire, Kaser and Kurz, "Faster remainder by
// direct computation", 2019), and whether the step shares a factor with m
// is a multiplication for each distinct prime of m, where gcd loops. It
// places every term where sharedRows does (a row count of 2³² or more, which
// no segment reaches, is left to sharedRows).
type rowPlacer struct {
	m       uint64
	cm, cm1 uint64    // ⌈2⁶⁴/m⌉ and ⌈2⁶⁴/(m−1)⌉: x mod m = hi(lo(cm·x)·m), for x < 2³²
	primes  [9]uint64 // ⌈2⁶⁴/p⌉ for each distinct prime p of m: p | x ⇔ lo(x·⌈2⁶⁴/p⌉) < ⌈2⁶⁴/p⌉
	np      int       // at most nine: the first ten primes multiply to more than 2³²
	wide    bool      // m ≥ 2³²
}

// newRowPlacer returns the placer of terms among m shared rows.
func newRowPlacer(m int) rowPlacer {
	p := rowPlacer{m: uint64(max(m, 0))}
	if p.m >= 1<<32 {
		p.wide = true
		return p
	}
	if p.m > 0 {
		p.cm = ^uint64(0)/p.m + 1 // 0 for m = 1, where every remainder is 0
	}
	if p.m > 2 {
		p.cm1 = ^uint64(0)/(p.m-1) + 1
	}
	n := p.m
	for q := uint64(2); q*q <= n; q++ {
		if n%q == 0 {
			p.primes[p.np], p.np = ^uint64(0)/q+1, p.np+1
			for n%q == 0 {
				n /= q
			}
		}
	}
	if n > 1 {
		p.primes[p.np], p.np = ^uint64(0)/n+1, p.np+1
	}
	return p
}

// rows appends the k distinct rows of a term with hash h, as sharedRows(dst,
// h, k, m) does.
func (p *rowPlacer) rows(dst []int, h uint64, k int) []int {
	if p.wide {
		return sharedRows(dst, h, k, int(p.m))
	}
	m := p.m
	if m == 0 || k <= 0 {
		return dst
	}
	h1 := remainder(h&0xffffffff, p.cm, m)
	h2 := uint64(1)
	if m > 2 {
		h2 = 1 + remainder(h>>32, p.cm1, m-1)
		for p.sharesFactor(h2) {
			if h2++; h2 == m {
				h2 = 1
			}
		}
	}
	pos := h1
	for i := 0; i < min(k, int(m)); i++ {
		dst = append(dst, int(pos))
		if pos += h2; pos >= m {
			pos -= m
		}
	}
	return dst
}

// remainder is x mod d for x, d < 2³², given c = ⌈2⁶⁴/d⌉.
func remainder(x, c, d uint64) uint64 {
	hi, _ := bits.Mul64(c*x, d)
	return hi
}

// sharesFactor reports whether x (0 < x < 2³²) has a prime factor in
// common with m.
func (p *rowPlacer) sharesFactor(x uint64) bool {
	for _, c := range p.primes[:p.np] {
		if x*c <= c-1 {
			return true
		}
	}
	return false
}

// rankHash derives the hash that places a term's higher-rank rows from its
// term hash (the splitmix64 finalizer of h plus a constant).
func rankHash(h uint64) uint64 {
	h += 0x9e3779b97f4a7c15
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9
	h = (h ^ (h >> 27)) * 0x94d049bb133111eb
	return h ^ (h >> 31)
}

// gcd is the greatest common divisor of a and b, by Stein's binary
// algorithm: shifts and subtractions, where Euclid's divides at every step.
func gcd(a, b uint64) uint64 {
	if a == 0 || b == 0 {
		return a | b
	}
	shift := bits.TrailingZeros64(a | b)
	a >>= bits.TrailingZeros64(a)
	for b != 0 {
		b >>= bits.TrailingZeros64(b)
		if a > b {
			a, b = b, a
		}
		b -= a
	}
	return a << shift
}

// rowWords is the length in uint64 words of a row for n documents: a whole
// number of 512-document blocks (one 64-byte cache line each).
func rowWords(n int) int { return (n + 511) / 512 * 8 }

// rankWords is the length in words of a rank-r row for n documents: 512>>r
// bits for every 512-document block, rounded up to whole words.
func rankWords(n, r int) int {
	blocks := (n + 511) / 512
	return (blocks*(512>>r) + 63) / 64
}
