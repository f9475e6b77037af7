package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/query"
)

func TestPercentiles(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(100 - i) // 1..100, unsorted
	}
	s := Summarize(xs)
	if s.N != 100 || s.P50 != 50 || s.P95 != 95 || s.P99 != 99 || s.Mean != 50.5 {
		t.Fatalf("summary of 1..100: %+v", s)
	}
	if s := Summarize([]float64{7}); s.P50 != 7 || s.P99 != 7 || s.Mean != 7 {
		t.Fatalf("summary of one value: %+v", s)
	}
	if s := Summarize(nil); s != (Summary{}) {
		t.Fatalf("summary of nothing: %+v", s)
	}
}

func TestClasses(t *testing.T) {
	for df, want := range map[int]string{0: "df 0", 1: "df 1–9", 9: "df 1–9", 10: "df 10–99", 999: "df 100–999", 1000: "df 1k–9.9k", 9999: "df 1k–9.9k", 10000: "df ≥10k", 1 << 30: "df ≥10k"} {
		if got := (Query{MinDF: df}).DFClass(); got != want {
			t.Errorf("df %d: class %q, want %q", df, got, want)
		}
	}
	for n, want := range map[int]string{1: "1 term", 2: "2 terms", 4: "4 terms", 5: "5+ terms", 9: "5+ terms"} {
		if got := (Query{Terms: n}).TermsClass(); got != want {
			t.Errorf("%d terms: class %q, want %q", n, got, want)
		}
	}
}

var (
	sampleOnce sync.Once
	sampleIx   *index.Index
	samplePost *inverted.Index
	sampleErr  error
)

// sampleIndex indexes the embedded sample corpus once for the package's
// tests, with postings kept in memory.
func sampleIndex(t testing.TB) (*index.Index, *inverted.Index) {
	sampleOnce.Do(func() {
		dir, err := tempDir()
		if err != nil {
			sampleErr = err
			return
		}
		w, err := index.Create(dir, index.WriterOptions{})
		if err != nil {
			sampleErr = err
			return
		}
		if _, err := corpus.Sample(func(d corpus.Document) error { return w.Add(index.Document(d)) }); err != nil {
			sampleErr = err
			return
		}
		if _, err := w.Commit(); err != nil {
			sampleErr = err
			return
		}
		if sampleIx, sampleErr = index.Open(dir); sampleErr != nil {
			return
		}
		samplePost, sampleErr = inverted.Build(sampleIx, inverted.BuildOptions{})
	})
	if sampleErr != nil {
		t.Fatal(sampleErr)
	}
	return sampleIx, samplePost
}

func searchers(t testing.TB) (*query.Searcher, *query.Searcher) {
	ix, post := sampleIndex(t)
	sig, err := query.NewSearcher(ix)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := inverted.NewSearcher(ix, post)
	if err != nil {
		t.Fatal(err)
	}
	return sig, inv
}

func TestSampleIsDeterministicStratifiedAndMatches(t *testing.T) {
	ix, _ := sampleIndex(t)
	sig, _ := searchers(t)
	a, err := Sample(ix, 150, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Sample(ix, 150, 7)
	c, _ := Sample(ix, 150, 8)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatal("the same seed drew different queries")
	}
	if strings.Join(a, "\n") == strings.Join(c, "\n") {
		t.Fatal("different seeds drew the same queries")
	}
	if len(a) < 140 {
		t.Fatalf("drew %d of 150 queries", len(a))
	}
	var w Workload
	w.Add(sig, a, "sample")
	if len(w.Refused) > 0 {
		t.Fatalf("sampled queries refused: %+v", w.Refused)
	}
	classes := map[string]int{}
	sizes := map[int]int{}
	for _, q := range w.Queries {
		classes[q.DFClass()]++
		sizes[q.Terms]++
		res, err := sig.Search(context.Background(), query.Request{Query: q.Text, CountOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total == 0 {
			t.Fatalf("sampled query %q matches nothing", q.Text)
		}
	}
	// The sample has 6,206 documents: every class up to 1k–9.9k is drawn,
	// about evenly, and 1 to 4 words.
	for _, c := range DFClasses[1:5] {
		if classes[c] < 20 {
			t.Errorf("class %s: %d queries (%v)", c, classes[c], classes)
		}
	}
	for n := 1; n <= 4; n++ {
		if sizes[n] == 0 {
			t.Errorf("no query of %d terms (%v)", n, sizes)
		}
	}
	if sizes[5] > 0 {
		t.Errorf("queries of more than 4 terms: %v", sizes)
	}
}

func TestRunReportsEqualityAndRenders(t *testing.T) {
	ix, post := sampleIndex(t)
	sig, inv := searchers(t)
	qs, err := Sample(ix, 40, 3)
	if err != nil {
		t.Fatal(err)
	}
	var w Workload
	w.Add(sig, qs, "sample")
	w.Add(sig, []string{"python exception", `"standard library"`, "lambda -python", "pyth*", "the of and", "zzzzqqq"}, "hand")
	if len(w.Refused) != 1 || w.Refused[0].Query != "the of and" {
		t.Fatalf("refused %+v, want the query of stop words", w.Refused)
	}
	r, err := Run(context.Background(), sig, inv, w, Options{Reps: 1, QPSPasses: 1, QPSThreads: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Equality.OK() || r.Equality.Queries != len(w.Queries) {
		t.Fatalf("equality %+v", r.Equality)
	}
	if r.Queries.Total != len(w.Queries) {
		t.Fatalf("%d queries run, want %d", r.Queries.Total, len(w.Queries))
	}
	if s := r.LatencyOf(ModeMatch, 1, Overall, Inverted); s.N != len(w.Queries) || s.P50 <= 0 || s.P99 < s.P50 {
		t.Fatalf("overall match latency %+v", s)
	}
	if q := r.QualityOf(Overall); q.Queries != len(w.Queries) || q.Candidates < q.Hits || q.RowBlocks <= 0 {
		t.Fatalf("quality %+v", q)
	}
	r.Size = Sizes(ix, post)
	segBytes := ix.Stats().Sections["lexicon"] // the index: its segment files and lexicon
	for _, s := range ix.Segments() {
		segBytes += s.FileBytes()
	}
	if r.Size.SignatureBytes != segBytes {
		t.Fatalf("signature size %d, index files %d", r.Size.SignatureBytes, segBytes)
	}
	if r.Size.InvertedBytes != segBytes-r.Size.Component(CompRows)-r.Size.Component(CompRowStats)-r.Size.Component(CompLists)-r.Size.Component(CompFreqs)-r.Size.Component(CompFalsePos)+post.FileBytes() {
		t.Fatalf("inverted size %d does not add up", r.Size.InvertedBytes)
	}

	var text, page, js bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"equality: OK", "latency µs, match", "signature rows", "roaring postings", "bits per posting", "streaming AND probe"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}
	if err := r.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	h := page.String()
	if n := strings.Count(h, "<svg"); n < 5 {
		t.Errorf("HTML report has %d charts", n)
	}
	for _, bad := range []string{"<script", "http://", "https://"} {
		if strings.Contains(strings.ReplaceAll(h, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("HTML report contains %q: it must be self-contained", bad)
		}
	}
	if err := jsonEncode(&js, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(&js)
	if err != nil {
		t.Fatal(err)
	}
	if back.Equality.Identical != r.Equality.Identical || len(back.Latency) != len(r.Latency) {
		t.Fatal("report does not survive JSON")
	}
}

func TestSetDiffNamesDocuments(t *testing.T) {
	ix, _ := sampleIndex(t)
	sig, _ := searchers(t)
	n := len(ix.Segments())
	a := &query.Matches{Docs: make([][]uint32, n), Total: 3}
	b := &query.Matches{Docs: make([][]uint32, n), Total: 3}
	a.Docs[0] = []uint32{1, 2, 5}
	b.Docs[0] = []uint32{1, 2, 5}
	if d := setDiff(sig, a, b); d != "" {
		t.Fatalf("equal sets differ: %s", d)
	}
	b.Docs[0] = []uint32{1, 3, 5}
	d := setDiff(sig, a, b)
	seg := ix.Segments()[0]
	if !strings.Contains(d, seg.DocKey(2)) || !strings.Contains(d, seg.DocKey(3)) {
		t.Fatalf("difference %q does not name the documents", d)
	}
}

func TestProbeAndStream(t *testing.T) {
	a := []uint64{1, 2, 4, 8, 16, 32, 64, 128, 0xff}
	b := []uint64{1, 0, 4, 0, 16, 0, 64, 0, 0xff}
	if got := andStream(a, b); got != 1|4|16|64 {
		t.Fatalf("andStream = %#x", got)
	}
	if g := streamGBps(1<<16, 2, 0); g <= 0 {
		t.Fatalf("probe measured %v GB/s", g)
	}
}

func TestBuildEstimates(t *testing.T) {
	b := Build{Measured: true, TextBytes: 100e6, IndexSeconds: 20, RowsSeconds: 2, PostingsSeconds: 3}
	b.Finish()
	if len(b.Engines) != 2 || b.Engines[0].MBps != 5 || b.Engines[1].Seconds != 21 || !b.Engines[1].Estimated {
		t.Fatalf("engines %+v", b.Engines)
	}
}

func TestTimePartsAndPostings(t *testing.T) {
	ix, _ := sampleIndex(t)
	var b Build
	if err := TimeParts(ix, 2, &b); err != nil {
		t.Fatal(err)
	}
	post, err := BuildPostings(ix, "", &b)
	if err != nil {
		t.Fatal(err)
	}
	defer post.Close()
	if b.Rounds != 2 || b.RowsSeconds <= 0 || b.PostingsSeconds <= 0 || b.PostingsWriteSeconds <= 0 {
		t.Fatalf("build %+v", b)
	}
}

var tempDirs []string

func tempDir() (string, error) {
	d, err := os.MkdirTemp("", "bitsieve-bench-test-")
	if err == nil {
		tempDirs = append(tempDirs, d)
	}
	return d, err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sampleIx != nil {
		samplePost.Close()
		sampleIx.Close()
	}
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func jsonEncode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }
