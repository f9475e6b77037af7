package web

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHeavyLane: a search whose estimated cost reaches HeavyUnits waits for
// the heavy lane and is refused from it when the lane stays busy, while a
// cheap search is answered at once; each admission through the lane is
// counted.
func TestHeavyLane(t *testing.T) {
	ts := newTestServer(t, func(o *Options) {
		o.Limits.HeavyUnits = 40 // "sea OR ship OR ..." below, not "bloom filter"
		o.Limits.MaxHeavy = 1
		o.Limits.QueueTimeout = 100 * time.Millisecond
	})
	sn, err := ts.local.acquire()
	if err != nil {
		t.Fatal(err)
	}
	heavyQ, cheapQ := "sea OR ship OR sail OR wind OR harbour", "bloom filter"
	for q, heavy := range map[string]bool{heavyQ: true, cheapQ: false} {
		c, err := sn.Searcher().Cost(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Units() >= ts.limits.HeavyUnits; got != heavy {
			t.Fatalf("%q: cost %+v (%d units): heavy %v, want %v", q, c, c.Units(), got, heavy)
		}
	}
	sn.Release()

	// The lane is free: the heavy search runs, and is counted.
	decode[searchResponse](t, ts.get(t, "/api/search?q="+strings.ReplaceAll(heavyQ, " ", "+")), http.StatusOK)
	if !strings.Contains(ts.get(t, "/metrics").Body.String(), "bitsieve_heavy_searches_total 1") {
		t.Error("the heavy search is not counted")
	}

	// The lane is busy (its one slot taken): a heavy search times out in
	// the lane's queue, a cheap one is answered.
	if err := ts.heavy.acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	rec := ts.get(t, "/api/search?q="+strings.ReplaceAll(heavyQ, " ", "+"))
	e := decode[errorBody](t, rec, http.StatusServiceUnavailable)
	if !strings.Contains(e.Detail, "heavy search slot") {
		t.Errorf("heavy search with the lane busy: %+v", e)
	}
	start := time.Now()
	res := decode[searchResponse](t, ts.get(t, "/api/search?q=bloom+filter"), http.StatusOK)
	if res.Total != 1 || time.Since(start) > 5*time.Second {
		t.Errorf("cheap search with the heavy lane busy: %+v after %v", res, time.Since(start))
	}
	ts.heavy.release()
	if !strings.Contains(ts.get(t, "/metrics").Body.String(), `bitsieve_http_rejected_total{reason="heavy_queue_timeout"} 1`) {
		t.Error("the refusal is not counted by its reason")
	}
}

// TestHeavyThresholdFollowsIndex: without --heavy-units the threshold is a
// quarter of the index's documents, at least MinHeavyUnits, and the
// metrics say what it is.
func TestHeavyThresholdFollowsIndex(t *testing.T) {
	for docs, want := range map[int]int64{0: MinHeavyUnits, 10_719: MinHeavyUnits, 16_384: MinHeavyUnits, 341_600: 85_400, 4_000_000: 1_000_000} {
		if got := HeavyUnitsOf(docs); got != want {
			t.Errorf("HeavyUnitsOf(%d) = %d, want %d", docs, got, want)
		}
	}
	ts := newTestServer(t, nil)
	if !strings.Contains(ts.get(t, "/metrics").Body.String(), "bitsieve_heavy_threshold_units 4096\n") {
		t.Error("the metrics lack the heavy threshold")
	}
	ts = newTestServer(t, func(o *Options) { o.Limits.HeavyUnits = 40 })
	if !strings.Contains(ts.get(t, "/metrics").Body.String(), "bitsieve_heavy_threshold_units 40\n") {
		t.Error("the metrics lack the configured heavy threshold")
	}
}
