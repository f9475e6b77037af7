package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/query"
	"github.com/labstack/echo/v5"
)

//go:embed templates static
var assets embed.FS

// pages holds the parsed page templates and the static files.
type pages struct {
	tmpl    map[string]*template.Template // by page name
	static  fs.FS
	version string // hash of the static files, for cache-busting URLs
}

func newPages() (*pages, error) {
	p := &pages{tmpl: map[string]*template.Template{}}
	var err error
	if p.static, err = fs.Sub(assets, "static"); err != nil {
		return nil, err
	}
	h := sha256.New()
	fs.WalkDir(p.static, ".", func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(p.static, name)
			h.Write([]byte(name))
			h.Write(b)
		}
		return nil
	})
	p.version = hex.EncodeToString(h.Sum(nil))[:12]
	funcs := template.FuncMap{
		"num":    formatInt,
		"bytes":  formatBytes,
		"pct":    func(a, b int) string { return formatPercent(a, b) },
		"f2":     func(f float64) string { return fmt.Sprintf("%.2f", f) },
		"f3":     func(f float64) string { return fmt.Sprintf("%.3f", f) },
		"f1":     func(f float64) string { return fmt.Sprintf("%.1f", f) },
		"static": func(name string) string { return "/static/" + name + "?v=" + p.version },
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		name = path.Base(name)
		if name == "layout.html" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(assets, "templates/"+name)
		if err != nil {
			return nil, err
		}
		p.tmpl[strings.TrimSuffix(name, ".html")] = t
	}
	return p, nil
}

// pageData is what every page template receives.
type pageData struct {
	Title     string
	Query     string
	Action    string // where the header's search form goes
	Docs      int
	Segments  int
	Sample    bool
	Home      bool
	Error     *apiError
	Results   *resultsView
	Doc       *documentView
	Explain   *explainView
	Examples  []example
	RequestID string
	MaxQuery  int // the query length limit, for the search box
}

type example struct{ Query, URL string }

// render executes a page into a buffer first, so a template error becomes a
// clean 500 instead of half a page.
func (s *Server) render(c *echo.Context, status int, name string, d *pageData) error {
	t := s.pages.tmpl[name]
	if t == nil {
		return fmt.Errorf("no template %q", name)
	}
	if d.Action == "" {
		d.Action = "/search"
	}
	d.RequestID = requestID(c)
	d.MaxQuery = s.limits.MaxQueryBytes
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", d); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(status, buf.Bytes())
}

// renderError shows an error as a page. A bad query keeps the search box
// filled in so it can be corrected.
func (s *Server) renderError(c *echo.Context, ae *apiError) {
	d := &pageData{Title: ae.Err, Error: ae, Query: queryText(c)}
	sum := s.backend.Summary()
	d.Docs, d.Segments = sum.Docs, sum.Segments
	if c.Path() == "/explain" {
		d.Action = "/explain"
	}
	if err := s.render(c, ae.Status, "error", d); err != nil {
		s.log.Error("rendering an error page failed", "request_id", requestID(c), "error", err)
		c.JSON(ae.Status, ae)
	}
}

// homeExamples show the query language on any corpus.
var homeExamples = []string{`white whale`, `"hash table"`, `exception OR error handling`, `compil* -java`}

func (s *Server) homePage(c *echo.Context) error {
	if q := queryText(c); q != "" { // a search form that posted to /
		return c.Redirect(http.StatusFound, "/search?"+url.Values{"q": {q}}.Encode())
	}
	sum := s.backend.Summary()
	d := &pageData{Title: "bitsieve", Home: true, Docs: sum.Docs, Segments: sum.Segments, Sample: s.opt.Sample}
	for _, q := range homeExamples {
		d.Examples = append(d.Examples, example{q, searchURL(q, 1)})
	}
	return s.render(c, http.StatusOK, "home", d)
}

// resultsView is a page of results.
type resultsView struct {
	Total, Candidates, FalsePositives int
	From, To                          int
	Took                              string
	Hits                              []hitView
	Pages                             []pageLink
	Prev, Next                        string
	ExplainURL                        string
	Capped                            bool // more results exist than pages reach
	PastEnd                           *pastEnd
	Missing                           []int // a cluster's shards that did not answer
}

// pastEnd is what a results page past the last one shows instead of hits.
type pastEnd struct {
	Page, Last int    // the page asked for, and the last page with hits
	LastURL    string // a link to the last page
}

type hitView struct {
	Title, Key, URL string
	Score           float64
	Snippet         []textPiece
}

type pageLink struct {
	N       int
	URL     string
	Current bool
}

// textPiece is a run of text, highlighted or not.
type textPiece struct {
	Text string
	Mark bool
	ID   string    // anchor of a highlight in the document view
	Lead int       // the document view: the line that starts with the piece, if one does
	Segs []lineSeg // the document view: Text cut where its other lines start
}

// lineSeg is a part of a textPiece; when Line is set, line Line of the
// document starts with it, and the document view puts its anchor there.
type lineSeg struct {
	Line int
	Text string
}

// pageSize is the number of hits on a results page.
const pageSize = 10

// The page parameter of /search: absent, 0 or negative is the first page
// (a redirect to it, so the address says what is shown); a page past the last
// one shows how many pages there are and links to the last; anything but a
// whole number is a 400.
func (s *Server) searchPage(c *echo.Context) error {
	q := queryText(c)
	if strings.TrimSpace(q) == "" {
		return c.Redirect(http.StatusFound, "/")
	}
	pg, err := pageParam(c)
	if err != nil {
		return err
	}
	if pg < 1 {
		return c.Redirect(http.StatusFound, searchURL(q, 1))
	}
	maxPage := s.limits.MaxOffset/pageSize + 1
	req := query.Request{Query: q, Limit: pageSize, Offset: (pg - 1) * pageSize, Snippets: true}
	if pg > maxPage { // past any page shown: only the total is needed
		req = query.Request{Query: q, Limit: 1}
	}
	res, served, err := s.search(c.Request().Context(), req)
	if err != nil {
		return err
	}
	last := min((res.Total+pageSize-1)/pageSize, maxPage)
	rv := &resultsView{Total: res.Total, Candidates: res.Candidates, FalsePositives: res.FalsePositives,
		Took: formatDuration(res.Took), ExplainURL: "/explain?" + url.Values{"q": {q}}.Encode(),
		Capped: res.Total > maxPage*pageSize}
	if pg > last && res.Total > 0 {
		rv.PastEnd = &pastEnd{Page: pg, Last: last, LastURL: searchURL(q, last)}
	} else {
		for _, h := range res.Hits {
			title := h.Title
			if title == "" {
				title = h.Key
			}
			u := documentURL(h.Key, q)
			if h.Line > 0 {
				u += fmt.Sprintf("#L%d", h.Line)
			}
			rv.Hits = append(rv.Hits, hitView{Title: title, Key: h.Key, URL: u, Score: h.Score,
				Snippet: pieces(h.Snippet, h.Highlights, "")})
		}
	}
	if len(rv.Hits) > 0 {
		rv.From = (pg-1)*pageSize + 1
		rv.To = rv.From + len(rv.Hits) - 1
	}
	cur := min(pg, last)
	for n := max(1, cur-4); n <= min(last, max(cur+4, 9)); n++ {
		rv.Pages = append(rv.Pages, pageLink{N: n, URL: searchURL(q, n), Current: n == pg})
	}
	if pg > 1 && pg <= last {
		rv.Prev = searchURL(q, pg-1)
	}
	if pg < last {
		rv.Next = searchURL(q, pg+1)
	}
	title := q + " — bitsieve"
	if pg > 1 {
		title = fmt.Sprintf("%s (page %d) — bitsieve", q, pg)
	}
	rv.Missing = served.Missing
	sum := s.backend.Summary()
	return s.render(c, http.StatusOK, "results", &pageData{Title: title, Query: q, Results: rv,
		Docs: sum.Docs, Segments: sum.Segments, Sample: s.opt.Sample})
}

// pageParam reads the page parameter: 1 when absent, and any whole number,
// which searchPage then places among the pages there are.
func pageParam(c *echo.Context) (int, error) {
	v := c.QueryParam("page")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if errors.Is(err, strconv.ErrRange) {
		n, err = math.MaxInt, nil
		if strings.HasPrefix(v, "-") {
			n = math.MinInt
		}
	}
	if err != nil {
		return 0, badRequest("page must be a page number such as 2, not %q", v)
	}
	return n, nil
}

// documentView is one stored document with its matches highlighted.
type documentView struct {
	Key, Title string
	Size       int64
	Text       []textPiece
	Matches    int        // in the part shown
	Jumps      []pageLink // links to the first matches
	// A long text is shown a window at a time (query.DocumentWindow):
	// From and To are the bytes shown of Length, and PrevURL and NextURL
	// lead to the windows around it.
	From, To, Length int
	PrevURL, NextURL string
	BackURL          string
	APIURL           string
}

// maxJumps is how many match links the document page lists.
const maxJumps = 40

func (s *Server) documentPage(c *echo.Context) error {
	key, q := c.QueryParam("key"), queryText(c)
	if key == "" {
		return badRequest("give the document's key: /doc?key=...")
	}
	from, err := windowFrom(c)
	if err != nil {
		return err
	}
	doc, err := s.document(c.Request().Context(), key, q, from)
	if err != nil {
		return err
	}
	dv := &documentView{Key: doc.Key, Title: doc.Title, Size: doc.Size, Matches: len(doc.Highlights),
		From: doc.Offset, To: doc.Offset + len(doc.Text), Length: doc.Length,
		APIURL: "/api/documents/" + (&url.URL{Path: doc.Key}).EscapedPath()}
	window := func(at *int) string {
		if at == nil {
			return ""
		}
		v := url.Values{"key": {doc.Key}, "from": {strconv.Itoa(*at)}}
		if q != "" {
			v.Set("q", q)
		}
		return "/doc?" + v.Encode()
	}
	dv.PrevURL, dv.NextURL = window(doc.Prev), window(doc.Next)
	api := url.Values{}
	if q != "" {
		dv.BackURL = searchURL(q, 1)
		api.Set("q", q)
	}
	if doc.Offset > 0 {
		api.Set("from", strconv.Itoa(doc.Offset))
	}
	if len(api) > 0 {
		dv.APIURL += "?" + api.Encode()
	}
	hl := doc.Highlights
	dv.Text = pieces(doc.Text, hl, "m")
	numberLines(dv.Text, doc.Line)
	for i := range min(len(hl), maxJumps) {
		dv.Jumps = append(dv.Jumps, pageLink{N: i + 1, URL: fmt.Sprintf("#m%d", i+1)})
	}
	title := doc.Title
	if title == "" {
		title = doc.Key
	}
	sum := s.backend.Summary()
	return s.render(c, http.StatusOK, "document", &pageData{Title: title + " — bitsieve", Query: q, Doc: dv,
		Docs: sum.Docs, Segments: sum.Segments, Sample: s.opt.Sample})
}

func (s *Server) explainPage(c *echo.Context) error {
	q := queryText(c)
	if strings.TrimSpace(q) == "" {
		return c.Redirect(http.StatusFound, "/")
	}
	ex, _, err := s.explain(c.Request().Context(), q)
	if err != nil {
		return err
	}
	ev := newExplainView(ex)
	ev.SearchURL = searchURL(q, 1)
	return s.render(c, http.StatusOK, "explain", &pageData{Title: "explain " + q + " — bitsieve", Query: q, Action: "/explain",
		Explain: ev, Docs: ex.Docs, Segments: len(ex.Segments), Sample: s.opt.Sample})
}

// static serves the embedded files. Their URLs carry the files' hash, so
// they can be cached for long.
func (s *Server) static(c *echo.Context) error {
	name := strings.TrimPrefix(c.Request().URL.Path, "/static/")
	b, err := fs.ReadFile(s.pages.static, name)
	if err != nil || !fs.ValidPath(name) {
		return echo.ErrNotFound
	}
	ct := "application/octet-stream"
	switch path.Ext(name) {
	case ".css":
		ct = "text/css; charset=utf-8"
	case ".js":
		ct = "text/javascript; charset=utf-8"
	case ".svg":
		ct = "image/svg+xml"
	}
	if c.QueryParam("v") == s.pages.version {
		c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		c.Response().Header().Set("Cache-Control", "public, max-age=300")
	}
	return c.Blob(http.StatusOK, ct, b)
}

func (s *Server) favicon(c *echo.Context) error {
	b, err := fs.ReadFile(s.pages.static, "favicon.svg")
	if err != nil {
		return echo.ErrNotFound
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=86400")
	return c.Blob(http.StatusOK, "image/svg+xml", b)
}

// pieces splits text at the highlight ranges. Ranges out of order or out of
// bounds are skipped, never trusted. With an id prefix, highlights get
// anchors prefix1, prefix2, ...
func pieces(text string, hl []query.Range, idPrefix string) []textPiece {
	var out []textPiece
	at, n := 0, 0
	for _, r := range hl {
		if r.Start < at || r.End > len(text) || r.Start >= r.End {
			continue
		}
		if r.Start > at {
			out = append(out, textPiece{Text: text[at:r.Start]})
		}
		p := textPiece{Text: text[r.Start:r.End], Mark: true}
		if idPrefix != "" {
			n++
			p.ID = fmt.Sprintf("%s%d", idPrefix, n)
		}
		out = append(out, p)
		at = r.End
	}
	if at < len(text) {
		out = append(out, textPiece{Text: text[at:]})
	}
	return out
}

// numberLines cuts the text of ps where the document's lines start (line
// first at the start, first+n after the nth newline), into each piece's Segs.
// A line that starts with a piece is its Lead, so its anchor goes before a
// highlight rather than inside it. A line ends with its newline, so a text
// ending in one has no empty line after it.
func numberLines(ps []textPiece, first int) {
	line, starts := first, true
	for i := range ps {
		p := &ps[i]
		p.Lead, p.Segs = 0, nil
		if starts && p.Text != "" {
			p.Lead, starts = line, false
		}
		for t := p.Text; t != ""; {
			seg := lineSeg{Text: t}
			if starts {
				seg.Line = line
				starts = false
			}
			if nl := strings.IndexByte(t, '\n'); nl >= 0 {
				seg.Text = t[:nl+1]
				line++
				starts = true
			}
			p.Segs = append(p.Segs, seg)
			t = t[len(seg.Text):]
		}
	}
}

func searchURL(q string, page int) string {
	v := url.Values{"q": {q}}
	if page > 1 {
		v.Set("page", fmt.Sprint(page))
	}
	return "/search?" + v.Encode()
}

func documentURL(key, q string) string {
	v := url.Values{"key": {key}}
	if q != "" {
		v.Set("q", q)
	}
	return "/doc?" + v.Encode()
}

// formatInt writes n with thousands separators: 1234567 → 1,234,567.
func formatInt(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

func formatPercent(a, b int) string {
	if b == 0 {
		return "0%"
	}
	p := 100 * float64(a) / float64(b)
	switch {
	case p == 0:
		return "0%"
	case p < 0.1:
		return "<0.1%"
	case p < 10:
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", math.Round(p))
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}
