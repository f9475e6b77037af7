package web

import (
	"net/http"
	"strings"
	"testing"
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
		`[{"id":true,"body":"x"}]`:           "id must be a string or a number",
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
