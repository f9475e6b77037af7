package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/bench"
	"github.com/bitsieve/bitsieve/index/inverted"
)

// benchCorpus writes a directory of small text files with shared words.
func benchCorpus(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	words := []string{"bloom", "filter", "signature", "row", "segment", "posting", "roaring", "bitmap", "query", "verify"}
	files := map[string]string{}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for j := 0; j < 5+i%23; j++ {
			fmt.Fprintf(&b, "%s word%d ", words[(i*j+j)%len(words)], (i*7+j)%97)
		}
		files[fmt.Sprintf("d%02d/f%03d.txt", i%10, i)] = b.String()
	}
	writeFiles(t, src, files)
	return src
}

func TestBenchCommand(t *testing.T) {
	isolate(t)
	src, dir := benchCorpus(t), filepath.Join(t.TempDir(), "ix")
	qfile := filepath.Join(t.TempDir(), "queries.txt")
	os.WriteFile(qfile, []byte("bloom filter\nroaring bitmap word3\n\nthe of\nsegment -posting\n"), 0o644)
	html := filepath.Join(t.TempDir(), "report.html")
	code, out, errs := runCLI(t, "bench", "--index", dir, "--build", src, "--sample", "20", "--reps", "1", "--qps-passes", "1",
		"--quiet", "--json", "--report", html, qfile)
	if code != exitOK {
		t.Fatalf("bench: exit %d: %s", code, errs)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out)
	}
	if !rep.Equality.OK() || rep.Equality.Queries < 20 {
		t.Fatalf("equality %+v", rep.Equality)
	}
	if !rep.Build.Measured || rep.Build.Documents != 300 || len(rep.Build.Engines) != 2 {
		t.Fatalf("build %+v", rep.Build)
	}
	if rep.Size.Component(bench.CompPostings) == 0 || rep.Size.Component(bench.CompRows) == 0 {
		t.Fatalf("size %+v", rep.Size)
	}
	page, err := os.ReadFile(html)
	if err != nil || !bytes.Contains(page, []byte("<svg")) {
		t.Fatalf("report: %v", err)
	}
	// bench leaves its postings beside the segments.
	if m, _ := filepath.Glob(filepath.Join(dir, "*"+inverted.Suffix)); len(m) == 0 {
		t.Fatal("no postings files beside the index")
	}

	saved := filepath.Join(t.TempDir(), "rep.json")
	os.WriteFile(saved, []byte(out), 0o644)
	code, text, errs := runCLI(t, "bench", "--render", saved)
	if code != exitOK || !strings.Contains(text, "equality: OK") {
		t.Fatalf("bench --render: exit %d: %s%s", code, text, errs)
	}
}

func TestBenchNeedsQueries(t *testing.T) {
	isolate(t)
	if code, _, errs := runCLI(t, "bench"); code != exitError || !strings.Contains(errs, "no queries") {
		t.Fatalf("bench without queries: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "bench", "--build", "x", "--sample", "5"); code != exitError || !strings.Contains(errs, "--build needs --index") {
		t.Fatalf("bench --build without --index: exit %d: %s", code, errs)
	}
}

func TestIndexWithInverted(t *testing.T) {
	isolate(t)
	src, dir := benchCorpus(t), filepath.Join(t.TempDir(), "ix")
	code, out, errs := runCLI(t, "index", "--with-inverted", "--index", dir, src)
	if code != exitOK || !strings.Contains(out, "inverted postings:") {
		t.Fatalf("index --with-inverted: exit %d: %s%s", code, out, errs)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
	invs, _ := filepath.Glob(filepath.Join(dir, "*"+inverted.Suffix))
	if len(segs) == 0 || len(invs) != len(segs) {
		t.Fatalf("%d segments, %d postings files", len(segs), len(invs))
	}
	// Unchanged files: the update keeps the segments, and their postings.
	code, out, _ = runCLI(t, "index", "--with-inverted", "--index", dir, src)
	if code != exitOK || !strings.Contains(out, "0 built") {
		t.Fatalf("second index --with-inverted: exit %d: %s", code, out)
	}
}
