package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// readGoSpec converts the Go language specification and the Go memory model
// (doc/go_spec.html and doc/go_mem.html of the Go distribution) into one
// document per <h2>/<h3> section.
func readGoSpec(spec string) ([]doc, error) {
	var docs []doc
	for _, f := range []struct{ path, id, title string }{
		{spec, "go/spec", "The Go Programming Language Specification"},
		{filepath.Join(filepath.Dir(spec), "go_mem.html"), "go/memory-model", "The Go Memory Model"},
	} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			return nil, err
		}
		for _, s := range htmlSections(b) {
			body := tidy(s.text)
			if len(body) < 40 {
				continue
			}
			d := doc{ID: f.id, Title: f.title, Body: body}
			if s.title != "" {
				d.ID += "#" + slug(s.title)
				d.Title += " — " + s.title
			}
			docs = append(docs, d)
		}
	}
	uniqueIDs(docs)
	return docs, nil
}

type htmlSection struct{ title, text string }

// htmlSections splits an HTML page at its h2 and h3 headings and returns the
// text of each part: block elements end lines, <pre> keeps its layout,
// comments, scripts and styles are dropped.
func htmlSections(b []byte) []htmlSection {
	z := html.NewTokenizer(bytes.NewReader(b))
	secs := []htmlSection{{}}
	var text, heading strings.Builder
	inHeading, pre, skip := false, 0, 0
	flush := func() { secs[len(secs)-1].text = text.String() }
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			flush()
			return secs
		case html.TextToken:
			if skip > 0 {
				continue
			}
			t := string(z.Text())
			if pre == 0 {
				t = spaces.ReplaceAllString(t, " ")
				if inHeading || text.Len() == 0 || strings.HasSuffix(text.String(), "\n") {
					t = strings.TrimLeft(t, " ")
				}
			}
			if inHeading {
				heading.WriteString(t)
			} else {
				text.WriteString(t)
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			start := tt != html.EndTagToken
			switch tag {
			case "script", "style":
				if start {
					skip++
				} else {
					skip--
				}
			case "h1", "h2", "h3", "h4":
				if tag == "h2" || tag == "h3" {
					if start {
						flush()
						text.Reset()
						heading.Reset()
						inHeading = true
					} else {
						secs = append(secs, htmlSection{title: strings.TrimSpace(heading.String())})
						inHeading = false
					}
				} else {
					text.WriteString("\n")
				}
			case "pre":
				if start {
					pre++
				} else {
					pre--
				}
				text.WriteString("\n")
			case "p", "div", "br", "li", "ul", "ol", "table", "tr", "dt", "dd", "blockquote":
				text.WriteString("\n")
			case "td", "th":
				text.WriteString(" ")
			}
		}
	}
}

var spaces = regexp.MustCompile(`\s+`)
