package web

import (
	"bufio"
	"context"
	"fmt"
	"go/build"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestBrowser builds the real binary, starts `bitsieve serve` on a loopback
// port and drives headless Chromium through the pages a user sees: search,
// the next page of results, a document, the explain view, and the results at
// phone width. On failure it saves a screenshot of the page it was on.
//
// It needs chromium (Debian's package): without it the test is skipped,
// except under CI=true, where it fails. Environment:
//
//	BITSIEVE_SCREENSHOTS=dir    also save the results and explain pages as PNG
//	                            (docs/screenshots holds the ones in the docs)
//	BITSIEVE_BROWSER_INDEX=dir  serve this index instead of a small test one
//	BITSIEVE_BROWSER_QUERY=q    search for q (default "sea"; needs > 10 hits)
//	BITSIEVE_ARTIFACTS=dir      where failure screenshots go (default: the
//	                            test's temporary directory, kept and logged)
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("short: the browser test starts Chromium")
	}
	chrome := findChromium()
	if chrome == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (CI installs it: apt-get install chromium)")
		}
		t.Skip("chromium is not installed; apt-get install chromium to run the browser test")
	}

	tmp := t.TempDir()
	bin := buildBinary(t, tmp)
	dir := os.Getenv("BITSIEVE_BROWSER_INDEX")
	if dir == "" {
		dir = filepath.Join(tmp, "index")
		buildIndex(t, dir, testDocs())
	}
	q := os.Getenv("BITSIEVE_BROWSER_QUERY")
	if q == "" {
		q = "sea"
	}
	base := startServer(t, bin, dir)

	ctx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chrome),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(tmp, "chromium")),
		chromedp.WindowSize(1200, 900),
	)
	defer cancel()
	ctx, cancel = chromedp.NewContext(ctx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	// Every step together must finish in a minute, whatever hangs.
	ctx, cancelSteps := context.WithTimeout(ctx, time.Minute)
	defer cancelSteps()

	// Console errors (a CSP violation, a script error) fail the test.
	var consoleMu sync.Mutex
	var console []string
	go func() {
		for ev, err := range chromedp.Events(ctx, log.EntryAdded) {
			if err != nil {
				return
			}
			if ev.Entry != nil && ev.Entry.Level == log.EntryLevelError && !strings.Contains(ev.Entry.URL, "favicon") {
				consoleMu.Lock()
				console = append(console, ev.Entry.Text)
				consoleMu.Unlock()
			}
		}
	}()
	go func() {
		for ev, err := range chromedp.Events(ctx, cdpruntime.ExceptionThrown) {
			if err != nil {
				return
			}
			consoleMu.Lock()
			console = append(console, fmt.Sprint("exception: ", ev.ExceptionDetails))
			consoleMu.Unlock()
		}
	}()

	b := &browser{t: t, ctx: ctx, shots: os.Getenv("BITSIEVE_SCREENSHOTS")}
	defer b.failureScreenshot()

	// Home: type the query and press Enter.
	b.do("open the home page", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("input[name=q]")))
	b.navigate("search from the home page", chromedp.SendKeys(chromedp.CSS("input[name=q]"), q+"\r"))
	b.do("results", chromedp.WaitVisible(chromedp.CSS("ol.hits li.hit")))
	summary := b.text(".summary")
	if !regexp.MustCompile(`^Results 1–10 of [\d,]+ \(`).MatchString(summary) {
		b.errorf("results summary %q", summary)
	}
	if n := b.count("ol.hits li.hit"); n != 10 {
		b.errorf("%d hits on the first page, want 10", n)
	}
	if n := b.count("ol.hits mark"); n == 0 {
		b.errorf("no highlighted words in the snippets")
	}
	if f := b.text(".filter"); !strings.Contains(f, "candidate") || !strings.Contains(f, "false positive") {
		b.errorf("filter figures %q", f)
	}
	b.screenshot("results.png", false)

	// Page 2.
	b.navigate("next page", chromedp.Click(chromedp.CSS("a.next")))
	b.do("page 2", chromedp.WaitVisible(chromedp.CSS("ol.hits li.hit")))
	if cur := b.text(".pages .current"); cur != "2" {
		b.errorf("current page %q, want 2", cur)
	}
	if s := b.text(".summary"); !strings.Contains(s, "Results 11–") {
		b.errorf("page 2 summary %q", s)
	}

	// Past the last page: it says so and links to the last page, whose
	// range ends at the total (unless the pages stop before the results).
	b.navigate("a page past the end", chromedp.Navigate(base+"/search?q="+url.QueryEscape(q)+"&page=100000"))
	if s := b.text(".past-end"); !strings.HasPrefix(s, "No results on page 100,000 — ") {
		b.errorf("past-end message %q", s)
	}
	b.navigate("the last page", chromedp.Click(chromedp.CSS(".past-end a")))
	b.do("last page", chromedp.WaitVisible(chromedp.CSS("ol.hits li.hit")))
	m := regexp.MustCompile(`^Results ([\d,]+)–([\d,]+) of ([\d,]+) \(`).FindStringSubmatch(b.text(".summary"))
	if m == nil || (m[2] != m[3] && b.count("p.note") == 0) {
		b.errorf("last page summary %q", b.text(".summary"))
	}
	if b.count("a.next") != 0 {
		b.errorf("the last page links to a next page")
	}
	b.navigate("page 2 again", chromedp.Navigate(base+searchURL(q, 2)))
	b.do("page 2 again", chromedp.WaitVisible(chromedp.CSS("ol.hits li.hit")))

	// A document, with every match highlighted.
	title := b.text("ol.hits li.hit a.title")
	b.navigate("open the first hit", chromedp.Click(chromedp.CSS("ol.hits li.hit a.title")))
	b.do("document", chromedp.WaitVisible(chromedp.CSS("pre.text")))
	if h1 := b.text("article.document h1"); h1 != title {
		b.errorf("document title %q, the hit said %q", h1, title)
	}
	if n := b.count("pre.text mark"); n == 0 {
		b.errorf("no match highlighted in the document")
	}
	// The hit links to its snippet's line, whose number is the target; line
	// numbers are drawn, not text.
	if n := b.count("pre.text a.ln:target"); n != 1 {
		b.errorf("%d line anchors are the target of the hit's link, want 1", n)
	}
	if n := b.eval(`/^\d/.test(document.querySelector("pre.text").innerText) ? 1 : 0`); n != 0 {
		b.errorf("the document's text starts with a line number")
	}

	// Explain, from the results page.
	b.navigate("back to the results", chromedp.Click(chromedp.CSS("p.back a")))
	b.do("results again", chromedp.WaitVisible(chromedp.CSS("ol.hits li.hit")))
	b.navigate("open explain", chromedp.Click(chromedp.CSS(".filter a")))
	b.do("explain", chromedp.WaitVisible(chromedp.CSS("svg.funnel")))
	if n := b.count("figure.segment svg"); n == 0 {
		b.errorf("explain draws no segment")
	}
	if n := b.count("svg.funnel rect.bar"); n < 3 {
		b.errorf("explain funnel has %d bars", n)
	}
	b.screenshot("explain.png", true)

	// Phone width: nothing wider than the screen.
	b.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	b.navigate("results on a phone", chromedp.Navigate(base+"/search?q="+strings.ReplaceAll(q, " ", "+")))
	b.do("results", chromedp.WaitVisible(chromedp.CSS("ol.hits li.hit")))
	if over := b.eval(`document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
		b.errorf("the results page is %d px wider than a phone screen", over)
	}
	b.screenshot("results-phone.png", false)

	consoleMu.Lock()
	defer consoleMu.Unlock()
	for _, c := range console {
		b.errorf("browser console: %s", c)
	}
}

// browser runs steps, failing the test with the step's name and a
// screenshot of the page at the first failure.
type browser struct {
	t       *testing.T
	ctx     context.Context
	shots   string
	shotted bool // a failure screenshot has been saved
}

// errorf records a failure and saves a screenshot of the page as it is.
func (b *browser) errorf(format string, a ...any) {
	b.t.Helper()
	b.t.Errorf(format, a...)
	b.failureScreenshot()
}

func (b *browser) fatalf(format string, a ...any) {
	b.t.Helper()
	b.t.Errorf(format, a...)
	b.failureScreenshot()
	b.t.FailNow()
}

func (b *browser) do(step string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.fatalf("%s: %v", step, err)
	}
}

// navigate runs actions that load a page and checks the page's status.
func (b *browser) navigate(step string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, actions...)
	if err != nil {
		b.fatalf("%s: %v", step, err)
	}
	if resp.Status != 200 {
		b.fatalf("%s: %s answered %d", step, resp.URL, resp.Status)
	}
}

func (b *browser) text(css string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		b.fatalf("text of %s: %v", css, err)
	}
	return strings.TrimSpace(s)
}

func (b *browser) count(css string) int {
	b.t.Helper()
	return b.eval(fmt.Sprintf("document.querySelectorAll(%q).length", css))
}

func (b *browser) eval(js string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](js))
	if err != nil {
		b.fatalf("evaluate %s: %v", js, err)
	}
	return n
}

// screenshot saves the page into BITSIEVE_SCREENSHOTS, if set.
func (b *browser) screenshot(name string, full bool) {
	if b.shots == "" {
		return
	}
	shot := chromedp.CaptureScreenshot()
	if full {
		shot = chromedp.FullScreenshot(100) // 100: PNG
	}
	png, err := chromedp.Run(b.ctx, shot)
	if err == nil {
		err = os.MkdirAll(b.shots, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(b.shots, name), png, 0o644)
	}
	if err != nil {
		b.errorf("screenshot %s: %v", name, err)
	}
}

// failureScreenshot saves the current page once the test has failed, the
// first time only.
func (b *browser) failureScreenshot() {
	if !b.t.Failed() || b.shotted {
		return
	}
	b.shotted = true
	dir := os.Getenv("BITSIEVE_ARTIFACTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "bitsieve-browser-"); err != nil {
			b.t.Logf("no failure screenshot: %v", err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("no failure screenshot: %v", err)
		return
	}
	path := filepath.Join(dir, "failure-"+time.Now().Format("150405")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("no failure screenshot: %v", err)
		return
	}
	url, _ := chromedp.Run(ctx, chromedp.Location())
	b.t.Logf("screenshot of %s at failure: %s", url, path)
}

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// buildBinary builds cmd/bitsieve into dir.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "bitsieve")
	cmd := exec.Command(filepath.Join(build.Default.GOROOT, "bin", "go"), "build", "-o", bin, "github.com/bitsieve/bitsieve/cmd/bitsieve")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServer runs `bitsieve serve` on a free loopback port and returns its
// base URL; the server is stopped with SIGINT when the test ends.
func startServer(t *testing.T, bin, dir string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--index", dir, "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logMu sync.Mutex
	var logBuf strings.Builder
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/`)
		for sc.Scan() {
			line := sc.Text()
			if m := re.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
			logMu.Lock()
			logBuf.WriteString(line + "\n")
			logMu.Unlock()
		}
		io.Copy(io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("bitsieve serve exited with %v after SIGINT", err)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Error("bitsieve serve did not stop within 20s of SIGINT")
		}
		if t.Failed() {
			logMu.Lock()
			t.Logf("server log:\n%s", logBuf.String())
			logMu.Unlock()
		}
	})
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("bitsieve serve did not start within 30s")
	}
	return ""
}
