package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
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
