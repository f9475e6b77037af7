package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
)

// A new commit to the directory becomes visible without a restart; a request
// that started on the old snapshot finishes on it, and the old snapshot is
// closed when its last request ends.
func TestLiveReload(t *testing.T) {
	ts := newTestServer(t, nil)
	old := ts.local.live.Acquire() // a request in flight on generation 1

	docs := append(testDocs(), doc("new/zebra.txt", "Zebra", "A zebra crossed the harbour."))
	buildIndex(t, ts.dir, docs)
	waitFor(t, "generation 2", func() bool {
		res := decode[searchResponse](t, ts.get(t, "/api/search?q=whale"), 200)
		return res.Generation == 2
	})
	res := decode[searchResponse](t, ts.get(t, "/api/search?q=zebra"), 200)
	if res.Total != 1 || res.Hits[0].Key != "new/zebra.txt" {
		t.Fatalf("zebra after reload: %+v", res)
	}

	// The old snapshot still answers, from generation 1, although its files
	// have been removed from the directory.
	r, err := old.Searcher().Search(context.Background(), query.Request{Query: "whale", Snippets: true})
	if err != nil || r.Total != 2 {
		t.Fatalf("old snapshot: %v, %+v", err, r)
	}
	if r, err := old.Searcher().Search(context.Background(), query.Request{Query: "zebra"}); err != nil || r.Total != 0 {
		t.Fatalf("zebra in the old snapshot: %v, %+v", err, r)
	}
	// Only the request's reference is left: its release closes the index.
	old.Release()
	if old.Index().Segments() != nil {
		t.Fatal("old snapshot not closed after its last request")
	}
	if !strings.Contains(ts.log.String(), "index snapshot replaced") {
		t.Error("the swap is not logged")
	}
}

// A MANIFEST that does not open leaves the last good snapshot in service and
// makes /readyz fail with the error, until a good MANIFEST appears.
func TestReloadDamaged(t *testing.T) {
	ts := newTestServer(t, nil)
	manifest := filepath.Join(ts.dir, index.ManifestName)
	good, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	damaged := strings.Replace(string(good), `"generation":1`, `"generation":7`, 1) // the checksum no longer matches
	if damaged == string(good) {
		t.Fatalf("unexpected manifest: %s", good)
	}
	writeAtomic(t, manifest, []byte(damaged))
	waitFor(t, "not ready", func() bool { return ts.get(t, "/readyz").Code == http.StatusServiceUnavailable })
	e := decode[map[string]any](t, ts.get(t, "/readyz"), http.StatusServiceUnavailable)
	if !strings.Contains(fmt.Sprint(e["detail"]), "checksum") || e["serving_generation"] != float64(1) {
		t.Errorf("readyz while damaged: %v", e)
	}
	// Searches go on, from generation 1.
	res := decode[searchResponse](t, ts.get(t, "/api/search?q=whale"), 200)
	if res.Generation != 1 || res.Total != 2 {
		t.Errorf("search while damaged: %+v", res)
	}
	if !strings.Contains(ts.get(t, "/metrics").Body.String(), "bitsieve_index_ready 0") {
		t.Error("bitsieve_index_ready is not 0")
	}

	writeAtomic(t, manifest, good)
	waitFor(t, "ready again", func() bool { return ts.get(t, "/readyz").Code == http.StatusOK })

	// One flipped byte that leaves the JSON valid and the generation as it
	// was is damage too: the checksum is verified, not the generation alone.
	flipped := strings.Replace(string(good), `"analyzer"`, "\"`nalyzer\"", 1)
	if flipped == string(good) {
		t.Fatalf("unexpected manifest: %s", good)
	}
	writeAtomic(t, manifest, []byte(flipped))
	waitFor(t, "not ready after a flipped byte", func() bool { return ts.get(t, "/readyz").Code == http.StatusServiceUnavailable })
	if !strings.Contains(ts.get(t, "/metrics").Body.String(), "bitsieve_index_ready 0") {
		t.Error("bitsieve_index_ready is not 0 after a flipped byte")
	}
	writeAtomic(t, manifest, good)
	waitFor(t, "ready again", func() bool { return ts.get(t, "/readyz").Code == http.StatusOK })

	// A damaged segment file of a new generation is caught the same way.
	dir2 := t.TempDir()
	buildIndex(t, dir2, testDocs())
	buildIndex(t, dir2, testDocs()[:20]) // generation 2
	m2, err := os.ReadFile(filepath.Join(dir2, index.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	segs, _ := filepath.Glob(filepath.Join(dir2, "*.seg"))
	for i, seg := range segs {
		b, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			b[len(b)/3] ^= 0xff
		}
		writeAtomic(t, filepath.Join(ts.dir, filepath.Base(seg)), b)
	}
	writeAtomic(t, manifest, m2)
	waitFor(t, "not ready", func() bool { return ts.get(t, "/readyz").Code == http.StatusServiceUnavailable })
	e = decode[map[string]any](t, ts.get(t, "/readyz"), http.StatusServiceUnavailable)
	if detail := fmt.Sprint(e["detail"]); !strings.Contains(detail, filepath.Base(segs[0])) {
		t.Errorf("readyz does not name the damaged file: %s", detail)
	}
	if res := decode[searchResponse](t, ts.get(t, "/api/search?q=whale"), 200); res.Generation != 1 {
		t.Errorf("generation %d served after a damaged commit", res.Generation)
	}
}

// writeAtomic replaces a file as the index writer does, so a mapped old
// version is never changed in place.
func writeAtomic(t *testing.T, path string, b []byte) {
	t.Helper()
	tmp := path + ".test-tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Under a steady stream of searches, snapshot swaps drop or fail none.
func TestReloadUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ts := newTestServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var done, failed atomic.Int64
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				rec := ts.get(t, "/api/search?q=sea&limit=5")
				if rec.Code != 200 {
					failed.Add(1)
					t.Errorf("status %d during reload: %s", rec.Code, rec.Body.String())
				}
				done.Add(1)
			}
		})
	}
	for i := range 5 {
		buildIndex(t, ts.dir, testDocs()[:40+i*5])
		ts.Reload()
	}
	cancel()
	wg.Wait()
	if failed.Load() > 0 || done.Load() == 0 {
		t.Fatalf("%d of %d searches failed", failed.Load(), done.Load())
	}
	if res := decode[searchResponse](t, ts.get(t, "/api/search?q=sea"), 200); res.Generation != 6 {
		t.Errorf("generation %d, want 6", res.Generation)
	}
}

// On shutdown the server stops accepting and lets requests in flight finish.
func TestGracefulShutdown(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.Limits.MaxConcurrent = 1 })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ts.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	waitFor(t, "server up", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})

	// Hold the search slot so the next search is in flight, waiting.
	if err := ts.limiter.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	result := make(chan string, 1)
	go func() {
		resp, err := http.Get(base + "/api/search?q=whale")
		if err != nil {
			result <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		result <- fmt.Sprint(resp.StatusCode, " ", string(b))
	}()
	waitFor(t, "request waiting", func() bool { return ts.limiter.waiting.Load() == 1 })
	cancel() // SIGINT
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-served:
		t.Fatalf("Serve returned with a request in flight: %v", err)
	default:
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("new connections are still accepted during shutdown")
	}
	ts.limiter.release()
	if got := <-result; !strings.HasPrefix(got, "200 ") {
		t.Errorf("request in flight got %s", got)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
}

// TestDamagedStoreIsNotReady: a flipped bit in a segment's document store
// (which opening an index does not read) makes the server not ready, with
// the damage named, and counted in the metrics when a request reads it;
// every other document is still served, and no answer is wrong.
func TestDamagedStoreIsNotReady(t *testing.T) {
	dir := t.TempDir()
	docs := testDocs()
	buildIndex(t, dir, docs)
	segs, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
	flipped := 0
	for _, p := range segs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// The first zstd frame's magic number starts the store.
		if i := bytes.Index(data, []byte{0x28, 0xb5, 0x2f, 0xfd}); i >= 0 {
			data[i+12] ^= 0x10
			flipped++
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if flipped == 0 {
		t.Fatal("no store frame found to damage")
	}
	s, err := New(Options{Dir: dir, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ts := &testServer{Server: s, dir: dir}
	body := decode[map[string]any](t, ts.get(t, "/readyz"), http.StatusServiceUnavailable)
	if d, _ := body["detail"].(string); !strings.Contains(d, "section store is damaged") || !strings.Contains(d, "rebuild") {
		t.Errorf("readyz detail %q does not name the damaged store", d)
	}
	if !strings.Contains(ts.get(t, "/metrics").Body.String(), "bitsieve_index_ready 0") {
		t.Error("bitsieve_index_ready is not 0")
	}
	failed := 0
	for _, d := range docs {
		rec := ts.get(t, "/api/documents/"+(&url.URL{Path: d.Key}).EscapedPath())
		switch rec.Code {
		case http.StatusOK:
			if v := decode[query.DocumentView](t, rec, http.StatusOK); v.Text != string(d.Text) {
				t.Fatalf("%s: a 200 with the wrong text", d.Key)
			}
		case http.StatusInternalServerError:
			failed++
		default:
			t.Fatalf("%s: %d", d.Key, rec.Code)
		}
	}
	if failed == 0 || failed == len(docs) {
		t.Fatalf("%d of %d documents failed to read", failed, len(docs))
	}
	if m := ts.get(t, "/metrics").Body.String(); !strings.Contains(m, fmt.Sprintf(`bitsieve_index_damaged_reads_total{section="store"} %d`, failed)) {
		t.Errorf("damaged reads not counted: want %d", failed)
	}
}
