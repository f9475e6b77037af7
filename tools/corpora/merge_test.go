package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func writeParts(t *testing.T, dir string, parts map[string][]Doc) {
	t.Helper()
	for name, docs := range parts {
		jw, err := NewJSONLWriter(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if err := jw.Write(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := jw.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("word ", 400_000) // a 2 MB line
	writeParts(t, dir, map[string][]Doc{
		"gcide": {{ID: "gcide:apple", Title: "apple", Body: "a fruit"}, {ID: "gcide:pear", Title: "pear", Body: long}},
		"deb":   {{ID: "deb:bash", Title: "GNU Bourne Again SHell", Body: "<shell> & \"quotes\""}},
	})
	out, stats := filepath.Join(dir, "prose.jsonl"), filepath.Join(dir, "prose.stats")
	args := []string{"-o", out, "-stats", stats, "gcide=" + filepath.Join(dir, "gcide.jsonl"), "deb=" + filepath.Join(dir, "deb.jsonl")}
	if err := runMerge(args); err != nil {
		t.Fatal(err)
	}
	docs := readJSONL(t, out)
	if len(docs) != 3 || docs[0].ID != "gcide:apple" || docs[1].Body != long || docs[2].Body != "<shell> & \"quotes\"" {
		t.Fatalf("merged %d docs: %+v", len(docs), docs[0])
	}
	table, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(table)), "\n")
	if len(lines) != 4 || lines[0] != "source\tdocuments\tbytes" || !strings.HasPrefix(lines[1], "gcide\t2\t") ||
		!strings.HasPrefix(lines[2], "deb\t1\t") || !strings.HasPrefix(lines[3], "total\t3\t") {
		t.Errorf("stats =\n%s", table)
	}
	info, _ := os.Stat(out)
	if !strings.HasSuffix(lines[3], "\t"+strconv.FormatInt(info.Size(), 10)) {
		t.Errorf("total bytes %q, file has %d", lines[3], info.Size())
	}
	noTempFiles(t, dir)
}

func TestMergeRejects(t *testing.T) {
	dir := t.TempDir()
	writeParts(t, dir, map[string][]Doc{
		"wn":    {{ID: "wn:apple"}},
		"wn2":   {{ID: "wn:apple"}},
		"other": {{ID: "gcide:apple"}},
	})
	writeFile(t, filepath.Join(dir, "broken.jsonl"), []byte("{\"id\":\"x:1\"}\nnot json\n"))
	out, stats := filepath.Join(dir, "prose.jsonl"), filepath.Join(dir, "prose.stats")
	for _, tc := range []struct {
		parts []string
		want  string
	}{
		{[]string{"wn=" + filepath.Join(dir, "wn.jsonl"), "wn=" + filepath.Join(dir, "wn2.jsonl")}, `duplicate id "wn:apple"`},
		{[]string{"wn=" + filepath.Join(dir, "other.jsonl")}, `lacks the source prefix "wn:"`},
		{[]string{"x=" + filepath.Join(dir, "broken.jsonl")}, "broken.jsonl:2"},
		{[]string{"x=" + filepath.Join(dir, "missing.jsonl")}, "missing.jsonl"},
	} {
		err := runMerge(append([]string{"-o", out, "-stats", stats}, tc.parts...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("merge %v: error = %v, want %q", tc.parts, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("merge %v failed but left %s", tc.parts, out)
		}
	}
	if err := runMerge([]string{"-o", out, "-stats", stats, "no-equals-sign"}); !errors.Is(err, errUsage) {
		t.Errorf("bad argument: error = %v, want a usage error", err)
	}
	noTempFiles(t, dir)
}

func TestJSONLWriterRejectsDuplicates(t *testing.T) {
	dir := t.TempDir()
	jw, err := NewJSONLWriter(filepath.Join(dir, "x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := jw.Write(Doc{ID: "a:1"}); err != nil {
		t.Fatal(err)
	}
	if err := jw.Write(Doc{ID: "a:1"}); err == nil {
		t.Error("duplicate id accepted")
	}
	if err := jw.Write(Doc{}); err == nil {
		t.Error("empty id accepted")
	}
	jw.Abort()
	noTempFiles(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "x.jsonl")); err == nil {
		t.Error("aborted writer left its target")
	}
}
