package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/bitsieve/bitsieve/internal/indextest"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/index"
)

// testDocs is a small corpus with the awkward cases: keys with slashes,
// spaces and non-ASCII letters, markup in titles and bodies, and enough
// common words for several pages of results.
func testDocs() []index.Document {
	docs := []index.Document{
		doc("moby/ch1.txt", "Loomings", "Call me Ishmael. The white whale swims in the sea, and the whale is white."),
		doc("moby/ch 42.txt", "The Whiteness of the Whale", "It was the whiteness of the whale that above all things appalled me."),
		doc("notes/naïve café.md", "Naïve café", "A naïve note about the café by the sea."),
		doc("xss/evil.html", `<script>alert("title")</script>`, `<img src=x onerror=alert(1)> the sea <b>bold</b> & "quotes"`),
		doc("code/hash.go", "", "A hash table maps keys to values; a bloom filter answers membership with false positives."),
	}
	r := rand.New(rand.NewPCG(7, 7))
	words := []string{"sea", "ship", "sail", "wind", "harbour", "rope", "deck", "mast", "tide", "storm"}
	for i := range 60 {
		var b strings.Builder
		for range 20 + r.IntN(40) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		docs = append(docs, doc(fmt.Sprintf("log/%03d", i), fmt.Sprintf("Log entry %d", i), b.String()))
	}
	return docs
}

func doc(key, title, body string) index.Document {
	text := []byte(title + "\n" + body)
	return index.Document{Key: key, Title: title, Text: text, Size: int64(len(text))}
}

// buildIndex writes docs as a new index (a new generation) in dir.
func buildIndex(t testing.TB, dir string, docs []index.Document) {
	t.Helper()
	indextest.Build(t, dir, docs, index.WriterOptions{Capacity: 32, Workers: 2})
}

// logBuffer collects the server's log for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

type testServer struct {
	*Server
	dir string
	log *logBuffer
}

// newTestServer serves a fresh index of testDocs; opt may adjust the options.
func newTestServer(t *testing.T, opt func(*Options)) *testServer {
	t.Helper()
	dir := t.TempDir()
	buildIndex(t, dir, testDocs())
	lb := &logBuffer{}
	o := Options{Dir: dir, Logger: slog.New(slog.NewJSONHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})),
		PollInterval: 50 * time.Millisecond}
	if opt != nil {
		opt(&o)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &testServer{Server: s, dir: dir, log: lb}
}

// do runs one request through the handler.
func (ts *testServer) do(t *testing.T, method, target string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	ts.Handler().ServeHTTP(rec, req)
	return rec
}

func (ts *testServer) get(t *testing.T, target string) *httptest.ResponseRecorder {
	t.Helper()
	return ts.do(t, http.MethodGet, target, nil)
}

// decode decodes a JSON response, failing on a wrong status.
func decode[T any](t *testing.T, rec *httptest.ResponseRecorder, status int) T {
	t.Helper()
	var v T
	if rec.Code != status {
		t.Fatalf("status %d, want %d; body: %s", rec.Code, status, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want JSON", ct)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode %s: %v", rec.Body.String(), err)
	}
	return v
}

// errorBody is every API error.
type errorBody struct {
	Error  string `json:"error"`
	Detail string `json:"detail"`
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
