package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/bitsieve/bitsieve/tokenize"
)

// sharedQueries finds a query file of ../shared/queries beside the repository.
func sharedQueries(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "queries", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("query file %s is missing: %v", p, err)
		}
		t.Skipf("query file %s is missing", p)
	}
	return p
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestGoSourceTree indexes the Go source tree with the index command and
// checks every WordNet two-word query against a brute-force conjunction of
// the query's distinct terms over the same files.
func TestGoSourceTree(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the whole Go source tree")
	}
	isolate(t)
	src := filepath.Join(runtime.GOROOT(), "src")
	queries := readLines(t, sharedQueries(t, "wordnet-2term.txt"))
	dir := filepath.Join(t.TempDir(), "ix")
	code, out, errs := runCLI(t, "index", "--index", dir, src)
	if code != exitOK {
		t.Fatalf("index %s: exit %d: %s", src, code, errs)
	}
	t.Logf("%s", out)
	if !strings.Contains(out, "skipped") {
		t.Errorf("the Go tree has binary and hidden files; the summary should report skips:\n%s", out)
	}
	if code, out, _ := runCLI(t, "check", "--index", dir); code != exitOK {
		t.Fatalf("check: %s", out)
	}

	// Brute force: every file the walk reads, analyzed independently.
	var docs []corpus.Document
	if _, err := corpus.Walk(src, corpus.WalkOptions{}, func(d corpus.Document) error {
		docs = append(docs, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	matched, total := compareConjunctions(t, ix, docs, queries)
	t.Logf("%d queries over %d files: all equal to brute force; %d queries matched, %d hits in all", len(queries), len(docs), matched, total)
}

// compareConjunctions checks that every query's hits in ix equal a brute-force
// conjunction of the query's distinct terms over docs (the definition of the
// shared query sets). It returns how many queries matched and the total hits.
func compareConjunctions(t *testing.T, ix *index.Index, docs []corpus.Document, queries []string) (matched, total int) {
	t.Helper()
	a := tokenize.MustNew("english")
	type doc struct {
		key   string
		terms map[string]bool
	}
	bd := make([]doc, len(docs))
	for i, d := range docs {
		terms := map[string]bool{}
		for _, t := range a.Terms(nil, d.Text) {
			terms[t] = true
		}
		bd[i] = doc{d.Key, terms}
	}
	if ix.NumDocs() != len(docs) {
		t.Fatalf("index holds %d documents, brute force has %d", ix.NumDocs(), len(docs))
	}
	s, err := query.NewSearcher(ix)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		terms := a.Terms(nil, []byte(q))
		var want []string
		for _, d := range bd {
			all := true
			for _, term := range terms {
				if !d.terms[term] {
					all = false
					break
				}
			}
			if all {
				want = append(want, d.key)
			}
		}
		res, err := s.Search(context.Background(), query.Request{Query: q, Limit: len(docs)})
		if err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
		got := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			got[i] = h.Key
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("query %q: %d hits, brute force %d", q, len(got), len(want))
		}
		if len(want) > 0 {
			matched++
		}
		total += len(want)
	}
	return matched, total
}

// TestSharedQueriesOnSample runs every shared query set over the embedded
// sample and compares each result with brute force.
func TestSharedQueriesOnSample(t *testing.T) {
	isolate(t)
	ix, err := openSample(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var docs []corpus.Document
	if _, err := corpus.Sample(func(d corpus.Document) error {
		docs = append(docs, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"wordnet-2term.txt", "wordnet-3term.txt", "debian-titles.txt"} {
		queries := readLines(t, sharedQueries(t, name))
		matched, total := compareConjunctions(t, ix, docs, queries)
		t.Logf("%s: %d queries equal to brute force; %d matched, %d hits", name, len(queries), matched, total)
	}
}
