package query

import (
	"math/bits"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/doclist"
	"github.com/bitsieve/bitsieve/internal/prefetch"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// block is one 512-document block of a bitmap: one cache line of a row.
type block = [bitrow.BlockWords]uint64

// eval computes the node's candidate bits for block b into out and reports
// whether any bit is set. An AND stops at the first all-zero input, so a block
// where the sparsest row is empty costs one cache line.
func (n *pnode) eval(b int, out *block) bool {
	switch n.kind {
	case kNone:
		*out = block{}
		return false
	case kAll:
		fill(out)
		return true
	case kRows:
		return n.evalRows(b, out)
	case kAnd:
		return n.evalAnd(b, out)
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
			fill(out)
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

// fill sets every bit of out.
func fill(out *block) {
	for i := range out {
		out[i] = ^uint64(0)
	}
}

// evalRows ANDs a rows node's rows of the higher rank, lists and rows of
// rank 0 for block b into out.
func (n *pnode) evalRows(b int, out *block) bool {
	started := false
	if len(n.high) > 0 {
		hb := n.highBits(b)
		if hb == 0 {
			*out = block{}
			return false
		}
		bitrow.ExpandRank(hb, n.rank, out)
		started = true
	}
	for i := range n.lists {
		if !started {
			if !n.listBits(i, b, out) {
				return false
			}
			started = true
		} else if !n.listBits(i, b, &n.scratch) || !andInto(out, &n.scratch) {
			*out = block{}
			return false
		}
	}
	base := b * bitrow.BlockWords
	if !started {
		return andRows(n.rows, base, out, n.loads)
	}
	return andRowsInto(n.rows, base, out, n.loads)
}

// evalAnd ANDs an And node's children for block b into out, then removes
// its exact negated children.
func (n *pnode) evalAnd(b int, out *block) bool {
	if len(n.kids) == 0 {
		fill(out)
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
	copy(out[:], rows[0][base:base+bitrow.BlockWords])
	if loads != nil {
		*loads++
	}
	return andRowsInto(rows[1:], base, out, loads)
}

// prefetchable reports whether the block after the one being evaluated may
// be found first, so that its rows are prefetched while this one is read:
// when no node of the tree has a list, whose cursor must be asked for
// blocks in ascending order.
func (n *pnode) prefetchable() bool {
	if n.kind == kRows {
		return len(n.lists) == 0
	}
	for _, k := range n.kids {
		if !k.prefetchable() {
			return false
		}
	}
	for _, k := range n.negs {
		if !k.prefetchable() {
			return false
		}
	}
	return true
}

// prefetch asks for block b of the rank-0 rows that eval will read.
func (n *pnode) prefetch(b int) {
	if n.kind == kRows {
		base := b * bitrow.BlockWords
		for _, r := range n.rows {
			prefetch.Words(r[base : base+bitrow.BlockWords])
		}
		return
	}
	for _, k := range n.kids {
		k.prefetch(b)
	}
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
		w := r[base : base+bitrow.BlockWords : base+bitrow.BlockWords]
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

// cursor walks one term's list a block at a time (internal/doclist has the
// two encodings). Blocks are mostly asked in ascending order, so the cursor
// only moves forward, galloping through a plain list when it has far to go; a
// block before the cursor starts it again from the top.
type cursor struct {
	id    segment.TermID
	list  doclist.List
	n     int      // entries
	plain []uint16 // a plain list
	bytes []byte   // or a chunked one
	// Plain: at is the first entry not in a block before the last one
	// asked. Chunked: at is the byte offset of the first chunk not in such
	// a block, seen the entries before it, prev the chunk before it (-1).
	at, seen, prev int
}

// newCursor returns a cursor at the start of list l of term id, and asks
// for the list's first bytes: planning goes on meanwhile, and the first
// seek finds them in cache.
func newCursor(id segment.TermID, l doclist.List) cursor {
	c := cursor{id: id, list: l, n: l.Len(), plain: l.Plain(), bytes: l.Bytes(), prev: -1}
	if c.bytes != nil {
		prefetch.Range(c.bytes[:1])
	} else if len(c.plain) > 0 {
		prefetch.Uint16s(c.plain[:1])
	}
	return c
}

// seek moves the cursor to its first entry in block b or later and returns
// that entry's block (noBlock when the list is exhausted).
func (c *cursor) seek(b int) int {
	if c.bytes != nil {
		return c.seekChunk(b)
	}
	l, at := c.plain, c.at
	if at > 0 && int(l[at-1])>>blockShift >= b {
		at = 0
	}
	for step := 0; at < len(l) && int(l[at])>>blockShift < b; step++ {
		if step == 4 {
			// Gallop, then binary search the last stride.
			lo, stride := at, 8
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
			at = lo
			break
		}
		at++
	}
	c.at = at
	if at == len(l) {
		return noBlock
	}
	return int(l[at]) >> blockShift
}

// chunkShift converts a 256-document chunk number to its block.
const chunkShift = blockShift - 8

func (c *cursor) seekChunk(b int) int {
	if c.prev >= 0 && c.prev>>chunkShift >= b {
		c.at, c.seen, c.prev = 0, 0, -1
	}
	for c.seen < c.n {
		ch := int(c.bytes[c.at])
		if ch>>chunkShift >= b {
			return ch >> chunkShift
		}
		cnt := int(c.bytes[c.at+1]) + 1
		c.seen += cnt
		c.prev = ch
		c.at += 2 + cnt
	}
	return noBlock
}

// bits sets in out the documents of the list in block b and reports whether
// there were any; it returns the bytes of entries it read.
func (c *cursor) bits(b int, out *block) (bool, int) {
	*out = block{}
	if c.seek(b) != b {
		return false, 0
	}
	if c.bytes == nil {
		l, at := c.plain, c.at
		for ; at < len(l) && int(l[at])>>blockShift == b; at++ {
			d := l[at] & (1<<blockShift - 1)
			out[d>>6] |= 1 << (d & 63)
		}
		return true, 2 * (at - c.at)
	}
	at, seen := c.at, c.seen
	for seen < c.n && int(c.bytes[at])>>chunkShift == b {
		base := uint(c.bytes[at]) << 8 & (1<<blockShift - 1)
		cnt := int(c.bytes[at+1]) + 1
		for _, lo := range c.bytes[at+2 : at+2+cnt] {
			d := base | uint(lo)
			out[d>>6] |= 1 << (d & 63)
		}
		seen += cnt
		at += 2 + cnt
	}
	return true, at - c.at
}

// listBits sets in out the documents of list i in block b and reports
// whether there were any.
func (n *pnode) listBits(i, b int, out *block) bool {
	ok, read := n.lists[i].bits(b, out)
	if n.loads != nil && ok {
		*n.loads += int64(1 + read/64) // 64-byte lines of entries
	}
	return ok
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
		if len(n.lists) == 0 && len(n.high) == 0 {
			return b
		}
		for {
			nb := b
			for i := range n.lists {
				if nb = n.lists[i].seek(nb); nb == noBlock {
					return noBlock
				}
			}
			if len(n.high) > 0 {
				if nb = n.nextHigh(nb); nb == noBlock {
					return noBlock
				}
			}
			if nb == b {
				return b
			}
			b = nb
		}
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

// Higher-rank rows (segment.Treatment): in a rank-r row, bit i stands for
// documents i·2^r to (i+1)·2^r−1, so a 512-document block has 512>>r bits,
// one word at rank 3 and a byte at rank 6. A node ANDs the words of its
// high-rank rows first: where they are zero the block has no candidate and
// its rank-0 rows are never read; elsewhere the surviving bits are expanded
// to documents and the rank-0 rows and lists refine them.

// highBits is the AND of the node's high-rank rows over block b: its
// 512>>rank bits, in the low bits of the result.
func (n *pnode) highBits(b int) uint64 {
	per := 512 >> n.rank
	off := b * per
	w, sh := off/64, uint(off%64)
	acc := ^uint64(0)
	if per < 64 {
		acc = 1<<per - 1
	}
	for _, r := range n.high {
		if acc &= r[w] >> sh; acc == 0 {
			return 0
		}
	}
	if n.loads != nil {
		*n.loads += int64(len(n.high))
	}
	return acc
}

// nextHigh returns the first block at or after b where the AND of the
// node's high-rank rows has a bit, or noBlock: a word at a time, so at rank
// 6 one word of each row rules out eight blocks.
func (n *pnode) nextHigh(b int) int {
	per := 512 >> n.rank
	if per == 64 { // a word a block
		b, _ = n.nextWord(b, len(n.high[0]))
		return b
	}
	words := len(n.high[0])
	for w := b * per / 64; w < words; w++ {
		acc := ^uint64(0)
		for _, r := range n.high {
			if acc &= r[w]; acc == 0 {
				break
			}
		}
		if w == b*per/64 {
			acc &= ^uint64(0) << uint(b*per%64)
		}
		if acc != 0 {
			return (w*64 + bits.TrailingZeros64(acc)) / per
		}
	}
	return noBlock
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

// eachBlock calls f for every block b, ascending, where the plan has
// candidates, with their bits in acc (the live row not yet applied). When
// the plan is prefetchable, the next block is found before this one is
// evaluated, and its rows are prefetched meanwhile. A conjunction of rows
// alone at rank 3, the commonest plan of a few words, takes eachWordBlock.
func (p *plan) eachBlock(f func(b int, acc block)) {
	var acc block
	blocks := len(p.seg.Live()) / bitrow.BlockWords
	if n := p.root; n.kind == kRows && len(n.lists) == 0 && len(n.high) > 0 && 512>>n.rank == 64 {
		n.eachWordBlock(blocks, f)
		return
	}
	ahead := p.root.prefetchable()
	for b, nb := p.root.next(0), 0; b < blocks; b = nb {
		if ahead {
			if nb = p.root.next(b + 1); nb < blocks {
				p.root.prefetch(nb)
			}
		}
		ok := p.root.eval(b, &acc)
		if !ahead {
			nb = p.root.next(b + 1)
		}
		if ok {
			f(b, acc)
		}
	}
}

// match runs the plan over every block of the segment, ANDs the live row,
// and calls emit for every candidate in document order.
func (p *plan) match(emit func(doc int)) {
	live := p.seg.Live()
	p.eachBlock(func(b int, acc block) {
		if p.root.loads != nil {
			*p.root.loads++ // the live row's block
		}
		base := b * bitrow.BlockWords
		for i, w := range acc {
			w &= live[base+i]
			for w != 0 {
				emit((base+i)*64 + bits.TrailingZeros64(w))
				w &= w - 1
			}
		}
	})
}

// count is the number of live documents the plan matches, by popcount; it is
// the exact count when the plan is exact.
func (p *plan) count() int {
	live := p.seg.Live()
	n := 0
	p.eachBlock(func(b int, acc block) {
		base := b * bitrow.BlockWords
		for i, w := range acc {
			n += bits.OnesCount64(w & live[base+i])
		}
	})
	return n
}

// eachWordBlock is eachBlock for a rows node without lists whose higher
// rank gives each block one word of its high-rank rows (rank 3): the AND
// that finds the next block with a high-rank bit is also that block's
// high-rank bits, where next and eval would compute it twice. The block
// found next has its rank-0 rows prefetched while this one is evaluated.
func (n *pnode) eachWordBlock(blocks int, f func(b int, acc block)) {
	var out block
	b, hb := n.nextWord(0, blocks)
	for b < blocks {
		nb, nhb := n.nextWord(b+1, blocks)
		if nb < blocks {
			n.prefetch(nb)
		}
		if n.loads != nil {
			*n.loads += int64(len(n.high))
		}
		bitrow.ExpandRank(hb, n.rank, &out)
		if andRowsInto(n.rows, b*bitrow.BlockWords, &out, n.loads) {
			f(b, out)
		}
		b, hb = nb, nhb
	}
}

// nextWord returns the first block at or after b, below blocks, where the
// AND of the node's high-rank rows (one word a block) is not zero, and that
// AND; noBlock when there is none.
func (n *pnode) nextWord(b, blocks int) (int, uint64) {
	first, rest := n.high[0], n.high[1:]
	for ; b < blocks; b++ {
		acc := first[b]
		for _, r := range rest {
			if acc &= r[b]; acc == 0 {
				break
			}
		}
		if acc != 0 {
			return b, acc
		}
	}
	return noBlock, 0
}
