package index

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCrafted replaces dir's MANIFEST with m, correctly checksummed: a
// MANIFEST that is whole but lies.
func writeCrafted(t *testing.T, dir string, m *Manifest) {
	t.Helper()
	b, err := encodeManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCraftedManifest: a MANIFEST with a valid checksum whose fields disagree
// with the files is refused by Open and reported by Check, naming the
// MANIFEST and what disagrees; and Open's cleanup does not delete the
// tombstone a lying MANIFEST left out.
func TestCraftedManifest(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(m *Manifest)
	}{
		{"bytes", "the manifest says", func(m *Manifest) { m.Segments[0].Bytes += 64 }},
		{"class", "length class", func(m *Manifest) { m.Segments[0].Class++ }},
		{"analyzer", `made by the "english" analyzer, the manifest says "french"`, func(m *Manifest) { m.Analyzer = "french" }},
		{"docs", "documents, the manifest says", func(m *Manifest) { m.Segments[1].Docs-- }},
		{"deleted count", "deletes", func(m *Manifest) { m.Segments[0].Deleted++ }},
		{"deletes entry removed", "would be lost", func(m *Manifest) { m.Segments[0].Deletes, m.Segments[0].Deleted = "", 0 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, m := corruptFixture(t)
			del := m.Segments[0].Deletes
			c.edit(m)
			writeCrafted(t, dir, m)
			ix, err := Open(dir)
			if err == nil {
				ix.Close()
				t.Fatal("Open accepted a lying MANIFEST")
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), ManifestName) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open: %v, want a damaged MANIFEST saying %q", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, del)); err != nil {
				t.Fatalf("the tombstone %s is gone after Open: %v", del, err)
			}
			rep, err := Check(dir)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range rep.Problems {
				found = found || strings.Contains(p.Error(), c.want)
			}
			if !found {
				t.Fatalf("Check: %v, want a problem saying %q", rep.Problems, c.want)
			}
			if _, err := OpenWriter(dir, WriterOptions{}); err == nil {
				t.Fatal("OpenWriter accepted a lying MANIFEST")
			}
		})
	}
}

// TestMissingManifest: a directory with index files but no MANIFEST is
// damaged, not empty: Open refuses it, and a writer neither builds a fresh
// index there nor deletes the files.
func TestMissingManifest(t *testing.T) {
	dir, m := corruptFixture(t)
	if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "bitsieve recover") {
		t.Fatalf("Open: %v, want a damaged index pointing to recover", err)
	}
	if _, err := OpenWriter(dir, WriterOptions{}); err == nil {
		t.Fatal("OpenWriter started a fresh index over orphaned segments")
	}
	for _, s := range m.Segments {
		if _, err := os.Stat(filepath.Join(dir, s.File)); err != nil {
			t.Fatalf("segment %s is gone: %v", s.File, err)
		}
	}
}

// TestFirstWriterClaimsDirectory: a writer in an empty directory writes an
// empty index's MANIFEST before any segment, so a first run cut short
// leaves an empty index (whose stray files are leftovers), not a directory
// of orphans.
func TestFirstWriterClaimsDirectory(t *testing.T) {
	for _, create := range []bool{false, true} {
		dir := t.TempDir()
		open := OpenWriter
		if create {
			open = Create
		}
		w, err := open(dir, WriterOptions{Capacity: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range testCorpus(25, 3) {
			if err := w.Add(d); err != nil {
				t.Fatal(err)
			}
		}
		// The writer stops here, as if killed: nothing is committed.
		m, err := readManifest(dir)
		if err != nil || m.Generation != 0 || len(m.Segments) != 0 {
			t.Fatalf("create %v: MANIFEST %+v, %v; want an empty index of generation 0", create, m, err)
		}
		w.Abort()
		ix, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if ix.NumDocs() != 0 {
			t.Fatalf("%d documents in an index never committed", ix.NumDocs())
		}
		ix.Close()
	}
}

// TestManifestNotAFile: a MANIFEST that is a directory is damage that Check
// reports (exit 1 in the CLI), not an error that stops it.
func TestManifestNotAFile(t *testing.T) {
	dir := t.TempDir()
	buildIndex(t, dir, testCorpus(20, 1), WriterOptions{})
	path := filepath.Join(dir, ManifestName)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(dir)
	if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error(), "not a regular file") {
		t.Fatalf("Check: %v, %v", rep, err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open: %v", err)
	}
}
