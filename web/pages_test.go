package web

import (
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/query"
)

func page200(t *testing.T, ts *testServer, target string) string {
	t.Helper()
	rec := ts.get(t, target)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s: status %d: %s", target, rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("%s: Content-Type %q", target, ct)
	}
	return rec.Body.String()
}

func TestHomePage(t *testing.T) {
	ts := newTestServer(t, nil)
	body := page200(t, ts, "/")
	for _, want := range []string{`<form class="search big" action="/search"`, `name="q"`, "65 documents", `href="/static/style.css?v=`} {
		if !strings.Contains(body, want) {
			t.Errorf("home page lacks %q", want)
		}
	}
	// The stylesheet and script it names are served, cacheable.
	css := regexp.MustCompile(`/static/style\.css\?v=[0-9a-f]+`).FindString(body)
	rec := ts.get(t, css)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css") || !strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
		t.Errorf("%s: %d %v", css, rec.Code, rec.Header())
	}
	if rec := ts.get(t, "/static/../pages.go"); rec.Code != 404 {
		t.Errorf("static escape: %d", rec.Code)
	}
}

func TestResultsPage(t *testing.T) {
	ts := newTestServer(t, nil)
	body := page200(t, ts, "/search?q=white+whale")
	for _, want := range []string{
		"<strong>2</strong> results",
		`<mark>white</mark>`, `<mark>whale</mark>`,
		`href="/doc?key=moby%2Fch1.txt&amp;q=white&#43;whale#L2"`,
		"candidates from the signature",
		`href="/explain?q=white&#43;whale"`,
		`value="white whale"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("results page lacks %q", want)
		}
	}

	// Several pages: numbered links, next and previous.
	body = page200(t, ts, "/search?q=sea")
	if !strings.Contains(body, `rel="next"`) || !strings.Contains(body, `aria-current="page">1<`) || strings.Contains(body, `rel="prev"`) {
		t.Error("page 1 of sea: pagination links wrong")
	}
	body2 := page200(t, ts, "/search?q=sea&page=2")
	if !strings.Contains(body2, `rel="prev"`) || !strings.Contains(body2, `aria-current="page">2<`) || !strings.Contains(body2, `<ol class="hits" start="11">`) {
		t.Error("page 2 of sea: pagination wrong")
	}

	// No results, an empty query, a bad query.
	if body := page200(t, ts, "/search?q=zebra"); !strings.Contains(body, "No document matches") {
		t.Error("no-results page")
	}
	if rec := ts.get(t, "/search?q=+"); rec.Code != http.StatusFound || rec.Header().Get("Location") != "/" {
		t.Errorf("empty query: %d %v", rec.Code, rec.Header())
	}
	rec := ts.get(t, "/search?q=%22white")
	if rec.Code != 400 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(rec.Body.String(), "unbalanced quote") || !strings.Contains(rec.Body.String(), `value="&#34;white"`) {
		t.Errorf("bad query page: %d %s", rec.Code, rec.Body.String())
	}
}

// The summary gives the range of results shown whenever there is more than
// one page: on the first, a middle and a partial last page. One page of
// results gives just the count.
func TestResultsPageRange(t *testing.T) {
	ts := newTestServer(t, nil)
	total := decode[searchResponse](t, ts.get(t, "/api/search?q=sea&limit=1"), http.StatusOK).Total
	last := (total + pageSize - 1) / pageSize
	if total%pageSize == 0 || last < 3 {
		t.Fatalf("sea has %d results; the test wants a partial last page after at least two full ones", total)
	}
	summary := regexp.MustCompile(`(?s)<p class="summary">\s*(.*?)\s*<span`)
	for _, c := range []struct {
		page int
		want string
	}{
		{1, fmt.Sprintf("Results 1–10 of <strong>%d</strong>", total)},
		{2, fmt.Sprintf("Results 11–20 of <strong>%d</strong>", total)},
		{last, fmt.Sprintf("Results %d–%d of <strong>%d</strong>", (last-1)*pageSize+1, total, total)},
	} {
		body := page200(t, ts, searchURL("sea", c.page))
		if m := summary.FindStringSubmatch(body); m == nil || m[1] != c.want {
			t.Errorf("page %d of sea: summary %q, want %q", c.page, m, c.want)
		}
		if c.page == last && strings.Contains(body, `rel="next"`) {
			t.Errorf("the last page links to a next page")
		}
	}
	for q, want := range map[string]string{"white whale": "<strong>2</strong> results", "Ishmael": "<strong>1</strong> result", "zebra": "No results"} {
		body := page200(t, ts, searchURL(q, 1))
		if m := summary.FindStringSubmatch(body); m == nil || m[1] != want {
			t.Errorf("%s: summary %q, want %q", q, m, want)
		}
	}
}

// A page past the last says so and links to the last page; page 0 or less
// is the first page; a page that is not a number is a 400 that does not
// blame the query.
func TestResultsPageNumbers(t *testing.T) {
	ts := newTestServer(t, nil)
	total := decode[searchResponse](t, ts.get(t, "/api/search?q=sea&limit=1"), http.StatusOK).Total
	last := (total + pageSize - 1) / pageSize
	for _, page := range []string{"99", "1002", "99999999999999999999999"} {
		body := page200(t, ts, "/search?q=sea&page="+page)
		want := fmt.Sprintf("No results on page %s — there are %d results on %d pages.", formatNumber(page), total, last)
		if !strings.Contains(body, want) {
			t.Errorf("page %s: lacks %q", page, want)
		}
		if !strings.Contains(body, fmt.Sprintf(`<a href="/search?page=%d&amp;q=sea">Go to the last page, %d</a>`, last, last)) {
			t.Errorf("page %s: no link to the last page", page)
		}
		if strings.Contains(body, "Results 0") || strings.Contains(body, `class="hit"`) || strings.Contains(body, `rel="next"`) {
			t.Errorf("page %s: shows a range, hits or a next page", page)
		}
	}
	// One result: one page.
	if body := page200(t, ts, "/search?q=Ishmael&page=2"); !strings.Contains(body, "No results on page 2 — there is 1 result on 1 page.") {
		t.Errorf("page 2 of one result: %s", body)
	}
	// No results at all: the usual advice, whatever the page.
	if body := page200(t, ts, "/search?q=zebra&page=3"); !strings.Contains(body, "No document matches") || strings.Contains(body, "No results on page") {
		t.Error("page 3 of no results")
	}

	for _, page := range []string{"0", "-1", "-99999999999999999999999"} {
		rec := ts.get(t, "/search?q=sea&page="+page)
		if rec.Code != http.StatusFound || rec.Header().Get("Location") != "/search?q=sea" {
			t.Errorf("page=%s: %d to %q, want a redirect to the first page", page, rec.Code, rec.Header().Get("Location"))
		}
	}
	for _, page := range []string{"abc", "2.5", "1e3", " 2"} {
		rec := ts.get(t, "/search?q=sea&page="+url.QueryEscape(page))
		body := rec.Body.String()
		if rec.Code != http.StatusBadRequest || !strings.Contains(body, template.HTMLEscapeString(fmt.Sprintf("page must be a page number such as 2, not %q", page))) {
			t.Errorf("page=%q: %d %s", page, rec.Code, body)
		}
		if strings.Contains(body, "That query cannot be run") || strings.Contains(body, "are understood") {
			t.Errorf("page=%q: the error page blames the query", page)
		}
	}
	// A bad query still gets the syntax hint.
	if body := ts.get(t, "/search?q=%22white").Body.String(); !strings.Contains(body, "That query cannot be run") || !strings.Contains(body, "are understood") {
		t.Error("a bad query's page lacks the syntax hint")
	}
}

func formatNumber(s string) string {
	n, err := strconv.Atoi(s)
	if err != nil {
		n = math.MaxInt
	}
	return formatInt(n)
}

// Document text, titles and queries are shown, never interpreted.
func TestPagesEscapeHTML(t *testing.T) {
	ts := newTestServer(t, nil)
	q := `sea "><script>alert('q')</script>`
	for _, target := range []string{
		"/search?q=" + url.QueryEscape("onerror"),
		"/search?q=" + url.QueryEscape(q),
		"/doc?key=" + url.QueryEscape("xss/evil.html") + "&q=bold",
		"/explain?q=" + url.QueryEscape(q),
		"/search?q=" + url.QueryEscape(`"<img src=x>`),
		"/nothing/<script>",
	} {
		rec := ts.get(t, target)
		body := rec.Body.String()
		for _, bad := range []string{"<script>alert", "<img src=x", "<b>bold", `"><script>`} {
			if strings.Contains(body, bad) {
				t.Errorf("%s (%d): page contains %q unescaped", target, rec.Code, bad)
			}
		}
	}
	body := page200(t, ts, "/doc?key="+url.QueryEscape("xss/evil.html")+"&q=bold")
	if !strings.Contains(body, "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;") || !strings.Contains(body, "&lt;b&gt;<mark id=\"m1\">bold</mark>&lt;/b&gt;") {
		t.Errorf("document page does not show the markup as text:\n%s", body)
	}
}

func TestDocumentPage(t *testing.T) {
	ts := newTestServer(t, nil)
	body := page200(t, ts, "/doc?key="+url.QueryEscape("moby/ch1.txt")+"&q=white+whale")
	for _, want := range []string{
		"<h1>Loomings</h1>",
		`<mark id="m1">white</mark>`, `<mark id="m4">white</mark>`,
		`href="#m4"`, "4 matches",
		`href="/search?q=white&#43;whale"`,
		`href="/api/documents/moby/ch1.txt?q=white&#43;whale"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("document page lacks %q", want)
		}
	}
	rec := ts.get(t, "/doc?key=nope")
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), "Not found") {
		t.Errorf("missing document: %d", rec.Code)
	}
	if rec := ts.get(t, "/doc"); rec.Code != 400 {
		t.Errorf("no key: %d", rec.Code)
	}
}

// TestDocumentLines: the document view anchors every line, L1 at the
// start, before a highlight that starts a line and inside one that spans
// lines, and a hit links to its snippet's line.
func TestDocumentLines(t *testing.T) {
	ts := newTestServer(t, nil)
	body := page200(t, ts, "/doc?key="+url.QueryEscape("moby/ch1.txt")+"&q=white+whale")
	for _, want := range []string{
		`<pre class="text numbered"><a class="ln" id="L1" href="#L1" data-n="1"></a>Loomings` + "\n" + `<a class="ln" id="L2" href="#L2" data-n="2"></a>Call me`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("document page lacks %q", want)
		}
	}
	if strings.Contains(body, `id="L3"`) {
		t.Error("a two-line document has a third line anchor")
	}

	text := "one\nwhite\nwhale two\n\nthree\n"
	ps := pieces(text, []query.Range{{Start: 4, End: 15}, {Start: 16, End: 19}}, "m")
	numberLines(ps, 1)
	var b strings.Builder
	for _, p := range ps {
		if p.Lead > 0 {
			fmt.Fprintf(&b, "<L%d>", p.Lead)
		}
		if p.Mark {
			b.WriteString("[")
		}
		for _, sg := range p.Segs {
			if sg.Line > 0 {
				fmt.Fprintf(&b, "<L%d>", sg.Line)
			}
			b.WriteString(sg.Text)
		}
		if p.Mark {
			b.WriteString("]")
		}
	}
	if want := "<L1>one\n<L2>[white\n<L3>whale] [two]\n<L4>\n<L5>three\n"; b.String() != want {
		t.Errorf("numberLines: %q, want %q", b.String(), want)
	}
}

func TestExplainPage(t *testing.T) {
	ts := newTestServer(t, nil)
	body := page200(t, ts, "/explain?q=white+whale")
	for _, want := range []string{"How the signature answers", "<svg", `class="funnel"`, "AND whale", "verified hits", "<table>", "<figure class=\"segment\">", `action="/explain"`} {
		if !strings.Contains(body, want) {
			t.Errorf("explain page lacks %q", want)
		}
	}
	// The strips are real: the AND survivors drawn equal Explain's counts.
	sn := ts.local.live.Acquire()
	defer sn.Release()
	ex, err := sn.Searcher().Explain(t.Context(), "white whale")
	if err != nil {
		t.Fatal(err)
	}
	ev := newExplainView(ex)
	for _, sg := range ev.Segments {
		for _, st := range sg.Strips {
			if st.Class == "and" && strings.HasPrefix(st.Right, "0 ") != (len(st.Paths) == 0) {
				t.Errorf("segment %s: strip %q drawn with %d paths", sg.Name, st.Right, len(st.Paths))
			}
		}
	}
}

func TestPieces(t *testing.T) {
	text := "the white whale"
	got := pieces(text, []query.Range{{Start: 4, End: 9}, {Start: 3, End: 5}, {Start: 10, End: 15}, {Start: 20, End: 30}}, "m")
	var b strings.Builder
	for _, p := range got {
		if p.Mark {
			b.WriteString("[" + p.ID + ":" + p.Text + "]")
		} else {
			b.WriteString(p.Text)
		}
	}
	if b.String() != "the [m1:white] [m2:whale]" {
		t.Errorf("pieces: %q", b.String())
	}
}

// TestLongDocumentWindows: a document longer than a window is shown and
// served a window at a time, opening on the first match, with links to the
// windows around it; a bad from is a 400.
func TestLongDocumentWindows(t *testing.T) {
	long := strings.Repeat("sea ship sail wind\n", 3*query.DocumentWindow/19) + "the kraken rises\n" + strings.Repeat("tide storm\n", 1000)
	ts := newTestServer(t, func(o *Options) { buildIndex(t, o.Dir, append(testDocs(), doc("big.txt", "Big", long))) })
	body := page200(t, ts, "/doc?key=big.txt&q=kraken")
	for _, want := range []string{
		`<mark id="m1">kraken</mark>`, "1 match in this part", `rel="prev"`, "Earlier text", "of " + formatInt(len(long)+4),
		`href="/api/documents/big.txt?from=`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("window of the match lacks %q", want)
		}
	}
	if strings.Contains(body, `rel="next"`) {
		t.Error("the last window links to a next one")
	}
	d := decode[query.DocumentView](t, ts.get(t, "/api/documents/big.txt?q=kraken"), http.StatusOK)
	if d.Offset == 0 || d.Next != nil || d.Prev == nil || len(d.Highlights) != 1 || d.Text[d.Highlights[0].Start:d.Highlights[0].End] != "kraken" ||
		d.Line != 1+strings.Count(long[:d.Offset-4], "\n")+1 {
		t.Errorf("API window of the match: offset %d line %d next %v prev %v highlights %v", d.Offset, d.Line, d.Next, d.Prev, d.Highlights)
	}
	first := decode[query.DocumentView](t, ts.get(t, "/api/documents/big.txt"), http.StatusOK)
	if first.Offset != 0 || first.Next == nil || len(first.Text) != query.DocumentWindow || first.Length != len(long)+4 {
		t.Errorf("first window: offset %d next %v %d of %d bytes", first.Offset, first.Next, len(first.Text), first.Length)
	}
	body = page200(t, ts, "/doc?key=big.txt&from=0")
	if !strings.Contains(body, `rel="next"`) || strings.Contains(body, `rel="prev"`) || !strings.Contains(body, `data-n="1"`) {
		t.Error("the first window's page lacks its next link or line 1")
	}
	for _, target := range []string{"/doc?key=big.txt&from=x", "/api/documents/big.txt?from=-3"} {
		if rec := ts.get(t, target); rec.Code != 400 || !strings.Contains(rec.Body.String(), "from must be a byte offset") {
			t.Errorf("%s: %d %s", target, rec.Code, rec.Body)
		}
	}
}
