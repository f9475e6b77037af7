package main

import (
	"bufio"
	"context"
	"go/build"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/bench"
	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/query"
	"github.com/bitsieve/bitsieve/tokenize"
)

// benchQueries is the path of a query file of bench/queries.
func benchQueries(name string) string {
	return filepath.Join("..", "..", "bench", "queries", name)
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
// checks every WordNet two-word query, and phrases of the tree's own lines,
// against the test kit's oracle over the same files.
func TestGoSourceTree(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the whole Go source tree")
	}
	isolate(t)
	src := filepath.Join(build.Default.GOROOT, "src")
	queries := readLines(t, benchQueries("wordnet-2term.txt"))
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
	docs := cliDocs(t, src)
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	o := oracleOf(docs, "english")
	matched, total := compareWithOracle(t, ix, o, queries)
	t.Logf("%d queries over %d files: all equal to brute force; %d queries matched, %d hits in all", len(queries), len(docs), matched, total)

	phrases := bench.PhraseQueries(docs, 250, 1, tokenize.MustNew("english"))
	if len(phrases) < 200 {
		t.Fatalf("only %d phrase queries from the tree's lines", len(phrases))
	}
	matched, total = compareWithOracle(t, ix, o, phrases)
	t.Logf("%d phrase queries from the tree's own lines: all equal to brute force; %d matched, %d hits in all", len(phrases), matched, total)
}

// oracleOf returns the test kit's oracle of docs.
func oracleOf(docs []corpus.Document, analyzer string) *kit.Oracle {
	o := kit.NewOracle(analyzer)
	for _, d := range docs {
		o.Add(d.Key, d.Text)
	}
	return o
}

// compareWithOracle checks that every query's hits and count in ix equal the
// oracle's answer over the same documents (for the shared query sets, plain
// words, the conjunction of the query's terms). It returns how many queries
// matched and the total hits.
func compareWithOracle(t *testing.T, ix *index.Index, o *kit.Oracle, queries []string) (matched, total int) {
	t.Helper()
	if ix.NumDocs() != o.Len() {
		t.Fatalf("index holds %d documents, brute force has %d", ix.NumDocs(), o.Len())
	}
	s, err := query.NewSearcher(ix)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		want, err := o.Match(q)
		if err != nil {
			t.Fatalf("query %s: the oracle: %v", q, err)
		}
		res, err := s.Search(context.Background(), query.Request{Query: q, Limit: o.Len()})
		if err != nil {
			t.Fatalf("query %s: %v", q, err)
		}
		got := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			got[i] = h.Key
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("query %s: %d hits, brute force %d", q, len(got), len(want))
		}
		if n, err := s.Count(context.Background(), q); err != nil || n != len(want) {
			t.Fatalf("query %s: count %d (%v), brute force %d", q, n, err, len(want))
		}
		if len(want) > 0 {
			matched++
		}
		total += len(want)
	}
	return matched, total
}

// TestBenchQueriesOnSample runs every query set of bench/queries over the
// embedded sample and compares each result with brute force.
func TestBenchQueriesOnSample(t *testing.T) {
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
	o := oracleOf(docs, "english")
	for _, name := range []string{"wordnet-2term.txt", "wordnet-3term.txt", "debian-titles.txt"} {
		queries := readLines(t, benchQueries(name))
		matched, total := compareWithOracle(t, ix, o, queries)
		t.Logf("%s: %d queries equal to brute force; %d matched, %d hits", name, len(queries), matched, total)
	}
}
