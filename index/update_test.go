package index

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// liveDocs reads every live document of the index in dir: key → text.
func liveDocs(t testing.TB, dir string) map[string]string {
	t.Helper()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	return snapshotDocs(t, ix)
}

func snapshotDocs(t testing.TB, ix *Index) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range ix.Segments() {
		for d := 0; d < s.NumDocs(); d++ {
			if !s.IsLive(d) {
				continue
			}
			k := s.DocKey(d)
			if _, dup := out[k]; dup {
				t.Fatalf("key %q is live twice", k)
			}
			text, err := s.Text(nil, d)
			if err != nil {
				t.Fatal(err)
			}
			out[k] = string(text)
		}
	}
	if len(out) != ix.NumDocs() {
		t.Fatalf("NumDocs = %d, %d live documents found", ix.NumDocs(), len(out))
	}
	return out
}

func mustCheck(t testing.TB, dir string) *CheckReport {
	t.Helper()
	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("check: %v", rep.Problems)
	}
	return rep
}

// noCompact is a writer configuration with small segments and no automatic
// compaction, so tests see every segment a commit writes.
var noCompact = WriterOptions{Capacity: 200, Compact: CompactPolicy{Disabled: true}}

func update(t testing.TB, dir string, opt WriterOptions, fn func(w *Writer)) WriteStats {
	t.Helper()
	w, err := OpenWriter(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	fn(w)
	st, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if st.CompactErr != nil {
		t.Fatal(st.CompactErr)
	}
	return st
}

func TestIncrementalUpdate(t *testing.T) {
	dir := t.TempDir()
	docs := testCorpus(1000, 7)
	st := update(t, dir, noCompact, func(w *Writer) {
		for _, d := range docs {
			if err := w.Add(d); err != nil {
				t.Fatal(err)
			}
		}
	})
	if st.Added != 1000 || st.Generation != 1 {
		t.Fatalf("first commit: %+v", st)
	}
	cur := map[string]Document{}
	for _, d := range docs {
		cur[d.Key] = d
	}
	texts := func() map[string]string {
		m := map[string]string{}
		for k, d := range cur {
			m[k] = string(d.Text)
		}
		return m
	}

	extra := testCorpus(1100, 8)[1000:] // keys doc-01000 ... doc-01099: new
	replaced, deleted := 0, 0
	st = update(t, dir, noCompact, func(w *Writer) {
		for i, d := range docs {
			switch {
			case i%20 == 0: // replaced
				d.Text = []byte(string(d.Text) + " changed")
				d.Size = int64(len(d.Text))
				if added, err := w.AddIfChanged(d); err != nil || !added {
					t.Fatalf("changed %s: added %v, %v", d.Key, added, err)
				}
				cur[d.Key] = d
				replaced++
			case i%33 == 1: // deleted
				if err := w.Delete(d.Key); err != nil {
					t.Fatal(err)
				}
				delete(cur, d.Key)
				deleted++
			default: // unchanged
				if added, err := w.AddIfChanged(d); err != nil || added {
					t.Fatalf("unchanged %s: added %v, %v", d.Key, added, err)
				}
			}
		}
		for _, d := range extra {
			if _, err := w.AddIfChanged(d); err != nil {
				t.Fatal(err)
			}
			cur[d.Key] = d
		}
	})
	if st.Replaced != replaced || st.Deleted != deleted || st.Added != 100 || st.Unchanged != 1000-replaced-deleted || st.Generation != 2 {
		t.Errorf("stats %+v", st)
	}
	if st.Tombstones == 0 {
		t.Errorf("no tombstone written")
	}
	if got := liveDocs(t, dir); !maps.Equal(got, texts()) {
		t.Fatalf("index holds %d documents, want %d", len(got), len(cur))
	}
	rep := mustCheck(t, dir)
	if rep.Docs != len(cur) || rep.Deleted != replaced+deleted {
		t.Errorf("check: %d live, %d deleted", rep.Docs, rep.Deleted)
	}

	// Nothing to do: no new generation, no new file.
	before, _ := os.ReadDir(dir)
	st = update(t, dir, noCompact, func(w *Writer) {
		for _, d := range cur {
			if added, _ := w.AddIfChanged(d); added {
				t.Errorf("%s is unchanged", d.Key)
			}
		}
	})
	after, _ := os.ReadDir(dir)
	if st.Generation != 2 || st.Docs != 0 || st.Unchanged != len(cur) || len(before) != len(after) {
		t.Errorf("idle commit: %+v, %d files before, %d after", st, len(before), len(after))
	}

	// DeleteUnseen removes what a run did not see, within its scope.
	update(t, dir, noCompact, func(w *Writer) {
		for k, d := range cur {
			if strings.HasSuffix(k, "1") {
				w.AddIfChanged(d)
			}
		}
		n, err := w.DeleteUnseen(func(k string, _ uint32) bool { return !strings.HasSuffix(k, "2") })
		if err != nil || n == 0 {
			t.Fatalf("DeleteUnseen: %d, %v", n, err)
		}
	})
	maps.DeleteFunc(cur, func(k string, _ Document) bool { return !strings.HasSuffix(k, "1") && !strings.HasSuffix(k, "2") })
	if got := liveDocs(t, dir); !maps.Equal(got, texts()) {
		t.Fatalf("after DeleteUnseen: %d documents, want %d", len(got), len(cur))
	}
	mustCheck(t, dir)
}

// TestSessionOrder checks that calls on one writer apply in call order,
// including replacing or deleting a document whose segment is already
// sealed.
func TestSessionOrder(t *testing.T) {
	dir := t.TempDir()
	opt := WriterOptions{Capacity: 10, Compact: CompactPolicy{Disabled: true}, Workers: 3}
	mk := func(key, text string) Document {
		return Document{Key: key, Text: []byte(text), Size: int64(len(text))}
	}
	update(t, dir, opt, func(w *Writer) {
		w.Add(mk("base-a", "alpha"))
		w.Add(mk("base-b", "beta"))
	})
	want := map[string]string{"base-a": "alpha"}
	update(t, dir, opt, func(w *Writer) {
		w.Add(mk("x", "first version"))
		for i := 0; i < 50; i++ { // seals x's segment
			w.Add(mk(fmt.Sprintf("fill-%02d", i), "filler words"))
			want[fmt.Sprintf("fill-%02d", i)] = "filler words"
		}
		w.Add(mk("x", "second version"))
		w.Add(mk("y", "gone soon"))
		if err := w.Delete("y"); err != nil {
			t.Fatal(err)
		}
		if err := w.Delete("y"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		if err := w.Delete("never"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("delete of unknown key: %v", err)
		}
		w.Add(mk("fill-07", "replaced filler"))
		if err := w.Delete("base-b"); err != nil {
			t.Fatal(err)
		}
		w.Add(mk("base-b", "beta again"))
		w.Delete("fill-09")
		if !w.Contains("x") || w.Contains("y") || w.Contains("fill-09") || !w.Contains("base-a") {
			t.Error("Contains disagrees with the calls made")
		}
	})
	want["x"] = "second version"
	want["fill-07"] = "replaced filler"
	want["base-b"] = "beta again"
	delete(want, "fill-09")
	if got := liveDocs(t, dir); !maps.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	mustCheck(t, dir)
}

func TestOpenWriterAnalyzer(t *testing.T) {
	dir := t.TempDir()
	update(t, dir, WriterOptions{Analyzer: "french"}, func(w *Writer) {
		w.Add(Document{Key: "a", Text: []byte("les chats")})
	})
	if _, err := OpenWriter(dir, WriterOptions{Analyzer: "english"}); err == nil || !strings.Contains(err.Error(), `"french" analyzer`) {
		t.Fatalf("different analyzer: %v", err)
	}
	w, err := OpenWriter(dir, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.opt.Analyzer != "french" {
		t.Errorf("analyzer %q, want the index's", w.opt.Analyzer)
	}
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = 50 * time.Millisecond
	if _, err := OpenWriter(dir, WriterOptions{}); !errors.Is(err, ErrLocked) {
		t.Errorf("second writer: %v", err)
	}
	w.Abort()
}

// TestLiveStatistics checks that BM25's inputs count live documents only:
// an index with deletions agrees with a rebuild of its live documents.
func TestLiveStatistics(t *testing.T) {
	docs := testCorpus(600, 9)
	dir := t.TempDir()
	buildIndex(t, dir, docs, noCompact)
	var live []Document
	update(t, dir, noCompact, func(w *Writer) {
		for i, d := range docs {
			if i%3 == 0 {
				w.Delete(d.Key)
			} else {
				live = append(live, d)
			}
		}
	})
	fresh := t.TempDir()
	buildIndex(t, fresh, live, noCompact)
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.NumDocs() != b.NumDocs() || math.Abs(a.AvgDocLen()-b.AvgDocLen()) > 1e-9 {
		t.Fatalf("docs %d/%d, avgdl %v/%v", a.NumDocs(), b.NumDocs(), a.AvgDocLen(), b.AvgDocLen())
	}
	df := func(ix *Index) map[string]int {
		m := map[string]int{}
		for _, s := range ix.Segments() {
			s.Terms(func(term string, id segment.TermID) bool {
				m[term] += s.LiveDF(id)
				return true
			})
		}
		maps.DeleteFunc(m, func(_ string, n int) bool { return n == 0 })
		return m
	}
	if !maps.Equal(df(a), df(b)) {
		t.Fatal("live df differs from a rebuild's df")
	}
}

func TestCompaction(t *testing.T) {
	dir := t.TempDir()
	opt := WriterOptions{Capacity: 400}
	docs := testCorpus(1200, 11)
	want := map[string]string{}
	// Many small commits, with replacements and deletions among them.
	for c := 0; c < 30; c++ {
		st := update(t, dir, opt, func(w *Writer) {
			for _, d := range docs[c*40 : c*40+40] {
				w.Add(d)
				want[d.Key] = string(d.Text)
			}
			if c > 0 {
				k := docs[(c-1)*40].Key
				w.Delete(k)
				delete(want, k)
				r := docs[c*7]
				r.Text = []byte(fmt.Sprintf("%s revision %d", r.Text, c))
				w.Add(r)
				want[r.Key] = string(r.Text)
			}
		})
		ix, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		// Segments merge within a band of length classes, so each band
		// may hold its own small segments.
		small, bands := 0, map[int]bool{}
		for _, s := range ix.Segments() {
			bands[classBand(s.LengthClass())] = true
			if s.NumDocs() < 200 {
				small++
			}
			if float64(s.NumDeleted()) > 0.25*float64(s.NumDocs()) {
				t.Errorf("commit %d: %s has %d of %d documents deleted", c, s.Name(), s.NumDeleted(), s.NumDocs())
			}
		}
		ix.Close()
		if small > 2*8*len(bands) {
			t.Errorf("commit %d: %d small segments (compaction %+v)", c, small, st.Compaction)
		}
	}
	if got := liveDocs(t, dir); !maps.Equal(got, want) {
		t.Fatalf("after automatic compaction: %d documents, want %d", len(got), len(want))
	}
	mustCheck(t, dir)

	// A reader keeps its snapshot while Compact replaces its files.
	old, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	st, err := Compact(dir, CompactOptions{Capacity: 400, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Merges != 1 || st.Docs != len(want) {
		t.Errorf("compact: %+v", st)
	}
	rep := mustCheck(t, dir)
	// 1,200 documents fill three segments of 400; each band adds at most
	// one that is not full.
	after, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	bands := map[int]int{}
	for _, s := range after.Segments() {
		bands[classBand(s.LengthClass())]++
	}
	after.Close()
	if rep.Deleted != 0 || rep.Segments > 3+len(bands) {
		t.Errorf("after Compact(All): %d segments, %d deleted documents", rep.Segments, rep.Deleted)
	}
	if got := liveDocs(t, dir); !maps.Equal(got, want) {
		t.Fatal("Compact changed the documents")
	}
	if got := snapshotDocs(t, old); !maps.Equal(got, want) {
		t.Fatal("the old snapshot changed")
	}
	for _, s := range old.Segments() {
		if _, err := os.Stat(filepath.Join(dir, s.Name())); err == nil {
			continue
		}
		return // files were removed, and the snapshot still read them
	}
	t.Error("Compact(All) removed no file")
}

// TestMergeIsRebuild checks that a merged segment is the segment a writer
// builds from the same documents: merging from the forward index loses
// nothing.
func TestMergeIsRebuild(t *testing.T) {
	docs := testCorpus(300, 12)
	a := t.TempDir()
	for i := 0; i < 3; i++ {
		update(t, a, noCompact, func(w *Writer) {
			for _, d := range docs[i*100 : i*100+100] {
				w.Add(d)
			}
		})
	}
	if _, err := Compact(a, CompactOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	b := t.TempDir()
	buildIndex(t, b, docs, WriterOptions{})
	files := func(dir string) [][]byte {
		m, err := readManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, s := range m.Segments {
			data, err := os.ReadFile(filepath.Join(dir, s.File))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, data)
		}
		return out
	}
	fa, fb := files(a), files(b)
	if len(fa) != len(fb) {
		t.Fatalf("%d segments after merge, %d in a rebuild", len(fa), len(fb))
	}
	for i := range fa {
		if !slices.Equal(fa[i], fb[i]) {
			t.Errorf("segment %d differs from the rebuild's", i)
		}
	}
}

// TestMemoryBudget: a writer whose memory budget is small seals segments
// before they are full instead of holding every class's documents, and
// the index it commits holds the same documents, sound.
func TestMemoryBudget(t *testing.T) {
	docs := testCorpus(500, 11)
	full, small := t.TempDir(), t.TempDir()
	buildIndex(t, full, docs, WriterOptions{})
	buildIndex(t, small, docs, WriterOptions{MemoryBudget: 256 << 10})
	mf, err := readManifest(full)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := readManifest(small)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.Segments) <= len(mf.Segments) {
		t.Fatalf("a 256 KiB budget made %d segments, the default %d: nothing was sealed early", len(ms.Segments), len(mf.Segments))
	}
	if a, b := liveKeys(t, full), liveKeys(t, small); !slices.Equal(a, b) {
		t.Fatalf("%d documents with a small budget, %d without", len(b), len(a))
	}
	checkSound(t, small)
}

// TestMemoryBudgetHeld: the documents a writer holds, buffered or being
// sealed into segments, never exceed its memory budget by more than the
// document that crossed it, however many segments are sealed at once.
func TestMemoryBudgetHeld(t *testing.T) {
	docs := testCorpus(1000, 12)
	const budget = 128 << 10
	w, st := buildWriter(t, t.TempDir(), docs, WriterOptions{MemoryBudget: budget, Workers: 4})
	// An upper bound of the largest footprint: positions take less than
	// three bytes per byte of text.
	var largest int64
	a := tokenize.MustNew("")
	for _, d := range docs {
		terms := map[string]bool{}
		for _, term := range a.Terms(nil, d.Text) {
			terms[term] = true
		}
		ad := analyzedDoc{Doc: segment.Doc{Key: d.Key, Title: d.Title, Text: d.Text, Terms: make([]segment.TermFreq, len(terms)), Pos: make([]byte, 3*len(d.Text))}}
		largest = max(largest, ad.footprint())
	}
	if st.Segments < 10 {
		t.Fatalf("%d segments: the budget was not reached often enough to test it", st.Segments)
	}
	if w.peakHeld > budget+largest {
		t.Errorf("the writer held %d bytes of documents at once, more than its budget %d and one document (%d)", w.peakHeld, budget, largest)
	}
	t.Logf("%d segments; held at most %d bytes (budget %d)", st.Segments, w.peakHeld, budget)
}

// TestSourceTags checks that a document's source tag is written, survives
// compaction, scopes DeleteUnseen, and that a change of source alone
// replaces a document.
func TestSourceTags(t *testing.T) {
	dir := t.TempDir()
	sources := func() map[string]uint32 {
		ix, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		out := map[string]uint32{}
		for _, s := range ix.Segments() {
			for d := 0; d < s.NumDocs(); d++ {
				if s.IsLive(d) {
					out[s.DocKey(d)] = s.DocSource(d)
					if s.Doc(d).Source != s.DocSource(d) {
						t.Fatalf("Doc(%d).Source %d, DocSource %d", d, s.Doc(d).Source, s.DocSource(d))
					}
				}
			}
		}
		return out
	}
	a, b := SourceTag("a"), SourceTag("b")
	if SourceTag("") != 0 || a == 0 || a == b {
		t.Fatalf("tags: %d %d %d", SourceTag(""), a, b)
	}
	for c := 0; c < 3; c++ {
		update(t, dir, WriterOptions{Compact: CompactPolicy{Disabled: true}}, func(w *Writer) {
			w.Add(Document{Key: fmt.Sprintf("a%d", c), Text: []byte("words"), Source: "a"})
			w.Add(Document{Key: fmt.Sprintf("b%d", c), Text: []byte("words"), Source: "b"})
			w.Add(Document{Key: fmt.Sprintf("n%d", c), Text: []byte("words")})
		})
	}
	if _, err := Compact(dir, CompactOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	want := map[string]uint32{"a0": a, "a1": a, "a2": a, "b0": b, "b1": b, "b2": b, "n0": 0, "n1": 0, "n2": 0}
	if got := sources(); !maps.Equal(got, want) {
		t.Fatalf("after compaction: %v, want %v", got, want)
	}
	st := update(t, dir, WriterOptions{}, func(w *Writer) {
		if added, err := w.AddIfChanged(Document{Key: "a0", Text: []byte("words"), Source: "a"}); added || err != nil {
			t.Fatalf("the same document: added %v, %v", added, err)
		}
		if added, err := w.AddIfChanged(Document{Key: "a1", Text: []byte("words"), Source: "b"}); !added || err != nil {
			t.Fatalf("a new source: added %v, %v", added, err)
		}
		n, err := w.DeleteUnseen(func(_ string, src uint32) bool { return src == a })
		if n != 1 || err != nil {
			t.Fatalf("DeleteUnseen of source a: %d, %v", n, err)
		}
	})
	if st.Replaced != 1 || st.Deleted != 1 {
		t.Fatalf("stats: %+v", st)
	}
	delete(want, "a2")
	want["a1"] = b
	if got := sources(); !maps.Equal(got, want) {
		t.Fatalf("after the update: %v, want %v", got, want)
	}
}

// TestIsCurrent: a snapshot is current until a commit, and a MANIFEST
// rewritten with other content (even the same generation) is not its own.
func TestIsCurrent(t *testing.T) {
	dir := t.TempDir()
	add := func(docs []Document) {
		update(t, dir, noCompact, func(w *Writer) {
			for _, d := range docs {
				if err := w.Add(d); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	add(testCorpus(50, 3))
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !ix.IsCurrent() {
		t.Fatal("a fresh snapshot is not current")
	}
	manifest, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	add([]Document{{Key: "new", Text: []byte("one more document")}})
	if ix.IsCurrent() {
		t.Fatal("a snapshot is still current after a commit")
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestName), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	if !ix.IsCurrent() {
		t.Fatal("the snapshot's own MANIFEST, restored, is not current")
	}
	manifest[len(manifest)/2] ^= 1
	if err := os.WriteFile(filepath.Join(dir, ManifestName), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	if ix.IsCurrent() {
		t.Fatal("a damaged MANIFEST is current")
	}
}
