package main

import (
	"go/build"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
)

// TestIndexCode indexes source files with --lang code and checks that the
// ways of writing an identifier count what a brute-force scan with the code
// analyzer counts, that the index keeps its analyzer, and that search
// prints where each hit's match is.
func TestIndexCode(t *testing.T) {
	isolate(t)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{
		"a.go":       "package a\n\nimport \"sync\"\n\nfunc run() {\n\tvar wg sync.WaitGroup\n\twg.Add(1)\n\twg.Wait()\n}\n",
		"b.go":       "package b\n\ntype WaitGroupSet struct{ groups []WaitGroup }\n",
		"c.txt":      "wait for the group: a wait group in prose\n",
		"d.py":       "def wait_group(): return myWg.AddAll()\n",
		"e.cc":       "std::mutex mu; waitgroup->add(1); HTTPServer::run();\n",
		"sub/f.go":   "// WaitGroup waits for a collection of goroutines.\ntype WaitGroup struct{}\n",
		"sub/g.java": "class WaitGroupTest { void add() { if (x) return; } }\n",
	})
	// A slice of the real Go tree, cheap to index.
	gosync := filepath.Join(build.Default.GOROOT, "src", "sync")
	if names, err := filepath.Glob(filepath.Join(gosync, "*.go")); err == nil {
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, src, map[string]string{"gosync/" + filepath.Base(n): string(b)})
		}
	}
	dir := filepath.Join(t.TempDir(), "ix")
	if code, _, errs := runCLI(t, "index", "--index", dir, "--lang", "code", src); code != exitOK {
		t.Fatalf("index --lang code: exit %d: %s", code, errs)
	}
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Analyzer() != "code" {
		t.Errorf("the index's analyzer is %q, want code", ix.Analyzer())
	}
	ix.Close()

	// Brute force over the files the walk reads, with the code analyzer.
	var docs []corpus.Document
	if _, err := corpus.Walk(src, corpus.WalkOptions{}, func(d corpus.Document) error {
		docs = append(docs, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	o := oracleOf(docs, "code")
	match := func(q string) []string {
		t.Helper()
		keys, err := o.Match(q)
		if err != nil {
			t.Fatalf("%s: the oracle: %v", q, err)
		}
		return keys
	}
	for _, q := range []string{"WaitGroup", "waitgroup", "wait group", `"wait group"`, `"sync.WaitGroup"`,
		"sync.WaitGroup", `"wg.Add"`, "wg.Add", `"func (wg *WaitGroup)"`, "HTTPServer", `"http server"`, "if", "return", "mutex"} {
		want := len(match(q))
		code, out, errs := runCLI(t, "search", "--index", dir, "--count", q)
		got, err := strconv.Atoi(strings.TrimSpace(out))
		if (code != exitOK && code != exitNoMatch) || err != nil {
			t.Fatalf("search --count %s: exit %d: %s%s", q, code, out, errs)
		}
		if got != want {
			t.Errorf("search --count %s = %d, brute force %d", q, got, want)
		}
	}
	// Among the small files: the identifier is found however it is written,
	// and not where it is only part of another.
	for q, want := range map[string]string{
		"WaitGroup":        "a.go b.go sub/f.go",
		"waitgroup":        "a.go b.go e.cc sub/f.go",
		`"wait group"`:     "a.go b.go c.txt d.py sub/f.go sub/g.java",
		`"sync.WaitGroup"`: "a.go",
		`"wg.Add"`:         "a.go",
		"return":           "d.py sub/g.java",
	} {
		var got []string
		for _, k := range match(q) {
			if !strings.HasPrefix(k, "gosync/") {
				got = append(got, k)
			}
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s is in %q, want %q", q, got, want)
		}
	}

	// Hits print as path:line:, the line of the first highlight.
	code, out, errs := runCLI(t, "search", "--index", dir, "--color", "never", `"wg.Add"`)
	if code != exitOK || !strings.Contains(out, "a.go:7:") {
		t.Errorf(`search "wg.Add": exit %d, want a.go:7: in\n%s%s`, code, out, errs)
	}
}
