package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bitsieve/bitsieve/index"
)

// write creates the files of tree (path → content) under dir.
func write(t *testing.T, dir string, tree map[string]string) {
	t.Helper()
	for p, text := range tree {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// update runs r into the index in dir (created when fresh) and commits.
func update(t *testing.T, dir string, r Run) index.WriteStats {
	t.Helper()
	var w *index.Writer
	var err error
	if r.Fresh {
		w, err = index.Create(dir, index.WriterOptions{})
	} else {
		w, err = index.OpenWriter(dir, index.WriterOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Into(w); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	ws, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// keys lists the live keys of the index in dir.
func keys(t *testing.T, dir string) []string {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var out []string
	for _, s := range ix.Segments() {
		for d := range s.NumDocs() {
			if s.IsLive(d) {
				out = append(out, s.DocKey(d))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestScopes: an update of one source deletes that source's vanished
// documents only; Only narrows it to paths under the source; Prune
// deletes every document the run did not see.
func TestScopes(t *testing.T) {
	root, ix := t.TempDir(), t.TempDir()
	notes, papers := filepath.Join(root, "notes"), filepath.Join(root, "papers")
	write(t, notes, map[string]string{"a.txt": "alpha", "sub/b.txt": "beta", "sub/c.txt": "gamma"})
	write(t, papers, map[string]string{"p.txt": "paper one"})
	jsonl := filepath.Join(root, "docs.jsonl")
	write(t, root, map[string]string{"docs.jsonl": `{"id":"j1","body":"json one"}` + "\n"})

	ws := update(t, ix, Run{Paths: []string{notes, papers, jsonl}, Fresh: true})
	want := []string{"j1", "notes/a.txt", "notes/sub/b.txt", "notes/sub/c.txt", "papers/p.txt"}
	if got := keys(t, ix); !slices.Equal(got, want) || ws.Added != 5 {
		t.Fatalf("first run: %v (added %d), want %v", got, ws.Added, want)
	}

	// Unchanged files are kept, not replaced; a vanished one of the
	// source updated is deleted; the other sources are left alone.
	os.Remove(filepath.Join(notes, "sub/c.txt"))
	os.Remove(filepath.Join(papers, "p.txt"))
	ws = update(t, ix, Run{Paths: []string{notes}})
	want = []string{"j1", "notes/a.txt", "notes/sub/b.txt", "papers/p.txt"}
	if got := keys(t, ix); !slices.Equal(got, want) || ws.Unchanged != 2 || ws.Deleted != 1 || ws.Added != 0 {
		t.Fatalf("notes updated: %v (%+v), want %v", got, ws, want)
	}

	// Only: just the paths given are read, and only their vanished
	// documents go.
	os.Remove(filepath.Join(notes, "a.txt"))
	os.Remove(filepath.Join(notes, "sub/b.txt"))
	update(t, ix, Run{Paths: []string{notes}, Only: []string{"sub"}})
	want = []string{"j1", "notes/a.txt", "papers/p.txt"}
	if got := keys(t, ix); !slices.Equal(got, want) {
		t.Fatalf("notes/sub updated: %v, want %v", got, want)
	}

	// Prune: the index holds exactly what the run saw.
	update(t, ix, Run{Paths: []string{jsonl}, Prune: true})
	if got := keys(t, ix); !slices.Equal(got, []string{"j1"}) {
		t.Fatalf("pruned: %v", got)
	}
}

// TestUnreadableKept: a file that cannot be read is skipped, and its
// document stays as it was: it is not known to be gone.
func TestUnreadableKept(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	root, ix := t.TempDir(), t.TempDir()
	notes := filepath.Join(root, "notes")
	write(t, notes, map[string]string{"a.txt": "alpha", "b.txt": "beta"})
	update(t, ix, Run{Paths: []string{notes}, Fresh: true})
	if err := os.Chmod(filepath.Join(notes, "b.txt"), 0); err != nil {
		t.Fatal(err)
	}
	update(t, ix, Run{Paths: []string{notes}})
	if got := keys(t, ix); !slices.Equal(got, []string{"notes/a.txt", "notes/b.txt"}) {
		t.Fatalf("after an unreadable file: %v", got)
	}
}

// TestDuplicateKeys: a key met on an earlier source is skipped and
// counted, not indexed twice.
func TestDuplicateKeys(t *testing.T) {
	root, ix := t.TempDir(), t.TempDir()
	write(t, root, map[string]string{"x.jsonl": `{"id":"k","body":"one"}` + "\n", "y.jsonl": `{"id":"k","body":"two"}` + "\n"})
	w, err := index.Create(ix, index.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := Run{Paths: []string{filepath.Join(root, "x.jsonl"), filepath.Join(root, "y.jsonl")}, Fresh: true}.Into(w)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if st.Docs != 1 || st.Counts["duplicate-id"] != 1 {
		t.Fatalf("stats %+v", st)
	}
}
