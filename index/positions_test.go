package index

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// TestForwardAndPositions checks every document's forward entry and
// positions, read through the skips, against its own re-analyzed text:
// ForwardLookup, segment.PositionReader.Read and ReadLists (its iterators
// walked and sought) for random sets of terms (most documents have more
// than one skip's worth of terms), the marks against the tokens' offsets,
// and RebuildRows (word pairs included) against the rows the writer set;
// then bitsieve check.
func TestForwardAndPositions(t *testing.T) {
	dir := t.TempDir()
	docs := testCorpus(600, 5)
	buildIndex(t, dir, docs, WriterOptions{Capacity: 200})
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	byKey := map[string][]byte{}
	for _, d := range docs {
		byKey[d.Key] = d.Text
	}
	a := tokenize.MustNew(ix.Analyzer())
	r := rand.New(rand.NewPCG(1, 2))
	skipped := 0
	for _, s := range ix.Segments() {
		if err := s.LoadTerms(); err != nil {
			t.Fatal(err)
		}
		pr := s.NewPositionReader()
		for d := 0; d < s.NumDocs(); d++ {
			toks := a.Analyze(nil, byKey[s.DocKey(d)])
			want := map[segment.TermID][]uint32{}
			for _, tok := range toks {
				id, ok := s.Lookup(tok.Term)
				if !ok {
					t.Fatalf("%s: term %q is not in the dictionary", s.DocKey(d), tok.Term)
				}
				want[id] = append(want[id], uint32(tok.Pos))
			}
			if len(want) > segment.SkipsFrom {
				skipped++
			}
			// A random set of terms, half of them absent from the document.
			var ids []segment.TermID
			for len(ids) < 8 {
				ids = append(ids, segment.TermID(r.IntN(s.NumTerms())))
			}
			for id := range want {
				if r.IntN(8) == 0 {
					ids = append(ids, id)
				}
			}
			slices.Sort(ids)
			ids = slices.Compact(ids)
			tf := make([]uint32, len(ids))
			if err := s.ForwardLookup(d, ids, tf); err != nil {
				t.Fatal(err)
			}
			pos := make([][]uint32, len(ids))
			if err := pr.Read(d, ids, pos); err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				if int(tf[i]) != len(want[id]) || !slices.Equal(pos[i], want[id]) {
					t.Fatalf("%s term %d: tf %d positions %v, want %v", s.DocKey(d), id, tf[i], pos[i], want[id])
				}
			}
			// The same lists undecoded: their lengths, a walk with Next,
			// and a Seek to a random position then Next.
			lists := make([]segment.PosList, len(ids))
			if err := pr.ReadLists(d, ids, lists); err != nil {
				t.Fatal(err)
			}
			for i, id := range ids {
				w := want[id]
				if lists[i].Len() != len(w) {
					t.Fatalf("%s term %d: list of %d positions, want %d", s.DocKey(d), id, lists[i].Len(), len(w))
				}
				var walked []uint32
				for it := lists[i].Iter(); ; {
					p, ok := it.Next()
					if !ok {
						break
					}
					walked = append(walked, p)
				}
				if !slices.Equal(walked, w) {
					t.Fatalf("%s term %d: iterated %v, want %v", s.DocKey(d), id, walked, w)
				}
				if len(w) == 0 {
					continue
				}
				target := uint32(r.IntN(int(w[len(w)-1]) + 2))
				k, _ := slices.BinarySearch(w, target)
				it := lists[i].Iter()
				p, ok := it.Seek(target)
				if ok != (k < len(w)) || ok && p != w[k] {
					t.Fatalf("%s term %d: Seek(%d) = %d, %v in %v", s.DocKey(d), id, target, p, ok, w)
				}
				if p, ok = it.Next(); ok != (k+1 < len(w)) || ok && p != w[k+1] {
					t.Fatalf("%s term %d: Next after Seek(%d) = %d, %v in %v", s.DocKey(d), id, target, p, ok, w)
				}
			}
			if err := pr.ReadMarks(d); err != nil {
				t.Fatal(err)
			}
			if pr.Marks() != (len(toks)+segment.MarkStride-1)/segment.MarkStride {
				t.Fatalf("%s: %d marks for %d tokens", s.DocKey(d), pr.Marks(), len(toks))
			}
			for c := 0; c < pr.Marks(); c++ {
				if off, p := pr.Mark(c); off != toks[c*segment.MarkStride].Start || p != toks[c*segment.MarkStride].Pos {
					t.Fatalf("%s: mark %d at %d (position %d), want %d (%d)", s.DocKey(d), c, off, p, toks[c*segment.MarkStride].Start, toks[c*segment.MarkStride].Pos)
				}
			}
		}
		pop, err := s.RebuildRows()
		if err != nil {
			t.Fatal(err)
		}
		for row, n := range pop {
			if int(n) != s.RowCount(row) {
				t.Fatalf("%s: rebuilt row %d has %d bits, the segment's %d", s.Name(), row, n, s.RowCount(row))
			}
		}
	}
	if skipped < 50 {
		t.Fatalf("only %d documents have skips", skipped)
	}
	rep, err := Check(dir)
	if err != nil || len(rep.Problems) > 0 {
		t.Fatal(err, rep.Problems)
	}
}

// TestLongTextsSpanBlocks: a text longer than a store block fills blocks of
// its own; it reads back whole, a range of it reads back from the blocks it
// lies in, the newlines before any of its bytes are counted right (from the
// block table at block boundaries), and the documents around it are
// undisturbed.
func TestLongTextsSpanBlocks(t *testing.T) {
	dir := t.TempDir()
	// 440,000 bytes, newlines only in the second half and unevenly there.
	long := []byte(strings.Repeat("abcdefghij klmnopqrst ", 10000) + strings.Repeat("abcdefghij\nklmnopqrst\n\n ", 9200)[:220000])
	docs := []Document{
		{Key: "a", Text: []byte("small\nbefore")},
		{Key: "b", Text: long},
		{Key: "c", Text: []byte("small after")},
	}
	buildIndex(t, dir, docs, WriterOptions{})
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, d := range docs {
		ref, _ := ix.Find(d.Key)
		seg := ix.Segments()[ref.Seg]
		got, err := seg.Text(nil, ref.Doc)
		if err != nil || !bytes.Equal(got, d.Text) {
			t.Fatalf("%s: %d bytes back (%v), want %d", d.Key, len(got), err, len(d.Text))
		}
	}
	ref, _ := ix.Find("b")
	seg := ix.Segments()[ref.Seg]
	for _, r := range [][2]int{{0, 10}, {65530, 65540}, {200000, 200100}, {len(long) - 5, len(long)}} {
		err := seg.WithTextRange(ref.Doc, r[0], r[1], func(text []byte, at int) error {
			if at > r[0] || at+len(text) < r[1] || len(text) > 2*segment.StoreBlockSize {
				t.Fatalf("range %v: bytes %d..%d", r, at, at+len(text))
			}
			if !bytes.Equal(text[r[0]-at:r[1]-at], long[r[0]:r[1]]) {
				t.Fatalf("range %v differs", r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	bs := segment.StoreBlockSize
	for _, at := range []int{0, 1, 5, bs - 1, bs, bs + 1, 2 * bs, 53 * bs, 54*bs - 3, 54 * bs, 54*bs + 7, 100 * bs, len(long) - 1, len(long), len(long) + 5} {
		got, err := seg.NewlinesBefore(ref.Doc, at)
		if want := bytes.Count(long[:min(at, len(long))], []byte{'\n'}); err != nil || got != want {
			t.Errorf("newlines before byte %d: %d (%v), want %d", at, got, err, want)
		}
	}
	refA, _ := ix.Find("a")
	if got, err := ix.Segments()[refA.Seg].NewlinesBefore(refA.Doc, 8); got != 1 || err != nil {
		t.Errorf("newlines before byte 8 of a short text: %d (%v), want 1", got, err)
	}
	rep, err := Check(dir)
	if err != nil || len(rep.Problems) > 0 {
		t.Fatal(err, rep.Problems)
	}
}
