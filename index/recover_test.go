package index

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// liveKeys lists the live keys of the index in dir, sorted.
func liveKeys(t *testing.T, dir string) []string {
	t.Helper()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var keys []string
	for _, s := range ix.Segments() {
		for d := 0; d < s.NumDocs(); d++ {
			if s.IsLive(d) {
				keys = append(keys, s.DocKey(d))
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// checkSound fails unless Check finds dir sound.
func checkSound(t *testing.T, dir string) {
	t.Helper()
	rep, err := Check(dir)
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("check after recover: %v %v", err, rep.Problems)
	}
}

// TestRecover: an index whose MANIFEST was deleted, or replaced by one that
// lost a tombstone, is recovered from its files with the same live
// documents; a sound index is left alone.
func TestRecover(t *testing.T) {
	t.Run("deleted", func(t *testing.T) {
		dir, _ := corruptFixture(t)
		want := liveKeys(t, dir)
		if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil {
			t.Fatal(err)
		}
		rep, err := Recover(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := liveKeys(t, dir); !slices.Equal(got, want) || rep.Docs != len(want) {
			t.Fatalf("recovered %d live documents (report %d), want %d", len(got), rep.Docs, len(want))
		}
		checkSound(t, dir)
	})
	t.Run("lost tombstone", func(t *testing.T) {
		dir, m := corruptFixture(t)
		want := liveKeys(t, dir)
		m.Segments[0].Deletes, m.Segments[0].Deleted = "", 0
		writeCrafted(t, dir, m)
		if _, err := Recover(dir); err != nil {
			t.Fatal(err)
		}
		if got := liveKeys(t, dir); !slices.Equal(got, want) {
			t.Fatalf("recovered %d live documents, want %d", len(got), len(want))
		}
		checkSound(t, dir)
	})
	t.Run("sound", func(t *testing.T) {
		dir, _ := corruptFixture(t)
		if _, err := Recover(dir); err == nil || !strings.Contains(err.Error(), "nothing to recover") {
			t.Fatalf("Recover of a sound index: %v", err)
		}
	})
	t.Run("torn replacement", func(t *testing.T) {
		// Documents replaced by a later commit, whose tombstone of the old
		// copies is then lost with the MANIFEST: each key must stay live
		// once, in the newer segment.
		dir := t.TempDir()
		docs := testCorpus(120, 5)
		buildIndex(t, dir, docs, WriterOptions{Capacity: 60})
		changed := slices.Clone(docs[:10])
		for i := range changed {
			changed[i].Text = append(slices.Clone(changed[i].Text), " replaced"...)
		}
		update(t, dir, WriterOptions{Capacity: 60, Compact: CompactPolicy{Disabled: true}}, func(w *Writer) {
			for _, d := range changed {
				w.Add(d)
			}
		})
		want := liveKeys(t, dir)
		m, err := readManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range m.Segments {
			if s.Deletes != "" {
				os.Remove(filepath.Join(dir, s.Deletes))
			}
		}
		os.Remove(filepath.Join(dir, ManifestName))
		rep, err := Recover(dir)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Duplicates != len(changed) {
			t.Errorf("%d duplicates resolved, want %d", rep.Duplicates, len(changed))
		}
		if got := liveKeys(t, dir); !slices.Equal(got, want) {
			t.Fatalf("recovered %d live documents, want %d", len(got), len(want))
		}
		checkSound(t, dir)
	})
}
