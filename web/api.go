package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bitsieve/bitsieve/query"
	"github.com/labstack/echo/v5"
)

// searchResponse is the body of GET /api/search.
type searchResponse struct {
	Query          string       `json:"query"`
	Total          int          `json:"total"`
	Candidates     int          `json:"candidates"`
	FalsePositives int          `json:"false_positives"`
	TookMicros     int64        `json:"took_us"`
	Offset         int          `json:"offset"`
	Limit          int          `json:"limit"`
	Served                      // the generation read; a cluster's shards, and those missing
	Hits           []apiHit     `json:"hits"`
	Stages         query.Stages `json:"stages"`
}

// apiHit is one hit; highlights are byte ranges of snippet, always present;
// line is the document line of the first, omitted when there is none.
type apiHit struct {
	Key        string        `json:"key"`
	Title      string        `json:"title"`
	Score      float64       `json:"score"`
	Snippet    string        `json:"snippet"`
	Highlights []query.Range `json:"highlights"`
	Line       int           `json:"line,omitempty"`
}

func (s *Server) apiSearch(c *echo.Context) error {
	q := queryText(c)
	limit, err := intParam(c, "limit", query.DefaultLimit, 1, s.limits.MaxPageSize)
	if err != nil {
		return err
	}
	offset, err := intParam(c, "offset", 0, 0, s.limits.MaxOffset)
	if err != nil {
		return err
	}
	snippets, err := boolParam(c, "snippets", true)
	if err != nil {
		return err
	}
	res, served, err := s.search(c.Request().Context(), query.Request{Query: q, Limit: limit, Offset: offset, Snippets: snippets})
	if err != nil {
		return err
	}
	out := searchResponse{Query: res.Query, Total: res.Total, Candidates: res.Candidates, FalsePositives: res.FalsePositives,
		TookMicros: res.TookMicros, Offset: offset, Limit: limit, Served: served,
		Hits: make([]apiHit, len(res.Hits)), Stages: res.Stages}
	for i, h := range res.Hits {
		out.Hits[i] = apiHit{Key: h.Key, Title: h.Title, Score: h.Score, Snippet: h.Snippet, Highlights: h.Highlights, Line: h.Line}
		if out.Hits[i].Highlights == nil {
			out.Hits[i].Highlights = []query.Range{}
		}
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) apiExplain(c *echo.Context) error {
	ex, _, err := s.explain(c.Request().Context(), queryText(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ex)
}

func (s *Server) apiDocument(c *echo.Context) error {
	key, err := documentKey(c)
	if err != nil {
		return err
	}
	from, err := windowFrom(c)
	if err != nil {
		return err
	}
	doc, err := s.document(c.Request().Context(), key, queryText(c), from)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, doc)
}

func (s *Server) apiStats(c *echo.Context) error {
	st, err := s.backend.Stats(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

func (s *Server) healthz(c *echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"status": "ok", "uptime_s": int64(time.Since(s.started).Seconds())})
}

// readyz is 200 when the index is open and the snapshot served is the
// directory's newest one, opened with every checksum verified; 503 with the
// error when the newest MANIFEST failed to open (the previous snapshot is
// still served).
func (s *Server) readyz(c *echo.Context) error {
	sum, err := s.backend.Ready(c.Request().Context())
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]any{
			"error": "not ready", "detail": err.Error(), "serving_generation": sum.Generation})
	}
	return c.JSON(http.StatusOK, map[string]any{"status": "ready", "generation": sum.Generation,
		"documents": sum.Docs, "segments": sum.Segments})
}

// search checks q against the limits and runs it with the search timeout,
// admitted by its cost (admit) once Search has compiled it.
func (s *Server) search(ctx context.Context, req query.Request) (*query.Result, Served, error) {
	if err := s.checkQuery(req.Query); err != nil {
		return nil, Served{}, err
	}
	queued := ctx // the wait for a slot has its own timeout, not the search's
	heavy := false
	req.Admit = func(c query.Cost) (int, func(), error) {
		workers, release, err := s.admit(queued, c)
		heavy = workers == 1
		return workers, release, err
	}
	req.Pause = func(worked time.Duration) {
		if heavy {
			s.giveWay(worked)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.limits.SearchTimeout)
	defer cancel()
	res, served, err := s.backend.Search(ctx, req)
	if err != nil {
		return nil, served, err
	}
	s.metrics.observeSearch(res)
	return res, served, nil
}

// explain explains q, admitted by its cost as a search is.
func (s *Server) explain(ctx context.Context, q string) (*query.Explanation, Served, error) {
	if err := s.checkQuery(q); err != nil {
		return nil, Served{}, err
	}
	queued := ctx
	admit := func(c query.Cost) (int, func(), error) { return s.admit(queued, c) }
	ctx, cancel := context.WithTimeout(ctx, s.limits.SearchTimeout)
	defer cancel()
	return s.backend.Explain(ctx, q, admit)
}

// heavyUnits is the cost from which a search is heavy now: Limits.HeavyUnits,
// or when that is 0, HeavyUnitsOf the documents served.
func (s *Server) heavyUnits() int64 {
	if s.limits.HeavyUnits > 0 {
		return s.limits.HeavyUnits
	}
	return HeavyUnitsOf(s.backend.Summary().Docs)
}

// admit takes the slots a search of estimated cost c (query.Cost) needs
// before it runs: a heavy one (heavyUnits or more) waits for a slot of the
// heavy lane first, then for a search slot, and runs on one goroutine
// (workers 1); any other takes a search slot (workers 0: the searcher's).
// So heavy searches hold at most MaxHeavy search slots and one core each,
// and a flood of them is refused from their own queue while cheap searches
// keep their slots; while cheap searches wait or run, heavy ones also give
// way between segments (giveWay). release gives the slots back.
func (s *Server) admit(ctx context.Context, c query.Cost) (workers int, release func(), err error) {
	heavy := c.Units() > 0 && c.Units() >= s.heavyUnits()
	if heavy {
		if err := s.heavy.acquire(ctx); err != nil {
			return 0, nil, err
		}
		s.metrics.heavy.Inc()
		workers = 1
	} else {
		s.cheap.Add(1)
	}
	if err := s.limiter.acquire(ctx); err != nil {
		if heavy {
			s.heavy.release()
		} else {
			s.cheap.Add(-1)
		}
		return 0, nil, err
	}
	return workers, func() {
		s.limiter.release()
		if heavy {
			s.heavy.release()
		} else {
			s.cheap.Add(-1)
		}
	}, nil
}

// giveWay is a heavy search's pause (query.Request.Pause) after it worked
// for worked: while cheap searches wait or run, it sleeps as long (up to
// maxGiveWay), so that the heavy lane takes at most about half a core from
// them, and nothing when they are not there. A heavy search then takes up
// to twice as long under load; the cheap ones keep most of the machine.
func (s *Server) giveWay(worked time.Duration) {
	if s.cheap.Load() > 0 && worked > 0 {
		time.Sleep(min(worked, maxGiveWay))
	}
}

// maxGiveWay bounds one pause of a heavy search.
const maxGiveWay = 100 * time.Millisecond

// document returns a window of a stored document by key (Backend.Document);
// only indexed documents are reachable (the key is looked up in the index,
// never used as a path).
func (s *Server) document(ctx context.Context, key, q string, from int) (*query.DocumentView, error) {
	if q != "" {
		if err := s.checkQuery(q); err != nil {
			return nil, err
		}
	}
	return s.backend.Document(ctx, key, q, from)
}

// windowFrom reads a document request's from parameter: the byte of the
// text whose window to show, or -1 when it is absent (the window of the
// first match).
func windowFrom(c *echo.Context) (int, error) {
	v := c.QueryParam("from")
	if v == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, badRequest("from must be a byte offset: a whole number, 0 or more")
	}
	return n, nil
}

// checkQuery enforces the server's query limits before any search work, and
// parses q so a bad query gets the parser's message. A prefix that expands to
// more than query.MaxPrefixTerms terms is refused by the searcher when it
// compiles the query (before admission: Search, Cost and Document compile
// first), with a *query.ParseError that classify turns into the same 400.
func (s *Server) checkQuery(q string) error {
	if len(q) > s.limits.MaxQueryBytes {
		return errorf(http.StatusBadRequest, "bad query", "query too long: it has %d bytes and the limit is %d", len(q), s.limits.MaxQueryBytes)
	}
	root, err := s.backend.Parse(q)
	if err != nil {
		return err
	}
	terms := 0
	query.Walk(root, func(n query.Node, _ bool) bool {
		switch x := n.(type) {
		case *query.Term, *query.Prefix:
			terms++
		case *query.Phrase:
			terms += len(x.Terms)
		}
		return true
	})
	if terms > s.limits.MaxQueryTerms {
		return errorf(http.StatusBadRequest, "bad query", "query too large: it has %d words and the limit is %d", terms, s.limits.MaxQueryTerms)
	}
	return nil
}

// documentKey is the key in /api/documents/{key}: the rest of the decoded
// path, so keys with slashes (paths of indexed files) need no escaping
// beyond the URL's own.
func documentKey(c *echo.Context) (string, error) {
	key, ok := strings.CutPrefix(c.Request().URL.Path, "/api/documents/")
	if !ok || key == "" {
		return "", badRequest("give the document's key: /api/documents/{key}")
	}
	if !utf8.ValidString(key) {
		return "", badRequest("the document key is not valid UTF-8")
	}
	return key, nil
}

// intParam reads an integer query parameter in [lo, hi], def when absent.
func intParam(c *echo.Context, name string, def, lo, hi int) (int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest("%s must be a whole number from %d to %d, not %q", name, lo, hi, v)
	}
	return n, nil
}

func boolParam(c *echo.Context, name string, def bool) (bool, error) {
	v := c.QueryParam(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("%s must be true or false, not %q", name, v)
	}
	return b, nil
}

// queryText is the q parameter with invalid UTF-8 replaced, so a query is
// never echoed into a page or a JSON reply as broken text. (Document keys are
// not cleaned: a file name may hold any bytes, and keys must match exactly.)
func queryText(c *echo.Context) string {
	return strings.ToValidUTF8(c.QueryParam("q"), "\uFFFD")
}
