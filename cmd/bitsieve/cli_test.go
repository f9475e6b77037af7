package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
)

// runCLI runs the command in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// isolate points the default index and the sample cache at temp dirs.
func isolate(t *testing.T) {
	t.Setenv("BITSIEVE_INDEX", "")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var notes = map[string]string{
	"bloom.md":      "# Bloom filters\nA Bloom filter is a compact set with false positives.\n",
	"sig/bitfun.md": "BitFunnel keeps Bloom filter signatures in bit-sliced rows.\n",
	"trie.txt":      "A trie indexes strings by prefix.\n",
	"bin.dat":       "\x00\x01\x02binary",
	".hidden":       "secret bloom",
}

func indexNotes(t *testing.T) string {
	t.Helper()
	src, ix := filepath.Join(t.TempDir(), "notes"), filepath.Join(t.TempDir(), "ix")
	writeFiles(t, src, notes)
	code, out, errs := runCLI(t, "index", "--index", ix, src)
	if code != exitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	for _, want := range []string{"indexed 3 documents", "binary 1", "hidden 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("index summary lacks %q:\n%s", want, out)
		}
	}
	return ix
}

func TestIndexAndSearch(t *testing.T) {
	isolate(t)
	ix := indexNotes(t)
	code, out, _ := runCLI(t, "search", "--index", ix, "bloom filter")
	if code != exitOK || !strings.Contains(out, "2 hits") || !strings.Contains(out, "bloom.md") || !strings.Contains(out, "sig/bitfun.md") {
		t.Fatalf("search: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "search", "--index", ix, "--count", "bloom -bitfunnel")
	if code != exitOK || strings.TrimSpace(out) != "1" {
		t.Fatalf("count: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "search", "--index", ix, "--json", `"bit sliced"`)
	var res struct {
		Query      string `json:"query"`
		Total      int    `json:"total"`
		Candidates int    `json:"candidates"`
		TookUS     *int64 `json:"took_us"`
		Hits       []struct {
			Key, Title, Snippet string
			Score               float64
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitOK {
		t.Fatalf("json: exit %d, %v: %s", code, err, out)
	}
	if res.Total != 1 || res.Hits[0].Key != "notes/sig/bitfun.md" || res.TookUS == nil || !strings.Contains(res.Hits[0].Snippet, "bit-sliced") {
		t.Fatalf("json result: %+v", res)
	}
	code, _, _ = runCLI(t, "search", "--index", ix, "zebra")
	if code != exitNoMatch {
		t.Fatalf("no match: exit %d, want %d", code, exitNoMatch)
	}
	qf := filepath.Join(t.TempDir(), "q.txt")
	os.WriteFile(qf, []byte("bloom\n\nthe\ntrie prefix\n"), 0o644)
	code, out, errs := runCLI(t, "search", "--index", ix, "--queries", qf)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != exitError || len(lines) != 3 || !strings.Contains(lines[1], `"error"`) || !strings.Contains(errs, "1 queries had errors") {
		t.Fatalf("--queries with a bad query: exit %d, want %d\n%s%s", code, exitError, out, errs)
	}
	os.WriteFile(qf, []byte("bloom\ntrie prefix\n"), 0o644)
	if code, out, errs := runCLI(t, "search", "--index", ix, "--queries", qf); code != exitOK {
		t.Fatalf("--queries: exit %d\n%s%s", code, out, errs)
	}
	for _, cmd := range []string{"stats", "check"} {
		if code, out, errs := runCLI(t, cmd, "--index", ix); code != exitOK {
			t.Fatalf("%s: exit %d\n%s%s", cmd, code, out, errs)
		}
	}
	code, out, _ = runCLI(t, "explain", "--index", ix, "bloom filter")
	if code != exitOK || !strings.Contains(out, "predicted fp") || !strings.Contains(out, "filter") {
		t.Fatalf("explain: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "explain", "--index", ix, `"filter of the bloom" -x`)
	if code != exitOK || !strings.Contains(out, `phrase "filter of the bloom": filter@0 bloom@3, checked on stored positions`) {
		t.Fatalf("explain of a phrase: exit %d\n%s", code, out)
	}
}

// TestBadInput: each mistake gives one clear sentence and a non-zero exit.
func TestBadInput(t *testing.T) {
	isolate(t)
	ix := indexNotes(t)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing path", []string{"index", "--index", filepath.Join(t.TempDir(), "x"), "/nonexistent/notes"}, exitError, "/nonexistent/notes"},
		{"empty query", []string{"search", "--index", ix, "  "}, exitError, "query is empty"},
		{"unbalanced quote", []string{"search", "--index", ix, `"bloom filter`}, exitError, "unbalanced quote"},
		{"unbalanced paren", []string{"search", "--index", ix, `(bloom OR trie`}, exitError, "parenthes"},
		{"stop words only", []string{"search", "--index", ix, "the of and"}, exitError, "stop word"},
		{"only negation", []string{"search", "--index", ix, "--", "-bloom"}, exitError, "negated"},
		{"missing index", []string{"search", "--index", filepath.Join(t.TempDir(), "none"), "bloom"}, exitError, "no index"},
		{"unknown command", []string{"serch", "bloom"}, exitError, "unknown command"},
		{"unknown language", []string{"index", "--index", filepath.Join(t.TempDir(), "y"), "--lang", "klingon", "."}, exitError, "klingon"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runCLI(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errs)
			}
			if !strings.Contains(strings.ToLower(errs), strings.ToLower(c.want)) {
				t.Errorf("stderr %q does not mention %q", errs, c.want)
			}
			if n := strings.Count(strings.TrimSpace(errs), "\n"); n != 0 {
				t.Errorf("error is %d lines, want one sentence: %q", n+1, errs)
			}
		})
	}
}

func TestUnreadableFileIsSkipped(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions do not deny reads")
	}
	isolate(t)
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"ok.txt": "readable words", "locked.txt": "secret words"})
	os.Chmod(filepath.Join(src, "locked.txt"), 0)
	code, out, errs := runCLI(t, "index", "--index", filepath.Join(t.TempDir(), "ix"), "--verbose", src)
	if code != exitOK || !strings.Contains(out, "unreadable 1") || !strings.Contains(out, "locked.txt") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

// TestCorruptSegment: search refuses a damaged index with a message naming
// the file; check names the file and section and exits 1.
func TestCorruptSegment(t *testing.T) {
	isolate(t)
	ix := indexNotes(t)
	m, err := index.Open(ix)
	if err != nil {
		t.Fatal(err)
	}
	seg := m.Segments()[0].Name()
	m.Close()
	path := filepath.Join(ix, seg)
	b, _ := os.ReadFile(path)
	b[200] ^= 0xff // inside the terms section, after the 64-byte header and params
	os.WriteFile(path, b, 0o644)

	code, _, errs := runCLI(t, "search", "--index", ix, "bloom")
	if code != exitError || !strings.Contains(errs, seg) || !strings.Contains(errs, "damaged") {
		t.Fatalf("search on damaged index: exit %d, %q", code, errs)
	}
	code, out, _ := runCLI(t, "check", "--index", ix)
	if code != exitNoMatch || !strings.Contains(out, seg) || !strings.Contains(out, "section") {
		t.Fatalf("check on damaged index: exit %d\n%s", code, out)
	}
}

func TestSampleFallback(t *testing.T) {
	isolate(t)
	code, out, errs := runCLI(t, "search", "--limit", "3", "white whale")
	if code != exitOK || !strings.Contains(out, "whale") {
		t.Fatalf("sample search: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs, "sample") {
		t.Errorf("first use should say it indexes the sample: %q", errs)
	}
}

// TestMissingManifest: an index whose MANIFEST is gone is refused by search
// and by index (which must not start a fresh index over its files), and
// recover brings it back from its files.
func TestMissingManifest(t *testing.T) {
	isolate(t)
	ix := indexNotes(t)
	if err := os.Remove(filepath.Join(ix, index.ManifestName)); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "search", "--index", ix, "bloom")
	if code != exitError || !strings.Contains(errs, "MANIFEST") || !strings.Contains(errs, "bitsieve recover") {
		t.Fatalf("search without MANIFEST: exit %d, %q", code, errs)
	}
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"new.txt": "a new note\n"})
	if code, _, errs := runCLI(t, "index", "--index", ix, src); code == exitOK {
		t.Fatalf("index over files without a MANIFEST succeeded: %s", errs)
	}
	out := mustRun(t, "recover", "--index", ix)
	if !strings.Contains(out, "3 live documents") {
		t.Fatalf("recover: %s", out)
	}
	if out := mustRun(t, "search", "--index", ix, "bloom"); !strings.Contains(out, "bloom.md") {
		t.Fatalf("search after recover:\n%s", out)
	}
	if code, _, errs := runCLI(t, "recover", "--index", ix); code != exitError || !strings.Contains(errs, "nothing to recover") {
		t.Fatalf("recover of a sound index: exit %d, %q", code, errs)
	}
}

// TestJSONSnakeCase runs every command that prints JSON and checks that each
// object key, at every depth, is snake_case.
func TestJSONSnakeCase(t *testing.T) {
	isolate(t)
	src, ix := filepath.Join(t.TempDir(), "notes"), filepath.Join(t.TempDir(), "ix")
	writeFiles(t, src, notes)
	qf := filepath.Join(t.TempDir(), "q.txt")
	writeFiles(t, filepath.Dir(qf), map[string]string{"q.txt": "bloom\ntrie prefix\n"})
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if !snake.MatchString(k) {
					t.Errorf("%s: key %q is not snake_case", path, k)
				}
				walk(path+"."+k, x)
			}
		case []any:
			for _, x := range v {
				walk(path+"[]", x)
			}
		}
	}
	for _, args := range [][]string{
		{"index", "--json", "--index", ix, src},
		{"search", "--json", "--index", ix, "bloom filter"},
		{"search", "--queries", qf, "--index", ix},
		{"explain", "--json", "--index", ix, `bloom "bit sliced"`},
		{"stats", "--json", "--index", ix},
		{"check", "--json", "--index", ix},
		{"compact", "--json", "--index", ix},
		{"bench", "--json", "--quiet", "--index", ix, "--sample", "5", "--reps", "1", "--qps-passes", "1", "--build-rounds", "1"},
	} {
		code, out, errs := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%v: not JSON: %v\n%s", args, err, out)
			}
			walk(args[0], v)
		}
	}
}

// TestCLIConventions checks the command line's manners: help on stdout with
// exit 0, one-sentence errors with exit 2 for unknown flags and bad values,
// query words that start with - after --, --version, completion and man
// pages.
func TestCLIConventions(t *testing.T) {
	isolate(t)
	src, ix := filepath.Join(t.TempDir(), "notes"), filepath.Join(t.TempDir(), "ix")
	writeFiles(t, src, notes)
	mustRun(t, "index", "--index", ix, src)

	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"search", "--help"}, {"help", "index"}} {
		code, out, errs := runCLI(t, args...)
		if code != exitOK || !strings.Contains(out, "Usage:") || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if code, out, errs := runCLI(t); code != exitError || out != "" || !strings.Contains(errs, "Usage:") {
		t.Errorf("no arguments: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ := runCLI(t, "--version")
	if code != exitOK || !strings.HasPrefix(out, "bitsieve ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d, %q", code, out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--index", ix, "--limt", "5", "bloom"}, "unknown flag --limt (did you mean --limit?)"},
		{[]string{"search", "--index", ix, "bloom", "-filter"}, "as in bitsieve search -- -filter"},
		{[]string{"check", "--bogus", "--index", ix}, "bitsieve check: unknown flag --bogus"},
		{[]string{"search", "--index", ix, "--limit", "abc", "bloom"}, `--limit wants a whole number, not "abc"`},
		{[]string{"search", "--index", ix, "--color=blue", "bloom"}, `--color wants auto, always or never, not "blue"`},
		{[]string{"search", "--index"}, "--index needs a value"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"index", "--index", ix}, "give the directories"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != exitError || out != "" || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, errs, c.want)
		}
	}

	// After --, a word that starts with - is a query word: NOT filter.
	code, out, _ = runCLI(t, "search", "--count", "--index", ix, "--", "bloom", "-filter")
	if code != exitNoMatch || strings.TrimSpace(out) != "0" {
		t.Errorf("search -- bloom -filter: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "search", "--index", ix, "--count", "--", "bloom", "-trie")
	if code != exitOK || strings.TrimSpace(out) != "2" {
		t.Errorf("search -- bloom -trie: exit %d, %q", code, out)
	}

	code, out, _ = runCLI(t, "completion", "bash")
	if code != exitOK || !strings.Contains(out, "bitsieve") || len(out) < 1000 {
		t.Errorf("completion bash: exit %d, %d bytes", code, len(out))
	}
	man := t.TempDir()
	if code, _, errs := runCLI(t, "man", man); code != exitOK {
		t.Fatalf("man: exit %d: %s", code, errs)
	}
	page, err := os.ReadFile(filepath.Join(man, "bitsieve-search.1"))
	if err != nil || !strings.Contains(string(page), "--limit") {
		t.Errorf("bitsieve-search.1: %v\n%s", err, page)
	}
}

// TestEmptyIndex: an index no run has committed to (its first run was
// interrupted) is refused by search and explain with a sentence that says
// why, and served with a warning; once a run commits, it searches.
func TestEmptyIndex(t *testing.T) {
	isolate(t)
	ix := filepath.Join(t.TempDir(), "ix")
	w, err := index.Create(ix, index.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	for _, args := range [][]string{{"search", "--index", ix, "whale"}, {"explain", "--index", ix, "whale"}} {
		code, _, errs := runCLI(t, args...)
		if code != exitError || !strings.Contains(errs, "the index in "+ix+" is empty") || !strings.Contains(errs, "bitsieve index --index "+ix) {
			t.Errorf("%s: exit %d, %q", args[0], code, errs)
		}
	}
	src := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(src, []byte("a white whale"), 0o644)
	mustRun(t, "index", "--index", ix, src)
	if code, out, _ := runCLI(t, "search", "--index", ix, "--count", "whale"); code != exitOK || strings.TrimSpace(out) != "1" {
		t.Errorf("after a run: %d %q", code, out)
	}
}
