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
// checks every WordNet two-word query against a brute-force conjunction of
// the query's distinct terms over the same files.
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
	matched, total := compareConjunctions(t, ix, docs, queries)
	t.Logf("%d queries over %d files: all equal to brute force; %d queries matched, %d hits in all", len(queries), len(docs), matched, total)

	phrases := bench.PhraseQueries(docs, 250, 1, tokenize.MustNew("english"))
	if len(phrases) < 200 {
		t.Fatalf("only %d phrase queries from the tree's lines", len(phrases))
	}
	matched, total = comparePhrases(t, ix, docs, phrases)
	t.Logf("%d phrase queries from the tree's own lines: all equal to brute force; %d matched, %d hits in all", len(phrases), matched, total)
}

// comparePhrases checks that every phrase query's hits and count in ix equal
// a brute-force scan of each document's analyzed tokens for the phrase's
// terms at their offsets (stop words inside a phrase hold their positions).
func comparePhrases(t *testing.T, ix *index.Index, docs []corpus.Document, queries []string) (matched, total int) {
	t.Helper()
	a := tokenize.MustNew("english")
	type phrase struct {
		terms   []string
		offsets []int
		want    []string
	}
	ps := make([]phrase, len(queries))
	need := map[string]bool{}
	for i, q := range queries {
		toks := a.Analyze(nil, []byte(strings.Trim(q, `"`)))
		for _, tok := range toks {
			ps[i].offsets = append(ps[i].offsets, tok.Pos-toks[0].Pos)
			ps[i].terms = append(ps[i].terms, tok.Term)
			need[tok.Term] = true
		}
	}
	for _, d := range docs {
		at := map[int]string{}
		for _, tok := range a.Analyze(nil, d.Text) {
			if need[tok.Term] {
				at[tok.Pos] = tok.Term
			}
		}
		for i := range ps {
			for p, term := range at {
				if term != ps[i].terms[0] {
					continue
				}
				ok := true
				for j := 1; j < len(ps[i].terms) && ok; j++ {
					ok = at[p+ps[i].offsets[j]] == ps[i].terms[j]
				}
				if ok {
					ps[i].want = append(ps[i].want, d.Key)
					break
				}
			}
		}
	}
	s, err := query.NewSearcher(ix)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		res, err := s.Search(context.Background(), query.Request{Query: q, Limit: len(docs)})
		if err != nil {
			t.Fatalf("query %s: %v", q, err)
		}
		got := make([]string, len(res.Hits))
		for j, h := range res.Hits {
			got[j] = h.Key
		}
		slices.Sort(got)
		want := ps[i].want
		slices.Sort(want)
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

// compareConjunctions checks that every query's hits in ix equal a brute-force
// conjunction of the query's distinct terms over docs (the definition of the
// query sets of bench/queries). It returns how many queries matched and the
// total hits.
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
	for _, name := range []string{"wordnet-2term.txt", "wordnet-3term.txt", "debian-titles.txt"} {
		queries := readLines(t, benchQueries(name))
		matched, total := compareConjunctions(t, ix, docs, queries)
		t.Logf("%s: %d queries equal to brute force; %d matched, %d hits", name, len(queries), matched, total)
	}
}
