package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/bitsieve/bitsieve/tokenize"
	"github.com/labstack/echo/v5"
)

func TestSearchAPI(t *testing.T) {
	ts := newTestServer(t, nil)
	res := decode[searchResponse](t, ts.get(t, "/api/search?q=white+whale"), http.StatusOK)
	if res.Query != "white whale" || res.Total != 2 || len(res.Hits) != 2 {
		t.Fatalf("got %+v, want 2 hits for white whale", res)
	}
	if res.Candidates < res.Total || res.FalsePositives != res.Candidates-res.Total {
		t.Errorf("candidates %d, false positives %d, total %d do not add up", res.Candidates, res.FalsePositives, res.Total)
	}
	if res.Generation != 1 || res.Limit != query.DefaultLimit || res.Offset != 0 {
		t.Errorf("generation %d limit %d offset %d", res.Generation, res.Limit, res.Offset)
	}
	an := tokenize.MustNew(tokenize.DefaultLanguage)
	for _, h := range res.Hits {
		if h.Key != "moby/ch1.txt" && h.Key != "moby/ch 42.txt" {
			t.Errorf("unexpected hit %q", h.Key)
		}
		if len(h.Highlights) == 0 {
			t.Errorf("hit %q has no highlights", h.Key)
		}
		for _, r := range h.Highlights {
			word := h.Snippet[r.Start:r.End]
			toks := an.Analyze(nil, []byte(word))
			if len(toks) != 1 || (toks[0].Term != "white" && toks[0].Term != "whale") {
				t.Errorf("hit %q highlights %q, which is not a query term", h.Key, word)
			}
		}
	}

	// No snippets when asked not to.
	res = decode[searchResponse](t, ts.get(t, "/api/search?q=whale&snippets=false"), http.StatusOK)
	for _, h := range res.Hits {
		if h.Snippet != "" || len(h.Highlights) != 0 {
			t.Errorf("snippets=false returned a snippet for %q", h.Key)
		}
	}
}

// Pages of results are consecutive slices of one ranking.
func TestSearchAPIPaging(t *testing.T) {
	ts := newTestServer(t, nil)
	all := decode[searchResponse](t, ts.get(t, "/api/search?q=sea&limit=40"), http.StatusOK)
	if all.Total < 30 {
		t.Fatalf("total %d: the corpus should have many documents about the sea", all.Total)
	}
	var paged []string
	for off := 0; off < 40; off += 7 {
		p := decode[searchResponse](t, ts.get(t, "/api/search?q=sea&limit=7&offset="+strconv.Itoa(off)), http.StatusOK)
		if p.Total != all.Total {
			t.Fatalf("page at %d: total %d, want %d", off, p.Total, all.Total)
		}
		for _, h := range p.Hits {
			paged = append(paged, h.Key)
		}
	}
	paged = paged[:min(len(paged), len(all.Hits))]
	for i := range paged {
		if paged[i] != all.Hits[i].Key {
			t.Fatalf("hit %d: paged %q, unpaged %q", i, paged[i], all.Hits[i].Key)
		}
	}
}

func TestSearchAPIErrors(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.Limits.MaxQueryTerms = 4; o.Limits.MaxQueryBytes = 200 })
	cases := []struct {
		target string
		status int
		detail string // a part of the detail
	}{
		{"/api/search?q=", 400, "empty query"},
		{"/api/search?q=%22white+whale", 400, "unbalanced quote"},
		{"/api/search?q=the+and", 400, "stop word"},
		{"/api/search?q=-whale", 400, ""},
		{"/api/search?q=whale&limit=0", 400, "limit must be a whole number from 1 to 100"},
		{"/api/search?q=whale&limit=101", 400, "limit"},
		{"/api/search?q=whale&limit=ten", 400, "limit"},
		{"/api/search?q=whale&offset=-1", 400, "offset"},
		{"/api/search?q=whale&offset=10001", 400, "offset"},
		{"/api/search?q=whale&snippets=maybe", 400, "snippets"},
		{"/api/search?q=ship+sail+wind+rope+deck+mast", 400, "6 words and the limit is 4"},
		{"/api/search?q=" + strings.Repeat("x", 201), 400, "query too long"},
		{"/api/explain?q=%28whale", 400, ""},
		{"/api/nothing", 404, "/api/nothing"},
	}
	for _, c := range cases {
		rec := ts.get(t, c.target)
		e := decode[errorBody](t, rec, c.status)
		if e.Error == "" || e.Detail == "" || !strings.Contains(e.Detail, c.detail) {
			t.Errorf("%s: got %+v, want detail containing %q", c.target, e, c.detail)
		}
	}
	// The parser's own sentence reaches the client.
	e := decode[errorBody](t, ts.get(t, "/api/search?q=%22white+whale"), 400)
	if e.Error != "bad query" {
		t.Errorf("error class %q, want bad query", e.Error)
	}
	rec := ts.do(t, http.MethodPut, "/api/search?q=whale", nil)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("PUT /api/search: status %d, want 405", rec.Code)
	}
}

// prefixServer serves the test documents and one more holding n words
// that start with "zq", closed when the test ends.
func prefixServer(t *testing.T, n int) *testServer {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := range n {
		b.WriteString("zq" + strconv.Itoa(i) + "x ")
	}
	buildIndex(t, dir, append(testDocs(), doc("many", "many", b.String())))
	s, err := New(Options{Dir: dir, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &testServer{Server: s, dir: dir}
}

// A prefix that expands past query.MaxPrefixTerms in a segment is the
// client's mistake (400), not the server's.
func TestSearchAPIPrefixLimit(t *testing.T) {
	ts := prefixServer(t, query.MaxPrefixTerms+10)
	e := decode[errorBody](t, ts.get(t, "/api/search?q=zq*"), 400)
	if !strings.Contains(e.Detail, "longer prefix") {
		t.Errorf("detail %q", e.Detail)
	}
	decode[searchResponse](t, ts.get(t, "/api/search?q=zq10*"), 200)
}

// The searcher's refusal of a broad prefix reaches every endpoint that takes
// a query as the same 400, before a document key is looked up.
func TestPrefixLimitEveryEndpoint(t *testing.T) {
	ts := prefixServer(t, query.MaxPrefixTerms+1)
	want := fmt.Sprintf("prefix zq* matches more than %d terms; use a longer prefix", query.MaxPrefixTerms)
	for _, target := range []string{"/api/search?q=zq*", "/api/search?q=whale+-zq*", "/api/explain?q=zq*",
		"/api/documents/many?q=zq*", "/api/documents/nope?q=zq*"} {
		e := decode[errorBody](t, ts.get(t, target), 400)
		if e.Error != "bad query" || e.Detail != want {
			t.Errorf("%s: %q %q, want %q %q", target, e.Error, e.Detail, "bad query", want)
		}
	}
	decode[errorBody](t, ts.get(t, "/api/documents/nope?q=zq1*"), 404)
}

func TestDocumentAPI(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, key := range []string{"moby/ch1.txt", "moby/ch 42.txt", "notes/naïve café.md"} {
		target := "/api/documents/" + (&url.URL{Path: key}).EscapedPath() + "?q=" + url.QueryEscape("white OR café")
		d := decode[query.DocumentView](t, ts.get(t, target), http.StatusOK)
		if d.Key != key || d.Text == "" {
			t.Fatalf("%s: got key %q", key, d.Key)
		}
		for _, r := range d.Highlights {
			w := strings.ToLower(d.Text[r.Start:r.End])
			if !strings.HasPrefix(w, "white") && w != "café" {
				t.Errorf("%s: highlight %q", key, w)
			}
		}
		if len(d.Highlights) == 0 {
			t.Errorf("%s: no highlights", key)
		}
	}
	// Without q, no highlights; with a bad q, a 400.
	d := decode[query.DocumentView](t, ts.get(t, "/api/documents/moby/ch1.txt"), http.StatusOK)
	if len(d.Highlights) != 0 {
		t.Errorf("highlights without a query: %v", d.Highlights)
	}
	decode[errorBody](t, ts.get(t, "/api/documents/moby/ch1.txt?q=%28"), 400)

	// Only indexed documents are reachable: a key is never a path.
	for _, target := range []string{"/api/documents/nope", "/api/documents/..%2F..%2Fetc%2Fpasswd",
		"/api/documents/%2Fetc%2Fpasswd", "/api/documents/moby/../moby/ch1.txt"} {
		decode[errorBody](t, ts.get(t, target), 404)
	}
	decode[errorBody](t, ts.get(t, "/api/documents/"), 400)
}

func TestExplainAPI(t *testing.T) {
	ts := newTestServer(t, nil)
	ex := decode[query.Explanation](t, ts.get(t, "/api/explain?q=white+whale"), http.StatusOK)
	sn := ts.local.live.Acquire()
	defer sn.Release()
	want, err := sn.Searcher().Explain(context.Background(), "white whale")
	if err != nil {
		t.Fatal(err)
	}
	if ex.Hits != want.Hits || ex.Candidates != want.Candidates || len(ex.Terms) != len(want.Terms) || len(ex.Segments) != len(want.Segments) {
		t.Errorf("explain over HTTP differs from query.Explain: %+v vs %+v", ex, want)
	}

	// A colon in a word is text: explain shows the one term it became.
	ex = decode[query.Explanation](t, ts.get(t, "/api/explain?q="+url.QueryEscape("title:whale sea")), http.StatusOK)
	if ex.Parsed != "title:whale sea" || len(ex.Terms) != 2 || ex.Terms[0].Word != "title:whale" || ex.Terms[0].Term != "title:whal" {
		t.Errorf("explain of title:whale: parsed %q, terms %+v", ex.Parsed, ex.Terms)
	}
	// Lucene syntax that would mean something else is refused, saying so.
	e := decode[errorBody](t, ts.get(t, "/api/explain?q="+url.QueryEscape(`"white whale"~3`)), http.StatusBadRequest)
	if e.Error != "bad query" || !strings.Contains(e.Detail, "proximity search is not supported") {
		t.Errorf("proximity: %+v", e)
	}
}

func TestStatsHealthMetrics(t *testing.T) {
	ts := newTestServer(t, nil)
	st := decode[index.Stats](t, ts.get(t, "/api/stats"), http.StatusOK)
	if st.Docs != len(testDocs()) || len(st.Segments) < 2 || st.Bytes == 0 || st.Generation != 1 {
		t.Errorf("stats %+v", st)
	}
	if rec := ts.do(t, http.MethodHead, "/healthz", nil); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD /healthz: %d, %d bytes", rec.Code, rec.Body.Len())
	}
	h := decode[map[string]any](t, ts.get(t, "/healthz"), http.StatusOK)
	if h["status"] != "ok" {
		t.Errorf("healthz %v", h)
	}
	r := decode[map[string]any](t, ts.get(t, "/readyz"), http.StatusOK)
	if r["status"] != "ready" || r["generation"] != float64(1) {
		t.Errorf("readyz %v", r)
	}
	ts.get(t, "/api/search?q=whale")
	ts.get(t, "/api/search?q=%28")
	rec := ts.get(t, "/metrics")
	if rec.Code != 200 {
		t.Fatalf("metrics: %d", rec.Code)
	}
	body := rec.Body.String()
	for _, want := range []string{
		`bitsieve_http_request_duration_seconds_count{method="GET",route="/api/search",status="200"} 1`,
		`bitsieve_http_request_duration_seconds_count{method="GET",route="/api/search",status="400"} 1`,
		`bitsieve_query_stage_seconds_count{stage="match"} 1`,
		`bitsieve_query_candidates_count 1`,
		`bitsieve_query_false_positives_count 1`,
		`bitsieve_index_documents 65`,
		`bitsieve_index_bytes `,
		`bitsieve_index_ready 1`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	ts := newTestServer(t, nil)
	for _, target := range []string{"/", "/search?q=whale", "/api/search?q=whale", "/nothing"} {
		h := ts.get(t, target).Header()
		if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" || h.Get("X-Request-Id") == "" {
			t.Errorf("%s: headers %v", target, h)
		}
	}
}

// A panic in a handler is a 500 without internals, and is logged.
func TestPanicRecovered(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.e.GET("/api/boom", func(c *echo.Context) error { panic("secret internal state") })
	rec := ts.get(t, "/api/boom")
	e := decode[errorBody](t, rec, 500)
	if strings.Contains(rec.Body.String(), "secret") || e.Error != "internal error" {
		t.Errorf("500 leaks internals: %s", rec.Body.String())
	}
	if !strings.Contains(e.Detail, rec.Header().Get("X-Request-Id")) {
		t.Errorf("detail %q lacks the request id", e.Detail)
	}
	if log := ts.log.String(); !strings.Contains(log, "secret internal state") || !strings.Contains(log, "goroutine") {
		t.Errorf("the panic and its stack are not logged: %s", log)
	}
	// The server goes on.
	decode[searchResponse](t, ts.get(t, "/api/search?q=whale"), 200)
}

func TestOverload(t *testing.T) {
	ts := newTestServer(t, func(o *Options) {
		o.Limits.MaxConcurrent = 1
		o.Limits.MaxQueue = 1
		o.Limits.QueueTimeout = 30e6 // 30ms
	})
	// Hold the only search slot.
	if err := ts.limiter.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := ts.get(t, "/api/search?q=whale")
	e := decode[errorBody](t, rec, http.StatusServiceUnavailable)
	if rec.Header().Get("Retry-After") == "" || !strings.Contains(e.Detail, "overloaded") {
		t.Errorf("503: %+v, headers %v", e, rec.Header())
	}
	// With the queue full too, refuse at once.
	ts.limiter.waiting.Store(1)
	rec = ts.get(t, "/api/search?q=whale")
	decode[errorBody](t, rec, http.StatusTooManyRequests)
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// Health checks are never queued.
	decode[map[string]any](t, ts.get(t, "/healthz"), 200)
	ts.limiter.waiting.Store(0)
	ts.limiter.release()
	decode[searchResponse](t, ts.get(t, "/api/search?q=whale"), 200)
	if body := ts.get(t, "/metrics").Body.String(); !strings.Contains(body, `bitsieve_http_rejected_total{reason="queue_full"} 1`) ||
		!strings.Contains(body, `bitsieve_http_rejected_total{reason="queue_timeout"} 1`) {
		t.Error("rejections are not counted")
	}
}

// TestMetricsFromTheStart scrapes a fresh server, before any search, reload,
// write or refusal, and finds every metric docs/api.md lists, and every
// refusal reason and query stage it names as a series at zero. Every
// bitsieve metric served is documented.
func TestMetricsFromTheStart(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	values := map[string][]string{} // metric → the label values its row names
	for _, line := range strings.Split(string(doc), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < 4 || !strings.Contains(cols[1], "`bitsieve_") {
			continue
		}
		names := regexp.MustCompile("`(bitsieve_[a-z_]+)`").FindAllStringSubmatch(cols[1], -1)
		for _, n := range names {
			documented[n[1]] = true
		}
		for _, v := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cols[3], -1) {
			values[names[0][1]] = append(values[names[0][1]], v[1])
		}
	}
	if len(documented) < 15 {
		t.Fatalf("found %d metrics in docs/api.md's table; has its layout changed?", len(documented))
	}

	ts := newTestServer(t, nil)
	body := ts.get(t, "/metrics").Body.String()
	served := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (bitsieve_[a-z_]+) `).FindAllStringSubmatch(body, -1) {
		served[m[1]] = true
	}
	for name := range documented {
		if !served[name] {
			t.Errorf("%s is documented but not served before its first event", name)
		}
	}
	for name := range served {
		if !documented[name] {
			t.Errorf("%s is served but not in docs/api.md", name)
		}
	}
	for _, want := range []string{
		`bitsieve_index_reloads_total{result="error"} 0`,
		`bitsieve_index_writes_total{op="add",result="ok"} 0`,
		`bitsieve_index_writes_total{op="delete",result="error"} 0`,
		`bitsieve_http_request_duration_seconds_count{method="GET",route="/search",status="200"} 0`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	for _, c := range []struct{ metric, label string }{{"bitsieve_http_rejected_total", "reason"}, {"bitsieve_query_stage_seconds", "stage"}} {
		if len(values[c.metric]) < 5 {
			t.Errorf("docs/api.md names %v for %s", values[c.metric], c.metric)
		}
		for _, v := range values[c.metric] {
			series := fmt.Sprintf(`%s{%s="%s"} 0`, c.metric, c.label, v)
			if strings.HasSuffix(c.metric, "_seconds") {
				series = fmt.Sprintf(`%s_count{%s="%s"} 0`, c.metric, c.label, v)
			}
			if !strings.Contains(body, series) {
				t.Errorf("metrics lack %s", series)
			}
		}
	}
}
