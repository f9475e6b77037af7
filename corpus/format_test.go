package corpus

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExtractHTML(t *testing.T) {
	src := `<!DOCTYPE html>
<html><head>
  <title>  The   &quot;Tale&quot; of
  two cities </title>
  <style>body { color: red }</style>
  <script>var hidden = "<p>script text</p>";</script>
</head>
<body>
<!-- a comment with words -->
<h1>Book <em>One</em></h1>
<p>It was the best of times,
   it was the worst&nbsp;of times &amp; more &lt;tags&gt; &#8212; &eacute;t&eacute;.</p>
<noscript>enable scripts</noscript>
<template><p>template text</p></template>
<ul><li>first</li><li>second</li></ul>



<div>one<br>two</div>
<pre>  keep
    indent


  here</pre>
<table><tr><td>a</td><td>b</td></tr></table>
</body></html>`
	title, text := extractHTML([]byte(src))
	if want := `The "Tale" of two cities`; title != want {
		t.Errorf("title = %q, want %q", title, want)
	}
	want := `The "Tale" of two cities

Book One

It was the best of times, it was the worst` + "\u00a0" + `of times & more <tags> — été.

first
second

one
two

  keep
    indent

  here

a b`
	if string(text) != want {
		t.Errorf("text:\n%s\nwant:\n%s", text, want)
	}
}

func TestExtractHTMLTitle(t *testing.T) {
	for _, c := range []struct{ src, title, text string }{
		{"<h1>Heading  <b>one</b></h1><p>body</p><h1>two</h1>", "Heading one", "Heading one\n\nbody\n\ntwo"},
		{"<title>Same</title><h1>Same</h1>body", "Same", "Same\n\nbody"},
		{"<title></title><p>no title</p>", "", "no title"},
		{"<title>Only a title</title>", "Only a title", "Only a title"},
		{"<svg><title>tooltip</title></svg><title>page</title>x<title>again</title>", "page", "page\n\nx"},
		// Malformed: unclosed elements, a stray end tag, an unterminated
		// comment. The tokenizer recovers; nothing fails.
		{"<p>open <b>bold <i>both</p></div> after <!-- never closed", "", "open bold both\n\nafter"},
		{"<script>unterminated", "", ""},
		{"", "", ""},
	} {
		title, text := extractHTML([]byte(c.src))
		if title != c.title || string(text) != c.text {
			t.Errorf("extractHTML(%q) = %q, %q; want %q, %q", c.src, title, text, c.title, c.text)
		}
	}
}

func TestMarkdownTitle(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"# Title\n\nbody", "Title"},
		{"### Deep title ###\nbody", "Deep title"},
		{"## C# tips\n", "C# tips"},
		{"#hashtag, not a heading\n# Later", "#hashtag, not a heading"},
		{"   # Indented\n", "Indented"},
		{"Setext title\n============\n\nbody", "Setext title"},
		{"Second level\n---\nbody", "Second level"},
		{"\uFEFF\n\n<!-- comment\nover lines -->\n[![ci](b.svg)](ci)\n<p align=\"center\">\n# After badges\n", "After badges"},
		{"---\ntitle: front matter\n---\n# Real title\n", "Real title"},
		{"Some intro paragraph.\n\n# A heading too late\n", "Some intro paragraph."},
		{"first line\nsecond line\n\n## Heading\n", "first line"},
		{"    # code, not a heading\n", "# code, not a heading"},
		{"#\n# Second\n", "Second"},
		{"- item\n\n# Heading\n", "- item"},
		{"", ""},
		{"\n  \n", ""},
	} {
		if got := markdownTitle([]byte(c.src)); got != c.want {
			t.Errorf("markdownTitle(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

func TestFirstLineTitle(t *testing.T) {
	long := strings.Repeat("word ", 40) // 200 runes
	for _, c := range []struct{ src, want string }{
		{"first line\nsecond", "first line"},
		{"\n\n   \t\n  indented\tand  spaced  \r\nnext", "indented and spaced"},
		{"{\n  \"name\": \"pkg\",\n", `"name": "pkg",`},
		{"/*\n * Copyright 2024\n */", "* Copyright 2024"},
		{"-----\n¡¿ü", "¡¿ü"},
		{"{\n}\n", ""},
		{"// Copyright 2013 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n\n// Package bufio implements buffered I/O.\npackage bufio\n",
			"// Package bufio implements buffered I/O."},
		{".. SPDX-License-Identifier: GPL-2.0\n\n=========\nBPF maps\n=========\n", "BPF maps"},
		{"Copyright (C) 2024 Someone\n", "Copyright (C) 2024 Someone"},
		{"A Copyright notice\nsecond line\n\nafter the header", "after the header"},
		{"Title line\nCopyright 2024\n\nbody", "Title line"},
		{"\uFEFFwith a byte-order mark", "with a byte-order mark"},
		{"bad \xff byte\x01ctl", "bad \uFFFD byte ctl"},
		{long, strings.TrimSpace(strings.Repeat("word ", 20)) + "…"},
		{strings.Repeat("x", 300), strings.Repeat("x", 100) + "…"},
		{strings.Repeat("é", 5000), strings.Repeat("é", 100) + "…"},
		{"", ""},
		{"\n \n", ""},
	} {
		got := firstLineTitle([]byte(c.src))
		if got != c.want {
			t.Errorf("firstLineTitle(%.40q) = %q, want %q", c.src, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > maxTitleRunes+1 || !utf8.ValidString(got) {
			t.Errorf("firstLineTitle(%.40q): %d runes, valid UTF-8 %v", c.src, n, utf8.ValidString(got))
		}
	}
}

func TestFormatOf(t *testing.T) {
	for name, want := range map[string]format{
		"a.html": formatHTML, "A.HTM": formatHTML, "x/b.xhtml": formatHTML, "index.html.gz": formatHTML,
		"README.md": formatMarkdown, "notes.markdown.GZ": formatMarkdown,
		"changelog.Debian.gz": formatPlain, "main.go": formatPlain, "html": formatPlain, "md.txt": formatPlain,
	} {
		if got := formatOf(name); got != want {
			t.Errorf("formatOf(%q) = %d, want %d", name, got, want)
		}
	}
}
