package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

const sphinxPage = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>os — Miscellaneous   operating system interfaces &#8212; Python 3.11 documentation</title>
    <script src="../_static/jquery.js"></script>
    <style>body { color: red }</style>
  </head>
<body>
<nav class="menu" role="navigation"><ul><li>Table of Contents</li></ul></nav>
<div class="sphinxsidebar" role="navigation" aria-label="main navigation">
  <div class="inner"><div>Previous topic</div></div>
  <h3>Quick search</h3>
</div>
<div class="body" role="main">
<div class="language-selection">English <ul><li>Chinese (Simplified)</li></ul></div>
<section id="os">
<h1>os — Miscellaneous operating system interfaces<a class="headerlink" href="#os" title="Link to this heading">¶</a></h1>
<p>This module provides a <em>portable</em> way of using
   operating system dependent functionality &amp; more.<br/>Second line.</p>
<pre>for x in os.listdir(path):
    print(x)</pre>
<table><tr><td>os.name</td><td>posix</td></tr><tr><td>os.sep</td><td>/</td></tr></table>
<ul><li>first</li><li>second</li></ul>
<script>var hidden = "not text";</script>
<noscript>enable javascript</noscript>
<svg><text>drawing</text></svg>
</section>
</div>
<div class="footer">&copy; Copyright 2001-2026. <div>Created using Sphinx.</div></div>
</body>
</html>
`

func TestHTMLText(t *testing.T) {
	title, text, err := htmlText(strings.NewReader(sphinxPage))
	if err != nil {
		t.Fatal(err)
	}
	if want := "os — Miscellaneous operating system interfaces — Python 3.11 documentation"; title != want {
		t.Errorf("title = %q, want %q", title, want)
	}
	want := "os — Miscellaneous operating system interfaces\n\n" +
		"This module provides a portable way of using operating system dependent functionality & more.\n" +
		"Second line.\n\n" +
		"for x in os.listdir(path):\n    print(x)\n\n" +
		"os.name posix\nos.sep /\n\n" +
		"first\nsecond"
	if text != want {
		t.Errorf("text =\n%s\n--- want ---\n%s", text, want)
	}
	for _, hidden := range []string{"Table of Contents", "Previous topic", "Quick search", "color", "jquery", "hidden", "javascript", "drawing", "Copyright", "Sphinx", "¶", "Chinese"} {
		if strings.Contains(text, hidden) {
			t.Errorf("text contains %q, which is not page content", hidden)
		}
	}
}

func TestHTMLTextMalformed(t *testing.T) {
	for _, tc := range []struct{ in, title, text string }{
		{"<p>unclosed <b>bold", "", "unclosed bold"},
		{"no markup at all", "", "no markup at all"},
		{"<title>T</title><div><div>a</div>b</div>c", "T", "a\nb\nc"},
		{"<nav><nav>x</nav>still skipped</nav>shown", "", "shown"},
		{"<p>bad \xff byte</p>", "", "bad \uFFFD byte"},
		{"", "", ""},
	} {
		title, text, err := htmlText(strings.NewReader(tc.in))
		if err != nil || title != tc.title || text != tc.text {
			t.Errorf("htmlText(%q) = %q, %q, %v; want %q, %q", tc.in, title, text, err, tc.title, tc.text)
		}
	}
}

func TestHTMLConvert(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "real", "html")
	writeFile(t, filepath.Join(docs, "index.html"), []byte(sphinxPage))
	writeFile(t, filepath.Join(docs, "PCI", "pci.html"), []byte("<p>no title here</p>"))
	writeFile(t, filepath.Join(docs, "_static", "jquery.js"), []byte("var x;"))
	writeFile(t, filepath.Join(docs, "_sources", "index.rst.txt"), []byte("os\n==\n"))
	// Debian's python3.X-doc/html is a symlink to python3.X/html.
	link := filepath.Join(dir, "link")
	if err := os.Symlink(docs, link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	if err := runHTML([]string{"-prefix", "pydoc", "-o", out, link}); err != nil {
		t.Fatal(err)
	}
	got := readJSONL(t, out)
	if len(got) != 2 || got[0].ID != "pydoc:PCI/pci.html" || got[1].ID != "pydoc:index.html" {
		t.Fatalf("docs = %+v", got)
	}
	if got[0].Title != "PCI/pci.html" || got[0].Body != "no title here" {
		t.Errorf("untitled page = %+v; want the path as title", got[0])
	}
	noTempFiles(t, dir)
}

func FuzzHTMLText(f *testing.F) {
	f.Add(sphinxPage)
	f.Add("<pre>a\r\nb</pre><td>x<th>y")
	f.Fuzz(func(t *testing.T, in string) {
		title, text, err := htmlText(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(title) || !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 out of %q", in)
		}
	})
}
