// Command loadtest measures bitsieve's HTTP search under concurrent load:
// C clients send GET /api/search with queries from files, back to back, for
// a fixed duration, and it reports queries per second, latency percentiles
// and errors. It only ever targets a loopback address.
//
// It either starts `bitsieve serve` itself on a free loopback port
//
//	go run ./tools/loadtest -bin bin/bitsieve -index /var/tmp/bitsieve-prose-index \
//	    -queries 'bench/queries/*.txt' -c 64 -d 30s
//
// or loads a server that is already running (-url http://127.0.0.1:8080).
//
// With -heavy QUERY (or -heavy-queries FILES, queries taken in turn),
// -heavy-c more clients send expensive queries back to back during the
// warm-up and the measurement, as a client flooding the server
// with an expensive query would: the report gives their outcomes apart
// (refusals, 429 and 503, are the server protecting the others, not
// errors), and the figures above them are those of the -c clients only.
// Every response must be a 200 with a JSON body; anything else (a 4xx, a
// 5xx, a refused or timed-out connection) counts as an error and the command
// exits with status 1.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	var (
		target    = flag.String("url", "", "base URL of a running server (loopback only); empty: start one with -bin and -index")
		bin       = flag.String("bin", "bin/bitsieve", "bitsieve binary to start")
		index     = flag.String("index", "", "index directory for the server it starts")
		queries   = flag.String("queries", "", "query files, one query per line (a glob; several separated by commas)")
		clients   = flag.Int("c", 64, "concurrent clients")
		duration  = flag.Duration("d", 30*time.Second, "how long to measure")
		warmup    = flag.Duration("warmup", 3*time.Second, "load before measuring, not counted")
		limit     = flag.Int("limit", 10, "hits per query (the limit parameter)")
		snippets  = flag.Bool("snippets", true, "ask for snippets, as the search page does")
		timeout   = flag.Duration("timeout", 30*time.Second, "client timeout for one request")
		asJSON    = flag.Bool("json", false, "print the report as JSON")
		heavy     = flag.String("heavy", "", "an expensive query that -heavy-c other clients send meanwhile")
		heavyQs   = flag.String("heavy-queries", "", "files of expensive queries (as -queries) that -heavy-c other clients send in turn, instead of -heavy")
		heavyC    = flag.Int("heavy-c", 16, "clients sending the -heavy query")
		serveArgs = flag.String("serve-flags", "", "more flags for the server it starts (space-separated)")
	)
	flag.Parse()
	var heavyList []string
	switch {
	case *heavyQs != "":
		var err error
		if heavyList, err = readQueries(*heavyQs); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(2)
		}
	case *heavy != "":
		heavyList = []string{*heavy}
	default:
		*heavyC = 0
	}
	extra = strings.Fields(*serveArgs)
	if err := run(*target, *bin, *index, *queries, *clients, *duration, *warmup, *limit, *snippets, *timeout, *asJSON, heavyList, *heavyC); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(2)
	}
}

// Report is what a run measured.
type Report struct {
	Server     string         `json:"server"`
	Clients    int            `json:"clients"`
	Seconds    float64        `json:"seconds"`
	Queries    int            `json:"distinct_queries"`
	Requests   int64          `json:"requests"`
	Errors     int64          `json:"errors"`
	ErrorKinds map[string]int `json:"error_kinds,omitempty"`
	QPS        float64        `json:"qps"`
	P50ms      float64        `json:"p50_ms"`
	P90ms      float64        `json:"p90_ms"`
	P99ms      float64        `json:"p99_ms"`
	P999ms     float64        `json:"p999_ms"`
	MaxMs      float64        `json:"max_ms"`
	MeanMs     float64        `json:"mean_ms"`
	Heavy      *Report        `json:"heavy,omitempty"` // the -heavy clients: their errors are mostly the server's refusals
}

// extra are more flags for the server startServer starts.
var extra []string

func run(target, bin, index, queryGlobs string, clients int, d, warmup time.Duration, limit int, snippets bool, timeout time.Duration, asJSON bool, heavy []string, heavyC int) error {
	qs, err := readQueries(queryGlobs)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if target == "" {
		if index == "" {
			return errors.New("give -url of a running server, or -index (and -bin) to start one")
		}
		var shutdown func() error
		target, shutdown, err = startServer(ctx, bin, index, clients+heavyC)
		if err != nil {
			return err
		}
		defer func() {
			if err := shutdown(); err != nil {
				fmt.Fprintln(os.Stderr, "loadtest: server:", err)
			}
		}()
	}
	if err := checkLoopback(target); err != nil {
		return err
	}
	base := strings.TrimSuffix(target, "/") + "/api/search"
	searchURL := func(q string) string {
		v := url.Values{"q": {q}, "limit": {fmt.Sprint(limit)}}
		if !snippets {
			v.Set("snippets", "false")
		}
		return base + "?" + v.Encode()
	}
	urls := make([]string, len(qs))
	for i, q := range qs {
		urls[i] = searchURL(q)
	}
	client := &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			MaxIdleConns: clients + heavyC, MaxIdleConnsPerHost: clients + heavyC, IdleConnTimeout: time.Minute,
			DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		},
	}
	// measure runs the clients for d, with the heavy clients beside them.
	measure := func(d time.Duration) (res, heavyRes *result) {
		var wg sync.WaitGroup
		if heavyC > 0 {
			heavyURLs := make([]string, len(heavy))
			for i, q := range heavy {
				heavyURLs[i] = searchURL(q)
			}
			wg.Go(func() { heavyRes = load(ctx, client, heavyURLs, heavyC, d) })
		}
		res = load(ctx, client, urls, clients, d)
		wg.Wait()
		return res, heavyRes
	}
	if warmup > 0 {
		fmt.Fprintf(os.Stderr, "loadtest: warming up for %s\n", warmup)
		measure(warmup)
	}
	fmt.Fprintf(os.Stderr, "loadtest: %d clients for %s against %s (%d queries)\n", clients, d, target, len(qs))
	if heavyC > 0 {
		fmt.Fprintf(os.Stderr, "loadtest: and %d clients sending %d expensive queries: %q\n", heavyC, len(heavy), heavy)
	}
	res, heavyRes := measure(d)
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	rep := res.report(target, clients, len(qs))
	if heavyRes != nil {
		h := heavyRes.report(target, heavyC, len(heavy))
		rep.Heavy = &h
	}
	if asJSON {
		json.NewEncoder(os.Stdout).Encode(rep)
	} else {
		fmt.Printf("clients      %d\nduration     %.1f s\nrequests     %d\nerrors       %d\n", rep.Clients, rep.Seconds, rep.Requests, rep.Errors)
		for k, n := range rep.ErrorKinds {
			fmt.Printf("  %-10s %d\n", k, n)
		}
		fmt.Printf("QPS          %.0f\nlatency ms   p50 %.2f   p90 %.2f   p99 %.2f   p99.9 %.2f   max %.2f   mean %.2f\n",
			rep.QPS, rep.P50ms, rep.P90ms, rep.P99ms, rep.P999ms, rep.MaxMs, rep.MeanMs)
		if h := rep.Heavy; h != nil {
			fmt.Printf("heavy        %d clients: %d requests, %d answered (p50 %.2f ms, max %.2f ms), %d refused or failed\n",
				h.Clients, h.Requests, h.Requests-h.Errors, h.P50ms, h.MaxMs, h.Errors)
			for k, n := range h.ErrorKinds {
				fmt.Printf("  %-10s %d\n", k, n)
			}
		}
	}
	if rep.Errors > 0 {
		os.Exit(1)
	}
	return nil
}

// result collects the latencies of successful requests and the errors.
type result struct {
	elapsed   time.Duration
	latencies []time.Duration
	errors    map[string]int
}

// load runs clients that send requests back to back for d.
func load(ctx context.Context, client *http.Client, urls []string, clients int, d time.Duration) *result {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var next atomic.Int64
	var mu sync.Mutex
	res := &result{errors: map[string]int{}}
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			var lat []time.Duration
			errs := map[string]int{}
			buf := make([]byte, 0, 64<<10)
			for ctx.Err() == nil {
				u := urls[int(next.Add(1)-1)%len(urls)]
				t0 := time.Now()
				kind, err := get(ctx, client, u, &buf)
				if ctx.Err() != nil && err != nil {
					break // the run ended during the request: not the server's fault
				}
				if err != nil {
					errs[kind]++
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			for k, n := range errs {
				res.errors[k] += n
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	res.elapsed = min(time.Since(start), d)
	return res
}

// get sends one search and checks the answer: a 200 with a JSON object.
func get(ctx context.Context, client *http.Client, u string, buf *[]byte) (kind string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "request", err
	}
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return "timeout", err
		}
		return "transport", err
	}
	defer resp.Body.Close()
	b := bytesBuffer{(*buf)[:0]}
	_, err = io.Copy(&b, resp.Body)
	*buf = b.b
	if err != nil {
		return "read", err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprint(resp.StatusCode), fmt.Errorf("status %d: %s", resp.StatusCode, b.b)
	}
	if !json.Valid(b.b) || !strings.HasPrefix(string(b.b[:min(len(b.b), 9)]), `{"query"`) {
		return "body", errors.New("not a search result")
	}
	return "", nil
}

type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

func (r *result) report(server string, clients, queries int) Report {
	rep := Report{Server: server, Clients: clients, Seconds: r.elapsed.Seconds(), Queries: queries,
		Requests: int64(len(r.latencies)), ErrorKinds: r.errors}
	for _, n := range r.errors {
		rep.Errors += int64(n)
	}
	rep.Requests += rep.Errors
	if len(rep.ErrorKinds) == 0 {
		rep.ErrorKinds = nil
	}
	lat := r.latencies
	if len(lat) == 0 {
		return rep
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	pct := func(p float64) float64 { return ms(lat[min(len(lat)-1, int(p*float64(len(lat))))]) }
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	rep.QPS = float64(len(lat)) / r.elapsed.Seconds()
	rep.P50ms, rep.P90ms, rep.P99ms, rep.P999ms = pct(.50), pct(.90), pct(.99), pct(.999)
	rep.MaxMs = ms(lat[len(lat)-1])
	rep.MeanMs = ms(sum / time.Duration(len(lat)))
	return rep
}

// readQueries reads the non-empty lines of every file the globs match.
func readQueries(globs string) ([]string, error) {
	if globs == "" {
		return nil, errors.New("give the query files with -queries")
	}
	var qs []string
	for _, g := range strings.Split(globs, ",") {
		files, err := filepath.Glob(strings.TrimSpace(g))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no query file matches %s", g)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			for line := range strings.SplitSeq(string(b), "\n") {
				if q := strings.TrimSpace(line); q != "" {
					qs = append(qs, q)
				}
			}
		}
	}
	return qs, nil
}

// checkLoopback refuses any target that is not this machine.
func checkLoopback(target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	host := u.Hostname()
	ips, err := net.LookupIP(host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address: this tool only loads the local machine", host)
		}
	}
	return nil
}

// startServer starts `bin serve` on a free loopback port with a concurrency
// queue long enough for every client, and returns its URL and a func that
// stops it with SIGINT and waits for it.
func startServer(ctx context.Context, bin, index string, clients int) (string, func() error, error) {
	cmd := exec.Command(bin, append([]string{"serve", "--index", index, "--addr", "127.0.0.1:0", "--max-queue", fmt.Sprint(max(1024, 2*clients))}, extra...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", bin, err)
	}
	addr := make(chan string, 1)
	var tail []string
	var tailMu sync.Mutex
	go func() {
		re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/`)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if m := re.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
			if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") || !strings.Contains(line, "msg=request") {
				tailMu.Lock()
				tail = append(tail, line)
				tailMu.Unlock()
			}
		}
	}()
	stop := func() error {
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		tailMu.Lock()
		defer tailMu.Unlock()
		for _, l := range tail {
			if strings.Contains(l, "level=ERROR") {
				fmt.Fprintln(os.Stderr, "server:", l)
			}
		}
		return err
	}
	select {
	case a := <-addr:
		fmt.Fprintf(os.Stderr, "loadtest: started %s serve --index %s at %s\n", bin, index, a)
		return a, stop, nil
	case <-time.After(2 * time.Minute):
	case <-ctx.Done():
	}
	cmd.Process.Kill()
	cmd.Wait()
	tailMu.Lock()
	defer tailMu.Unlock()
	return "", nil, fmt.Errorf("the server did not start:\n%s", strings.Join(tail, "\n"))
}
