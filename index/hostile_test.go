package index

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// TestManyDistinctTerms indexes a document of 200,000 distinct terms among
// ordinary ones: it gets a length class of its own, every term is found,
// and Check holds.
func TestManyDistinctTerms(t *testing.T) {
	const distinct = 200_000
	var b strings.Builder
	for i := 0; i < distinct; i++ {
		fmt.Fprintf(&b, "t%dx ", i)
	}
	huge := Document{Key: "huge", Text: []byte(b.String())}
	huge.Size = int64(len(huge.Text))
	dir := t.TempDir()
	start := time.Now()
	docs := append(testCorpus(200, 31), huge)
	st := buildIndex(t, dir, docs, WriterOptions{})
	t.Logf("%d documents, %d bytes, in %v", st.Docs, st.Bytes, time.Since(start))
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ref, ok := ix.Find("huge")
	if !ok {
		t.Fatal("huge document not found")
	}
	s := ix.Segments()[ref.Seg]
	if info := s.Doc(ref.Doc); info.Distinct != distinct || s.LengthClass() != segment.LengthClassOf(distinct) {
		t.Errorf("distinct %d, class %d", info.Distinct, s.LengthClass())
	}
	post, err := s.Forward(nil, ref.Doc)
	if err != nil || len(post) != distinct {
		t.Fatalf("forward: %d entries, %v", len(post), err)
	}
	for _, i := range []int{0, 1, 99_999, distinct - 1} {
		if _, ok := s.Lookup(fmt.Sprintf("t%dx", i)); !ok {
			t.Errorf("term t%dx missing", i)
		}
	}
	mustCheck(t, dir)
}

// TestFullDisk makes every write fail once the index has received a given
// number of bytes, as on a full disk, at many points of a rebuild, an
// update and a compaction. Each must fail with ENOSPC, leave no file of its
// own behind, and leave the previous index exactly as it was.
func TestFullDisk(t *testing.T) {
	defer failWritesAfter.Store(-1)
	dir := t.TempDir()
	docs := testCorpus(600, 41)
	opt := WriterOptions{Capacity: 150, Compact: CompactPolicy{Disabled: true}}
	update(t, dir, opt, func(w *Writer) {
		for _, d := range docs[:400] {
			w.Add(d)
		}
	})
	update(t, dir, opt, func(w *Writer) {
		for _, d := range docs[:400] {
			if strings.HasSuffix(d.Key, "3") {
				w.Delete(d.Key)
			}
		}
	})
	want := liveDocs(t, dir)
	files := func() []string {
		ents, _ := os.ReadDir(dir)
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	before := files()
	saved := map[string][]byte{}
	for _, f := range before {
		saved[f], _ = os.ReadFile(dir + "/" + f)
	}
	restore := func() { // a successful operation changed the index: undo it
		for _, f := range files() {
			os.Remove(dir + "/" + f)
		}
		for f, b := range saved {
			os.WriteFile(dir+"/"+f, b, 0o644)
		}
	}
	ops := map[string]func() error{
		"rebuild": func() error {
			w, err := Create(dir, opt)
			if err != nil {
				return err
			}
			for _, d := range docs {
				if err := w.Add(d); err != nil {
					w.Abort()
					return err
				}
			}
			_, err = w.Commit()
			return err
		},
		"update": func() error {
			w, err := OpenWriter(dir, opt)
			if err != nil {
				return err
			}
			for _, d := range docs[380:] {
				if err := w.Add(d); err != nil {
					w.Abort()
					return err
				}
			}
			w.Delete(docs[0].Key)
			w.Delete(docs[1].Key)
			_, err = w.Commit()
			return err
		},
		"compact": func() error {
			_, err := Compact(dir, CompactOptions{Capacity: 150, All: true})
			return err
		},
	}
	failures := 0
	for _, name := range slices.Sorted(maps.Keys(ops)) {
		for _, limit := range []int64{0, 1, 100, 4 << 10, 64 << 10, 200 << 10, 500 << 10, 1 << 20} {
			failWritesAfter.Store(limit)
			err := ops[name]()
			failWritesAfter.Store(-1)
			if err == nil {
				restore() // the operation fit
				continue
			}
			failures++
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("%s with %d bytes free: %v, want ENOSPC", name, limit, err)
			}
			if got := files(); !slices.Equal(got, before) {
				t.Fatalf("%s with %d bytes free left files: %v, before %v", name, limit, got, before)
			}
			if got := liveDocs(t, dir); !maps.Equal(got, want) {
				t.Fatalf("%s with %d bytes free changed the index", name, limit)
			}
		}
	}
	t.Logf("%d operations failed on a full disk, each cleanly", failures)
	if failures < 15 {
		t.Errorf("only %d operations failed: the limits are too high to test anything", failures)
	}
	mustCheck(t, dir)
	// With room again, the same operations succeed.
	for _, name := range []string{"update", "compact"} {
		if err := ops[name](); err != nil {
			t.Fatalf("%s with room: %v", name, err)
		}
	}
	mustCheck(t, dir)
}
