package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzParseLineMatchesEncodingJSON checks the one-pass line parser against
// the plain reading of a line with encoding/json (refParseLine): the same
// document, or the same skip reason, for every line, read by a parser that
// has read another line before it (nothing of that line may carry over).
func FuzzParseLineMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"id": "a", "title": "T", "body": "b"}`,
		`{"id": 12.5e3, "text": "x\u00e9\ud83d\ude00"}`,
		`{"id": "a", "body": "first", "body": "last", "title": null}`,
		`{"id": "x", "body": null, "text": 5}`,
		`{"id": "two"} {"id": "objects"}`,
		"{\"body\": \"\xff\\ud800 \\udc00\\ud800x\"}",
		`{"b\u006fdy": "escaped name", "extra": [1, {"a": null}]}`,
		`["an", "array"]`, `null`, `"s"`, `{"id": true, "body": "x"}`, `{"body": "unterminated`,
		`{"id": -0, "body": ""}   `, `{"id": 01, "body": ""}`, `{"body": "a\tb"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		var lp lineParser
		lp.parse([]byte(`{"id": "before", "title": "T", "body": "B", "text": "X"}`), false)
		got, err := lp.parse(line, false)
		var gotReason SkipReason
		var gotDetail string
		if err != nil {
			gotReason, gotDetail = err.(*jsonError).reason, err.Error()
		} else if got.Key == "" {
			got.Key = "f:7" // as ReadJSONL keys line 7 of f
		}
		want, wantReason, _ := refParseLine(line, "f", 7)
		if gotReason != wantReason || !reflect.DeepEqual(got, want) {
			t.Fatalf("line %q:\n got %+v %q (%s)\nwant %+v %q", line, got, gotReason, gotDetail, want, wantReason)
		}
		if gotReason != "" && gotDetail == "" {
			t.Fatalf("line %q: skipped as %s without a detail", line, gotReason)
		}
	})
}

// refParseLine reads a line as ReadJSONL did with encoding/json: into a map
// of raw members, each string field decoded again on its own.
func refParseLine(line []byte, name string, lineno int) (Document, SkipReason, string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return Document{}, SkipBadJSON, "not a JSON object"
		}
		return Document{}, SkipBadJSON, err.Error()
	}
	if fields == nil { // the line is JSON null
		return Document{}, SkipBadJSON, "not a JSON object"
	}

	key, err := refJSONID(fields["id"])
	if err != nil {
		return Document{}, SkipBadField, err.Error()
	}
	if key == "" {
		key = name + ":" + strconv.Itoa(lineno)
	}
	title, _, err := refJSONString("title", fields["title"])
	if err != nil {
		return Document{}, SkipBadField, err.Error()
	}
	body, ok, err := refJSONString("body", fields["body"])
	if err != nil {
		return Document{}, SkipBadField, err.Error()
	}
	if !ok {
		if body, ok, err = refJSONString("text", fields["text"]); err != nil {
			return Document{}, SkipBadField, err.Error()
		}
	}
	if !ok {
		return Document{}, SkipNoBody, "body is missing"
	}
	text := make([]byte, 0, len(title)+1+len(body))
	text = append(text, title...)
	text = append(text, '\n')
	text = append(text, body...)
	return Document{Key: key, Title: title, Text: text, Size: int64(len(text))}, "", ""
}

// jsonString decodes an optional string field; ok is false if it is absent
// or null.
func refJSONString(field string, raw json.RawMessage) (s string, ok bool, err error) {
	if raw == nil || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] != '"' {
		return "", false, fmt.Errorf("%s must be a string", field)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, fmt.Errorf("%s: %w", field, err)
	}
	return s, true, nil
}

// jsonID decodes the id field: a string, or a number kept as written. An
// absent or null id is "".
func refJSONID(raw json.RawMessage) (string, error) {
	switch {
	case raw == nil:
		return "", nil
	case string(raw) == "null":
		return "", errors.New("id is null")
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("id: %w", err)
		}
		if s == "" || len(s) > MaxKeyBytes {
			return "", errors.New("id is empty or too long")
		}
		return s, nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		// json.Unmarshal has validated it as a number.
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", err
		}
		i, err := n.Int64()
		if err != nil || i > MaxIntID || i < -MaxIntID {
			return "", errors.New("id is not an integer in range")
		}
		return strconv.FormatInt(i, 10), nil
	}
	return "", errors.New("id must be a string or an integer")
}

// sampleJSONL is the embedded sample corpus, decompressed.
func sampleJSONL(b *testing.B) []byte {
	zr, err := zstd.NewReader(bytes.NewReader(sampleZst))
	if err != nil {
		b.Fatal(err)
	}
	defer zr.Close()
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkReadJSONL reads the sample corpus's JSONL from memory into
// documents: ReadJSONL with its one-pass parser, and the encoding/json
// reading that parser replaced (refParseLine, on the lines alone, without
// ReadJSONL's line reading and duplicate check).
func BenchmarkReadJSONL(b *testing.B) {
	data := sampleJSONL(b)
	b.Run("jsontext", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := ReadJSONL(bytes.NewReader(data), "bench", func(Document) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for line := range bytes.Lines(data) {
				if _, reason, detail := refParseLine(bytes.TrimSuffix(line, []byte("\n")), "bench", 1); reason != "" {
					b.Fatal(reason, detail)
				}
			}
		}
	})
}
