package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// Limits bound what one request may cost. A zero field takes its value from
// DefaultLimits.
type Limits struct {
	MaxQueryBytes int   // longest query, in bytes
	MaxQueryTerms int   // most words in a query (a phrase counts its words; prefix expansions are not counted)
	MaxPageSize   int   // most hits per page (limit)
	MaxOffset     int   // deepest offset a page may start at
	MaxBodyBytes  int64 // largest request body (the write API)

	MaxConcurrent int           // searches running at once (search, explain, documents and their pages)
	MaxQueue      int           // requests waiting for a search slot; past it: 429
	QueueTimeout  time.Duration // how long a request waits for a slot; past it: 503
	SearchTimeout time.Duration // how long one search may run; past it: 503

	// HeavyUnits is the estimated cost (query.Cost.Units) from which a
	// search is heavy: heavy searches take a slot of their own lane first,
	// MaxHeavy at once and one goroutine each, so that they never hold more
	// than MaxHeavy of the MaxConcurrent slots and cheap searches keep
	// flowing past them. 0 (the default): the threshold follows the index,
	// HeavyUnitsOf its live documents.
	HeavyUnits    int64
	MaxHeavy      int // heavy searches running at once
	MaxHeavyQueue int // heavy searches waiting for their lane; past it: 429

	ReadHeaderTimeout time.Duration // reading a request's headers
	ReadTimeout       time.Duration // reading a whole request, body included
	WriteTimeout      time.Duration // from the end of the headers to the end of the response
	IdleTimeout       time.Duration // a keep-alive connection between requests
	ShutdownTimeout   time.Duration // how long requests in flight may finish after SIGINT/SIGTERM
	MaxHeaderBytes    int           // request line and headers
}

// HeavyUnitsOf is the heavy threshold of an index of docs live documents
// when Limits.HeavyUnits is 0: a quarter of its documents, and at least
// MinHeavyUnits. A cost unit is about a document's worth of work, so a
// search is heavy when its estimate reaches a quarter of the index,
// whatever the index's size: on the Go tree (10,719 files, threshold
// 4,096) frequent phrases such as "if err != nil" (16,313 units) and ORs
// of common words are heavy, and a word such as waitgroup (242) is not.
// The floor keeps a small index's ordinary searches out of the lane.
func HeavyUnitsOf(docs int) int64 { return max(MinHeavyUnits, int64(docs)/4) }

// MinHeavyUnits is the least heavy threshold HeavyUnitsOf gives.
const MinHeavyUnits = 4096

// DefaultLimits are the limits of a server started without overrides.
func DefaultLimits() Limits {
	return Limits{
		MaxQueryBytes: 1024,
		MaxQueryTerms: 64,
		MaxPageSize:   100,
		MaxOffset:     10000,
		MaxBodyBytes:  32 << 20,

		MaxConcurrent: max(4, 2*runtime.GOMAXPROCS(0)),
		MaxQueue:      1024,
		QueueTimeout:  5 * time.Second,
		SearchTimeout: 10 * time.Second,
		HeavyUnits:    0,
		MaxHeavy:      max(1, runtime.GOMAXPROCS(0)/2),
		MaxHeavyQueue: 16,

		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ShutdownTimeout:   15 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setD := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxQueryBytes, d.MaxQueryBytes)
	set(&l.MaxQueryTerms, d.MaxQueryTerms)
	set(&l.MaxPageSize, d.MaxPageSize)
	set(&l.MaxOffset, d.MaxOffset)
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	set(&l.MaxConcurrent, d.MaxConcurrent)
	set(&l.MaxQueue, d.MaxQueue)
	l.HeavyUnits = max(0, l.HeavyUnits)
	set(&l.MaxHeavy, d.MaxHeavy)
	l.MaxHeavy = min(l.MaxHeavy, l.MaxConcurrent)
	set(&l.MaxHeavyQueue, d.MaxHeavyQueue)
	setD(&l.QueueTimeout, d.QueueTimeout)
	setD(&l.SearchTimeout, d.SearchTimeout)
	setD(&l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	setD(&l.ReadTimeout, d.ReadTimeout)
	setD(&l.WriteTimeout, d.WriteTimeout)
	setD(&l.IdleTimeout, d.IdleTimeout)
	setD(&l.ShutdownTimeout, d.ShutdownTimeout)
	set(&l.MaxHeaderBytes, d.MaxHeaderBytes)
	return l
}

// Options configure a Server.
type Options struct {
	// Dir is the index directory to serve. It must hold an index, unless
	// Backend is set.
	Dir string
	// Backend, if set, is what the server serves instead of Dir: a
	// cluster index.
	Backend Backend
	// Index, if set, is an open snapshot of Dir to serve first, so the
	// caller's open is not repeated; the server owns it from then on.
	Index *index.Index
	// Sample says Dir holds the embedded sample corpus: it is served, but
	// the write API refuses to change it.
	Sample bool
	// WriteToken enables the write API; requests must then carry it as a
	// bearer token. Empty: writes are disabled.
	WriteToken string
	// TLS, if set, makes Serve speak HTTPS (HTTP/2 and HTTP/1.1) with it
	// (LoadTLS); a plain HTTP request to it is answered 400.
	TLS *tls.Config
	// Limits bound each request; zero fields take the defaults.
	Limits Limits
	// Logger receives request logs and errors (default: slog.Default()).
	Logger *slog.Logger
	// PollInterval is how often MANIFEST is checked for changes besides
	// fsnotify events (default 2s).
	PollInterval time.Duration
}

// Server serves one index directory over HTTP.
type Server struct {
	opt     Options
	limits  Limits
	log     *slog.Logger
	e       *echo.Echo
	backend Backend
	local   *localBackend // the backend, when it is Dir
	metrics *metrics
	limiter *limiter     // the search slots
	heavy   *limiter     // the heavy searches' lane, taken before a search slot
	cheap   atomic.Int64 // searches that are not heavy, admitted or waiting for a slot
	pages   *pages
	started time.Time

	stopWatch context.CancelFunc
	watching  sync.WaitGroup
}

// New opens the index in opt.Dir, builds the server's routes and starts
// watching the directory for new commits (until Close).
func New(opt Options) (*Server, error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.PollInterval <= 0 {
		opt.PollInterval = 2 * time.Second
	}
	s := &Server{opt: opt, limits: opt.Limits.withDefaults(), log: opt.Logger, metrics: newMetrics(), started: time.Now()}
	s.limiter = newLimiter("", s.limits.MaxConcurrent, s.limits.MaxQueue, s.limits.QueueTimeout)
	s.heavy = newLimiter("heavy_", s.limits.MaxHeavy, s.limits.MaxHeavyQueue, s.limits.QueueTimeout)
	var err error
	if s.pages, err = newPages(); err != nil {
		return nil, err
	}
	s.backend = opt.Backend
	if s.backend == nil {
		live, err := openLive(opt.Dir, opt.Index, s, opt.PollInterval)
		if err != nil {
			return nil, err
		}
		s.local = &localBackend{dir: opt.Dir, live: live}
		s.backend = s.local
	}
	s.metrics.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "bitsieve_heavy_threshold_units",
		Help: "Estimated cost (query.Cost units) from which a search takes the heavy lane: --heavy-units, or a quarter of the index's documents."},
		func() float64 { return float64(s.heavyUnits()) }))
	s.e = echo.NewWithConfig(echo.Config{
		Logger:           s.log,
		HTTPErrorHandler: s.handleError,
		IPExtractor:      echo.ExtractIPDirect(), // no proxy is trusted by default
		// HEAD runs the GET handler without the body: every GET route is
		// read-only, and monitors probe with HEAD.
		Router: echo.NewRouter(echo.RouterConfig{AutoHandleHEAD: true}),
	})
	s.routes()
	ctx, cancel := context.WithCancel(context.Background())
	s.stopWatch = cancel
	if s.local != nil {
		s.watching.Go(func() { s.local.live.Watch(ctx) })
	}
	return s, nil
}

func (s *Server) routes() {
	e := s.e
	e.Use(s.observe, secure)

	e.GET("/", s.homePage, page)
	e.GET("/search", s.searchPage, page)
	e.GET("/doc", s.documentPage, page, s.limit)
	e.GET("/explain", s.explainPage, page)
	e.GET("/static/*", s.static)
	e.GET("/favicon.ico", s.favicon)
	e.GET("/robots.txt", func(c *echo.Context) error {
		return c.String(http.StatusOK, "User-agent: *\nDisallow: /search\nDisallow: /doc\nDisallow: /explain\nDisallow: /api/\n")
	})

	e.GET("/api/search", s.apiSearch)
	e.GET("/api/explain", s.apiExplain)
	e.GET("/api/documents/*", s.apiDocument, s.limit)
	e.POST("/api/documents", s.apiAddDocuments)
	e.DELETE("/api/documents/*", s.apiDeleteDocument)
	e.GET("/api/stats", s.apiStats)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(s.metrics.handler()))
	s.metrics.initRoutes(e.Router().Routes())
}

// Handler is the server's http.Handler, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.e }

// Limits are the limits in force.
func (s *Server) Limits() Limits { return s.limits }

// Serve answers requests on ln until ctx is done; then it stops accepting connections, lets the requests in flight
// finish (up to Limits.ShutdownTimeout) and returns. It closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.e,
		ReadHeaderTimeout: s.limits.ReadHeaderTimeout,
		ReadTimeout:       s.limits.ReadTimeout,
		WriteTimeout:      s.limits.WriteTimeout,
		IdleTimeout:       s.limits.IdleTimeout,
		MaxHeaderBytes:    s.limits.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		TLSConfig:         s.opt.TLS,
	}
	errc := make(chan error, 1)
	go func() {
		if s.opt.TLS != nil {
			errc <- srv.ServeTLS(ln, "", "") // the certificate is the config's
			return
		}
		errc <- srv.Serve(ln)
	}()
	s.log.Info("serving", "address", s.URL(ln.Addr()), "index", s.opt.Dir,
		"sample", s.opt.Sample, "writes", s.writesState())
	if s.opt.WriteToken != "" && s.opt.TLS == nil && !isLoopback(ln.Addr()) {
		s.log.Warn("the write token would travel in clear text beyond loopback: serve with --tls-cert and --tls-key, or on loopback behind a TLS proxy",
			"address", ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down: letting requests in flight finish", "timeout", s.limits.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), s.limits.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

// URL is the server's base URL at addr: https with TLS.
func (s *Server) URL(addr net.Addr) string {
	if s.opt.TLS != nil {
		return "https://" + addr.String() + "/"
	}
	return "http://" + addr.String() + "/"
}

// isLoopback reports whether addr is a loopback address.
func isLoopback(addr net.Addr) bool {
	host, _, err := net.SplitHostPort(addr.String())
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}

// Close stops watching the index directory and releases the index. Requests
// still running keep their snapshot until they end.
func (s *Server) Close() error {
	s.stopWatch()
	s.watching.Wait()
	return s.backend.Close()
}

// Reload looks for a newer state of the index now instead of waiting for
// the watcher.
func (s *Server) Reload() { s.backend.Reload() }

func (s *Server) writesState() string {
	switch {
	case s.opt.Sample:
		return "refused (embedded sample)"
	case s.opt.WriteToken == "":
		return "disabled (no write token)"
	}
	return "enabled (bearer token)"
}
