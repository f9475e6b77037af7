package segment

import (
	"fmt"
	"slices"
	"testing"

	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/tokenize"
)

func TestTreatment(t *testing.T) {
	// The default density, lists and rank, at snr 10.
	p := DefaultParams
	p.SNR = 10
	if tr := p.treat(13108, 65536); !tr.Private {
		t.Errorf("df/n = 0.2 should get a private row, got %+v", tr)
	}
	// In a 100-document segment a row is 512 bits: a list of 10 is smaller.
	if tr := p.treat(10, 100); !tr.List {
		t.Errorf("df 10 of 100 should get a list, got %+v", tr)
	}
	// f = 0.04: 8·f > 1/4, so rank-0 rows only: 0.2^k/f ≤ 1/10 needs k = 4;
	// 4 rows cost more than a private row only from f = 0.05.
	if tr := p.treat(2621, 65536); tr.Private || tr.List || tr.K != 4 || tr.KHigh != 0 {
		t.Errorf("f=0.04: got %+v, want k=4 at rank 0", tr)
	}
	if tr := p.treat(3277, 65536); !tr.Private {
		t.Errorf("f=0.05: got %+v, want a private row (smaller than 4 shared rows)", tr)
	}
	// f = 0.01: five rows, three at rank 0 and two at rank 3:
	// 0.2^3·(7 + 0.2^2/0.01) = 0.088 ≤ 1/10, while every split of four
	// rows, and 2+3 of five, is above it.
	if tr := p.treat(655, 65536); tr.K != 3 || tr.KHigh != 2 {
		t.Errorf("f=0.01: got %+v, want k=3 at rank 0 and 2 at rank 3", tr)
	}
	noRank := p
	noRank.Rank = 0
	if tr := noRank.treat(655, 65536); tr.K != 5 || tr.KHigh != 0 {
		t.Errorf("f=0.01 without ranks: got %+v, want k=5", tr)
	}
	noLists := p
	noLists.ListDensity = 0
	if tr := noLists.treat(4, 100); tr.Private || tr.List || tr.K != 4 {
		t.Errorf("f=0.04 of 100 without lists: got %+v, want k=4", tr)
	}
	// f = 1/65536: a list by default; past doclist.MaxDocs 3 + 6 rows.
	if tr := p.treat(1, 65536); !tr.List {
		t.Errorf("f=1/65536: got %+v, want a list", tr)
	}
	if tr := p.treat(1, doclist.MaxDocs+1); tr.List || tr.K != 3 || tr.KHigh != 6 {
		t.Errorf("a segment of %d documents: got %+v, want 3+6 shared rows", doclist.MaxDocs+1, tr)
	}
	// The defaults (snr 30) at the list cut, f = 1/256: six rows, four at
	// rank 0 and two at rank 3: 0.2^4·(7 + 0.2^2·256) ≤ 1/30.
	if tr := DefaultParams.treat(256, 65536); tr.K != 4 || tr.KHigh != 2 {
		t.Errorf("defaults, f=1/256: got %+v, want k=4 at rank 0 and 2 at rank 3", tr)
	}
	if m := p.sharedRowCount(3000, 1000, 1); m != 15 {
		t.Errorf("m = %d, want 15", m)
	}
	if m := p.sharedRowCount(3000, 1000, 20); m != 20 {
		t.Errorf("m = %d, want the 20 rows of the widest term", m)
	}
}

// TestSharedRowsDistinct checks that a term's shared rows never repeat: with
// h2 forced odd but not coprime with m, a hash whose high half is a multiple
// of m put all k positions on one row.
func TestSharedRowsDistinct(t *testing.T) {
	check := func(h uint64, k, m int) {
		t.Helper()
		rows := sharedRows(nil, h, k, m)
		if len(rows) != min(k, m) {
			t.Fatalf("h=%#x k=%d m=%d: %d rows", h, k, m, len(rows))
		}
		seen := map[int]bool{}
		for _, r := range rows {
			if r < 0 || r >= m || seen[r] {
				t.Fatalf("h=%#x k=%d m=%d: rows %v repeat or fall outside", h, k, m, rows)
			}
			seen[r] = true
		}
	}
	check(399<<32|7, 5, 399) // h2 ≡ 0 (mod 399)
	check(3<<32|1, 4, 12)    // h2 = 3 shares a factor with 12
	for m := 1; m <= 600; m++ {
		for i := uint64(0); i < 200; i++ {
			h := tokenize.Hash(fmt.Sprint(i, "/", m))
			check(h, min(m, 1+int(i%12)), m)
		}
	}
}

// TestRowPlacer checks that a placer puts every term where sharedRows
// does: for every row count up to 3,000, for row counts with many prime
// factors or one large one, and up to the largest it handles.
func TestRowPlacer(t *testing.T) {
	check := func(m int, h uint64, k int) {
		t.Helper()
		p := newRowPlacer(m)
		if got, want := p.rows(nil, h, k), sharedRows(nil, h, k, m); !slices.Equal(got, want) {
			t.Fatalf("m=%d h=%#x k=%d: placer %v, sharedRows %v", m, h, k, got, want)
		}
	}
	x := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 { x = rankHash(x); return x }
	for m := 0; m <= 3000; m++ {
		for range 40 {
			check(m, next(), 1+int(x%7))
		}
	}
	for _, m := range []int{65536, 65537, 30030, 510510, 9699690, 223092870, 1 << 31, 1<<31 - 1, 1<<32 - 5, 1<<32 - 1, 1 << 32, 1<<32 + 15} {
		for range 2000 {
			check(m, next(), 1+int(x%12))
		}
		// High halves that land on multiples of m's factors.
		for i := range uint64(200) {
			check(m, i<<32|next()&0xffffffff, 4)
		}
	}
}

// TestGCD checks the binary gcd against Euclid's, on small numbers
// exhaustively and on large ones: the rows a term is placed in depend on
// it (sharedRows), so the indexes written before it must still read right.
func TestGCD(t *testing.T) {
	euclid := func(a, b uint64) uint64 {
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}
	check := func(a, b uint64) {
		t.Helper()
		if got, want := gcd(a, b), euclid(a, b); got != want {
			t.Fatalf("gcd(%d, %d) = %d, want %d", a, b, got, want)
		}
	}
	for a := uint64(0); a < 300; a++ {
		for b := uint64(0); b < 300; b++ {
			check(a, b)
		}
	}
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < 10000; i++ {
		x = rankHash(x)
		check(x>>uint(i%40), (x>>20)%65536*uint64(1+i%6))
		check(x, 1<<uint(i%64))
	}
	// The rows of one hash, as every index so far has placed them.
	if got := sharedRows(nil, 0x123456789abcdef0, 6, 308); fmt.Sprint(got) != "[244 271 298 17 44 71]" {
		t.Errorf("sharedRows moved a term's rows: %v", got)
	}
}

// TestListTail checks that lists stay the rarest tail: in a segment of rare
// words the list density is halved until shared rows hold at least as many
// postings as lists, and a segment where they already do keeps it.
func TestListTail(t *testing.T) {
	var rare []int
	for i := 0; i < 1000; i++ {
		rare = append(rare, 2) // f = 1/2000: lists at the default cut
	}
	for i := 0; i < 10; i++ {
		rare = append(rare, 100) // f = 1/40: shared
	}
	if got := DefaultParams.withTail(rare, 4000).ListDensity; got != 1.0/2048 {
		t.Errorf("rare words: list density %v, want 1/2048 (the first cut below f = 1/2000)", got)
	}
	common := append(rare[:0:0], rare[1000:]...)
	common = append(common, 2, 2, 2)
	if got := DefaultParams.withTail(common, 4000).ListDensity; got != DefaultParams.ListDensity {
		t.Errorf("shared rows already the bulk: list density %v, want the default", got)
	}
	if got := (Params{Density: 0.2, SNR: 30, KMin: 1, KMax: 12, Rank: 3}).withTail(rare, 4000).ListDensity; got != 0 {
		t.Errorf("no lists: list density %v", got)
	}
}

// BenchmarkTermRows places a shared word's rows in a segment, of rank 0
// and of the higher rank, as a query does for each of its shared words in
// each segment it visits.
func BenchmarkTermRows(b *testing.B) {
	p0, ph := newRowPlacer(1237), newRowPlacer(1001)
	dst := make([]int, 0, 16)
	h := uint64(0x9e3779b97f4a7c15)
	for b.Loop() {
		h = rankHash(h)
		dst = termRows(dst[:0], h, 4, 2, 100, &p0, &ph)
	}
}
