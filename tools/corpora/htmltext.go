package main

import (
	"flag"
	"fmt"
	"github.com/bitsieve/bitsieve/internal/textbuf"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/net/html"
)

// Elements whose content is not text a reader of the page reads: code,
// styling, navigation menus, inline drawings. See also isPageChrome.
var htmlSkipped = map[string]bool{
	"script": true, "style": true, "nav": true, "noscript": true,
	"template": true, "svg": true,
}

// Elements that start a paragraph, and elements that start a line.
var (
	htmlParagraph = map[string]bool{
		"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"pre": true, "blockquote": true, "table": true, "ul": true, "ol": true, "dl": true,
		"section": true, "article": true, "header": true, "footer": true, "main": true,
		"aside": true, "figure": true, "form": true, "fieldset": true, "address": true,
	}
	htmlLine = map[string]bool{
		"br": true, "div": true, "li": true, "tr": true, "dt": true, "dd": true, "hr": true,
		"caption": true, "figcaption": true, "option": true, "center": true, "body": true,
	}
	htmlCell = map[string]bool{"td": true, "th": true}
	htmlVoid = map[string]bool{
		"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
		"img": true, "input": true, "link": true, "meta": true, "param": true,
		"source": true, "track": true, "wbr": true,
	}
)

// isPageChrome reports whether the tag's attributes mark it as navigation or
// page furniture: role="navigation", or a class that documentation
// generators (Sphinx, which builds both the Linux and the Python docs) give to
// footers, permalink markers and language switchers. Such text repeats on
// every page and would only add noise to term statistics.
func isPageChrome(z *html.Tokenizer, hasAttr bool) bool {
	for hasAttr {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		switch string(k) {
		case "role":
			if strings.EqualFold(string(v), "navigation") {
				return true
			}
		case "class":
			for _, c := range strings.Fields(string(v)) {
				if htmlChromeClasses[c] {
					return true
				}
			}
		}
	}
	return false
}

var htmlChromeClasses = map[string]bool{"footer": true, "headerlink": true, "language-selection": true}

// htmlText extracts an HTML document's <title> and its visible text, with
// scripts, styles and navigation dropped and block elements on lines of their
// own. It never fails on malformed HTML: the tokenizer recovers as browsers do.
func htmlText(r io.Reader) (title, text string, err error) {
	z := html.NewTokenizer(r)
	var (
		body     textbuf.Buffer
		titleBuf textbuf.Buffer
		skipTag  string // element being skipped, with its nesting depth
		skipN    int
		inTitle  bool
		preDepth int
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return "", "", z.Err()
			}
			return validUTF8(titleBuf.String()), validUTF8(body.String()), nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			selfClosing := tt == html.SelfClosingTagToken || htmlVoid[tag]
			if skipN > 0 {
				if tag == skipTag && !selfClosing {
					skipN++
				}
				continue
			}
			if (htmlSkipped[tag] || isPageChrome(z, hasAttr)) && !selfClosing {
				skipTag, skipN = tag, 1
				continue
			}
			switch {
			case tag == "title":
				inTitle = !selfClosing
			case htmlParagraph[tag]:
				body.Paragraph()
			case htmlLine[tag]:
				body.LineBreak()
			case htmlCell[tag]:
				body.Space()
			}
			if tag == "pre" && !selfClosing {
				preDepth++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if skipN > 0 {
				if tag == skipTag {
					skipN--
				}
				continue
			}
			switch {
			case tag == "title":
				inTitle = false
			case htmlParagraph[tag]:
				body.Paragraph()
			case htmlLine[tag]:
				body.LineBreak()
			case htmlCell[tag]:
				body.Space()
			}
			if tag == "pre" && preDepth > 0 {
				preDepth--
			}
		case html.TextToken:
			if skipN > 0 {
				continue
			}
			switch {
			case inTitle:
				titleBuf.Flow(z.Text())
			case preDepth > 0:
				body.Verbatim(z.Text())
			default:
				body.Flow(z.Text())
			}
		}
	}
}

// htmlDocs converts every *.html file under root, in path order. The id is
// prefix + ":" + the slash-separated path relative to root; a page without a
// <title> is titled with that path.
func htmlDocs(prefix, root string, emit func(Doc) error) error {
	var paths []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".html") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, path := range paths {
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		title, text, err := htmlText(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if title == "" {
			title = rel
		}
		if err := emit(Doc{ID: prefix + ":" + rel, Title: title, Body: text}); err != nil {
			return err
		}
	}
	return nil
}

func runHTML(args []string) error {
	fs := flag.NewFlagSet("html", flag.ContinueOnError)
	prefix := fs.String("prefix", "", "id prefix and source name (linuxdoc, pydoc)")
	out := fs.String("o", "", "output JSONL file")
	if err := parseFlags(fs, args, 1, 1); err != nil {
		return err
	}
	if *prefix == "" {
		return fmt.Errorf("%w: -prefix is required", errUsage)
	}
	// Debian's python3.X-doc ships html as a symlink into python3.X's folder.
	root, err := filepath.EvalSymlinks(fs.Arg(0))
	if err != nil {
		return err
	}
	return writeAll(*out, *prefix, func(jw *JSONLWriter) error {
		return htmlDocs(*prefix, root, jw.Write)
	})
}
