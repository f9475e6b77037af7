package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// readJSONL reads a converter's output and checks every line is a valid
// document in valid UTF-8.
func readJSONL(t *testing.T, path string) []Doc {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []Doc
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 {
			break
		}
		if !utf8.Valid(line) {
			t.Fatalf("%s: line %d is not valid UTF-8", path, len(docs)+1)
		}
		var d Doc
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("%s: line %d: %v", path, len(docs)+1, err)
		}
		docs = append(docs, d)
		if err != nil {
			break
		}
	}
	return docs
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// noTempFiles checks a converter left nothing but its outputs behind.
func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp*"))
	if len(m) > 0 {
		t.Errorf("temporary files left behind: %v", m)
	}
}

func docsByID(docs []Doc) map[string]Doc {
	m := make(map[string]Doc, len(docs))
	for _, d := range docs {
		m[d.ID] = d
	}
	return m
}
