package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/bitsieve/bitsieve/internal/bitrow"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// smallSegment builds a valid segment file of a few documents, with private
// and shared rows, for seeding the fuzzers.
func smallSegment(t testing.TB, n int, seed uint64) []byte {
	t.Helper()
	segs, _ := smallIndexFiles(t, n, seed)
	return segs[0]
}

// smallIndexFiles builds a small index, as smallSegment, and returns its
// segment files, in manifest order, and its lexicon.
func smallIndexFiles(t testing.TB, n int, seed uint64) (segs [][]byte, lex []byte) {
	t.Helper()
	dir := t.TempDir()
	docs := genDocs(n, seed)
	for i := range docs {
		if len(docs[i].Text) > 80 {
			docs[i].Text = docs[i].Text[:80]
		}
	}
	buildIndex(t, dir, docs, WriterOptions{})
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ms := range m.Segments {
		b, err := os.ReadFile(filepath.Join(dir, ms.File))
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, b)
	}
	if lex, err = os.ReadFile(filepath.Join(dir, m.Lexicon)); err != nil {
		t.Fatal(err)
	}
	return segs, lex
}

// openPair opens an index's segment files and lexicon from memory,
// unverified and attached, and returns the first segment.
func openPair(t testing.TB, segData [][]byte, lex []byte) (*Segment, *lexicon) {
	t.Helper()
	segs := make([]*Segment, len(segData))
	for i, b := range segData {
		s, err := newSegment(fmt.Sprintf("%08d.v7.seg", i+1), b, verifyNone)
		if err != nil {
			t.Fatal(err)
		}
		segs[i] = s
	}
	lx, err := newLexicon("lexicon", lex, verifyNone)
	if err != nil {
		t.Fatal(err)
	}
	if err := lx.attach(segs); err != nil {
		t.Fatal(err)
	}
	for i, s := range segs {
		s.lex, s.ord = lx, i
	}
	return segs[0], lx
}

// exercise calls every accessor of a segment that newSegment accepted; none
// may panic, whatever the bytes.
func exercise(s *Segment) {
	s.checkInvariants()
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
			pr.Read(d, slices.Compact(ids), make([][]uint32, len(ids)))
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
		s.liveDF(id)
		s.Lookup(term)
		n++
		return n < 256
	})
	s.prefixTerms("w1", func(string, TermID) bool { return true })
	s.Sections()
	s.Postings()
}

// FuzzSegment feeds arbitrary bytes, and mutations of valid segment files,
// to the segment reader without checksum verification, so that the
// structural checks are what stands between damaged bytes and a panic:
// newSegment must refuse the bytes with a *CorruptError or return a segment
// every accessor can read. Checksums would catch random damage first; they
// cannot catch a file made to pass them.
func FuzzSegment(f *testing.F) {
	good := smallSegment(f, 12, 3)
	f.Add(good)
	f.Add(smallSegment(f, 3, 4))
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Add([]byte(fileMagic + segmentKind))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Sections are read in place as words: give the bytes the alignment
		// a mapping has.
		buf := make([]uint64, (len(data)+7)/8)
		b := wordsAsBytes(buf)
		if b != nil {
			b = b[:len(data)]
			copy(b, data)
		}
		s, err := newSegment("fuzz.seg", b, verifyNone)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) && !bytes.Contains([]byte(err.Error()), []byte("format version")) {
				t.Fatalf("error %T %v, want a *CorruptError", err, err)
			}
			return
		}
		exercise(s)
		if err := s.applyTombstone(&tombstone{docs: s.NumDocs(), deleted: make([]uint64, (s.NumDocs()+63)/64)}, 0); err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("applyTombstone: %T %v", err, err)
			}
		}
	})
}

// FuzzManifest: decodeManifest refuses bad bytes with an error, and what
// it accepts encodes back to bytes it decodes the same.
func FuzzManifest(f *testing.F) {
	m := &Manifest{Format: formatVersion, Generation: 7, Analyzer: "english", NextFile: 9, Segments: []ManifestSegment{
		{File: "00000001.v1.seg", Docs: 10, Class: 3, Bytes: 4096, Deletes: "00000008.v1.del", Deleted: 2},
		{File: "00000005.v1.seg", Docs: 3, Class: 1, Bytes: 1024},
	}}
	b, _ := encodeManifest(m)
	f.Add(b)
	f.Add(b[:len(b)-1])
	f.Add([]byte("{}\ncrc32c 00000000\n"))
	empty, _ := encodeManifest(&Manifest{Format: formatVersion, NextFile: 1})
	f.Add(empty)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeManifest("MANIFEST", data)
		if err != nil {
			return
		}
		b, err := encodeManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := decodeManifest("MANIFEST", b)
		if err != nil {
			t.Fatalf("re-encoded manifest does not decode: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip: %+v != %+v", m, m2)
		}
		for _, s := range m.Segments {
			if s.Live() < 0 || s.Live() > s.Docs {
				t.Fatalf("accepted an entry with %d of %d documents live", s.Live(), s.Docs)
			}
		}
	})
}

// FuzzTombstone: decodeTombstone refuses bad bytes with a *CorruptError,
// and what it accepts is a consistent bitmap that round-trips. (Accepted
// bytes need not be the canonical encoding: the amount of zero padding and
// the order of the section table are free.)
func FuzzTombstone(f *testing.F) {
	del := []uint64{0b1011, 1 << 40}
	f.Add(encodeTombstone(3, 2, 100, del))
	f.Add(encodeTombstone(1, 1, 0, nil))
	f.Add(encodeTombstone(12, 9, 64, []uint64{^uint64(0)}))
	f.Add([]byte(fileMagic + tombstoneKind))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := decodeTombstone("fuzz.del", data)
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) && !bytes.Contains([]byte(err.Error()), []byte("format version")) {
				t.Fatalf("error %T %v, want a *CorruptError", err, err)
			}
			return
		}
		if len(ts.deleted) != (ts.docs+63)/64 || bitrow.Count(ts.deleted) != ts.count || ts.count > ts.docs {
			t.Fatalf("inconsistent tombstone %+v", ts)
		}
		again, err := decodeTombstone("fuzz.del", encodeTombstone(ts.segSeq, ts.gen, ts.docs, ts.deleted))
		if err != nil || !reflect.DeepEqual(again, ts) {
			t.Fatalf("re-encoded tombstone: %+v, %v; want %+v", again, err, ts)
		}
	})
}

// TestStoreSizeClaims is the regression test for what fuzzing found: a
// block table entry or a zstd frame header claiming a huge size made the
// reader allocate it (up to the decoder's 1 GiB limit) before noticing.
// Checksums are off, as for a file crafted to pass them.
func TestStoreSizeClaims(t *testing.T) {
	dir := t.TempDir()
	text := []byte(strings.Repeat("a frame with a declared content size ", 20))
	buildIndex(t, dir, []Document{{Key: "a", Text: text}}, WriterOptions{})
	m, _ := readManifest(dir)
	data, err := os.ReadFile(filepath.Join(dir, m.Segments[0].File))
	if err != nil {
		t.Fatal(err)
	}
	secs, err := readSections("x", data, segmentKind)
	if err != nil {
		t.Fatal(err)
	}
	rawLenAt := int(secs[secBlocks].Offset) + 12 // block 0: offset, compressed length, raw length
	for _, c := range []struct {
		rawLen uint32
		want   string
	}{
		{1 << 30, "claims"},                     // beyond what the compressed bytes can hold: refused at open
		{uint32(len(text)) - 1, "frame header"}, // not what the frame declares: refused before decoding
	} {
		b := slices.Clone(data)
		binary.LittleEndian.PutUint32(b[rawLenAt:], c.rawLen)
		s, err := newSegment("x.seg", b, verifyNone)
		if err == nil {
			_, err = s.Text(nil, 0)
		}
		if err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("raw length %d: %v, want a damage report about the %s", c.rawLen, err, c.want)
		}
	}
}
