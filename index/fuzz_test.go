package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// smallIndexFiles builds a small index, as smallSegment, and returns its
// segment files, in manifest order, and its lexicon.
func smallIndexFiles(t testing.TB, n int, seed uint64) (segs [][]byte, lex []byte) {
	t.Helper()
	dir := t.TempDir()
	docs := testCorpus(n, seed)
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

// sectionNamed is the section of a segment file's data named name.
func sectionNamed(t testing.TB, data []byte, name string) section {
	t.Helper()
	secs, err := segment.Sections("x", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secs {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no section %s", name)
	return section{}
}

// openPair opens an index's segment files and lexicon from memory,
// unverified and attached, and returns the first segment.
func openPair(t testing.TB, segData [][]byte, lex []byte) (*segment.Segment, *lexicon) {
	t.Helper()
	segs := make([]*segment.Segment, len(segData))
	for i, b := range segData {
		s, err := segment.New(fmt.Sprintf("%08d.v7.seg", i+1), b, segment.VerifyNone)
		if err != nil {
			t.Fatal(err)
		}
		segs[i] = s
	}
	lx, err := newLexicon("lexicon", lex, segment.VerifyNone)
	if err != nil {
		t.Fatal(err)
	}
	if err := lx.attach(segs); err != nil {
		t.Fatal(err)
	}
	for i, s := range segs {
		lx.lendDict(s, i)
	}
	return segs[0], lx
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
