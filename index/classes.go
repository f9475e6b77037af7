package index

import (
	"slices"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// classBand is the band of length classes that may share a segment: classes
// 2b and 2b+1, documents of 2^(2b-1) to 2^(2b+1)-1 distinct terms. A band
// spans a factor of four in length, so no document of a segment sets more
// than about twice the mean number of bits of its shared rows: its signature
// cannot saturate them, whatever the longest documents of the corpus are.
func classBand(c int) int { return c / 2 }

// groupLeftovers decides the segments for the class buffers left at commit:
// the classes of a band are merged into one segment (or one per class when
// they would exceed capacity), and bands are never mixed. A band whose
// leftovers are few makes a small segment; in a segment of under 256
// documents, whose rows would be mostly padding, terms get lists (segment.Treatment).
func groupLeftovers(classes map[int]*classBuffer, capacity int) (groups [][]*analyzedDoc, class []int) {
	keys := make([]int, 0, len(classes))
	for c, b := range classes {
		if len(b.docs) > 0 {
			keys = append(keys, c)
		}
	}
	slices.Sort(keys)
	for i := 0; i < len(keys); {
		j, total := i, 0
		for ; j < len(keys) && classBand(keys[j]) == classBand(keys[i]); j++ {
			total += len(classes[keys[j]].docs)
		}
		if total <= capacity {
			var g []*analyzedDoc
			for _, c := range keys[i:j] {
				g = append(g, classes[c].docs...)
			}
			groups, class = append(groups, g), append(class, keys[j-1])
		} else {
			for _, c := range keys[i:j] {
				groups, class = append(groups, classes[c].docs), append(class, c)
			}
		}
		i = j
	}
	return groups, class
}

type classBuffer struct {
	docs  []*analyzedDoc
	bytes int64      // text bytes
	mem   int64      // footprints
	spill *textSpill // where a writer's buffer keeps its documents' texts
}

// add appends d and reports whether the buffer is full: Capacity documents,
// MaxSegmentBytes of text or half the memory budget.
func (b *classBuffer) add(d *analyzedDoc, capacity int, maxBytes, budget int64) bool {
	b.docs = append(b.docs, d)
	b.bytes += d.textLen()
	b.mem += d.mem
	return len(b.docs) >= capacity || b.bytes >= maxBytes || b.mem >= budget/2
}

// classBuffers holds documents by length class until they are written as
// segments, and the footprint of them all.
type classBuffers struct {
	classes  map[int]*classBuffer
	buffered int64 // footprints of the documents in classes
}

func newClassBuffers() classBuffers { return classBuffers{classes: map[int]*classBuffer{}} }

// buffer returns the buffer of d's length class.
func (cb *classBuffers) buffer(d *analyzedDoc) *classBuffer {
	c := segment.LengthClassOf(len(d.Terms))
	b := cb.classes[c]
	if b == nil {
		b = &classBuffer{}
		cb.classes[c] = b
	}
	return b
}

// add buffers d in its length class and says which class to seal now, if
// any: d's, when its buffer is full (early when it is full only by memory),
// or the largest, early, when the buffers together reach the budget.
func (cb *classBuffers) add(d *analyzedDoc, capacity int, maxBytes, budget int64) (class int, seal, early bool) {
	c := segment.LengthClassOf(len(d.Terms))
	b := cb.buffer(d)
	cb.buffered += d.mem
	if b.add(d, capacity, maxBytes, budget) {
		return c, true, len(b.docs) < capacity && b.bytes < maxBytes
	}
	if cb.buffered >= budget {
		return largestBuffer(cb.classes), true, true
	}
	return 0, false, false
}

// take empties class c's buffer and returns its documents.
func (cb *classBuffers) take(c int) []*analyzedDoc {
	b := cb.classes[c]
	cb.buffered -= b.mem
	cb.classes[c] = &classBuffer{}
	return b.docs
}

// largestBuffer is the class whose buffer holds the most bytes.
func largestBuffer(classes map[int]*classBuffer) int {
	best, c := int64(-1), 0
	for k, b := range classes {
		if b.mem > best {
			best, c = b.mem, k
		}
	}
	return c
}

// analyzedDoc is a document after analysis, waiting in a length-class
// buffer until it is sealed into a segment (segment.Build).
type analyzedDoc struct {
	segment.Doc
	dropped bool        // deleted or replaced before its segment was sealed
	mem     int64       // bytes it holds, about (footprint)
	spilled spilledText // where its text is while Text is nil (textspill.go)
}

// textLen is the length of d's text, in memory or spilled.
func (d *analyzedDoc) textLen() int64 { return int64(len(d.Text)) + d.spilled.n }

// footprint estimates the bytes an analyzed document holds while it waits
// in a writer's buffer: its text, positions and terms (whose bytes the
// writer shares between documents), and what Go spends around them.
func (d *analyzedDoc) footprint() int64 {
	return int64(len(d.Text)+len(d.Key)+len(d.Title)+len(d.Pos)+24*len(d.Terms)) + 256
}

// segmentDocs are the documents of docs, as segment.Build takes them.
func segmentDocs(docs []*analyzedDoc) []*segment.Doc {
	out := make([]*segment.Doc, len(docs))
	for i, d := range docs {
		out[i] = &d.Doc
	}
	return out
}
