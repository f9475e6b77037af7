package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ReadJSONL reads documents from JSONL text, one JSON object per line (see the
// package documentation for the fields), and calls fn for each. name
// identifies the input in keys synthesised for lines without an id and in
// error messages; Read passes the file's base name.
//
// Malformed lines are skipped and reported in Stats with their line number.
// ReadJSONL fails only on a read error from r or when fn returns an error,
// which it returns as is.
func ReadJSONL(r io.Reader, name string, fn func(Document) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 64<<10)
	seen := make(map[string]struct{})
	var line []byte // reused: holds the current line, however long
	for {
		var err error
		line, err = readLine(br, line[:0])
		if len(line) == 0 && err == io.EOF {
			return st, nil
		}
		if err != nil && err != io.EOF {
			return st, fmt.Errorf("corpus: %s: line %d: %w", name, st.Lines+1, err)
		}
		st.Lines++
		if st.Lines == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF")) // a UTF-8 byte order mark
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		d, reason, detail := parseLine(line, name, st.Lines)
		if reason == "" {
			if _, dup := seen[d.Key]; dup {
				reason, detail = SkipDuplicateID, fmt.Sprintf("id %q first seen on an earlier line", d.Key)
			}
		}
		if reason != "" {
			st.skip(Skip{Path: name, Line: st.Lines, Reason: reason, Detail: detail})
			continue
		}
		seen[d.Key] = struct{}{}
		if err := fn(d); err != nil {
			return st, err
		}
		st.add(d)
	}
}

// readLine appends the next line of br to buf, without its line ending ("\n"
// or "\r\n"). It returns io.EOF with the last line if that line has no
// newline, and with an empty buf at the end of input.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			buf = buf[:len(buf)-1]
			if n := len(buf); n > 0 && buf[n-1] == '\r' {
				buf = buf[:n-1]
			}
		}
		return buf, err
	}
}

// parseLine decodes one non-blank line. On failure it returns the skip reason
// and a message.
func parseLine(line []byte, name string, lineno int) (Document, SkipReason, string) {
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

	key, err := jsonID(fields["id"])
	if err != nil {
		return Document{}, SkipBadField, err.Error()
	}
	if key == "" {
		key = name + ":" + strconv.Itoa(lineno)
	}
	title, _, err := jsonString("title", fields["title"])
	if err != nil {
		return Document{}, SkipBadField, err.Error()
	}
	body, ok, err := jsonString("body", fields["body"])
	if err != nil {
		return Document{}, SkipBadField, err.Error()
	}
	if !ok {
		if body, ok, err = jsonString("text", fields["text"]); err != nil {
			return Document{}, SkipBadField, err.Error()
		}
	}
	if !ok {
		return Document{}, SkipNoBody, "no body or text field"
	}
	text := make([]byte, 0, len(title)+1+len(body))
	text = append(text, title...)
	text = append(text, '\n')
	text = append(text, body...)
	return Document{Key: key, Title: title, Text: text, Size: int64(len(text))}, "", ""
}

// jsonString decodes an optional string field; ok is false if it is absent
// or null.
func jsonString(field string, raw json.RawMessage) (s string, ok bool, err error) {
	if raw == nil || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] != '"' {
		return "", false, fmt.Errorf("%s is %s, not a string", field, jsonKind(raw))
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, fmt.Errorf("%s: %w", field, err)
	}
	return s, true, nil
}

// jsonID decodes the id field: a string, or a number kept as written. An
// absent or null id is "".
func jsonID(raw json.RawMessage) (string, error) {
	switch {
	case raw == nil || string(raw) == "null":
		return "", nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("id: %w", err)
		}
		return s, nil
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return string(raw), nil // json.Unmarshal has validated it as a number
	}
	return "", fmt.Errorf("id is %s, not a string or a number", jsonKind(raw))
}

func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	}
	return "a number"
}
