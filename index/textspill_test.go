package index

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// textSpills lists the scratch files of texts in dir.
func textSpills(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.text"+tmpSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTextSpill checks that a writer keeps its buffered documents' texts in
// scratch files, not in its memory budget: long texts of few words fill a
// segment to its capacity where, held in memory, they would have been
// sealed early in pieces; the texts come back whole, also of documents
// replaced while buffered; and no scratch file outlives a commit or an
// abort, or a crash (the next writer removes it).
func TestTextSpill(t *testing.T) {
	dir := t.TempDir()
	// 600 documents of 8 KiB each, of one length class, against a budget of
	// 2 MiB: in memory, texts alone would be 4.7 MiB.
	var docs []Document
	for i := range 600 {
		text := fmt.Sprintf("alpha%d beta gamma delta %s", i%7, strings.Repeat("epsilon ", 1024))
		docs = append(docs, Document{Key: fmt.Sprintf("long-%03d", i), Text: []byte(text), Size: int64(len(text))})
	}
	opt := WriterOptions{Capacity: 1000, MemoryBudget: 2 << 20, Compact: CompactPolicy{Disabled: true}}
	if st := buildIndex(t, dir, docs, opt); st.Segments != 1 {
		t.Errorf("the texts of %d documents of one class made %d segments; spilled, they fit one", len(docs), st.Segments)
	}
	if left := textSpills(t, dir); len(left) > 0 {
		t.Errorf("the commit left scratch files: %v", left)
	}
	want := map[string]string{}
	for _, d := range docs {
		want[d.Key] = string(d.Text)
	}
	if got := liveDocs(t, dir); !maps.Equal(got, want) {
		t.Fatalf("the stored texts differ from the documents added (%d documents, want %d)", len(got), len(want))
	}
	mustCheck(t, dir)

	// Replaced while buffered: the replacement's text is the one kept.
	update(t, dir, opt, func(w *Writer) {
		for _, i := range []int{5, 9} {
			w.Add(Document{Key: docs[i].Key, Text: []byte("first replacement")})
			docs[i].Text = []byte(fmt.Sprintf("zeta eta theta %d", i))
			w.Add(docs[i])
		}
	})
	want[docs[5].Key], want[docs[9].Key] = string(docs[5].Text), string(docs[9].Text)
	if got := liveDocs(t, dir); !maps.Equal(got, want) {
		t.Fatalf("after replacements the stored texts differ from the documents added")
	}
	if left := textSpills(t, dir); len(left) > 0 {
		t.Errorf("the update left scratch files: %v", left)
	}

	// An abort removes the scratch files of the documents it buffered.
	w, err := OpenWriter(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs[:50] {
		if err := w.Add(Document{Key: d.Key + "-new", Text: d.Text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if left := textSpills(t, dir); len(left) > 0 {
		t.Errorf("the abort left scratch files: %v", left)
	}

	// A scratch file a crash left is removed by the next writer.
	stale := filepath.Join(dir, "00000003.text"+tmpSuffix)
	if err := os.WriteFile(stale, []byte("texts of a writer that was killed"), 0o644); err != nil {
		t.Fatal(err)
	}
	update(t, dir, opt, func(w *Writer) { w.Delete(docs[0].Key) })
	if left := textSpills(t, dir); len(left) > 0 {
		t.Errorf("a crash's scratch files outlived the next writer: %v", left)
	}
}
