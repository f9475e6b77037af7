package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/query"
)

// Engine names, in the order every table shows them.
const (
	Signature = "signature"
	Inverted  = "inverted"
)

// Modes: "match" counts the exact set; "top10" ranks a page of hits with
// snippets.
const (
	ModeMatch = "match"
	ModeTop10 = "top10"
)

// Options configure Run. The zero value uses the defaults.
type Options struct {
	Reps       int       // timed runs per query, engine, mode and thread setting (default 3)
	Limit      int       // hits per page in top10 mode (default 10)
	QPSThreads []int     // client goroutines for throughput (default 1 and 2)
	QPSPasses  int       // throughput passes per engine, interleaved (default 3)
	MaxDiffs   int       // differences kept in the report (default 20)
	Progress   io.Writer // progress lines; nil: quiet

	// LatencyOnly runs the equality pass and the single-threaded latency
	// runs only: no all-cores runs, no throughput, no bandwidth probe (a
	// sweep's run per parameter set).
	LatencyOnly bool
}

func (o *Options) defaults() {
	if o.Reps <= 0 {
		o.Reps = 3
	}
	if o.Limit <= 0 {
		o.Limit = 10
	}
	if len(o.QPSThreads) == 0 {
		o.QPSThreads = []int{1, 2}
	}
	if o.QPSPasses <= 0 {
		o.QPSPasses = 3
	}
	if o.MaxDiffs <= 0 {
		o.MaxDiffs = 20
	}
}

// Report is everything a run measured.
type Report struct {
	Version int       `json:"version"`
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	Command string    `json:"command,omitempty"`
	Machine Machine   `json:"machine"`
	// LoadAverage is the machine's load average (1, 5 and 15 minutes) when
	// the run ended: what else ran beside it.
	LoadAverage string     `json:"load_average"`
	Index       IndexInfo  `json:"index"`
	Build       Build      `json:"build"`
	Size        Size       `json:"size"`
	Queries     QueryStats `json:"queries"`
	Reps        int        `json:"reps"`
	Limit       int        `json:"limit"`
	Threads     []int      `json:"threads"` // Searcher workers of the latency runs: 1 and all cores
	Latency     []Latency  `json:"latency"`
	QPS         []QPS      `json:"qps"`
	Quality     []Quality  `json:"quality"`
	// QualityBySource is the signature's quality per query source (the
	// query file, or "sample"); Class holds the source's name.
	QualityBySource []Quality `json:"quality_by_source,omitempty"`
	Bandwidth       Bandwidth `json:"bandwidth"`
	Equality        Equality  `json:"equality"`

	// Sweep is set by RunSweep, whose report holds the machine, the
	// benchmark index and the workload beside it, and no other measurement.
	Sweep *Sweep `json:"sweep,omitempty"`
}

// IndexInfo describes the benchmarked index.
type IndexInfo struct {
	Dir       string `json:"dir"`
	Documents int    `json:"documents"`
	Segments  int    `json:"segments"`
	Terms     int64  `json:"segment_terms"` // Σ over segments of dictionary sizes
	Postings  int64  `json:"postings"`
}

// QueryStats counts the workload.
type QueryStats struct {
	Total   int           `json:"total"` // queries run
	Sources []SourceCount `json:"sources"`
	Refused []Refused     `json:"refused,omitempty"` // queries bitsieve rejects (the first few)
}

// SourceCount is one query source.
type SourceCount struct {
	Name    string `json:"name"`
	Queries int    `json:"queries"`
	Refused int    `json:"refused"`
}

// Refused is a query the parser (or both engines alike) rejected.
type Refused struct {
	Query  string `json:"query"`
	Source string `json:"source"`
	Error  string `json:"error"`
}

// Latency summarizes one engine on one class of queries.
type Latency struct {
	Mode    string `json:"mode"`
	Threads int    `json:"threads"`
	Class   string `json:"class"`
	Engine  string `json:"engine"`
	Summary
}

// QPS is one engine's throughput.
type QPS struct {
	Mode    string  `json:"mode"`
	Threads int     `json:"threads"`
	Engine  string  `json:"engine"`
	QPS     float64 `json:"qps"`
}

// Quality describes the signature filter (and what the inverted engine
// read) on one class of queries; counts are means per query.
type Quality struct {
	Class          string  `json:"class"`
	Queries        int     `json:"queries"`
	Candidates     float64 `json:"candidates"`
	Hits           float64 `json:"hits"`
	FalsePositives float64 `json:"false_positives"`
	// FPRate is the share of candidates that verification rejected: Σ false
	// positives / Σ candidates.
	FPRate float64 `json:"fp_rate"`
	// FPPerDoc is the filter's false-positive probability per non-matching
	// document: Σ false positives / Σ (documents − hits).
	FPPerDoc      float64 `json:"fp_per_doc"`
	Rows          float64 `json:"rows"`       // rows the plans AND, over all segments
	RowBlocks     float64 `json:"row_blocks"` // 64-byte row blocks loaded, live row included
	RowBytes      float64 `json:"row_bytes"`  // RowBlocks × 64: bytes touched by the match stage
	PostingsBytes float64 `json:"postings_bytes"`
	MatchMicros   float64 `json:"match_us"` // signature match stage of ranked searches (planning, listing candidates), 1 thread
	GBps          float64 `json:"gb_s"`     // Σ RowBytes / Σ match stage time
}

// Equality is the check that both engines answer every query alike.
type Equality struct {
	Queries int `json:"queries"`
	// Identical counts queries whose full match sets are equal, segment by
	// segment; PagesIdentical those whose first pages (keys, order and
	// scores) are equal too.
	Identical      int          `json:"identical"`
	PagesIdentical int          `json:"pages_identical"`
	Differences    []Difference `json:"differences,omitempty"` // the first MaxDiffs
	Different      int          `json:"different"`
}

// OK reports whether every query had identical answers.
func (e Equality) OK() bool { return e.Identical == e.Queries && e.PagesIdentical == e.Queries }

// Share is the percentage of queries with identical match sets.
func (e Equality) Share() float64 {
	if e.Queries == 0 {
		return 100
	}
	return 100 * float64(e.Identical) / float64(e.Queries)
}

// Difference is one query the engines answered differently.
type Difference struct {
	Query  string `json:"query"`
	Source string `json:"source"`
	Detail string `json:"detail"`
}

// perQuery is what one query measured.
type perQuery struct {
	q       Query
	skip    bool // refused by both engines alike
	cands   int
	hits    int
	rows    int64
	blocks  int64
	postB   int64
	matchUs float64 // signature match stage of a ranked search, 1 thread, median
	// lat[mode][threads setting][engine], median of reps, µs
	lat [2][2][2]float64
}

// timingOrder returns the queries in the order their latencies are
// measured: shuffled, with a fixed seed. A class or a query file measured
// in a stretch of its own (the phrases of one file, then the words of the
// next) would see whatever the machine did meanwhile, and the ratio of two
// classes' percentiles, which a run is for, would move with it; spread
// through the run, every class sees the same bursts.
func timingOrder(live []*perQuery) []*perQuery {
	order := slices.Clone(live)
	r := rand.New(rand.NewPCG(1, 0x74696d65))
	r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}

// Run benchmarks sig against inv (two Searchers over the same index) on
// the workload's queries. It fills the report's query, latency,
// throughput, quality, bandwidth and equality parts; the caller adds the
// build and size parts. An error means the run could not be done; engines
// that disagree are reported in Equality, not as an error.
func Run(ctx context.Context, sig, inv *query.Searcher, w Workload, opt Options) (*Report, error) {
	queries := w.Queries
	opt.defaults()
	if sig.Index() != inv.Index() || sig.Engine() != Signature || inv.Engine() != Inverted {
		return nil, fmt.Errorf("bench: want a signature and an inverted searcher over one index")
	}
	r := &Report{Version: 1, Started: time.Now(), Machine: ThisMachine(), Reps: opt.Reps, Limit: opt.Limit}
	ix := sig.Index()
	r.Index = IndexInfo{Dir: ix.Dir(), Documents: ix.NumDocs(), Segments: len(ix.Segments())}
	for _, s := range ix.Segments() {
		r.Index.Terms += int64(s.NumTerms())
		r.Index.Postings += s.Postings()
	}
	r.Threads = []int{1}
	if all := runtime.GOMAXPROCS(0); all > 1 && !opt.LatencyOnly {
		r.Threads = append(r.Threads, all)
	}
	for _, f := range w.Refused {
		r.refuse(Query{Text: f.Query, Source: f.Source}, errString(f.Error))
	}
	pq := make([]perQuery, len(queries))
	for i, q := range queries {
		pq[i].q = q
	}
	engines := [2]*query.Searcher{sig, inv}
	prog := newProgress(opt.Progress)

	// 1. Equality and quality, untimed.
	for i := range pq {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		prog.say("equality", i, len(pq))
		if err := r.compare(ctx, engines, &pq[i], opt); err != nil {
			return nil, err
		}
	}
	var live []*perQuery
	for i := range pq {
		if !pq[i].skip {
			live = append(live, &pq[i])
		}
	}
	r.Queries.Total = len(live)

	// 2. Warm-up, then latency: each query through both engines,
	// interleaved, Reps times; its latency is the median of its runs. The
	// queries are timed in a fixed shuffled order (timingOrder), so that
	// the classes and files of a run see the machine alike.
	modes := []string{ModeMatch, ModeTop10}
	timed := timingOrder(live)
	for ti, workers := range r.Threads {
		for _, e := range engines {
			e.SetWorkers(workers)
		}
		for mi, mode := range modes {
			req := query.Request{Limit: opt.Limit, CountOnly: mode == ModeMatch, Snippets: mode == ModeTop10}
			if ti == 0 {
				for i, p := range live {
					prog.say("warm-up "+mode, i, len(live))
					for _, e := range engines {
						req.Query = p.q.Text
						if _, err := e.Search(ctx, req); err != nil {
							return nil, fmt.Errorf("%s engine, query %q: %w", e.Engine(), p.q.Text, err)
						}
					}
				}
			}
			var ds [2][]time.Duration
			var stage []float64
			for i, p := range timed {
				prog.say(fmt.Sprintf("latency %s, %d thread(s)", mode, workers), i, len(timed))
				req.Query = p.q.Text
				ds[0], ds[1], stage = ds[0][:0], ds[1][:0], stage[:0]
				for rep := 0; rep < opt.Reps; rep++ {
					for ei, e := range engines {
						t := time.Now()
						res, err := e.Search(ctx, req)
						d := time.Since(t)
						if err != nil {
							return nil, fmt.Errorf("%s engine, query %q: %w", e.Engine(), p.q.Text, err)
						}
						ds[ei] = append(ds[ei], d)
						// A ranked search lists every candidate: its match
						// stage does the work Matches counted. (Counts may
						// take shortcuts: a popcount, a document frequency.)
						if ei == 0 && mode == ModeTop10 && ti == 0 {
							stage = append(stage, float64(res.Stages.Match.Nanoseconds())/1e3)
						}
					}
				}
				p.lat[mi][ti][0] = medianMicros(ds[0])
				p.lat[mi][ti][1] = medianMicros(ds[1])
				if mode == ModeTop10 && ti == 0 {
					p.matchUs = medianFloat(stage)
				}
			}
		}
	}
	for _, e := range engines {
		e.SetWorkers(runtime.GOMAXPROCS(0))
	}

	// 3. Throughput: passes over every query, the engines alternating
	// every qpsChunk queries so that a burst of load from elsewhere falls on
	// both.
	for _, threads := range opt.QPSThreads {
		if opt.LatencyOnly {
			break
		}
		for _, mode := range modes {
			var rates [2][]float64
			for pass := 0; pass < opt.QPSPasses; pass++ {
				prog.say(fmt.Sprintf("throughput %s, %d client(s)", mode, threads), pass, opt.QPSPasses)
				qps, err := throughput(ctx, engines, live, threads, mode, opt.Limit)
				if err != nil {
					return nil, err
				}
				rates[0] = append(rates[0], qps[0])
				rates[1] = append(rates[1], qps[1])
			}
			for ei, e := range engines {
				r.QPS = append(r.QPS, QPS{Mode: mode, Threads: threads, Engine: e.Engine(), QPS: medianFloat(rates[ei])})
			}
		}
	}

	// 4. Bandwidth probe.
	if !opt.LatencyOnly {
		prog.say("bandwidth probe", 0, 1)
		r.Bandwidth = ProbeBandwidth(r.Machine.LLCBytes)
	}

	r.summarize(live, modes)
	r.LoadAverage = loadAverage()
	prog.done()
	r.Seconds = time.Since(r.Started).Seconds()
	return r, nil
}

// compare runs one query through both engines' Matches and first pages.
func (r *Report) compare(ctx context.Context, engines [2]*query.Searcher, p *perQuery, opt Options) error {
	sig, inv := engines[0], engines[1]
	sm, serr := sig.Matches(ctx, p.q.Text)
	im, ierr := inv.Matches(ctx, p.q.Text)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	diff := func(detail string) {
		r.Equality.Different++
		if len(r.Equality.Differences) < opt.MaxDiffs {
			r.Equality.Differences = append(r.Equality.Differences, Difference{p.q.Text, p.q.Source, detail})
		}
	}
	switch {
	case serr != nil && ierr != nil && serr.Error() == ierr.Error():
		p.skip = true
		r.refuse(p.q, serr)
		return nil
	case serr != nil || ierr != nil:
		r.Equality.Queries++
		diff(fmt.Sprintf("signature error: %v; inverted error: %v", serr, ierr))
		return nil
	}
	r.Equality.Queries++
	p.cands, p.hits, p.rows, p.blocks, p.postB = sm.Candidates, sm.Total, sm.Rows, sm.RowBlocks, im.PostingsBytes
	if d := setDiff(sig, sm, im); d != "" {
		diff(d)
		return nil
	}
	r.Equality.Identical++
	req := query.Request{Query: p.q.Text, Limit: opt.Limit}
	sr, serr := sig.Search(ctx, req)
	ir, ierr := inv.Search(ctx, req)
	if serr != nil || ierr != nil {
		diff(fmt.Sprintf("first page: signature error %v, inverted error %v", serr, ierr))
		return nil
	}
	same := sr.Total == ir.Total && slices.EqualFunc(sr.Hits, ir.Hits, func(a, b query.Hit) bool { return a.Key == b.Key && a.Score == b.Score })
	if !same {
		diff(fmt.Sprintf("first pages differ: signature %s; inverted %s", pageString(sr), pageString(ir)))
		return nil
	}
	r.Equality.PagesIdentical++
	return nil
}

func (r *Report) refuse(q Query, err error) {
	if len(r.Queries.Refused) < 20 {
		r.Queries.Refused = append(r.Queries.Refused, Refused{q.Text, q.Source, err.Error()})
	}
	for i := range r.Queries.Sources {
		if r.Queries.Sources[i].Name == q.Source {
			r.Queries.Sources[i].Refused++
			return
		}
	}
	r.Queries.Sources = append(r.Queries.Sources, SourceCount{Name: q.Source, Refused: 1})
}

// setDiff describes how two match sets differ ("" when equal).
func setDiff(s *query.Searcher, a, b *query.Matches) string {
	if len(a.Docs) != len(b.Docs) {
		return fmt.Sprintf("%d segments against %d", len(a.Docs), len(b.Docs))
	}
	var onlyA, onlyB []string
	segs := s.Index().Segments()
	for si := range a.Docs {
		x, y := a.Docs[si], b.Docs[si]
		for i, j := 0, 0; i < len(x) || j < len(y); {
			switch {
			case j == len(y) || (i < len(x) && x[i] < y[j]):
				onlyA = append(onlyA, segs[si].DocKey(int(x[i])))
				i++
			case i == len(x) || y[j] < x[i]:
				onlyB = append(onlyB, segs[si].DocKey(int(y[j])))
				j++
			default:
				i++
				j++
			}
		}
	}
	if len(onlyA) == 0 && len(onlyB) == 0 {
		return ""
	}
	return fmt.Sprintf("signature %d matches, inverted %d; only signature: %s; only inverted: %s",
		a.Total, b.Total, firstKeys(onlyA), firstKeys(onlyB))
}

func firstKeys(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	s := strings.Join(keys[:min(5, len(keys))], ", ")
	if len(keys) > 5 {
		s += fmt.Sprintf(" (and %d more)", len(keys)-5)
	}
	return s
}

func pageString(r *query.Result) string {
	parts := make([]string, len(r.Hits))
	for i, h := range r.Hits {
		parts[i] = fmt.Sprintf("%s %.6g", h.Key, h.Score)
	}
	return fmt.Sprintf("%d total [%s]", r.Total, strings.Join(parts, ", "))
}

// qpsChunk is how many queries one engine runs before the other takes over
// in a throughput pass.
const qpsChunk = 200

// throughput runs every query once in each engine with `threads` client
// goroutines, each Search using one worker, the engines taking turns every
// qpsChunk queries, and returns each engine's queries per second.
func throughput(ctx context.Context, engines [2]*query.Searcher, qs []*perQuery, threads int, mode string, limit int) ([2]float64, error) {
	var spent [2]time.Duration
	for _, e := range engines {
		e.SetWorkers(1)
		defer e.SetWorkers(runtime.GOMAXPROCS(0))
	}
	for lo := 0; lo < len(qs); lo += qpsChunk {
		part := qs[lo:min(len(qs), lo+qpsChunk)]
		for ei, e := range engines {
			d, err := runClients(ctx, e, part, threads, mode, limit)
			if err != nil {
				return [2]float64{}, err
			}
			spent[ei] += d
		}
	}
	var qps [2]float64
	for ei := range spent {
		qps[ei] = float64(len(qs)) / spent[ei].Seconds()
	}
	return qps, nil
}

// runClients runs qs with `threads` goroutines and returns the wall time.
func runClients(ctx context.Context, e *query.Searcher, qs []*perQuery, threads int, mode string, limit int) (time.Duration, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	start := time.Now()
	for t := 0; t < threads; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := query.Request{Limit: limit, CountOnly: mode == ModeMatch, Snippets: mode == ModeTop10}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(qs) {
					return
				}
				req.Query = qs[i].q.Text
				if _, err := e.Search(ctx, req); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return 0, fmt.Errorf("%s engine: %w", e.Engine(), firstErr)
	}
	return time.Since(start), nil
}

// summarize aggregates per-query measurements by class.
func (r *Report) summarize(qs []*perQuery, modes []string) {
	for _, q := range qs {
		r.addSource(q.q.Source)
	}
	classes := r.classes()
	in := func(p *perQuery, class string) bool {
		if src, ok := strings.CutPrefix(class, SourceClass); ok {
			return p.q.Source == src
		}
		return class == Overall || p.q.TermsClass() == class || p.q.DFClass() == class
	}
	for mi, mode := range modes {
		for ti, threads := range r.Threads {
			for _, class := range classes {
				for ei, eng := range []string{Signature, Inverted} {
					var xs []float64
					for _, p := range qs {
						if in(p, class) {
							xs = append(xs, p.lat[mi][ti][ei])
						}
					}
					if len(xs) > 0 {
						r.Latency = append(r.Latency, Latency{Mode: mode, Threads: threads, Class: class, Engine: eng, Summary: Summarize(xs)})
					}
				}
			}
		}
	}
	var totBytes, totUs float64
	for _, class := range classes {
		q, bytes, us := r.quality(qs, func(p *perQuery) bool { return in(p, class) })
		if q.Queries == 0 {
			continue
		}
		if class == Overall {
			totBytes, totUs = bytes, us
		}
		q.Class = class
		r.Quality = append(r.Quality, q)
	}
	for _, src := range r.Queries.Sources {
		q, _, _ := r.quality(qs, func(p *perQuery) bool { return p.q.Source == src.Name })
		if q.Queries > 0 {
			q.Class = src.Name
			r.QualityBySource = append(r.QualityBySource, q)
		}
	}
	if totUs > 0 {
		r.Bandwidth.AchievedGBps = totBytes / (totUs * 1e3)
	}
}

// quality is the signature's quality over the queries that in selects, with
// the row bytes they touched and their match stages' time (µs).
func (r *Report) quality(qs []*perQuery, in func(*perQuery) bool) (q Quality, bytes, us float64) {
	docs := float64(r.Index.Documents)
	var fp, cands, neg float64
	for _, p := range qs {
		if !in(p) {
			continue
		}
		q.Queries++
		q.Candidates += float64(p.cands)
		q.Hits += float64(p.hits)
		q.Rows += float64(p.rows)
		q.RowBlocks += float64(p.blocks)
		q.PostingsBytes += float64(p.postB)
		q.MatchMicros += p.matchUs
		fp += float64(p.cands - p.hits)
		cands += float64(p.cands)
		neg += docs - float64(p.hits)
		bytes += float64(p.blocks * 64)
		us += p.matchUs
	}
	if q.Queries == 0 {
		return q, 0, 0
	}
	n := float64(q.Queries)
	q.FalsePositives = fp / n
	q.Candidates /= n
	q.Hits /= n
	q.Rows /= n
	q.RowBlocks /= n
	q.RowBytes = q.RowBlocks * 64
	q.PostingsBytes /= n
	q.MatchMicros /= n
	if cands > 0 {
		q.FPRate = fp / cands
	}
	if neg > 0 {
		q.FPPerDoc = fp / neg
	}
	if us > 0 {
		q.GBps = bytes / (us * 1e3)
	}
	return q, bytes, us
}

func (r *Report) addSource(name string) {
	for i := range r.Queries.Sources {
		if r.Queries.Sources[i].Name == name {
			r.Queries.Sources[i].Queries++
			return
		}
	}
	r.Queries.Sources = append(r.Queries.Sources, SourceCount{Name: name, Queries: 1})
}

// SourceClass prefixes the class of the queries of one query file, which a
// report has when its queries came from more than one.
const SourceClass = "file "

// classes are the report's query classes, in order: all, by terms, by df,
// and by query file when there are several.
func (r *Report) classes() []string {
	classes := append(append([]string{Overall}, TermsClasses...), DFClasses...)
	if len(r.Queries.Sources) > 1 {
		for _, src := range r.Queries.Sources {
			classes = append(classes, SourceClass+src.Name)
		}
	}
	return classes
}

// LatencyOf finds a latency summary (zero when absent).
func (r *Report) LatencyOf(mode string, threads int, class, engine string) Summary {
	for _, l := range r.Latency {
		if l.Mode == mode && l.Threads == threads && l.Class == class && l.Engine == engine {
			return l.Summary
		}
	}
	return Summary{}
}

// QualityOf finds a class's quality (zero when absent).
func (r *Report) QualityOf(class string) Quality {
	for _, q := range r.Quality {
		if q.Class == class {
			return q
		}
	}
	return Quality{}
}

// progress prints a line per stage change and at most every two seconds.
type progress struct {
	w     io.Writer
	stage string
	last  time.Time
	start time.Time
}

func newProgress(w io.Writer) *progress { return &progress{w: w, start: time.Now()} }

func (p *progress) say(stage string, i, n int) {
	if p.w == nil {
		return
	}
	if stage == p.stage && time.Since(p.last) < 2*time.Second {
		return
	}
	p.stage, p.last = stage, time.Now()
	fmt.Fprintf(p.w, "bench: %6.1fs  %s %d/%d\n", time.Since(p.start).Seconds(), stage, i, n)
}

func (p *progress) done() {
	if p.w != nil {
		fmt.Fprintf(p.w, "bench: %6.1fs  done\n", time.Since(p.start).Seconds())
	}
}

// Workload is the queries of a run.
type Workload struct {
	Queries []Query
	Refused []Refused // queries the parser rejects; reported, not run
}

// Add classifies texts from one source and adds them.
func (w *Workload) Add(s *query.Searcher, texts []string, source string) {
	for _, t := range texts {
		q, err := Classify(s, t, source)
		if err != nil {
			w.Refused = append(w.Refused, Refused{Query: t, Source: source, Error: err.Error()})
			continue
		}
		w.Queries = append(w.Queries, q)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// ReadReport decodes a report written with --json, to render it again.
func ReadReport(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("bench: not a bench report: %w", err)
	}
	if rep.Version != 1 {
		return nil, fmt.Errorf("bench: report version %d is not supported", rep.Version)
	}
	return &rep, nil
}
