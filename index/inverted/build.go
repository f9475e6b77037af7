package inverted

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// docLists gathers every term's documents from a segment's forward index:
// the documents of termID t are docs[start[t]:start[t+1]], ascending. It
// checks that the forward index agrees with every term's df.
func docLists(seg *segment.Segment) (start []int, docs []uint32, err error) {
	if err := seg.LoadTerms(); err != nil {
		return nil, nil, err
	}
	nt := seg.NumTerms()
	start = make([]int, nt+1)
	for id := 0; id < nt; id++ {
		start[id+1] = start[id] + seg.DF(segment.TermID(id))
	}
	docs = make([]uint32, start[nt])
	next := make([]int, nt)
	copy(next, start[:nt])
	var fwd []segment.Posting
	for d := 0; d < seg.NumDocs(); d++ {
		if fwd, err = seg.Forward(fwd[:0], d); err != nil {
			return nil, nil, err
		}
		for _, p := range fwd {
			if next[p.Term] == start[p.Term+1] {
				return nil, nil, disagree(seg, p.Term)
			}
			docs[next[p.Term]] = uint32(d)
			next[p.Term]++
		}
	}
	for id := 0; id < nt; id++ {
		if next[id] != start[id+1] {
			return nil, nil, disagree(seg, segment.TermID(id))
		}
	}
	return start, docs, nil
}

func disagree(seg *segment.Segment, id segment.TermID) error {
	return &index.CorruptError{File: seg.Name(), Section: "forward",
		Detail: fmt.Sprintf("the forward index does not agree with the df %d of term %d", seg.DF(id), id)}
}

// appender is an io.Writer that appends to a byte slice.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) { a.b = append(a.b, p...); return len(p), nil }

// encodeSegment builds the postings file image of one segment from its
// forward index.
func encodeSegment(seg *segment.Segment) ([]byte, error) {
	start, docs, err := docLists(seg)
	if err != nil {
		return nil, err
	}
	nt := seg.NumTerms()
	offs := make([]byte, 0, 4*(nt+1))
	post := &appender{b: make([]byte, 0, len(docs)*2)}
	bm := roaring.New()
	for id := 0; id < nt; id++ {
		offs = binary.LittleEndian.AppendUint32(offs, uint32(len(post.b)))
		bm.Clear()
		bm.AddMany(docs[start[id]:start[id+1]])
		bm.RunOptimize()
		if _, err := bm.WriteTo(post); err != nil {
			return nil, err
		}
		if len(post.b) > math.MaxUint32 {
			return nil, fmt.Errorf("inverted: postings of %s exceed 4 GiB", seg.Name())
		}
	}
	offs = binary.LittleEndian.AppendUint32(offs, uint32(len(post.b)))
	p := params{docs: seg.NumDocs(), terms: nt, postings: int64(len(docs)), segBytes: seg.FileBytes(), segName: seg.Name()}
	return encodeFile(p.encode(), offs, post.b), nil
}
