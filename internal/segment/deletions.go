package segment

import (
	"fmt"
	"math/bits"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/sectioned"
)

// ApplyDeletions marks documents deleted in s, as the tombstone file names
// them: deleted has a bit per document, set for each deleted one. The live
// row becomes a copy of row 0 with their bits cleared, and the statistics
// BM25 needs (live tokens, live df) leave them out. It must be called before
// the segment is shared.
func (s *Segment) ApplyDeletions(file string, deleted []uint64) error {
	if len(deleted) != (s.NumDocs()+63)/64 {
		return &sectioned.CorruptError{File: file, Detail: fmt.Sprintf("%d words of deletions for %d documents", len(deleted), s.NumDocs())}
	}
	s.tombName = file
	live := make([]uint64, len(s.live))
	copy(live, s.live)
	for i, w := range deleted {
		live[i] &^= w
	}
	s.live = live
	s.nlive = bitrow.Count(live)
	s.liveTokens = s.hdr.Tokens
	s.delDF = map[TermID]uint32{}
	var post []Posting
	for i, w := range deleted {
		for w != 0 {
			d := i*64 + bits.TrailingZeros64(w)
			w &= w - 1
			s.liveTokens -= int64(s.DocTokens(d))
			var err error
			if post, err = s.Forward(post[:0], d); err != nil {
				return err
			}
			for _, p := range post {
				s.delDF[p.Term]++
			}
		}
	}
	return nil
}

// Deletions is the name of the tombstone file applied (ApplyDeletions), or "".
func (s *Segment) Deletions() string { return s.tombName }

// DeletedBits returns the segment's deleted documents as a bitmap of
// ceil(n/64) words (a fresh slice).
func (s *Segment) DeletedBits() []uint64 {
	n := (s.NumDocs() + 63) / 64
	del := make([]uint64, n)
	row := s.Row(0)
	for i := range del {
		del[i] = row[i] &^ s.live[i]
	}
	return del
}

// LiveTokens is the number of tokens of the segment's live documents, for
// the index's average document length.
func (s *Segment) LiveTokens() int64 { return s.liveTokens }
