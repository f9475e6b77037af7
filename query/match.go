package query

import (
	"math/bits"

	"github.com/bitsieve/bitsieve/index"
)

// block is one 512-document block of a bitmap: one cache line of a row.
type block = [index.BlockWords]uint64

// eval computes the node's candidate bits for block b into out and reports
// whether any bit is set. An AND stops at the first all-zero input, so a block
// where the sparsest row is empty costs one cache line.
func (n *pnode) eval(b int, out *block) bool {
	base := b * index.BlockWords
	switch n.kind {
	case kNone:
		*out = block{}
		return false
	case kAll:
		for i := range out {
			out[i] = ^uint64(0)
		}
		return true
	case kRows:
		return andRows(n.rows, base, out)
	case kAnd:
		if len(n.kids) == 0 {
			for i := range out {
				out[i] = ^uint64(0)
			}
		} else if !n.kids[0].eval(b, out) {
			return false
		}
		for _, k := range n.kids[1:] {
			if !k.eval(b, &n.scratch) || !andInto(out, &n.scratch) {
				*out = block{}
				return false
			}
		}
		for _, k := range n.negs {
			if k.eval(b, &n.scratch) && !andNotInto(out, &n.scratch) {
				return false
			}
		}
		return true
	case kOr:
		any := false
		*out = block{}
		for _, k := range n.kids {
			if k.eval(b, &n.scratch) {
				any = true
				for i := range out {
					out[i] |= n.scratch[i]
				}
			}
		}
		return any
	case kNot:
		if !n.kids[0].exact {
			for i := range out {
				out[i] = ^uint64(0)
			}
			return true
		}
		n.kids[0].eval(b, &n.scratch)
		var acc uint64
		for i := range out {
			out[i] = ^n.scratch[i]
			acc |= out[i]
		}
		return acc != 0
	}
	return false
}

// andRows ANDs one block of every row into out, stopping at zero.
func andRows(rows [][]uint64, base int, out *block) bool {
	if len(rows) == 0 {
		for i := range out {
			out[i] = ^uint64(0)
		}
		return true
	}
	copy(out[:], rows[0][base:base+index.BlockWords])
	for _, r := range rows[1:] {
		w := r[base : base+index.BlockWords : base+index.BlockWords]
		out[0] &= w[0]
		out[1] &= w[1]
		out[2] &= w[2]
		out[3] &= w[3]
		out[4] &= w[4]
		out[5] &= w[5]
		out[6] &= w[6]
		out[7] &= w[7]
		if out[0]|out[1]|out[2]|out[3]|out[4]|out[5]|out[6]|out[7] == 0 {
			return false
		}
	}
	return out[0]|out[1]|out[2]|out[3]|out[4]|out[5]|out[6]|out[7] != 0
}

func andInto(out, x *block) bool {
	var acc uint64
	for i := range out {
		out[i] &= x[i]
		acc |= out[i]
	}
	return acc != 0
}

func andNotInto(out, x *block) bool {
	var acc uint64
	for i := range out {
		out[i] &^= x[i]
		acc |= out[i]
	}
	return acc != 0
}

// matchSegment runs the plan over every block of the segment, ANDs the live
// row, and calls emit for every candidate in document order.
func (p *plan) match(emit func(doc int)) {
	live := p.seg.Live()
	var acc block
	blocks := len(live) / index.BlockWords
	for b := 0; b < blocks; b++ {
		if !p.root.eval(b, &acc) {
			continue
		}
		base := b * index.BlockWords
		for i, w := range acc {
			w &= live[base+i]
			for w != 0 {
				emit((base+i)*64 + bits.TrailingZeros64(w))
				w &= w - 1
			}
		}
	}
}

// count is the number of live documents the plan matches, by popcount; it is
// the exact count when the plan is exact.
func (p *plan) count() int {
	live := p.seg.Live()
	var acc block
	n := 0
	blocks := len(live) / index.BlockWords
	for b := 0; b < blocks; b++ {
		if !p.root.eval(b, &acc) {
			continue
		}
		base := b * index.BlockWords
		for i, w := range acc {
			n += bits.OnesCount64(w & live[base+i])
		}
	}
	return n
}
