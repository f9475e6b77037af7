package corpus

import (
	"path"
	"strings"
)

// A format is how the bytes of a file become a document's text and title.
// It is decided by the file's name, after a .gz suffix is taken off.
type format int

const (
	formatPlain    format = iota // the text as it is; titled by its first line with a letter or digit
	formatHTML                   // .html, .htm, .xhtml: the visible text (see extractHTML)
	formatMarkdown               // .md, .markdown: the text as it is; titled by its first heading
)

// formatOf returns the format of the file named name (a base name or a
// slash path).
func formatOf(name string) format {
	name = strings.ToLower(path.Base(name))
	name = strings.TrimSuffix(name, ".gz")
	switch path.Ext(name) {
	case ".html", ".htm", ".xhtml":
		return formatHTML
	case ".md", ".markdown":
		return formatMarkdown
	}
	return formatPlain
}

// isGzip reports whether the file named name is read through gzip: its name
// ends in .gz, in any case.
func isGzip(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".gz")
}

// extract returns the title and the text to index of a file's content in
// format f. It never fails: malformed markup is read as a browser reads it.
func (f format) extract(content []byte) (title string, text []byte) {
	switch f {
	case formatHTML:
		return extractHTML(content)
	case formatMarkdown:
		return markdownTitle(content), content
	}
	return firstLineTitle(content), content
}
