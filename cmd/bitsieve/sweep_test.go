package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/bench"
	"github.com/bitsieve/bitsieve/index"
)

func TestIndexParamsFlags(t *testing.T) {
	isolate(t)
	src, dir := benchCorpus(t), filepath.Join(t.TempDir(), "ix")
	if code, _, errs := runCLI(t, "index", "--index", dir, "--density", "0.2", "--snr", "5", "--list-density", "0", src); code != exitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	want := index.Params{Density: 0.2, SNR: 5, KMin: index.DefaultParams.KMin, KMax: index.DefaultParams.KMax, Rank: index.DefaultParams.Rank, PairK: index.DefaultParams.PairK}
	for _, s := range ix.Segments() {
		if s.Params() != want {
			t.Fatalf("segment %s: params %+v, want %+v", s.Name(), s.Params(), want)
		}
	}
	code, _, errs := runCLI(t, "index", "--index", dir, "--density", "0.1", "--list-density", "0.2", src)
	if code != exitError || !strings.Contains(errs, "list density 0.2 must be between 0 and the row density 0.1") {
		t.Fatalf("bad params: exit %d: %s", code, errs)
	}
}

func TestBenchSweepCommand(t *testing.T) {
	isolate(t)
	src, dir := benchCorpus(t), filepath.Join(t.TempDir(), "ix")
	if code, _, errs := runCLI(t, "index", "--index", dir, src); code != exitOK {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	code, _, errs := runCLI(t, "bench", "--index", dir, "--sample", "10", "--sweep", "density=0.2,snr=x")
	if code != exitError || !strings.Contains(errs, `--sweep: sweep set 1 ("density=0.2,snr=x"): snr: "x" is not a number`) {
		t.Fatalf("bad sweep: exit %d: %s", code, errs)
	}
	html := filepath.Join(t.TempDir(), "sweep.html")
	code, out, errs := runCLI(t, "bench", "--index", dir, "--sample", "20", "--reps", "1", "--quiet", "--json", "--report", html,
		"--sweep", "density=0.2,list=0;density=0.3,snr=2")
	if code != exitOK {
		t.Fatalf("bench --sweep: exit %d: %s", code, errs)
	}
	rep, err := bench.ReadReport(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sweep == nil || len(rep.Sweep.Points) != 3 || !rep.Sweep.Points[0].Default || !rep.SweepOK() {
		t.Fatalf("sweep %+v", rep.Sweep)
	}
	if page, err := os.ReadFile(html); err != nil || strings.Count(string(page), "<svg") != 2 {
		t.Fatalf("sweep report: %v", err)
	}
	// The resealed indexes are gone; the index itself is unchanged.
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Fatalf("beside the index: %d entries", len(ents))
	}
	b, _ := json.Marshal(rep.Sweep.Points[1].Params)
	if !strings.Contains(string(b), `"density":0.2`) {
		t.Fatalf("params in JSON: %s", b)
	}
}
