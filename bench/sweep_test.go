package bench

import (
	"bytes"
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
)

func TestParseSweep(t *testing.T) {
	sets, err := ParseSweep("density=0.1,snr=10,list=0; d=0.2, snr=5, list=1/64 ;default;list-density=0.0078125,kmax=16;order=minhash;")
	if err != nil {
		t.Fatal(err)
	}
	def := index.DefaultParams
	want := []index.Params{
		{Density: 0.1, SNR: 10, KMin: def.KMin, KMax: def.KMax, ListDensity: 0, Rank: def.Rank, PairK: def.PairK},
		{Density: 0.2, SNR: 5, KMin: def.KMin, KMax: def.KMax, ListDensity: 1.0 / 64, Rank: def.Rank, PairK: def.PairK},
		def,
		{Density: def.Density, SNR: def.SNR, KMin: def.KMin, KMax: 16, ListDensity: 1.0 / 128, Rank: def.Rank, PairK: def.PairK},
		def,
	}
	if len(sets) != len(want) {
		t.Fatalf("parsed %+v", sets)
	}
	for i := range want {
		order := segment.OrderKept
		if i == 4 {
			order = segment.OrderMinHash
		}
		if sets[i].Params != want[i] || sets[i].Order != order {
			t.Errorf("set %d: %+v, want %+v in order %v", i+1, sets[i], want[i], order)
		}
	}
	if got := SetLabel(sets[1]); got != "d 0.2 snr 5 list 1/64" {
		t.Errorf("label %q", got)
	}
	if got := SetLabel(sets[3]); got != "d 0.2 snr 30 list 1/128 k 1–16" {
		t.Errorf("label %q", got)
	}
	if got := SetLabel(sets[4]); got != "d 0.2 snr 30 list 1/256 minhash" {
		t.Errorf("label %q", got)
	}
	for spec, msg := range map[string]string{
		"":                           "set 1 is empty",
		"density=0.1;;snr=5":         "set 2 is empty",
		"density=0.1,snr=x":          `snr: "x" is not a number`,
		"density=0.1,snr=1/0":        `"1/0" is not a number`,
		"dens=0.1":                   `unknown parameter "dens"`,
		"density 0.1":                `"density 0.1" is not key=value`,
		"density=0.1,d=0.2":          "density is given twice",
		"density=1.5":                "density 1.5 must be between 0 and 1",
		"density=0.1,list=0.5":       "list density 0.5 must be between 0 and the row density 0.1",
		"snr=0.5":                    "snr 0.5 must be at least 1",
		"kmin=2.5":                   "not a whole number",
		"density=0.2;density=0.2":    "set 2 (\"density=0.2\") repeats set 1",
		"density=0.2; snr=5; snr=5 ": "repeats set 2",
		"order=sorted":               `unknown document order "sorted"`,
		"order=minhash,order=kept":   "order is given twice",
	} {
		_, err := ParseSweep(spec)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseSweep(%q) = %v, want an error saying %q", spec, err, msg)
		}
	}
}

func TestSweepOnSample(t *testing.T) {
	ix, _ := sampleIndex(t)
	sig, _ := searchers(t)
	qs, err := Sample(ix, 60, 5)
	if err != nil {
		t.Fatal(err)
	}
	var w Workload
	w.Add(sig, qs, "sample")
	w.Add(sig, []string{"python exception", `"standard library"`, "lambda -python", "pyth*", "whale OR ship", "zzzzqqq"}, "hand.txt")
	sets, err := ParseSweep("density=0.1,snr=10,list=0; density=0.2,snr=10,list=0; density=0.3,snr=10,list=0; density=0.2,snr=5,list=1/64; order=shuffled")
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := tempDir()
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunSweep(context.Background(), ix.Dir(), w, sets, SweepOptions{Options: Options{Reps: 1}, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("the sweep left %d entries in its temporary directory", len(ents))
	}
	sw := r.Sweep
	// The defaults are measured first, as they are not among the sets.
	if len(sw.Points) != 6 || !sw.Points[0].Default || sw.Points[0].Params.Index() != index.DefaultParams || sw.Points[0].Params.Order != "" {
		t.Fatalf("%d points, the first %+v", len(sw.Points), sw.Points[0])
	}
	for i, p := range sw.Points[1:] {
		if p.Default || p.Params.Index() != sets[i].Params || p.Label != SetLabel(sets[i]) || (p.Params.Order != "") != (sets[i].Order != segment.OrderKept) {
			t.Fatalf("point %d is %+v, want set %+v", i+1, p, sets[i])
		}
	}
	if r.Queries.Total != len(w.Queries) || sw.Postings != r.Index.Postings || sw.Postings == 0 || sw.PostingsBytes <= 0 {
		t.Fatalf("sweep of %d queries, %d postings (index %d), %d postings bytes", r.Queries.Total, sw.Postings, r.Index.Postings, sw.PostingsBytes)
	}
	for _, p := range sw.Points {
		if !p.Equality.OK() || p.Equality.Queries != len(w.Queries) {
			t.Fatalf("%s: equality %+v", p.Label, p.Equality)
		}
		if p.SignatureBytes != p.RowBytes+p.ListBytes || p.RowBytes <= 0 {
			t.Fatalf("%s: %d signature bytes = %d rows + %d lists", p.Label, p.SignatureBytes, p.RowBytes, p.ListBytes)
		}
		if (p.Params.ListDensity > 0) != (p.Lists > 0) || (p.Lists > 0) != (p.ListBytes > 0) {
			t.Fatalf("%s: %d lists of %d bytes", p.Label, p.Lists, p.ListBytes)
		}
		if bits := float64(8*p.SignatureBytes) / float64(sw.Postings); math.Abs(bits-p.BitsPerPosting) > 1e-9*bits {
			t.Fatalf("%s: %.4f bits per posting, bytes say %.4f", p.Label, p.BitsPerPosting, bits)
		}
		if p.Params.Order == "" && p.PostingsBytes != sw.PostingsBytes {
			t.Fatalf("%s: %d postings bytes in indexing order, the sweep says %d", p.Label, p.PostingsBytes, sw.PostingsBytes)
		}
		if ratio := float64(p.SignatureBytes) / float64(p.PostingsBytes); ratio != p.PostingsRatio {
			t.Fatalf("%s: ratio to postings %v, want %v", p.Label, p.PostingsRatio, ratio)
		}
		q := p.Quality
		if q.Queries != len(w.Queries) || q.Candidates < q.Hits || q.FPRate < 0 || q.FPRate >= 1 {
			t.Fatalf("%s: quality %+v", p.Label, q)
		}
		if len(p.Sources) != 2 || p.Sources[0].Class != "sample" || p.Sources[1].Class != "hand.txt" || p.Sources[0].Queries+p.Sources[1].Queries != q.Queries {
			t.Fatalf("%s: quality by source %+v", p.Label, p.Sources)
		}
		for _, l := range []SweepLatency{p.Match, p.Top10} {
			if l.Signature.N != len(w.Queries) || l.Inverted.N != len(w.Queries) || l.Signature.P50 <= 0 || l.Inverted.P50 <= 0 || l.Ratio != l.Signature.P50/l.Inverted.P50 {
				t.Fatalf("%s: latency %+v", p.Label, l)
			}
		}
		if p.ResealSeconds <= 0 {
			t.Fatalf("%s: reseal took %v s", p.Label, p.ResealSeconds)
		}
	}
	// With lists off, denser shared rows are fewer bits per posting: fewer,
	// longer... a term needs more rows at a higher density, but each costs
	// less (k/d falls), and more terms are shared instead of private.
	// (From some density on, rows sized so that no document fills more
	// than ln 2 of them stop shrinking: only the first step must.)
	d1, d2, d3 := sw.Points[1], sw.Points[2], sw.Points[3]
	if !(d1.BitsPerPosting > d2.BitsPerPosting && d1.BitsPerPosting > d3.BitsPerPosting) {
		t.Errorf("bits per posting at densities 0.1, 0.2, 0.3: %.2f, %.2f, %.2f", d1.BitsPerPosting, d2.BitsPerPosting, d3.BitsPerPosting)
	}
	if !(d1.PrivateRows > d2.PrivateRows && d2.PrivateRows > d3.PrivateRows) {
		t.Errorf("private rows at densities 0.1, 0.2, 0.3: %d, %d, %d", d1.PrivateRows, d2.PrivateRows, d3.PrivateRows)
	}
	// Lists take the rare terms out of the shared rows: the filter admits
	// no more false positives per candidate than the same rows without them.
	if d2.Lists != 0 || sw.Points[4].Lists == 0 {
		t.Errorf("lists: %d without, %d with", d2.Lists, sw.Points[4].Lists)
	}

	var text, page, js bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bitsieve bench --sweep", "bits/posting", "×roaring", "FP sample", "FP hand", "d 0.2 snr 30 list 1/256 *", "d 0.3 snr 10 list 0", "equal"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("sweep table lacks %q:\n%s", want, text.String())
		}
	}
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	h := page.String()
	if n := strings.Count(h, "<svg"); n != 2 {
		t.Errorf("sweep page has %d charts, want 2", n)
	}
	for _, want := range []string{"d 0.2 snr 5 list 1/64", "(default)", "FP ", "bits per posting", `class="default"`} {
		if !strings.Contains(h, want) {
			t.Errorf("sweep page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://", "Bandwidth: streaming"} {
		if strings.Contains(strings.ReplaceAll(h, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("sweep page contains %q", bad)
		}
	}
	if err := jsonEncode(&js, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(&js)
	if err != nil {
		t.Fatal(err)
	}
	if back.Sweep == nil || len(back.Sweep.Points) != 6 || back.Sweep.Points[5].Params != sw.Points[5].Params || !back.SweepOK() {
		t.Fatal("the sweep does not survive JSON")
	}
}
