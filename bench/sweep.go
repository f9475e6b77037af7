package bench

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/query"
)

// A sweep measures what the signature parameters (index.Params) cost and
// buy. For each parameter set, the benchmark index is resealed into a
// temporary directory (index.Reseal: the same segments and documents, every
// segment rebuilt with the set's parameters), the inverted baseline's
// postings are built over it in memory, and the run's workload goes through
// both engines as in Run, restricted to its equality pass and its
// single-threaded latency runs (Options.LatencyOnly). Each set is thus
// compared with the inverted engine in the same interleaved runs, on the
// same queries; the inverted engine's structure is the same for every set
// that keeps the documents' order.

// Sweep is the result of RunSweep.
type Sweep struct {
	Source string `json:"source"` // the index every set was resealed from
	// PostingsBytes is the inverted engine's roaring bitmaps (without their
	// offsets) over the documents in indexing order, the same for every set
	// in that order; Postings is Σ df.
	PostingsBytes int64        `json:"postings_bytes"`
	Postings      int64        `json:"postings"`
	Points        []SweepPoint `json:"points"`
}

// SweepSet is one set of a sweep: signature parameters, and the order of
// documents within segments.
type SweepSet struct {
	Params index.Params
	Order  segment.DocOrder
}

// defaultSet is the index as the writer builds it by default.
var defaultSet = SweepSet{Params: index.DefaultParams}

// SweepParams are the parameters of one set, as index.Params, with the
// document order when it is not the one the documents were indexed in.
type SweepParams struct {
	Density     float64 `json:"density"`
	SNR         float64 `json:"snr"`
	KMin        int     `json:"kmin"`
	KMax        int     `json:"kmax"`
	ListDensity float64 `json:"list_density"`
	Rank        int     `json:"rank"`
	PairK       int     `json:"pair_k"`
	Order       string  `json:"order,omitempty"`
}

// Index converts p to index.Params.
func (p SweepParams) Index() index.Params {
	return index.Params{Density: p.Density, SNR: p.SNR, KMin: p.KMin, KMax: p.KMax, ListDensity: p.ListDensity, Rank: p.Rank, PairK: p.PairK}
}

func sweepParams(set SweepSet) SweepParams {
	p := set.Params
	sp := SweepParams{Density: p.Density, SNR: p.SNR, KMin: p.KMin, KMax: p.KMax, ListDensity: p.ListDensity, Rank: p.Rank, PairK: p.PairK}
	if set.Order != segment.OrderKept {
		sp.Order = set.Order.String()
	}
	return sp
}

// SweepPoint is what one parameter set measured.
type SweepPoint struct {
	Label   string      `json:"label"`
	Params  SweepParams `json:"params"`
	Default bool        `json:"default,omitempty"` // the set is index.DefaultParams, documents in indexing order

	ResealSeconds float64 `json:"reseal_seconds"`
	// The signature's own structure: term rows (the live row excluded) and
	// the lists section (plain or chunked lists); SignatureBytes is their sum.
	RowBytes       int64   `json:"row_bytes"`
	ListBytes      int64   `json:"list_bytes"`
	SignatureBytes int64   `json:"signature_bytes"`
	BitsPerPosting float64 `json:"bits_per_posting"`
	PostingsBytes  int64   `json:"postings_bytes"` // the roaring bitmaps over this set's document order
	PostingsRatio  float64 `json:"postings_ratio"` // SignatureBytes / PostingsBytes
	PrivateRows    int     `json:"private_rows"`
	SharedRows     int     `json:"shared_rows"`
	Lists          int     `json:"lists"` // terms stored as lists, over all segments

	// Quality over all queries, and per query source (Class is the
	// source's name).
	Quality Quality   `json:"quality"`
	Sources []Quality `json:"sources"`

	Match    SweepLatency `json:"match"`
	Top10    SweepLatency `json:"top10"`
	Equality Equality     `json:"equality"`
}

// SweepLatency is one mode's single-threaded latency over all queries, both
// engines from the same interleaved runs.
type SweepLatency struct {
	Signature Summary `json:"signature"`
	Inverted  Summary `json:"inverted"`
	Ratio     float64 `json:"p50_ratio"` // signature p50 / inverted p50
}

// SweepOptions configure RunSweep.
type SweepOptions struct {
	Options // of each set's run (LatencyOnly is implied)
	// TempDir is where the resealed indexes are written, one at a time;
	// default: beside the source index, else os.TempDir().
	TempDir string
}

// RunSweep reseals the index in src with each parameter set in turn and
// benchmarks both engines on it with the workload w (classified on src: a
// reseal changes no document frequency). The default parameters are
// measured too, first, if no set equals them. The report holds the
// machine, the workload's sources and the sweep; engines that disagree on
// any query are reported in the points' Equality, not as an error.
func RunSweep(ctx context.Context, src string, w Workload, sets []SweepSet, opt SweepOptions) (*Report, error) {
	opt.defaults()
	opt.LatencyOnly = true
	hasDefault := false
	for _, set := range sets {
		if err := set.Params.Validate(); err != nil {
			return nil, err
		}
		hasDefault = hasDefault || set == defaultSet
	}
	if !hasDefault {
		sets = append([]SweepSet{defaultSet}, sets...)
	}
	parent := opt.TempDir
	if parent == "" {
		parent = filepath.Dir(filepath.Clean(src))
	}
	tmp, err := os.MkdirTemp(parent, ".bitsieve-sweep-")
	if err != nil && opt.TempDir == "" {
		tmp, err = os.MkdirTemp("", "bitsieve-sweep-")
	}
	if err != nil {
		return nil, fmt.Errorf("sweep: a directory for the resealed indexes: %w", err)
	}
	defer os.RemoveAll(tmp)

	r := &Report{Version: 1, Started: time.Now(), Machine: ThisMachine(), Reps: opt.Reps, Limit: opt.Limit, Threads: []int{1}}
	r.Sweep = &Sweep{Source: src}
	say := func(format string, a ...any) {
		if opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "sweep: "+format+"\n", a...)
		}
	}
	for i, p := range sets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		label := SetLabel(p)
		say("set %d of %d: %s", i+1, len(sets), label)
		dir := filepath.Join(tmp, strconv.Itoa(i+1))
		pt, run, err := sweepOne(ctx, src, dir, p, w, opt.Options)
		os.RemoveAll(dir)
		if err != nil {
			return nil, fmt.Errorf("sweep, %s: %w", label, err)
		}
		say("set %d: %.2f bits per posting, %.2f%% false positives, match p50 %s against %s µs, %s",
			i+1, pt.BitsPerPosting, 100*pt.Quality.FPRate, us(pt.Match.Signature.P50), us(pt.Match.Inverted.P50), equalityWord(pt.Equality))
		// Roaring's size depends on document order too: each set is
		// compared with the postings over its own layout.
		if pt.PostingsBytes = run.Size.Component(CompPostings); pt.PostingsBytes > 0 {
			pt.PostingsRatio = float64(pt.SignatureBytes) / float64(pt.PostingsBytes)
		}
		r.Sweep.Points = append(r.Sweep.Points, pt)
		if i == 0 {
			r.Index, r.Queries = run.Index, run.Queries
			r.Sweep.Postings = run.Index.Postings
			r.Sweep.PostingsBytes = pt.PostingsBytes
		}
	}
	r.Index.Dir = src
	r.LoadAverage = loadAverage()
	r.Seconds = time.Since(r.Started).Seconds()
	return r, nil
}

// sweepOne reseals src into dir with set and runs the workload on it.
func sweepOne(ctx context.Context, src, dir string, set SweepSet, w Workload, opt Options) (SweepPoint, *Report, error) {
	pt := SweepPoint{Label: SetLabel(set), Params: sweepParams(set), Default: set == defaultSet}
	start := time.Now()
	if err := index.Reseal(src, dir, set.Params, index.ResealOptions{Order: set.Order, Seed: 1}); err != nil {
		return pt, nil, err
	}
	pt.ResealSeconds = time.Since(start).Seconds()
	ix, err := index.Open(dir)
	if err != nil {
		return pt, nil, err
	}
	defer ix.Close()
	post, err := inverted.Build(ix, inverted.BuildOptions{})
	if err != nil {
		return pt, nil, err
	}
	defer post.Close()
	sig, err := query.NewSearcher(ix)
	if err != nil {
		return pt, nil, err
	}
	inv, err := inverted.NewSearcher(ix, post)
	if err != nil {
		return pt, nil, err
	}
	opt.LatencyOnly = true
	run, err := Run(ctx, sig, inv, w, opt)
	if err != nil {
		return pt, nil, err
	}
	run.Size = Sizes(ix, post)

	st := ix.Stats()
	pt.RowBytes, pt.ListBytes = st.RowBits/8, st.ListBits/8
	pt.SignatureBytes = pt.RowBytes + pt.ListBytes
	pt.BitsPerPosting = st.BitsPerPost
	for _, s := range st.Segments {
		pt.PrivateRows += s.PrivateRows
		pt.SharedRows += s.SharedRows
		pt.Lists += s.Lists
	}
	pt.Quality = run.QualityOf(Overall)
	pt.Sources = run.QualityBySource
	pt.Match = sweepLatency(run, ModeMatch)
	pt.Top10 = sweepLatency(run, ModeTop10)
	pt.Equality = run.Equality
	return pt, run, nil
}

func sweepLatency(r *Report, mode string) SweepLatency {
	l := SweepLatency{Signature: r.LatencyOf(mode, 1, Overall, Signature), Inverted: r.LatencyOf(mode, 1, Overall, Inverted)}
	if l.Inverted.P50 > 0 {
		l.Ratio = l.Signature.P50 / l.Inverted.P50
	}
	return l
}

func equalityWord(e Equality) string {
	if e.OK() {
		return "answers equal"
	}
	return fmt.Sprintf("%d of %d queries DIFFERENT", e.Different, e.Queries)
}

// SweepOK reports whether every set of a sweep gave equal answers in both
// engines (true when the report holds no sweep).
func (r *Report) SweepOK() bool {
	if r.Sweep == nil {
		return true
	}
	for _, p := range r.Sweep.Points {
		if !p.Equality.OK() {
			return false
		}
	}
	return true
}

// sweepKeys are the parameter names of a sweep specification.
const sweepKeys = "density, snr, list, rank, kmin, kmax, pairs, order"

// ParseSweep reads a sweep specification: parameter sets separated by ";",
// each a comma-separated list of key=value pairs,
//
//	density=0.1,snr=10,list=0; density=0.2,snr=5,list=1/64
//
// with keys density (the target row density), snr, list (the list density;
// 0: no lists), kmin and kmax, whose values are decimal numbers or fractions
// such as 1/64, and order (kept, shuffled or minhash: the order of documents
// within segments; segment.DocOrder). A key left out takes its value from
// index.DefaultParams and the kept order; the set "default" is the index as
// the writer builds it.
func ParseSweep(spec string) ([]SweepSet, error) {
	var sets []SweepSet
	parts := strings.Split(spec, ";")
	for i, part := range parts {
		part = strings.TrimSpace(part)
		if part == "" {
			if i == len(parts)-1 && i > 0 {
				continue // a trailing ";"
			}
			return nil, fmt.Errorf("sweep set %d is empty (sets are separated by \";\", e.g. 'density=0.1,snr=10;density=0.2')", i+1)
		}
		p, err := parseSweepSet(part)
		if err != nil {
			return nil, fmt.Errorf("sweep set %d (%q): %w", i+1, part, err)
		}
		for j, q := range sets {
			if q == p {
				return nil, fmt.Errorf("sweep set %d (%q) repeats set %d", i+1, part, j+1)
			}
		}
		sets = append(sets, p)
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("the sweep names no parameter set")
	}
	return sets, nil
}

func parseSweepSet(s string) (SweepSet, error) {
	set := defaultSet
	if s == "default" {
		return set, nil
	}
	p := &set.Params
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return set, fmt.Errorf("%q is not key=value (keys: %s)", kv, sweepKeys)
		}
		name := k
		switch k {
		case "d", "density":
			name = "density"
		case "list", "list-density", "list_density":
			name = "list"
		case "pairs", "pair-rows", "pair_k":
			name = "pairs"
		}
		if seen[name] {
			return set, fmt.Errorf("%s is given twice", name)
		}
		seen[name] = true
		if name == "order" {
			o, err := segment.ParseDocOrder(v)
			if err != nil {
				return set, err
			}
			set.Order = o
			continue
		}
		x, err := parseNumber(v)
		if err != nil {
			return set, fmt.Errorf("%s: %w", k, err)
		}
		switch name {
		case "density":
			p.Density = x
		case "snr":
			p.SNR = x
		case "list":
			p.ListDensity = x
		case "rank":
			if x != math.Trunc(x) {
				return set, fmt.Errorf("rank: %q is not a whole number", v)
			}
			p.Rank = int(x)
		case "pairs":
			if x != math.Trunc(x) || x < 0 {
				return set, fmt.Errorf("pairs: %q is not a whole number of rows", v)
			}
			p.PairK = int(x)
		case "kmin", "kmax":
			if x != math.Trunc(x) || x < 0 || x > 64 {
				return set, fmt.Errorf("%s: %q is not a whole number of rows", k, v)
			}
			if name == "kmin" {
				p.KMin = int(x)
			} else {
				p.KMax = int(x)
			}
		default:
			return set, fmt.Errorf("unknown parameter %q (keys: %s)", k, sweepKeys)
		}
	}
	if err := p.Validate(); err != nil {
		return set, err
	}
	return set, nil
}

// parseNumber reads a decimal number or a fraction a/b.
func parseNumber(s string) (float64, error) {
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil || y == 0 || math.IsInf(x, 0) || math.IsNaN(x) || math.IsInf(y, 0) || math.IsNaN(y) {
			return 0, fmt.Errorf("%q is not a number or a fraction such as 1/64", s)
		}
		return x / y, nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, fmt.Errorf("%q is not a number or a fraction such as 1/64", s)
	}
	return x, nil
}

// SetLabel names a sweep set in reports: its ParamsLabel, and the document
// order when it is not the kept one.
func SetLabel(set SweepSet) string {
	if set.Order != segment.OrderKept {
		return ParamsLabel(set.Params) + " " + set.Order.String()
	}
	return ParamsLabel(set.Params)
}

// ParamsLabel names a parameter set in reports: "d 0.2 snr 30 list 1/256",
// with kmin, kmax and the rank when they are not the defaults.
func ParamsLabel(p index.Params) string {
	s := fmt.Sprintf("d %s snr %s list %s", strconv.FormatFloat(p.Density, 'g', 4, 64), strconv.FormatFloat(p.SNR, 'g', 4, 64), fraction(p.ListDensity))
	if p.KMin != index.DefaultParams.KMin || p.KMax != index.DefaultParams.KMax {
		s += fmt.Sprintf(" k %d–%d", p.KMin, p.KMax)
	}
	if p.Rank != index.DefaultParams.Rank {
		s += fmt.Sprintf(" rank %d", p.Rank)
	}
	return s
}

// fraction writes x as 1/n when it is one, else as a decimal.
func fraction(x float64) string {
	if x > 0 && x < 1 {
		if n := math.Round(1 / x); n == 1/x {
			return fmt.Sprintf("1/%.0f", n)
		}
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// writeSweepText writes a sweep's report as a table for a terminal.
func (r *Report) writeSweepText(w io.Writer) {
	sw := r.Sweep
	m := r.Machine
	fmt.Fprintf(w, "bitsieve bench --sweep: %s\n", sw.Source)
	fmt.Fprintf(w, "  %s documents in %d segments, %s postings; roaring postings %s (%.2f bits per posting) in indexing order\n",
		commas(int64(r.Index.Documents)), r.Index.Segments, commas(sw.Postings), HumanBytes(sw.PostingsBytes), sw.invBits())
	fmt.Fprintf(w, "  machine: %s, %d cores (GOMAXPROCS %d), %s RAM; %s %s\n", orUnknown(m.CPU), m.Cores, m.GOMAXPROCS, HumanBytes(m.MemoryBytes), m.Go, m.OS)
	if m.Revision != "" {
		fmt.Fprintf(w, "  bitsieve built from revision %s\n", m.Revision)
	}
	var src []string
	for _, s := range r.Queries.Sources {
		src = append(src, fmt.Sprintf("%s %s", s.Name, commas(int64(s.Queries))))
	}
	fmt.Fprintf(w, "  queries: %s per set (%s); each through both engines interleaved, %d run(s) each, 1 thread; latency is a query's median\n\n",
		commas(int64(r.Queries.Total)), strings.Join(src, ", "), r.Reps)
	head, rows := r.sweepTable()
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "(* the default parameters. sig bytes: rows + lists; ×roaring: sig bytes / roaring postings bytes;")
	fmt.Fprintln(w, " FP: false positives / candidates; p50 in µs, ratio: signature p50 / inverted p50 in the same runs)")
	for _, p := range sw.Points {
		for _, d := range p.Equality.Differences {
			fmt.Fprintf(w, "  DIFFERENT with %s: %q (%s): %s\n", p.Label, d.Query, d.Source, d.Detail)
		}
	}
	fmt.Fprintf(w, "run took %.1f s; load average at its end %s (1, 5, 15 min; %d cores)\n", r.Seconds, r.LoadAverage, r.Machine.Cores)
}

func (sw *Sweep) invBits() float64 {
	if sw.Postings == 0 {
		return 0
	}
	return float64(sw.PostingsBytes*8) / float64(sw.Postings)
}

// sweepTable is the sweep as a table: one row per set.
func (r *Report) sweepTable() (head []string, rows [][]string) {
	sw := r.Sweep
	head = []string{"set", "sig bytes", "bits/posting", "×roaring", "lists", "FP all"}
	var sources []string
	for _, s := range r.Queries.Sources {
		if s.Queries > 0 {
			sources = append(sources, s.Name)
			head = append(head, "FP "+strings.TrimSuffix(s.Name, ".txt"))
		}
	}
	head = append(head, "match p50", "inv", "ratio", "top-10 p50", "inv", "ratio", "answers", "reseal")
	for _, p := range sw.Points {
		label := p.Label
		if p.Default {
			label += " *"
		}
		row := []string{label, HumanBytes(p.SignatureBytes), fmt.Sprintf("%.2f", p.BitsPerPosting), fmt.Sprintf("%.2f", p.PostingsRatio),
			commas(int64(p.Lists)), pct(p.Quality.FPRate)}
		for _, name := range sources {
			cell := "—"
			for _, q := range p.Sources {
				if q.Class == name {
					cell = pct(q.FPRate)
				}
			}
			row = append(row, cell)
		}
		eq := "equal"
		if !p.Equality.OK() {
			eq = fmt.Sprintf("%d DIFFERENT", p.Equality.Different)
		}
		row = append(row, us(p.Match.Signature.P50), us(p.Match.Inverted.P50), fmt.Sprintf("%.2f", p.Match.Ratio),
			us(p.Top10.Signature.P50), us(p.Top10.Inverted.P50), fmt.Sprintf("%.2f", p.Top10.Ratio), eq, fmt.Sprintf("%.1f s", p.ResealSeconds))
		rows = append(rows, row)
	}
	return head, rows
}

func pct(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// sweepHTMLData lays out a sweep's report for the HTML page.
func (r *Report) sweepHTMLData() htmlData {
	sw := r.Sweep
	d := htmlData{R: r, Title: "bitsieve bench --sweep: " + sw.Source, OK: r.SweepOK()}
	d.Summary = append([]string{
		fmt.Sprintf("%s documents in %d segments, %s postings; the inverted engine's roaring postings take %s (%.2f bits per posting) for every set that keeps the documents' order.",
			commas(int64(r.Index.Documents)), r.Index.Segments, commas(sw.Postings), HumanBytes(sw.PostingsBytes), sw.invBits()),
	}, r.Machine.summary()...)
	var src []string
	for _, s := range r.Queries.Sources {
		src = append(src, fmt.Sprintf("%s (%s)", s.Name, commas(int64(s.Queries))))
	}
	d.Summary = append(d.Summary, fmt.Sprintf("Queries: %s per parameter set: %s.", commas(int64(r.Queries.Total)), strings.Join(src, ", ")))
	if r.Command != "" {
		d.Summary = append(d.Summary, "Command: "+r.Command)
	}
	d.Summary = append(d.Summary, fmt.Sprintf("Run started %s and took %.0f s; load average at its end %s (1, 5, 15 min).", r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Seconds, r.LoadAverage))
	equal := 0
	for _, p := range sw.Points {
		if p.Equality.OK() {
			equal++
		}
		for _, diff := range p.Equality.Differences {
			diff.Detail = p.Label + ": " + diff.Detail
			d.Diffs = append(d.Diffs, diff)
		}
		d.More += p.Equality.Different - len(p.Equality.Differences)
	}
	d.Verdict = fmt.Sprintf("with %d of %d parameter sets, every query has identical match sets and first pages in both engines.", equal, len(sw.Points))

	for _, mode := range []string{ModeMatch, ModeTop10} {
		var pts []scatterPoint
		for _, p := range sw.Points {
			l := p.Match
			if mode == ModeTop10 {
				l = p.Top10
			}
			name := p.Label
			if p.Default {
				name += " (default)"
			}
			pts = append(pts, scatterPoint{x: p.BitsPerPosting, y: l.Ratio, mark: p.Default,
				label: []string{name, "FP " + pct(p.Quality.FPRate)},
				detail: fmt.Sprintf("%s: %.2f bits per posting, %s false positives, p50 %s µs against %s µs (×%.2f)",
					name, p.BitsPerPosting, pct(p.Quality.FPRate), us(l.Signature.P50), us(l.Inverted.P50), l.Ratio)})
		}
		what := "Match (exact set, counted)"
		if mode == ModeTop10 {
			what = fmt.Sprintf("Top-%d (BM25 with snippets)", r.Limit)
		}
		refs := []refLine{{at: 1, label: "inverted engine (ratio 1)"}}
		if b := sw.invBits(); b > 0 {
			refs = append(refs, refLine{vertical: true, at: b, label: fmt.Sprintf("roaring %.1f bits/posting", b)})
		}
		d.Charts = append(d.Charts, template.HTML(scatterChart(
			what+": size against speed, one point per parameter set",
			"signature bits per posting (rows + lists)", "p50 signature / p50 inverted, 1 thread",
			pts, refs, func(v float64) string { return fmt.Sprintf("%.0f", v) }, func(v float64) string { return fmt.Sprintf("%.2g", v) })))
	}

	head, rows := r.sweepTable()
	t := htmlTable{Title: "Parameter sets", Head: head,
		Note: "* the default parameters. sig bytes: rows + lists; ×roaring: sig bytes / roaring postings bytes; FP: false positives / candidates, over all queries and per query source; p50 in µs, single-threaded, ratio: signature p50 / inverted p50 in the same interleaved runs."}
	for i, row := range rows {
		hr := htmlRow{Cells: row}
		if sw.Points[i].Default {
			hr.Class = "default"
		}
		t.Rows = append(t.Rows, hr)
	}
	d.Tables = append(d.Tables, t)
	st := htmlTable{Title: "Structure and filter per set", Head: []string{"set", "rows", "lists", "private rows", "shared rows", "terms as lists", "candidates / query", "hits / query", "FP per doc", "match p95", "inv p95", "top-10 p95", "inv p95"}}
	for _, p := range sw.Points {
		st.Rows = append(st.Rows, htmlRow{Cells: []string{p.Label, HumanBytes(p.RowBytes), HumanBytes(p.ListBytes), commas(int64(p.PrivateRows)), commas(int64(p.SharedRows)), commas(int64(p.Lists)),
			fmt.Sprintf("%.1f", p.Quality.Candidates), fmt.Sprintf("%.1f", p.Quality.Hits), fmt.Sprintf("%.2g", p.Quality.FPPerDoc),
			us(p.Match.Signature.P95), us(p.Match.Inverted.P95), us(p.Top10.Signature.P95), us(p.Top10.Inverted.P95)}})
	}
	d.Tables = append(d.Tables, st)
	d.Method = []string{
		"For each parameter set, the benchmark index is resealed into a temporary directory (index.Reseal): the same segments with the same documents, in the same order unless the set names another, every segment rebuilt from its forward index and stored text with the set's parameters. The inverted engine's postings are then built over it in memory; they are the same for every set that keeps the order, and each set's size ratio is to the postings over its own order.",
		fmt.Sprintf("Each set runs the same workload: an untimed pass checks that both engines give every query the same full match set and first page, and counts the signature's candidates and hits; after a warm-up pass, every query runs through the signature engine, then the inverted engine, %d times, single-threaded; its latency is the median of its runs. The ratio divides the signature engine's p50 by the inverted engine's p50 of the same runs, so load from elsewhere falls on both.", r.Reps),
		"Bits per posting divide the signature's own structure (term rows without the live row, plus list entries of 16 bits) by Σ df. FP is the share of candidates that verification rejected.",
	}
	return d
}
