package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus metrics, in a registry of their own so
// two servers in one process (tests) do not collide.
type metrics struct {
	reg *prometheus.Registry

	requests *prometheus.HistogramVec // by route, method, status
	inFlight prometheus.Gauge
	rejected *prometheus.CounterVec // by reason
	heavy    prometheus.Counter     // searches admitted through the heavy lane

	stages     *prometheus.HistogramVec // by stage
	candidates prometheus.Histogram
	falsePos   prometheus.Histogram
	hits       prometheus.Histogram

	docs, segments, bytes, generation prometheus.Gauge
	ready                             prometheus.Gauge
	damaged                           *prometheus.CounterVec // by section
	reloads                           *prometheus.CounterVec // by result
	writes                            *prometheus.CounterVec // by operation and result
}

// The label values each counter and histogram vector is created with, so
// that every series exists, at zero, from the first scrape: a series that
// appears only with its first event hides that event from rate() and from
// alerts on absent metrics.
var (
	rejectReasons = []string{"queue_full", "heavy_queue_full", "queue_timeout", "heavy_queue_timeout", "search_timeout", "body_too_large"}
	queryStages   = []string{"parse", "match", "verify", "rank", "snippet", "total"}
	reloadResults = []string{"ok", "error"}
	// damagedSections are the sections a request reads past opening: the
	// document table, the store, the forward index and the positions.
	damagedSections = []string{"docs", "store", "forward", "positions"}
	writeOps        = []string{"add", "delete"}
	writeResults    = []string{"ok", "error"}
)

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bitsieve_http_request_duration_seconds",
		Help:    "HTTP requests by route, method and status: count and latency.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route", "method", "status"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "bitsieve_http_requests_in_flight", Help: "HTTP requests being served."})
	m.rejected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bitsieve_http_rejected_total",
		Help: "Requests refused by a limit: queue_full and heavy_queue_full (429), queue_timeout, heavy_queue_timeout and search_timeout (503), body_too_large (413)."},
		[]string{"reason"})
	m.heavy = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bitsieve_heavy_searches_total",
		Help: "Searches admitted through the heavy lane: their estimated cost reached the heavy threshold."})
	m.stages = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "bitsieve_query_stage_seconds",
		Help:    "Time spent in each stage of answering a query (match and verify summed over segments).",
		Buckets: prometheus.ExponentialBuckets(1e-6, 4, 12), // 1µs .. 4s
	}, []string{"stage"})
	counts := prometheus.ExponentialBuckets(1, 4, 12) // 1 .. 4M
	m.candidates = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "bitsieve_query_candidates", Help: "Documents the signature proposed per query.", Buckets: counts})
	m.falsePos = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "bitsieve_query_false_positives", Help: "Candidates verification rejected per query.", Buckets: counts})
	m.hits = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "bitsieve_query_hits", Help: "Exact matches per query.", Buckets: counts})
	m.docs = prometheus.NewGauge(prometheus.GaugeOpts{Name: "bitsieve_index_documents", Help: "Live documents in the served snapshot."})
	m.segments = prometheus.NewGauge(prometheus.GaugeOpts{Name: "bitsieve_index_segments", Help: "Segments in the served snapshot."})
	m.bytes = prometheus.NewGauge(prometheus.GaugeOpts{Name: "bitsieve_index_bytes", Help: "Size of the served snapshot's segment files."})
	m.generation = prometheus.NewGauge(prometheus.GaugeOpts{Name: "bitsieve_index_generation", Help: "MANIFEST generation of the served snapshot."})
	m.ready = prometheus.NewGauge(prometheus.GaugeOpts{Name: "bitsieve_index_ready", Help: "1 when the served snapshot is the directory's newest and its document store passed its checksum, else 0 (as /readyz)."})
	m.damaged = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bitsieve_index_damaged_reads_total", Help: "Requests that failed on damaged index bytes (a store block that does not decompress, a position list that does not decode), by section."},
		[]string{"section"})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bitsieve_index_reloads_total", Help: "Snapshot reloads after a MANIFEST change, by result."}, []string{"result"})
	m.writes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bitsieve_index_writes_total", Help: "Write API commits, by operation and result."}, []string{"op", "result"})
	for _, c := range []prometheus.Collector{m.requests, m.inFlight, m.rejected, m.heavy, m.stages, m.candidates, m.falsePos, m.hits,
		m.docs, m.segments, m.bytes, m.generation, m.ready, m.damaged, m.reloads, m.writes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		f(c)
	}
	for _, r := range rejectReasons {
		m.rejected.WithLabelValues(r)
	}
	for _, st := range queryStages {
		m.stages.WithLabelValues(st)
	}
	for _, r := range reloadResults {
		m.reloads.WithLabelValues(r)
	}
	for _, sec := range damagedSections {
		m.damaged.WithLabelValues(sec)
	}
	for _, op := range writeOps {
		for _, r := range writeResults {
			m.writes.WithLabelValues(op, r)
		}
	}
	return m
}

// initRoutes creates the request series of every route with status 200, so
// that the request metric is there before the first request ends.
func (m *metrics) initRoutes(routes echo.Routes) {
	for _, r := range routes {
		m.requests.WithLabelValues(r.Path, r.Method, "200")
	}
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) observeRequest(route, method string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Observe(d.Seconds())
}

// observeSearch records a search; its stage labels are queryStages.
func (m *metrics) observeSearch(r *query.Result) {
	m.stages.WithLabelValues("parse").Observe(r.Stages.Parse.Seconds())
	m.stages.WithLabelValues("match").Observe(r.Stages.Match.Seconds())
	m.stages.WithLabelValues("verify").Observe(r.Stages.Verify.Seconds())
	m.stages.WithLabelValues("rank").Observe(r.Stages.Rank.Seconds())
	m.stages.WithLabelValues("snippet").Observe(r.Stages.Snip.Seconds())
	m.stages.WithLabelValues("total").Observe(r.Took.Seconds())
	m.candidates.Observe(float64(r.Candidates))
	m.falsePos.Observe(float64(r.FalsePositives))
	m.hits.Observe(float64(r.Total))
}

func (m *metrics) observeIndex(ix *index.Index) {
	var b int64
	for _, s := range ix.Segments() {
		b += s.FileBytes()
	}
	m.docs.Set(float64(ix.NumDocs()))
	m.segments.Set(float64(len(ix.Segments())))
	m.bytes.Set(float64(b))
	m.generation.Set(float64(ix.Generation()))
}
