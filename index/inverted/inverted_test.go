package inverted

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
)

// testCorpus is the test kit's corpus with a word in each document of its
// first half (a run of consecutive documents), so that bitmaps use every
// container kind (array, bitmap and run).
func testCorpus(n int, seed uint64) []index.Document {
	docs := indextest.Corpus(n, seed)
	for i := range docs[:n/2] {
		docs[i].Text = append(docs[i].Text, " firsthalf"...)
		docs[i].Size = int64(len(docs[i].Text))
	}
	return docs
}

func buildIndex(t testing.TB, dir string, docs []index.Document, opt index.WriterOptions) *index.Index {
	t.Helper()
	return indextest.Open(t, dir, docs, opt)
}

// keysOf gathers a term's documents over all segments, by key.
func keysOf(t *testing.T, x *Index, term string) []string {
	var keys []string
	for _, s := range x.Segments() {
		id, ok := s.Segment().Lookup(term)
		if !ok {
			continue
		}
		bm, err := s.Postings(id)
		if err != nil {
			t.Fatal(err)
		}
		if int(bm.GetCardinality()) != s.Segment().DF(id) {
			t.Fatalf("%s: term %q has %d postings, df %d", s.Name(), term, bm.GetCardinality(), s.Segment().DF(id))
		}
		for it := bm.Iterator(); it.HasNext(); {
			keys = append(keys, s.Segment().DocKey(int(it.Next())))
		}
	}
	slices.Sort(keys)
	return keys
}

func TestBuildMatchesBruteForce(t *testing.T) {
	docs := testCorpus(4000, 1)
	ix := buildIndex(t, t.TempDir(), docs, index.WriterOptions{Capacity: 900})
	o := indextest.NewOracle(docs, ix.Analyzer())
	for _, dir := range []string{"", ix.Dir()} {
		x, err := Build(ix, BuildOptions{Dir: dir, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Segments()) != len(ix.Segments()) {
			t.Fatalf("%d postings segments for %d segments", len(x.Segments()), len(ix.Segments()))
		}
		for _, term := range o.Terms() {
			if got, keys := keysOf(t, x, term), o.Holders(term); !slices.Equal(got, keys) {
				t.Fatalf("term %q: postings list %d documents, brute force %d", term, len(got), len(keys))
			}
		}
		if err := x.Check(); err != nil {
			t.Fatal(err)
		}
		x.Close()
	}
	// The files written above open again and are still right.
	x, err := Open(ix)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	for _, s := range x.Segments() {
		if s.Name() != FileName(s.Segment().Name()) || !strings.HasSuffix(s.Name(), fmt.Sprintf(".v%d.inv", index.FormatVersion)) {
			t.Fatalf("postings file %s for segment %s", s.Name(), s.Segment().Name())
		}
		if s.FileBytes() <= s.PostingsBytes()+s.OffsetsBytes() {
			t.Fatalf("%s: file %d bytes, postings %d, offsets %d", s.Name(), s.FileBytes(), s.PostingsBytes(), s.OffsetsBytes())
		}
	}
}

func TestMissingStaleAndRemoved(t *testing.T) {
	dir := t.TempDir()
	docs := testCorpus(1500, 2)
	ix := buildIndex(t, dir, docs, index.WriterOptions{Capacity: 500})
	if _, err := Open(ix); !errors.Is(err, ErrMissing) {
		t.Fatalf("Open without postings: %v, want ErrMissing", err)
	}
	x, built, err := OpenOrBuild(ix, 2)
	if err != nil || !built {
		t.Fatalf("OpenOrBuild: built %v, %v", built, err)
	}
	x.Close()
	old := ix.Segments()[0].Name()

	// Rebuild the index with other documents: the old postings files stay
	// until postings are built again, and are then removed.
	ix2 := buildIndex(t, dir, testCorpus(1200, 3), index.WriterOptions{Capacity: 500})
	if _, err := os.Stat(filepath.Join(dir, FileName(old))); err != nil {
		t.Fatalf("old postings file: %v", err)
	}
	if _, err := Open(ix2); !errors.Is(err, ErrMissing) {
		t.Fatalf("Open after rebuild: %v, want ErrMissing", err)
	}
	x, built, err = OpenOrBuild(ix2, 2)
	if err != nil || !built {
		t.Fatalf("OpenOrBuild after rebuild: built %v, %v", built, err)
	}
	defer x.Close()
	if _, err := os.Stat(filepath.Join(dir, FileName(old))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale postings file %s still there: %v", FileName(old), err)
	}
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), Suffix) {
			n++
		}
	}
	if n != len(ix2.Segments()) {
		t.Fatalf("%d postings files for %d segments", n, len(ix2.Segments()))
	}

	// A postings file put beside the wrong segment is stale, not corrupt.
	segs := ix2.Segments()
	if len(segs) < 2 {
		t.Fatal("want two segments")
	}
	a, b := filepath.Join(dir, FileName(segs[0].Name())), filepath.Join(dir, FileName(segs[1].Name()))
	data, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ix2); !errors.Is(err, ErrStale) {
		t.Fatalf("Open with a swapped file: %v, want ErrStale", err)
	}
}

func TestDamagedFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	ix := buildIndex(t, dir, testCorpus(800, 4), index.WriterOptions{})
	x, err := Build(ix, BuildOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	path := filepath.Join(dir, FileName(ix.Segments()[0].Name()))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 300; i++ {
		bad := slices.Clone(good)
		switch i % 3 {
		case 0:
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		case 1:
			bad = bad[:r.IntN(len(bad))]
		default:
			at := r.IntN(len(bad) - 8)
			copy(bad[at:], []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
		}
		if slices.Equal(bad, good) {
			continue
		}
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		x, err := Open(ix)
		if err == nil {
			err = x.Check()
			x.Close()
		}
		if err == nil {
			t.Fatalf("damage %d went unnoticed", i)
		}
		if !errors.Is(err, index.ErrCorrupt) && !errors.Is(err, ErrStale) {
			t.Fatalf("damage %d: %v, want a corruption error", i, err)
		}
	}
}

// TestCheckFiles: every postings file beside the segments is checked, and
// a flipped byte in any of them is a problem that names the file.
func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	ix := buildIndex(t, dir, testCorpus(800, 4), index.WriterOptions{})
	if n, probs := CheckFiles(ix); n != 0 || len(probs) != 0 {
		t.Fatalf("no postings files: checked %d, %v", n, probs)
	}
	x, err := Build(ix, BuildOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	x.Close()
	if n, probs := CheckFiles(ix); n != len(ix.Segments()) || len(probs) != 0 {
		t.Fatalf("sound postings files: checked %d of %d, %v", n, len(ix.Segments()), probs)
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, seg := range ix.Segments() {
		name := FileName(seg.Name())
		path := filepath.Join(dir, name)
		good, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			bad := slices.Clone(good)
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			_, probs := CheckFiles(ix)
			if len(probs) != 1 || !strings.Contains(probs[0].Error(), name) {
				t.Fatalf("flip %d in %s: %v", i, name, probs)
			}
		}
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
