package corpus

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadJSONL checks that no input makes the JSONL reader panic or fail
// (bytes.Reader never returns a read error), and that what it reports adds
// up: every non-blank line is either a document or a skip, keys are unique,
// and every text is title + "\n" + something.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"id": "a", "title": "T", "body": "b"}` + "\n"))
	f.Add([]byte(`{"id": 1, "text": "x"}` + "\r\n\n" + `{"id": 1, "text": "dup"}`))
	f.Add([]byte("{\"body\": \"\xff\\ud800\"}\n[1]\nnull\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seen := make(map[string]bool)
		st, err := ReadJSONL(bytes.NewReader(data), "fuzz", func(d Document) error {
			if seen[d.Key] {
				t.Errorf("key %q returned twice", d.Key)
			}
			seen[d.Key] = true
			if d.Size != int64(len(d.Text)) || !bytes.HasPrefix(d.Text, []byte(d.Title+"\n")) {
				t.Errorf("document %+v: Size or Text inconsistent with Title", d)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("ReadJSONL: %v", err)
		}
		nonBlank := 0
		for i, line := range bytes.Split(data, []byte("\n")) {
			if i == 0 {
				line = bytes.TrimPrefix(line, []byte("\uFEFF"))
			}
			if len(bytes.TrimSpace(line)) > 0 {
				nonBlank++
			}
		}
		if st.Docs+len(st.Skipped) != nonBlank {
			t.Errorf("%d documents + %d skipped, want %d non-blank lines", st.Docs, len(st.Skipped), nonBlank)
		}
	})
}

// FuzzExtract checks that no file content makes a format's extraction panic,
// and that every title is one line of valid UTF-8 no longer than
// maxTitleRunes plus its "…". The text of HTML never holds more than one
// blank line in a row.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("<title>T</title><script>x</script><p>a &amp; b</p><pre>\n\n\n</pre>"))
	f.Add([]byte("<p>open <b>bold</p></div><!-- never closed"))
	f.Add([]byte("---\nfront: matter\n---\n# Heading #\n"))
	f.Add([]byte("Setext\n===\n"))
	f.Add([]byte("// Copyright 2024\n\npackage x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fm := range []format{formatPlain, formatHTML, formatMarkdown} {
			title, text := fm.extract(data)
			if !utf8.ValidString(title) || strings.ContainsAny(title, "\r\n") || utf8.RuneCountInString(title) > maxTitleRunes+1 {
				t.Errorf("format %d: title %q", fm, title)
			}
			if fm == formatHTML && bytes.Contains(text, []byte("\n\n\n")) {
				t.Errorf("HTML text holds two blank lines in a row: %q", text)
			}
		}
	})
}
