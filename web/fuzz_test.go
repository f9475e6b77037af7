package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzSearchHandler sends arbitrary query strings and parameters to the
// search API and the search page. The server must answer every request
// without an internal error (a panic, recovered, is a 500); the API answers
// a bad query with a JSON error and a good one with a JSON result whose hits
// are consistent with its total.
func FuzzSearchHandler(f *testing.F) {
	dir := f.TempDir()
	buildIndex(f, dir, testDocs())
	s, err := New(Options{Dir: dir, Logger: discardLogger()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	h := s.Handler()
	for _, seed := range [][2]string{
		{"white whale", ""},
		{`"white whale" -sea`, "limit=3&offset=1"},
		{"sea*", "limit=100&snippets=false"},
		{"(sea OR ship) -(rope", "limit=-1"},
		{"naïve café", "offset=99999999999999999999"},
		{strings.Repeat("(", 200), "snippets=maybe"},
		{"\x00\xff", "q=second&limit=1e3"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, q, params string) {
		for _, path := range []string{"/api/search", "/search"} {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			v := req.URL.Query()
			v.Set("q", q)
			req.URL.RawQuery = v.Encode()
			if params != "" {
				req.URL.RawQuery += "&" + params
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
				t.Fatalf("GET %s?%s: %d %s", path, req.URL.RawQuery, rec.Code, rec.Body.String())
			}
			if path == "/search" {
				continue
			}
			if rec.Code == http.StatusOK {
				var res struct {
					Total int               `json:"total"`
					Hits  []json.RawMessage `json:"hits"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil || len(res.Hits) > res.Total {
					t.Fatalf("GET %s?%s: %v, %d hits of %d", path, req.URL.RawQuery, err, len(res.Hits), res.Total)
				}
			} else if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("GET %s?%s: %d with a body that is not JSON: %s", path, req.URL.RawQuery, rec.Code, rec.Body.String())
			}
		}
	})
}
