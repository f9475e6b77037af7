package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
)

const testToken = "s3cret-token"

func TestWriteAuthorization(t *testing.T) {
	body := `[{"id":"a","title":"A","body":"alpha"}]`
	sample := newTestServer(t, func(o *Options) { o.Sample = true; o.WriteToken = testToken })
	e := decode[errorBody](t, sample.do(t, "POST", "/api/documents", strings.NewReader(body), "Authorization", "Bearer "+testToken), 403)
	if !strings.Contains(e.Detail, "embedded sample") {
		t.Errorf("sample: %+v", e)
	}
	e = decode[errorBody](t, sample.do(t, "DELETE", "/api/documents/moby/ch1.txt", nil, "Authorization", "Bearer "+testToken), 403)

	off := newTestServer(t, nil)
	e = decode[errorBody](t, off.do(t, "POST", "/api/documents", strings.NewReader(body)), 403)
	if !strings.Contains(e.Detail, "--write-token") {
		t.Errorf("disabled: %+v", e)
	}

	on := newTestServer(t, func(o *Options) { o.WriteToken = testToken })
	for _, auth := range []string{"", "Bearer", "Bearer wrong", "Basic " + testToken, testToken} {
		rec := on.do(t, "POST", "/api/documents", strings.NewReader(body), "Authorization", auth)
		decode[errorBody](t, rec, 401)
		if rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%q: 401 without WWW-Authenticate", auth)
		}
		decode[errorBody](t, on.do(t, "DELETE", "/api/documents/moby/ch1.txt", nil, "Authorization", auth), 401)
	}
	// The scheme's case does not matter.
	for _, scheme := range []string{"bearer", "BEARER", "bEaReR"} {
		rec := on.do(t, "POST", "/api/documents", strings.NewReader(body), "Authorization", scheme+" "+testToken)
		if rec.Code == http.StatusUnauthorized {
			t.Errorf("%s scheme refused: %s", scheme, rec.Body)
		}
	}
}

func TestWriteBadBodies(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.WriteToken = testToken; o.Limits.MaxBodyBytes = 1000 })
	post := func(body string) *errorBody {
		rec := ts.do(t, "POST", "/api/documents", strings.NewReader(body), "Authorization", "Bearer "+testToken)
		if rec.Code == http.StatusRequestEntityTooLarge {
			e := decode[errorBody](t, rec, 413)
			return &e
		}
		e := decode[errorBody](t, rec, 400)
		return &e
	}
	for body, detail := range map[string]string{
		"":                                   "no documents",
		"[]":                                 "no documents",
		`[{"id":"a","body":"x"}`:             "ends in the middle",
		`{"id":"a","body":"x"} {"id":"b"}`:   "document 2: body is missing",
		`[{"title":"t","body":"x"}]`:         "document 1: id is missing",
		`[{"id":"","body":"x"}]`:             "id is empty",
		`[{"id":true,"body":"x"}]`:           "id must be a string or an integer",
		`[{"id":null,"body":"x"}]`:           "document 1: id is null",
		`[{"id":1e400,"body":"x"}]`:          "document 1: id 1e400 is not an integer",
		`[{"id":2.5,"body":"x"}]`:            "document 1: id 2.5 is not an integer",
		`[{"id":"a","body":3}]`:              "body must be a string",
		`[{"id":"a","title":[],"body":"x"}]`: "title must be a string",
		`[1]`:                                "document 1 is not a JSON object",
		`[{"id":"a","body":"x"}] x`:          "after the array",
		`{"id":"a","body":"x"}` + "\n{oops}": "document 2",
		`[{"id":"a","body":"x"},{"id":"a","body":"y"}]`:           `id "a" repeats document 1's`,
		`[{"id":"a","body":"` + strings.Repeat("x", 2000) + `"}]`: "larger than the limit of 1000 bytes",
	} {
		if e := post(body); !strings.Contains(e.Detail, detail) {
			t.Errorf("%.40q: detail %q, want %q", body, e.Detail, detail)
		}
	}
	decode[errorBody](t, ts.do(t, "DELETE", "/api/documents/not-there", nil, "Authorization", "Bearer "+testToken), 404)
}

func TestReadDocuments(t *testing.T) {
	for name, body := range map[string]string{
		"array": `[{"id":"a","title":"A","body":"alpha"}, {"id":7,"text":"seven"}]`,
		"jsonl": "\uFEFF{\"id\":\"a\",\"title\":\"A\",\"body\":\"alpha\"}\r\n\n{\"id\":7,\"text\":\"seven\",\"extra\":1}\n",
	} {
		docs, err := readDocuments(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(docs) != 2 || docs[0].Key != "a" || docs[0].Title != "A" || string(docs[0].Text) != "A\nalpha" ||
			docs[1].Key != "7" || string(docs[1].Text) != "\nseven" || docs[1].Size != int64(len("\nseven")) {
			t.Errorf("%s: %+v", name, docs)
		}
	}
}

func TestWriteAPI(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.WriteToken = testToken })
	auth := []string{"Authorization", "Bearer " + testToken, "Content-Type", "application/json"}
	body := `[{"id":"new/zebra.txt","title":"Zebra","body":"A zebra crossed the harbour."},
	          {"id":"moby/ch1.txt","title":"Loomings","body":"Call me Ishmael. Some years ago, never mind how long."}]`
	w := decode[writeResponse](t, ts.do(t, "POST", "/api/documents", strings.NewReader(body), auth...), 200)
	// The commit is generation 2; a compaction after it (the replaced
	// document's small segment rewritten) may make the next one.
	if w.Added != 1 || w.Replaced != 1 || w.Generation < 2 || w.Documents != len(testDocs())+1 {
		t.Fatalf("add: %+v", w)
	}
	gen := w.Generation
	// Visible as soon as the response is: no waiting for the watcher.
	res := decode[searchResponse](t, ts.get(t, "/api/search?q=zebra"), 200)
	if res.Total != 1 || res.Generation != gen {
		t.Errorf("zebra after the write: %+v", res)
	}
	if res := decode[searchResponse](t, ts.get(t, "/api/search?q=ishmael+white"), 200); res.Total != 0 {
		t.Errorf("the replaced text still matches: %+v", res)
	}

	// The same documents again, as JSON lines: nothing to change.
	jsonl := `{"id":"new/zebra.txt","title":"Zebra","body":"A zebra crossed the harbour."}` + "\n"
	w = decode[writeResponse](t, ts.do(t, "POST", "/api/documents", strings.NewReader(jsonl), auth...), 200)
	if w.Unchanged != 1 || w.Added != 0 || w.Generation != gen {
		t.Errorf("unchanged: %+v", w)
	}

	w = decode[writeResponse](t, ts.do(t, "DELETE", "/api/documents/moby/ch%2042.txt", nil, auth...), 200)
	if w.Deleted != 1 || w.Generation <= gen {
		t.Errorf("delete: %+v", w)
	}
	decode[errorBody](t, ts.get(t, "/api/documents/moby/ch%2042.txt"), 404)
	if res := decode[searchResponse](t, ts.get(t, "/api/search?q=whiteness"), 200); res.Total != 0 {
		t.Errorf("deleted document still found: %+v", res)
	}
	decode[errorBody](t, ts.do(t, "DELETE", "/api/documents/moby/ch%2042.txt", nil, auth...), 404)
	if m := ts.get(t, "/metrics").Body.String(); !strings.Contains(m, `bitsieve_index_writes_total{op="add",result="ok"} 2`) {
		t.Error("writes are not counted")
	}
}

// A write while another writer holds the index lock is a 409, and changes
// nothing.
func TestWriteLocked(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.WriteToken = testToken })
	w, err := index.OpenWriter(ts.dir, index.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	rec := ts.do(t, "POST", "/api/documents", strings.NewReader(`{"id":"x","body":"y"}`), "Authorization", "Bearer "+testToken)
	decode[errorBody](t, rec, http.StatusConflict)
	if rec.Header().Get("Retry-After") == "" {
		t.Error("409 without Retry-After")
	}
}

// TestWriteLongID: the write API takes the keys a JSONL file may hold, and
// no longer ones.
func TestWriteLongID(t *testing.T) {
	ts := newTestServer(t, func(o *Options) { o.WriteToken = testToken })
	long := strings.Repeat("k", corpus.MaxKeyBytes)
	for id, status := range map[string]int{long: 200, long + "k": 400} {
		rec := ts.do(t, "POST", "/api/documents", strings.NewReader(`{"id":"`+id+`","body":"x"}`), "Authorization", "Bearer "+testToken)
		if rec.Code != status || status == 400 && !strings.Contains(rec.Body.String(), "id is 4097 bytes long; the most is 4096") {
			t.Errorf("id of %d bytes: %d %s", len(id), rec.Code, rec.Body)
		}
	}
}
