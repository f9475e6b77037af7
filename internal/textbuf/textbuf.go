// Package textbuf lays out the text extracted from markup the way a browser
// shows it: white space collapses to one space, block boundaries become line
// breaks or paragraph breaks (never more than one blank line in a row), and
// preformatted text is kept as it is. The HTML readers of the corpus package
// and of the corpus-building tool share it.
package textbuf

import "bytes"

// Buffer accumulates extracted text. The zero value is an empty buffer that
// keeps preformatted text verbatim.
type Buffer struct {
	// CollapseVerbatim collapses runs of blank lines in preformatted text
	// to one, as everywhere else.
	CollapseVerbatim bool

	b []byte
}

// TrimSpace drops the spaces and tabs at the end of the text.
func (t *Buffer) TrimSpace() {
	for len(t.b) > 0 && (t.b[len(t.b)-1] == ' ' || t.b[len(t.b)-1] == '\t') {
		t.b = t.b[:len(t.b)-1]
	}
}

// LineBreak ends the current line, unless the text is empty or the line
// already ended.
func (t *Buffer) LineBreak() {
	t.TrimSpace()
	if len(t.b) > 0 && t.b[len(t.b)-1] != '\n' {
		t.b = append(t.b, '\n')
	}
}

// Paragraph ends the current paragraph with one blank line.
func (t *Buffer) Paragraph() {
	t.LineBreak()
	if len(t.b) > 0 && !bytes.HasSuffix(t.b, []byte("\n\n")) {
		t.b = append(t.b, '\n')
	}
}

// Space separates what comes next from the text before, by one space.
func (t *Buffer) Space() {
	if len(t.b) > 0 {
		if c := t.b[len(t.b)-1]; c != ' ' && c != '\n' {
			t.b = append(t.b, ' ')
		}
	}
}

// Flow appends text whose white space collapses.
func (t *Buffer) Flow(s []byte) {
	for len(s) > 0 {
		i := bytes.IndexAny(s, " \t\r\n\f\v")
		if i < 0 {
			i = len(s)
		}
		if i > 0 {
			t.b = append(t.b, s[:i]...)
		}
		if i == len(s) {
			return
		}
		t.Space()
		s = s[i+1:]
	}
}

// Verbatim appends preformatted text, with its line ends made "\n".
func (t *Buffer) Verbatim(s []byte) {
	s = bytes.ReplaceAll(s, []byte("\r\n"), []byte("\n"))
	if !t.CollapseVerbatim {
		t.b = append(t.b, s...)
		return
	}
	for _, c := range s {
		if c == '\n' && bytes.HasSuffix(t.b, []byte("\n\n")) {
			continue
		}
		t.b = append(t.b, c)
	}
}

// String returns the text without leading or trailing white space.
func (t *Buffer) String() string {
	return string(bytes.TrimSpace(t.b))
}
