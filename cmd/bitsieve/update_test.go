package main

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/index"
)

// indexedTexts returns key → stored text of every live document.
func indexedTexts(t *testing.T, dir string) map[string]string {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	out := map[string]string{}
	for _, s := range ix.Segments() {
		for d := 0; d < s.NumDocs(); d++ {
			if s.IsLive(d) {
				text, err := s.Text(nil, d)
				if err != nil {
					t.Fatal(err)
				}
				out[s.DocKey(d)] = string(text)
			}
		}
	}
	return out
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("%s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// keyed returns the texts of files by the keys that a directory named root
// gives them.
func keyed(root string, files map[string]string) map[string]string {
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[root+"/"+k] = v
	}
	return out
}

func TestIndexIncremental(t *testing.T) {
	isolate(t)
	src, ix := filepath.Join(t.TempDir(), "src"), filepath.Join(t.TempDir(), "ix")
	files := map[string]string{
		"keep.txt":     "unchanged words",
		"change.txt":   "old words",
		"touch.txt":    "same words, new time",
		"gone.txt":     "deleted soon",
		"dir/deep.txt": "deep words",
		"dir/gone.md":  "deleted with its directory",
	}
	writeFiles(t, src, files)
	out := mustRun(t, "index", "--index", ix, src)
	if !strings.Contains(out, "added 6, replaced 0, deleted 0, unchanged 0") {
		t.Fatalf("first run:\n%s", out)
	}
	gen := func() uint64 {
		m, err := index.Open(ix)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		return m.Generation()
	}
	g1 := gen()

	// Nothing changed: nothing is written.
	out = mustRun(t, "index", "--index", ix, src)
	if !strings.Contains(out, "added 0, replaced 0, deleted 0, unchanged 6") || gen() != g1 {
		t.Fatalf("idle run (generation %d → %d):\n%s", g1, gen(), out)
	}

	writeFiles(t, src, map[string]string{"change.txt": "new words, longer", "new.txt": "fresh words"})
	later := time.Now().Add(time.Minute)
	os.Chtimes(filepath.Join(src, "touch.txt"), later, later)
	os.Remove(filepath.Join(src, "gone.txt"))
	os.RemoveAll(filepath.Join(src, "dir"))
	writeFiles(t, src, map[string]string{"dir/deep.txt": "deep words"}) // the same file again, new mtime
	os.Chtimes(filepath.Join(src, "dir/deep.txt"), later, later)
	out = mustRun(t, "index", "--index", ix, src)
	if !strings.Contains(out, "added 1, replaced 3, deleted 2, unchanged 1") {
		t.Fatalf("update:\n%s", out)
	}
	want := keyed("src", map[string]string{
		"keep.txt": "unchanged words", "change.txt": "new words, longer", "touch.txt": "same words, new time",
		"dir/deep.txt": "deep words", "new.txt": "fresh words",
	})
	if got := indexedTexts(t, ix); !maps.Equal(got, want) {
		t.Fatalf("index holds %v", got)
	}
	if code, out, _ := runCLI(t, "search", "--index", ix, "--count", "words"); code != exitOK || strings.TrimSpace(out) != "5" {
		t.Fatalf("search words: %d %q", code, out)
	}
	mustRun(t, "check", "--index", ix)

	// A rebuild gives the same documents.
	out = mustRun(t, "index", "--rebuild", "--index", ix, src)
	if !strings.Contains(out, "indexed 5 documents") {
		t.Fatalf("rebuild:\n%s", out)
	}
	if got := indexedTexts(t, ix); !maps.Equal(got, want) {
		t.Fatalf("rebuilt index holds %v", got)
	}
	out = mustRun(t, "compact", "--index", ix)
	if !strings.Contains(out, "nothing to compact") {
		t.Errorf("compact after rebuild:\n%s", out)
	}

	// A different analyzer needs a rebuild.
	if code, _, errs := runCLI(t, "index", "--index", ix, "--lang", "french", src); code != exitError || !strings.Contains(errs, "rebuild") {
		t.Errorf("--lang french on an english index: exit %d, %q", code, errs)
	}
}

func TestIndexJSONLIncremental(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	data := filepath.Join(dir, "docs.jsonl")
	os.WriteFile(data, []byte(`{"id": "a", "title": "A", "body": "apple"}
{"id": "b", "body": "banana"}
{"id": "c", "body": "cherry"}
`), 0o644)
	mustRun(t, "index", "--index", ix, data)
	os.WriteFile(data, []byte(`{"id": "c", "body": "cherry"}
{"id": "a", "title": "A", "body": "apple pie"}
{"id": "d", "body": "date"}
`), 0o644)
	out := mustRun(t, "index", "--index", ix, data)
	if !strings.Contains(out, "added 1, replaced 1, deleted 1, unchanged 1") {
		t.Fatalf("JSONL update:\n%s", out)
	}
	got := indexedTexts(t, ix)
	want := map[string]string{"a": "A\napple pie", "c": "\ncherry", "d": "\ndate"}
	if !maps.Equal(got, want) {
		t.Fatalf("index holds %q", got)
	}
}

// TestIndexInsideSource: an index kept in the directory it indexes is not
// indexed itself.
func TestIndexInsideSource(t *testing.T) {
	isolate(t)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "words"})
	ix := filepath.Join(src, "my index")
	mustRun(t, "index", "--index", ix, src)
	mustRun(t, "index", "--index", ix, src)
	if got := indexedTexts(t, ix); len(got) != 1 {
		t.Fatalf("index holds %v", slices.Collect(maps.Keys(got)))
	}
}

// TestWatch runs the follower against a live directory: every kind of
// change reaches the index within a few debounce periods.
func TestWatch(t *testing.T) {
	isolate(t)
	src, ix := filepath.Join(t.TempDir(), "src"), filepath.Join(t.TempDir(), "ix")
	writeFiles(t, src, map[string]string{"a.txt": "alpha", "sub/b.txt": "beta", "sub/c.txt": "gamma"})
	var out, log strings.Builder
	f := &follower{job: &indexJob{dir: ix, paths: []string{src}}, out: &out, log: &log,
		quiet: 50 * time.Millisecond, maxWait: 500 * time.Millisecond}
	if _, err := f.start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- f.loop(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	expect := func(step string, want map[string]string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := indexedTexts(t, ix)
			if maps.Equal(got, keyed("src", want)) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: index holds %v, want %v\nlog: %s", step, got, want, log.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	want := map[string]string{"a.txt": "alpha", "sub/b.txt": "beta", "sub/c.txt": "gamma"}
	expect("start", want)

	writeFiles(t, src, map[string]string{"a.txt": "alpha two", "d.txt": "delta"})
	want["a.txt"], want["d.txt"] = "alpha two", "delta"
	expect("write and create", want)

	os.Remove(filepath.Join(src, "sub/c.txt"))
	delete(want, "sub/c.txt")
	expect("remove", want)

	writeFiles(t, src, map[string]string{"new/deep/e.txt": "epsilon"})
	want["new/deep/e.txt"] = "epsilon"
	expect("new directories", want)
	writeFiles(t, src, map[string]string{"new/deep/f.txt": "phi"}) // watched now
	want["new/deep/f.txt"] = "phi"
	expect("file in a new directory", want)

	if err := os.Rename(filepath.Join(src, "sub"), filepath.Join(src, "moved")); err != nil {
		t.Fatal(err)
	}
	delete(want, "sub/b.txt")
	want["moved/b.txt"] = "beta"
	expect("directory renamed", want)

	os.WriteFile(filepath.Join(src, "bin.dat"), []byte("\x00binary"), 0o644)
	os.WriteFile(filepath.Join(src, ".hidden"), []byte("hidden"), 0o644)
	os.RemoveAll(filepath.Join(src, "new"))
	delete(want, "new/deep/e.txt")
	delete(want, "new/deep/f.txt")
	expect("directory removed, skipped files created", want)

	// A .gitignore that changes drops what it now ignores, and brings back
	// what it no longer ignores.
	writeFiles(t, src, map[string]string{"g/h.txt": "eta"})
	want["g/h.txt"] = "eta"
	expect("file in another new directory", want)
	writeFiles(t, src, map[string]string{"g/.gitignore": "h.txt\n"})
	delete(want, "g/h.txt")
	expect(".gitignore written", want)
	os.Remove(filepath.Join(src, "g", ".gitignore"))
	want["g/h.txt"] = "eta"
	expect(".gitignore removed", want)
	writeFiles(t, src, map[string]string{".gitignore": "*.txt\n!a.txt\n"})
	want = map[string]string{"a.txt": "alpha two"}
	expect(".gitignore at the root", want)
	if strings.Contains(log.String(), "trying again") {
		t.Errorf("an update failed:\n%s", log.String())
	}
}

// TestScopedUpdates indexes two directories and a JSONL file together, adds
// a document through the writer as the write API does, then updates one
// directory alone: only that directory's vanished files are deleted, until
// --prune asks for the index to hold exactly the paths given.
func TestScopedUpdates(t *testing.T) {
	isolate(t)
	base := t.TempDir()
	notes, papers, ix := filepath.Join(base, "notes"), filepath.Join(base, "papers"), filepath.Join(base, "ix")
	writeFiles(t, notes, map[string]string{"a.txt": "alpha notes", "old.txt": "stale notes"})
	writeFiles(t, papers, map[string]string{"a.txt": "alpha papers", "b.txt": "beta papers"})
	dump := filepath.Join(base, "dump.jsonl")
	writeFiles(t, base, map[string]string{"dump.jsonl": `{"id":"j1","title":"J","body":"jsonl words"}` + "\n"})

	out := mustRun(t, "index", "--index", ix, notes, papers, dump)
	if !strings.Contains(out, "added 5, replaced 0, deleted 0") {
		t.Fatalf("first run:\n%s", out)
	}
	w, err := index.OpenWriter(ix, index.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Add(index.Document{Key: "api-note", Text: []byte("posted words")})
	w.Add(index.Document{Key: "notes/posted.txt", Text: []byte("posted under the notes name")})
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}

	os.Remove(filepath.Join(notes, "old.txt"))
	writeFiles(t, notes, map[string]string{"a.txt": "alpha notes, changed"})
	out = mustRun(t, "index", "--index", ix, notes)
	if !strings.Contains(out, "added 0, replaced 1, deleted 1, unchanged 0") {
		t.Fatalf("update of one directory:\n%s", out)
	}
	want := map[string]string{
		"notes/a.txt": "alpha notes, changed", "papers/a.txt": "alpha papers", "papers/b.txt": "beta papers",
		"j1": "J\njsonl words", "api-note": "posted words", "notes/posted.txt": "posted under the notes name",
	}
	if got := indexedTexts(t, ix); !maps.Equal(got, want) {
		t.Fatalf("after updating notes/ the index holds %v", got)
	}

	// A JSONL file's run deletes its own vanished ids, not a directory's.
	writeFiles(t, base, map[string]string{"dump.jsonl": `{"id":"j2","title":"K","body":"other words"}` + "\n"})
	out = mustRun(t, "index", "--index", ix, dump)
	if !strings.Contains(out, "added 1, replaced 0, deleted 1") {
		t.Fatalf("update of the JSONL file:\n%s", out)
	}
	delete(want, "j1")
	want["j2"] = "K\nother words"
	if got := indexedTexts(t, ix); !maps.Equal(got, want) {
		t.Fatalf("after updating dump.jsonl the index holds %v", got)
	}

	// --prune: exactly what the paths hold.
	out = mustRun(t, "index", "--prune", "--index", ix, papers)
	if !strings.Contains(out, "deleted 4, unchanged 2") {
		t.Fatalf("--prune:\n%s", out)
	}
	if got := indexedTexts(t, ix); !maps.Equal(got, keyed("papers", map[string]string{"a.txt": "alpha papers", "b.txt": "beta papers"})) {
		t.Fatalf("after --prune the index holds %v", got)
	}
}
