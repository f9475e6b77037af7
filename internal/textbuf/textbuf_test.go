package textbuf

import "testing"

func TestLayout(t *testing.T) {
	var b Buffer
	b.Flow([]byte("  a   heading \n"))
	b.Paragraph()
	b.Paragraph()
	b.Flow([]byte("one\ttwo"))
	b.Space()
	b.Flow([]byte("three"))
	b.LineBreak()
	b.Verbatim([]byte("pre\r\n\n\n  kept"))
	if got, want := b.String(), "a heading\n\none two three\npre\n\n\n  kept"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	c := Buffer{CollapseVerbatim: true}
	c.Verbatim([]byte("pre\r\n\n\n\nkept"))
	if got, want := c.String(), "pre\n\nkept"; got != want {
		t.Errorf("collapsed: got %q, want %q", got, want)
	}
}
