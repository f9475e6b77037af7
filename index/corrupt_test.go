package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/cespare/xxhash/v2"
)

// region is a byte range of a file with the name a report should use.
type region struct {
	name       string
	start, end int
	section    bool // a checksummed section: a report names it
}

// fileRegions splits a sectioned file of the kind (a tombstone or lexicon;
// "" for a segment) into header, sections, padding, section table and tail.
func fileRegions(t testing.TB, data []byte, kind string) []region {
	t.Helper()
	var secs map[uint32]section
	var err error
	if kind == "" {
		secs, err = segment.Sections("x", data)
	} else {
		secs, err = readSections("x", data, kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []region
	out = append(out, region{name: "header", start: 0, end: headerSize})
	list := slices.Collect(func(yield func(section) bool) {
		for _, s := range secs {
			if !yield(s) {
				return
			}
		}
	})
	slices.SortFunc(list, func(a, b section) int { return int(a.Offset) - int(b.Offset) })
	end := headerSize
	var pad []region
	for _, s := range list {
		if int(s.Offset) > end {
			pad = append(pad, region{name: "padding", start: end, end: int(s.Offset)})
		}
		if s.Length > 0 {
			out = append(out, region{name: s.Name, start: int(s.Offset), end: int(s.Offset + s.Length), section: true})
		}
		end = int(s.Offset + s.Length)
	}
	count := int(binary.LittleEndian.Uint32(data[len(data)-tailSize:]))
	tableStart := len(data) - tailSize - count*tableEntry
	if tableStart > end {
		pad = append(pad, region{name: "padding", start: end, end: tableStart})
	}
	out = append(out, pad...)
	out = append(out, region{name: "table", start: tableStart, end: len(data) - tailSize})
	out = append(out, region{name: "tail", start: len(data) - tailSize, end: len(data)})
	return out
}

// corruptFixture builds an index with several segments and tombstones.
func corruptFixture(t testing.TB) (dir string, m *Manifest) {
	t.Helper()
	dir = t.TempDir()
	docs := testCorpus(300, 21)
	for i := range docs { // short documents keep each Check quick
		if len(docs[i].Text) > 300 {
			docs[i].Text = docs[i].Text[:300]
		}
	}
	buildIndex(t, dir, docs[:200], WriterOptions{Capacity: 100})
	update(t, dir, WriterOptions{Capacity: 100, Compact: CompactPolicy{Disabled: true}}, func(w *Writer) {
		for i := 0; i < 200; i += 13 {
			w.Delete(docs[i].Key)
		}
		for _, d := range docs[200:] {
			w.Add(d)
		}
	})
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Segments) < 2 || m.Segments[0].Deletes == "" {
		t.Fatalf("fixture: %+v", m.Segments)
	}
	return dir, m
}

// damage is one injected fault: the file, what it did, and the bytes.
type damage struct {
	file, what string
	region     region
	data       []byte
}

// TestCorruptionSweep flips many single bytes in every region of every kind
// of file (segment, tombstone, MANIFEST) and truncates each file at many
// lengths. Every fault must be reported by Check naming the file (and the
// section, for a section), and Open must refuse the index with an error —
// except for a fault in the document store, which Open does not read: then
// every stored text must read back exactly or fail with an error.
func TestCorruptionSweep(t *testing.T) {
	flipsPerRegion := 24
	if testing.Short() {
		flipsPerRegion = 4
	}
	dir, m := corruptFixture(t)
	rng := rand.New(rand.NewPCG(5, 5))
	orig := map[string][]byte{}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		orig[name] = b
		return b
	}
	var faults []damage
	flip := func(file string, data []byte, r region) {
		positions := map[int]bool{}
		for len(positions) < min(flipsPerRegion, r.end-r.start) {
			positions[r.start+rng.IntN(r.end-r.start)] = true
		}
		for _, p := range slices.Sorted(func(yield func(int) bool) {
			for p := range positions {
				if !yield(p) {
					return
				}
			}
		}) {
			b := slices.Clone(data)
			b[p] ^= byte(1 << rng.IntN(8))
			faults = append(faults, damage{file, fmt.Sprintf("flip at %d", p), r, b})
		}
	}
	truncate := func(file string, data []byte) {
		n := len(data)
		for _, l := range []int{0, 1, 15, 64, 100, n / 3, n / 2, n - 33, n - 17, n - 16, n - 5, n - 1} {
			if l >= 0 && l < n {
				faults = append(faults, damage{file, fmt.Sprintf("truncated to %d of %d bytes", l, n), region{name: "truncated"}, data[:l]})
			}
		}
	}
	kinds := map[string]int{}
	for _, s := range m.Segments[:2] {
		data := read(s.File)
		for _, r := range fileRegions(t, data, "") {
			flip(s.File, data, r)
		}
		truncate(s.File, data)
		kinds["segment"]++
		if s.Deletes != "" {
			data := read(s.Deletes)
			for _, r := range fileRegions(t, data, tombstoneKind) {
				flip(s.Deletes, data, r)
			}
			truncate(s.Deletes, data)
			kinds["tombstone"]++
		}
	}
	data := read(ManifestName)
	nl := bytes.IndexByte(data, '\n')
	flip(ManifestName, data, region{name: "json", start: 0, end: nl})
	flip(ManifestName, data, region{name: "checksum line", start: nl, end: len(data)})
	truncate(ManifestName, data)
	if kinds["tombstone"] == 0 {
		t.Fatal("no tombstone file in the fixture")
	}

	byRegion := map[string]int{}
	detected := 0
	for _, f := range faults {
		path := filepath.Join(dir, f.file)
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("%s %s (%s)", f.file, f.what, f.region.name)
		ok := true
		rep, err := Check(dir)
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), f.file) {
				t.Errorf("%s: check fails without naming the file: %v", what, err)
				ok = false
			}
		case len(rep.Problems) == 0:
			t.Errorf("%s: check finds nothing", what)
			ok = false
		default:
			named := false
			for _, p := range rep.Problems {
				msg := p.Error()
				if strings.Contains(msg, f.file) && (!f.region.section || strings.Contains(msg, "section "+f.region.name)) {
					named = true
				}
			}
			if !named {
				t.Errorf("%s: check does not name the file and section: %v", what, rep.Problems)
				ok = false
			}
		}
		ix, err := Open(dir)
		if f.region.name == "store" && f.region.section {
			if err != nil {
				t.Errorf("%s: Open: %v (the store is read lazily)", what, err)
				ok = false
			} else {
				ok = ok && storeReadsExactly(t, ix, orig, what)
				ix.Close()
			}
		} else if err == nil {
			ix.Close()
			t.Errorf("%s: Open succeeds", what)
			ok = false
		} else if !errors.Is(err, ErrCorrupt) && !strings.Contains(err.Error(), "format version") {
			t.Errorf("%s: Open: %v, want a damage report", what, err)
			ok = false
		} else if !strings.Contains(err.Error(), f.file) {
			t.Errorf("%s: Open's error does not name the file: %v", what, err)
			ok = false
		}
		if ok {
			detected++
		}
		byRegion[f.region.name]++
		os.WriteFile(path, orig[f.file], 0o644)
	}
	mustCheck(t, dir)
	t.Logf("corruptions injected: %d (%d segment, %d tombstone files and the MANIFEST), detected: %d; by region: %v",
		len(faults), kinds["segment"], kinds["tombstone"], detected, byRegion)
}

// storeReadsExactly reads every stored text of ix: each must be the
// original or a damage report. (A flip that leaves every text intact is
// harmless to a reader, and Check has reported it.) It reports whether every
// read was so.
func storeReadsExactly(t *testing.T, ix *Index, orig map[string][]byte, what string) bool {
	t.Helper()
	for _, s := range ix.Segments() {
		for d := 0; d < s.NumDocs(); d++ {
			text, err := s.Text(nil, d)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("%s: reading a text: %v, want a damage report", what, err)
					return false
				}
				continue
			}
			if info := s.Doc(d); len(text) != info.TextLen || xxhash.Sum64(text) != info.Hash {
				t.Errorf("%s: document %s reads back wrong, without an error", what, info.Key)
				return false
			}
		}
	}
	return true
}

// TestMissingFiles: a file the MANIFEST names is gone.
func TestMissingFiles(t *testing.T) {
	dir, m := corruptFixture(t)
	for _, name := range []string{m.Segments[1].File, m.Segments[0].Deletes} {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		os.Remove(filepath.Join(dir, name))
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Open without %s: %v", name, err)
		}
		rep, err := Check(dir)
		if err != nil || len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0].Error(), name) {
			t.Errorf("Check without %s: %v, %v", name, rep, err)
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	mustCheck(t, dir)
}

// TestOlderFormatRefused: an index written by an older bitsieve (its
// MANIFEST, or a segment file, of the previous format version) is refused
// with the one sentence that tells the user to rebuild, never read.
func TestOlderFormatRefused(t *testing.T) {
	want := fmt.Sprintf("index format version %d is not supported (this bitsieve reads version %d); rebuild the index with bitsieve index --rebuild", formatVersion-1, formatVersion)
	t.Run("manifest", func(t *testing.T) {
		dir := t.TempDir()
		buildIndex(t, dir, testCorpus(50, 1), WriterOptions{})
		m, err := readManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		m.Format = formatVersion - 1
		b, err := encodeManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Open: %v, want %q", err, want)
		}
	})
	t.Run("segment", func(t *testing.T) {
		dir := t.TempDir()
		buildIndex(t, dir, testCorpus(50, 1), WriterOptions{})
		m, err := readManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, m.Segments[0].File)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint32(b[12:], formatVersion-1)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Open: %v, want %q", err, want)
		}
	})
}
