package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from what the current code writes and prints")

// goldenQueries are searched and explained on the golden index.
var goldenQueries = []string{
	"bloom filter",
	`"bit sliced"`,
	"signature OR inverted -lucene",
	"verif*",
	`(rows OR columns) "false positives"`,
}

// TestGolden indexes testdata/golden/corpus.jsonl and compares every file of
// the index, byte for byte, with testdata/golden/index, and the JSON that
// search, explain and stats print about it with the .golden files: any
// change to the format or to results shows here. When the change is
// intended, go test ./cmd/bitsieve -run TestGolden -update rewrites them.
func TestGolden(t *testing.T) {
	isolate(t)
	golden := filepath.Join("testdata", "golden")
	ix := filepath.Join(t.TempDir(), "ix")
	mustRun(t, "index", "--index", ix, filepath.Join(golden, "corpus.jsonl"))

	want := filepath.Join(golden, "index")
	if *update {
		os.RemoveAll(want)
		os.MkdirAll(want, 0o755)
	}
	got := indexFiles(t, ix)
	if *update {
		for name, b := range got {
			if err := os.WriteFile(filepath.Join(want, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	had := indexFiles(t, want)
	for name, b := range got {
		if w, ok := had[name]; !ok {
			t.Errorf("the index has %s, the golden index has not", name)
		} else if !bytes.Equal(b, w) {
			t.Errorf("%s differs from the golden index's (%d bytes, golden %d): the format or the writer changed", name, len(b), len(w))
		}
	}
	for name := range had {
		if _, ok := got[name]; !ok {
			t.Errorf("the golden index has %s, the index has not", name)
		}
	}

	var out bytes.Buffer
	for _, q := range goldenQueries {
		out.WriteString(normalJSON(t, mustRun(t, "search", "--json", "--limit", "5", "--index", want, q)))
		out.WriteString(normalJSON(t, mustRun(t, "explain", "--json", "--index", want, q)))
	}
	out.WriteString(normalJSON(t, mustRun(t, "stats", "--json", "--index", want)))
	file := filepath.Join(golden, "outputs.golden")
	if *update {
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := out.String(), string(b); g != w {
		gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("output differs from %s at line %d:\n got: %s\nwant: %s", file, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("output has %d lines, %s has %d", len(gl), file, len(wl))
	}
}

// indexFiles reads the files of the index in dir but its lock.
func indexFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range ents {
		if e.Name() == index.LockName {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// normalJSON re-encodes one JSON object indented (its keys sorted), without
// what changes from run to run: times (fields ending in _ns, _us or _ms)
// and the index directory.
func normalJSON(t *testing.T, s string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	dropTimes(v)
	if _, ok := v["dir"]; ok {
		v["dir"] = "INDEX"
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// dropTimes deletes the time fields of v, at every depth.
func dropTimes(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if strings.HasSuffix(k, "_ns") || strings.HasSuffix(k, "_us") || strings.HasSuffix(k, "_ms") {
				delete(v, k)
				continue
			}
			dropTimes(x)
		}
	case []any:
		for _, x := range v {
			dropTimes(x)
		}
	}
}
