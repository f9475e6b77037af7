package corpus

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// keys returns the documents' keys in order.
func keys(docs []Document) []string {
	ks := make([]string, len(docs))
	for i, d := range docs {
		ks[i] = d.Key
	}
	return ks
}

func readAll(t *testing.T, input, name string) ([]Document, Stats) {
	t.Helper()
	var docs []Document
	st, err := ReadJSONL(strings.NewReader(input), name, func(d Document) error {
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadJSONL: %v", err)
	}
	return docs, st
}

func TestReadJSONL(t *testing.T) {
	input := "\uFEFF" + `{"id": "a", "title": "Alpha", "body": "first body"}
{"id": 42, "body": "numeric id"}

   ` + "\t" + `
{"id": 300, "title": null, "text": "text is a synonym"}
{"title": "No id", "body": "keyed by line"}
{"id": "b", "body": "body wins", "text": "over text", "extra": [1, 2, {"x": null}]}
{"id": "crlf", "body": "windows line"}` + "\r" + `
{"id": -9007199254740991, "body": "the least number id"}
{"id": "last", "body": "no final newline"}`
	docs, st := readAll(t, input, "in.jsonl")

	want := []Document{
		{Key: "a", Title: "Alpha", Text: []byte("Alpha\nfirst body")},
		{Key: "42", Text: []byte("\nnumeric id")},
		{Key: "300", Text: []byte("\ntext is a synonym")},
		{Key: "in.jsonl:6", Title: "No id", Text: []byte("No id\nkeyed by line")},
		{Key: "b", Text: []byte("\nbody wins")},
		{Key: "crlf", Text: []byte("\nwindows line")},
		{Key: "-9007199254740991", Text: []byte("\nthe least number id")},
		{Key: "last", Text: []byte("\nno final newline")},
	}
	for i := range want {
		want[i].Size = int64(len(want[i].Text))
	}
	if !reflect.DeepEqual(docs, want) {
		t.Errorf("documents:\n got %+v\nwant %+v", docs, want)
	}
	if st.Docs != len(want) || st.Lines != 10 || len(st.Skipped) != 0 {
		t.Errorf("stats = %+v", st)
	}
	var total int64
	for _, d := range want {
		total += d.Size
	}
	if st.Bytes != total {
		t.Errorf("Stats.Bytes = %d, want %d", st.Bytes, total)
	}
}

func TestReadJSONLBadLines(t *testing.T) {
	lines := []string{
		`{"id": "ok1", "body": "fine"}`,          // 1
		`{"id": "broken", "body": "unterminated`, // 2
		`not json at all`,                        // 3
		`["an", "array"]`,                        // 4
		`"a string"`,                             // 5
		`null`,                                   // 6
		`{"id": true, "body": "x"}`,              // 7
		`{"id": "t", "title": 7, "body": "x"}`,   // 8
		`{"id": "n", "body": {"nested": "x"}}`,   // 9
		`{"id": "m", "title": "no body"}`,        // 10
		`{"id": "ok1", "body": "duplicate"}`,     // 11
		`{"id": "x", "body": null, "text": 5}`,   // 12
		`{"id": "ok2", "body": ""}`,              // 13
		`{"id": "two"} {"id": "objects"}`,        // 14
	}
	docs, st := readAll(t, strings.Join(lines, "\n")+"\n", "bad.jsonl")
	if got := keys(docs); !reflect.DeepEqual(got, []string{"ok1", "ok2"}) {
		t.Errorf("keys = %q, want [ok1 ok2]", got)
	}
	want := map[int]SkipReason{
		2: SkipBadJSON, 3: SkipBadJSON, 4: SkipBadJSON, 5: SkipBadJSON, 6: SkipBadJSON,
		7: SkipBadField, 8: SkipBadField, 9: SkipBadField,
		10: SkipNoBody, 11: SkipDuplicateID, 12: SkipBadField, 14: SkipBadJSON,
	}
	got := make(map[int]SkipReason)
	for _, s := range st.Skipped {
		got[s.Line] = s.Reason
		if s.Path != "bad.jsonl" || s.Detail == "" {
			t.Errorf("skip %+v: want path bad.jsonl and a detail", s)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skipped lines:\n got %v\nwant %v", got, want)
	}
	if st.Counts[SkipBadJSON] != 6 || st.Counts[SkipBadField] != 4 || st.Counts[SkipNoBody] != 1 || st.Counts[SkipDuplicateID] != 1 {
		t.Errorf("counts = %v", st.Counts)
	}
	if s := st.Skipped[0].String(); !strings.HasPrefix(s, "bad.jsonl:2: bad-json: ") {
		t.Errorf("Skip.String() = %q", s)
	}
	// A malformed line's report says where it goes wrong.
	if d := st.Skipped[0].Detail; !strings.Contains(d, `"/body"`) || !strings.Contains(d, "offset 38") {
		t.Errorf("detail of the unterminated body = %q, want its member and byte offset", d)
	}
}

func TestReadJSONLInvalidUTF8(t *testing.T) {
	docs, st := readAll(t, "{\"id\": \"\xff\", \"body\": \"caf\xe9\"}\n", "u.jsonl")
	if len(docs) != 1 || len(st.Skipped) != 0 {
		t.Fatalf("docs %+v, skipped %v", docs, st.Skipped)
	}
	if string(docs[0].Text) != "\ncaf\uFFFD" || docs[0].Key != "\uFFFD" {
		t.Errorf("doc = %+v", docs[0])
	}
}

func TestReadJSONLHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB line")
	}
	const n = 50 << 20
	body := bytes.Repeat([]byte("lorem ipsum "), n/12)
	var in bytes.Buffer
	in.WriteString(`{"id": "small-1", "body": "before"}` + "\n")
	in.WriteString(`{"id": "huge", "title": "Huge", "body": "`)
	in.Write(body)
	in.WriteString("\"}\n")
	in.WriteString(`{"id": "small-2", "body": "after"}` + "\n")

	var got []string
	st, err := ReadJSONL(&in, "huge.jsonl", func(d Document) error {
		got = append(got, d.Key)
		if d.Key == "huge" && (len(d.Text) != len("Huge\n")+len(body) || !bytes.HasSuffix(d.Text, body[len(body)-100:])) {
			t.Errorf("huge document: %d bytes of text, want %d", len(d.Text), len("Huge\n")+len(body))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"small-1", "huge", "small-2"}) || st.Lines != 3 {
		t.Errorf("keys %q, %d lines", got, st.Lines)
	}
}

type failingReader struct{ after io.Reader }

func (r failingReader) Read(p []byte) (int, error) {
	n, err := r.after.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

func TestReadJSONLErrors(t *testing.T) {
	_, err := ReadJSONL(failingReader{strings.NewReader(`{"body": "x"}` + "\n" + `{"bo`)}, "f.jsonl", func(Document) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "f.jsonl: line 2: disk on fire") {
		t.Errorf("read error: err = %v", err)
	}

	stop := errors.New("stop")
	st, err := ReadJSONL(strings.NewReader(`{"body": "a"}`+"\n"+`{"body": "b"}`), "s.jsonl", func(Document) error { return stop })
	if err != stop || st.Docs != 0 {
		t.Errorf("callback error: err = %v, docs %d", err, st.Docs)
	}
}

func TestReadDispatch(t *testing.T) {
	dir := t.TempDir()
	const lines = `{"id": "1", "title": "One", "body": "first"}` + "\n" + `{"id": "2", "body": "second"}` + "\n"
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(lines))
	zw.Close()
	enc, _ := zstd.NewWriter(nil)
	zst := enc.EncodeAll([]byte(lines), nil)

	for _, p := range []string{
		write("plain.jsonl", []byte(lines)),
		write("plain.NDJSON", []byte(lines)),
		write("c.jsonl.gz", gz.Bytes()),
		write("c.jsonl.zst", zst),
		write("c.ndjson.zstd", zst),
	} {
		var got []string
		st, err := Read(p, WalkOptions{}, func(d Document) error {
			got = append(got, d.Key+"="+string(d.Text))
			return nil
		})
		if err != nil {
			t.Errorf("Read(%s): %v", p, err)
			continue
		}
		if want := []string{"1=One\nfirst", "2=\nsecond"}; !reflect.DeepEqual(got, want) || st.Lines != 2 {
			t.Errorf("Read(%s) = %q (%d lines), want %q", filepath.Base(p), got, st.Lines, want)
		}
	}

	// Any other file is one document; a directory is walked (and there the
	// JSONL files are documents like any other).
	txt := write("notes.txt", []byte("plain notes"))
	var got []string
	if _, err := Read(txt, WalkOptions{}, func(d Document) error { got = append(got, d.Key); return nil }); err != nil || !reflect.DeepEqual(got, []string{"notes.txt"}) {
		t.Errorf("Read(notes.txt) = %q, %v", got, err)
	}
	got = nil
	if _, err := Read(dir, WalkOptions{Include: []string{"*.jsonl", "*.txt"}}, func(d Document) error { got = append(got, d.Key); return nil }); err != nil || !reflect.DeepEqual(got, []string{"notes.txt", "plain.jsonl"}) {
		t.Errorf("Read(dir) = %q, %v", got, err)
	}

	if _, err := Read(filepath.Join(dir, "missing.jsonl"), WalkOptions{}, func(Document) error { return nil }); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: err = %v", err)
	}
	bad := write("bad.jsonl.gz", []byte("not gzip"))
	if _, err := Read(bad, WalkOptions{}, func(Document) error { return nil }); err == nil || !strings.Contains(err.Error(), "bad.jsonl.gz") {
		t.Errorf("corrupt gzip: err = %v", err)
	}
}

// TestDecodeJSON: one document object decoded on its own needs an id, and
// each fault is named, the first one in the order id, title, body.
func TestDecodeJSON(t *testing.T) {
	d, err := DecodeJSON([]byte(`{"id": 7, "title": "T", "text": "seven", "extra": [1]}`))
	if err != nil || d.Key != "7" || d.Title != "T" || string(d.Text) != "T\nseven" || d.Size != int64(len("T\nseven")) {
		t.Fatalf("DecodeJSON = %+v, %v", d, err)
	}
	for obj, want := range map[string]string{
		`{"title": "t", "body": "x"}`:           "id is missing",
		`{"id": null, "title": 5}`:              "id is null",
		`{"id": "", "body": "x"}`:               "id is empty",
		`{"id": true, "body": "x"}`:             "id must be a string or an integer",
		`{"id": "a", "title": [], "body": 3}`:   "title must be a string",
		`{"id": "a", "body": 3, "text": "x"}`:   "body must be a string",
		`{"id": "a", "body": null, "text": {}}`: "text must be a string",
		`{"id": "a", "title": "t"}`:             "body is missing",
		`{"id": "a", "body": "x"`:               "unexpected EOF",
	} {
		if _, err := DecodeJSON([]byte(obj)); err == nil || !strings.Contains(err.Error(), want) || errors.Is(err, ErrNotObject) {
			t.Errorf("%s: %v, want %q", obj, err, want)
		}
	}
	for _, obj := range []string{`1`, `null`, `["a"]`, `"s"`} {
		if _, err := DecodeJSON([]byte(obj)); !errors.Is(err, ErrNotObject) {
			t.Errorf("%s: %v, want ErrNotObject", obj, err)
		}
	}
}

// TestReadJSONLKeys: one rule for ids. A string of 1 to MaxKeyBytes bytes
// or an integer every JSON reader reads exactly is a key; anything else is
// a line skipped with a message that says what is wrong (never echoing a
// huge id whole), and the other lines are read.
func TestReadJSONLKeys(t *testing.T) {
	lines := []string{
		`{"id": "` + strings.Repeat("k", 1_000_000) + `", "body": "huge id"}`,
		`{"id": ` + strings.Repeat("9", 5000) + `, "body": "huge number"}`,
		`{"id": null, "body": "null id"}`,
		`{"id": 1e400, "body": "exponent"}`,
		`{"id": 1.5, "body": "fraction"}`,
		`{"id": 10.0, "body": "a whole fraction"}`,
		`{"id": 9007199254740992, "body": "past 2^53-1"}`,
		`{"id": {"a": 1}, "body": "object"}`,
		`{"id": [], "body": "array"}`,
		`{"id": false, "body": "boolean"}`,
		`{"id": "", "body": "empty"}`,
		`{"id": "` + strings.Repeat("é", MaxKeyBytes/2) + `", "body": "longest id"}`,
		`{"id": 9007199254740991, "body": "largest number id"}`,
		`{"id": -0, "body": "minus zero"}`,
		`{"body": "no id"}`,
	}
	docs, st := readAll(t, strings.Join(lines, "\n"), "keys.jsonl")
	if got, want := keys(docs), []string{strings.Repeat("é", MaxKeyBytes/2), "9007199254740991", "0", "keys.jsonl:15"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	if len(st.Skipped) != 11 {
		t.Fatalf("%d lines skipped, want 11: %v", len(st.Skipped), st.Skipped)
	}
	wants := []string{"1000000 bytes long; the most is 4096", "(5000 characters) is not an integer", "id is null",
		"id 1e400 is not an integer", "id 1.5 is not an integer", "id 10.0 is not an integer", "id 9007199254740992 is not an integer",
		"must be a string or an integer", "must be a string or an integer", "must be a string or an integer", "id is empty"}
	for i, s := range st.Skipped {
		if s.Line != i+1 || s.Reason != SkipBadField || !strings.Contains(s.Detail, wants[i]) || len(s.String()) > 200 {
			t.Errorf("line %d: %s, want %q", i+1, s, wants[i])
		}
	}
}
