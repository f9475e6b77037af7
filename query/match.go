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
		if len(n.lists) == 0 {
			return andRows(n.rows, base, out, n.loads)
		}
		if !n.listBits(0, b, out) {
			return false
		}
		for i := 1; i < len(n.lists); i++ {
			if !n.listBits(i, b, &n.scratch) || !andInto(out, &n.scratch) {
				*out = block{}
				return false
			}
		}
		return andRowsInto(n.rows, base, out, n.loads)
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

// andRows ANDs one block of every row into out, stopping at zero. loads,
// when not nil, counts the row blocks read.
func andRows(rows [][]uint64, base int, out *block, loads *int64) bool {
	if len(rows) == 0 {
		for i := range out {
			out[i] = ^uint64(0)
		}
		return true
	}
	copy(out[:], rows[0][base:base+index.BlockWords])
	if loads != nil {
		*loads++
	}
	return andRowsInto(rows[1:], base, out, loads)
}

// andRowsInto ANDs one block of every row into out, stopping at zero.
func andRowsInto(rows [][]uint64, base int, out *block, loads *int64) bool {
	if out[0]|out[1]|out[2]|out[3]|out[4]|out[5]|out[6]|out[7] == 0 {
		return false
	}
	for _, r := range rows {
		if loads != nil {
			*loads++
		}
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

// seek moves list i's cursor to its first entry in block b or later and
// returns that entry's block (noBlock when the list is exhausted). Blocks are
// mostly asked in ascending order, so the cursor steps forward a little and
// gallops when it has far to go; a block before the cursor searches again.
func (n *pnode) seek(i, b int) int {
	l, c := n.lists[i], n.cur[i]
	if c > 0 && int(l[c-1])>>blockShift >= b {
		c = 0
	}
	for step := 0; c < len(l) && int(l[c])>>blockShift < b; step++ {
		if step == 4 {
			// Gallop, then binary search the last stride.
			lo, stride := c, 8
			for lo+stride < len(l) && int(l[lo+stride])>>blockShift < b {
				lo += stride
				stride *= 2
			}
			hi := min(len(l), lo+stride)
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if int(l[m])>>blockShift < b {
					lo = m + 1
				} else {
					hi = m
				}
			}
			c = lo
			break
		}
		c++
	}
	n.cur[i] = c
	if c == len(l) {
		return noBlock
	}
	return int(l[c]) >> blockShift
}

// listBits sets in out the documents of list i in block b and reports
// whether there were any.
func (n *pnode) listBits(i, b int, out *block) bool {
	*out = block{}
	if n.seek(i, b) != b {
		return false
	}
	l, c := n.lists[i], n.cur[i]
	for ; c < len(l) && int(l[c])>>blockShift == b; c++ {
		d := l[c] & (1<<blockShift - 1)
		out[d>>6] |= 1 << (d & 63)
	}
	if n.loads != nil {
		*n.loads += int64(1 + 2*(c-n.cur[i])/64) // 64-byte lines of entries
	}
	return true
}

// countLoads makes every node of the tree count the 64-byte blocks of rows
// and lists it reads into loads (nil stops counting), for the benchmark's
// bandwidth figures.
func (n *pnode) countLoads(loads *int64) {
	n.loads = loads
	for _, k := range n.kids {
		k.countLoads(loads)
	}
	for _, k := range n.negs {
		k.countLoads(loads)
	}
}

// next returns the first block at or after b where the node may have a
// candidate, or noBlock. Only lists know where their documents are: an AND
// skips to the furthest of its inputs' next blocks until they agree, an OR
// to the nearest; rows and everything else answer b itself.
func (n *pnode) next(b int) int {
	switch n.kind {
	case kNone:
		return noBlock
	case kRows:
		for len(n.lists) > 0 {
			nb := b
			for i := range n.lists {
				if nb = n.seek(i, nb); nb == noBlock {
					return noBlock
				}
			}
			if nb == b {
				break
			}
			b = nb
		}
		return b
	case kAnd:
		for {
			nb := b
			for _, k := range n.kids {
				if nb = k.next(nb); nb == noBlock {
					return noBlock
				}
			}
			if nb == b {
				return b
			}
			b = nb
		}
	case kOr:
		nb := noBlock
		for _, k := range n.kids {
			nb = min(nb, k.next(b))
		}
		return nb
	}
	return b
}

const (
	blockShift = 9                  // log2 of the documents in a block
	noBlock    = int(^uint(0) >> 1) // past every block
)

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
	for b := p.root.next(0); b < blocks; b = p.root.next(b + 1) {
		if !p.root.eval(b, &acc) {
			continue
		}
		if p.root.loads != nil {
			*p.root.loads++ // the live row's block
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
	for b := p.root.next(0); b < blocks; b = p.root.next(b + 1) {
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
