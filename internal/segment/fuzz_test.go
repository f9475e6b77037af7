package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/bitsieve/bitsieve/tokenize"
)

// exercise calls every accessor of a segment that New accepted; none
// may panic, whatever the bytes.
func exercise(s *Segment) {
	s.Check()
	var post []Posting
	var rows []int
	tf := make([]uint32, 3)
	for d := 0; d < s.NumDocs() && d < 16; d++ {
		s.Doc(d)
		s.DocKey(d)
		s.DocTokens(d)
		s.IsLive(d)
		post, _ = s.Forward(post[:0], d)
		ids := []TermID{0, TermID(s.NumTerms() / 2), TermID(max(0, s.NumTerms()-1))}
		if s.NumTerms() > 0 {
			s.ForwardLookup(d, ids, tf)
		}
		if _, _, raw := s.block(0); d < 4 && s.hdr.Blocks > 0 && raw <= 4<<20 {
			s.Text(nil, d)
			s.WithTextRange(d, 10, 100, func([]byte, int) error { return nil })
		}
		if s.NumTerms() > 0 {
			pr := s.NewPositionReader()
			cids := slices.Compact(ids)
			pr.Read(d, cids, make([][]uint32, len(cids)))
			lists := make([]PosList, len(cids))
			if pr.ReadLists(d, cids, lists) == nil {
				for _, l := range lists {
					it := l.Iter()
					it.Seek(3)
					for _, ok := it.Next(); ok; _, ok = it.Next() {
					}
				}
			}
			if pr.ReadMarks(d) == nil {
				for c := 0; c < pr.Marks(); c++ {
					pr.Mark(c)
				}
			}
		}
		if fwd, err := s.Forward(post[:0], d); err == nil {
			e := s.pos[s.posOff[d]:s.posOff[d+1]]
			var tfs []uint32
			decodePositionsEntry(e, tfsOf(fwd, &tfs), nil, nil, nil)
		}
	}
	for r := 1; r <= s.PrivateRows()+s.SharedRows(); r++ {
		s.Impacts(r)
	}
	n := 0
	s.Terms(func(term string, id TermID) bool {
		rows = s.rowsOfTerm(rows[:0], term, id)
		for _, r := range rows {
			s.Row(r)
			s.RowCount(r)
		}
		s.DF(id)
		s.LiveDF(id)
		s.Lookup(term)
		n++
		return n < 256
	})
	s.prefixTerms("w1", func(string, TermID) bool { return true })
	s.Sections()
	s.Postings()
}

// smallSegment builds a valid segment file of a few short documents, with
// private and shared rows, for seeding the fuzzer.
func smallSegment(t testing.TB, n int, seed uint64) []byte {
	t.Helper()
	data, _ := buildFile(t, testCorpus(n, seed, 80), DefaultParams)
	return data
}

// FuzzSegment feeds arbitrary bytes, and mutations of valid segment files,
// to the segment reader without checksum verification, so that the
// structural checks are what stands between damaged bytes and a panic:
// New must refuse the bytes with a *CorruptError or return a segment
// every accessor can read. Checksums would catch random damage first; they
// cannot catch a file made to pass them.
func FuzzSegment(f *testing.F) {
	good := smallSegment(f, 12, 3)
	f.Add(good)
	f.Add(smallSegment(f, 3, 4))
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Add([]byte(sectioned.Magic + segmentKind))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Sections are read in place as words: give the bytes the alignment
		// a mapping has.
		s, err := New("fuzz.seg", aligned(data), VerifyNone)
		if err != nil {
			var ce *sectioned.CorruptError
			if !errors.As(err, &ce) && !bytes.Contains([]byte(err.Error()), []byte("format version")) {
				t.Fatalf("error %T %v, want a *CorruptError", err, err)
			}
			return
		}
		exercise(s)
		if err := s.ApplyDeletions("fuzz.del", make([]uint64, (s.NumDocs()+63)/64)); err != nil {
			var ce *sectioned.CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("ApplyDeletions: %T %v", err, err)
			}
		}
	})
}

// TestStoreSizeClaims is the regression test for what fuzzing found: a
// block table entry or a zstd frame header claiming a huge size made the
// reader allocate it (up to the decoder's 1 GiB limit) before noticing. A
// block table entry's raw length and newline count must agree with each
// other and with the frame. Checksums are off, as for a file crafted to
// pass them.
func TestStoreSizeClaims(t *testing.T) {
	text := []byte(strings.Repeat("a frame with a declared content size ", 20))
	d := &Doc{Key: "a", Text: text}
	NewAnalysis(tokenize.DefaultLanguage).Analyze(d)
	data, _ := buildFile(t, []*Doc{d}, DefaultParams)
	secs, err := Sections("x", data)
	if err != nil {
		t.Fatal(err)
	}
	rawLenAt := int(secs[secBlocks].Offset) + 12 // block 0: offset, compressed length, raw length, newlines
	for _, c := range []struct {
		rawLen, newlines uint16
		want             string
	}{
		{uint16(len(text)), uint16(len(text)) + 1, "claims"}, // more newlines than bytes: refused at open
		{uint16(len(text)) - 1, 0, "frame header"},           // not what the frame declares: refused before decoding
	} {
		b := slices.Clone(data)
		binary.LittleEndian.PutUint16(b[rawLenAt:], c.rawLen)
		binary.LittleEndian.PutUint16(b[rawLenAt+2:], c.newlines)
		s, err := New("x.seg", b, VerifyNone)
		if err == nil {
			_, err = s.Text(nil, 0)
		}
		if err == nil || !errors.Is(err, sectioned.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("raw length %d: %v, want a damage report about the %s", c.rawLen, err, c.want)
		}
	}
}
