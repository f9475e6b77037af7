package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Doc is one line of a corpus JSONL file.
type Doc struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// validUTF8 replaces every invalid byte sequence with U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// JSONLWriter writes documents to a temporary file and renames it to its
// target on Close, so the target exists only when complete.
type JSONLWriter struct {
	path string
	f    *os.File
	w    *bufio.Writer
	buf  bytes.Buffer
	enc  *json.Encoder
	ids  map[string]struct{}

	Docs  int   // documents written
	Bytes int64 // bytes written
}

// NewJSONLWriter creates the temporary file for path.
func NewJSONLWriter(path string) (*JSONLWriter, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	jw := &JSONLWriter{path: path, f: f, w: bufio.NewWriterSize(f, 1<<20), ids: make(map[string]struct{})}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	return jw, nil
}

// Write appends one document. Ids must be unique within the file; text is
// made valid UTF-8.
func (jw *JSONLWriter) Write(d Doc) error {
	d.ID = validUTF8(d.ID)
	d.Title = validUTF8(d.Title)
	d.Body = validUTF8(d.Body)
	if d.ID == "" {
		return fmt.Errorf("document with empty id (title %q)", d.Title)
	}
	if _, dup := jw.ids[d.ID]; dup {
		return fmt.Errorf("duplicate document id %q", d.ID)
	}
	jw.ids[d.ID] = struct{}{}
	jw.buf.Reset()
	if err := jw.enc.Encode(d); err != nil { // Encode appends the newline
		return err
	}
	n, err := jw.w.Write(jw.buf.Bytes())
	jw.Bytes += int64(n)
	if err != nil {
		return fmt.Errorf("%s: %w", jw.f.Name(), err)
	}
	jw.Docs++
	return nil
}

// Close flushes, syncs and renames the file into place.
func (jw *JSONLWriter) Close() error {
	err := jw.w.Flush()
	if err == nil {
		err = jw.f.Chmod(0o644) // CreateTemp makes it private
	}
	if err == nil {
		err = jw.f.Sync()
	}
	if cerr := jw.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(jw.f.Name(), jw.path)
	}
	if err != nil {
		os.Remove(jw.f.Name())
		return fmt.Errorf("%s: %w", jw.path, err)
	}
	return nil
}

// Abort removes the temporary file.
func (jw *JSONLWriter) Abort() {
	jw.f.Close()
	os.Remove(jw.f.Name())
}

// report prints the one-line summary the script shows for each source.
func (jw *JSONLWriter) report(name string) {
	fmt.Fprintf(os.Stderr, "%s: %d documents, %.1f MB -> %s\n", name, jw.Docs, float64(jw.Bytes)/1e6, jw.path)
}

// writeAll runs produce with a writer for out, closing or aborting it.
func writeAll(out, name string, produce func(*JSONLWriter) error) error {
	if out == "" {
		return fmt.Errorf("%w: -o is required", errUsage)
	}
	jw, err := NewJSONLWriter(out)
	if err != nil {
		return err
	}
	if err := produce(jw); err != nil {
		jw.Abort()
		return err
	}
	if err := jw.Close(); err != nil {
		return err
	}
	jw.report(name)
	return nil
}
