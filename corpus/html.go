package corpus

import (
	"bytes"
	"github.com/bitsieve/bitsieve/internal/textbuf"

	"golang.org/x/net/html"
)

// The extraction of an HTML file's text keeps what a reader of the rendered
// page sees, laid out so that a snippet reads like the page: elements that
// are not text (scripts, styles, templates, the fallback of <noscript>) are
// dropped with their content, and so are comments; block elements start a
// new line, and those that stand apart on the page (paragraphs, headings,
// lists, tables) a new paragraph, with never more than one blank line in a
// row; white space elsewhere collapses to one space as a browser shows it,
// except inside <pre>; character references are decoded. The tokenizer of
// golang.org/x/net/html recovers from malformed markup as browsers do, so
// extraction never fails.

// htmlDropped are the elements whose content is not shown.
var htmlDropped = map[string]bool{"script": true, "style": true, "noscript": true, "template": true}

var (
	// htmlParagraph are the elements set apart by a blank line.
	htmlParagraph = map[string]bool{
		"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"pre": true, "blockquote": true, "table": true, "ul": true, "ol": true, "dl": true,
		"section": true, "article": true, "header": true, "footer": true, "main": true,
		"aside": true, "nav": true, "figure": true, "form": true, "fieldset": true,
		"address": true, "details": true, "hgroup": true,
	}
	// htmlLine are the elements that start a line.
	htmlLine = map[string]bool{
		"br": true, "div": true, "li": true, "tr": true, "dt": true, "dd": true, "hr": true,
		"caption": true, "figcaption": true, "option": true, "center": true, "body": true,
		"summary": true, "legend": true, "tbody": true, "thead": true, "tfoot": true,
	}
	// htmlCell are the elements kept apart from their neighbours by a space.
	htmlCell = map[string]bool{"td": true, "th": true, "img": true}
	// htmlVoid are the elements that never have content or an end tag.
	htmlVoid = map[string]bool{
		"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
		"img": true, "input": true, "link": true, "meta": true, "param": true,
		"source": true, "track": true, "wbr": true,
	}
)

// extractHTML extracts the visible text of an HTML document and its title: the
// content of its first <title> (one inside an inline <svg> is a tooltip, and
// is dropped), or else of its first <h1>, white space collapsed. When the title comes from <title> and the text does not begin
// with it, the text begins with the title on a line of its own, so that its
// words are found as those of a JSONL document's title are.
func extractHTML(src []byte) (title string, text []byte) {
	z := html.NewTokenizer(bytes.NewReader(src))
	var (
		body      = textbuf.Buffer{CollapseVerbatim: true}
		titleText textbuf.Buffer // of the first <title>
		h1Text    textbuf.Buffer // of the first <h1>
		dropTag   string         // element being dropped, and its nesting depth
		dropN     int
		inTitle   bool // in a <title>: its text is never body text
		pageTitle bool // in the first <title> outside <svg>, the page's title
		titleDone bool
		svgDepth  int
		h1Depth   int // nesting depth of the first <h1> while inside it
		h1Done    bool
		preDepth  int
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// io.EOF, or a read error that a bytes.Reader cannot have.
			return htmlResult(titleText.String(), h1Text.String(), body.String())
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			void := tt == html.SelfClosingTagToken || htmlVoid[tag]
			if dropN > 0 {
				if tag == dropTag && !void {
					dropN++
				}
				continue
			}
			if htmlDropped[tag] && !void {
				dropTag, dropN = tag, 1
				continue
			}
			switch {
			case tag == "title":
				inTitle = !void
				pageTitle = inTitle && !titleDone && svgDepth == 0
			case tag == "svg" && !void:
				svgDepth++
			default:
				boundary(&body, tag)
			}
			if tag == "h1" && !void && !h1Done {
				h1Depth++
			}
			if tag == "pre" && !void {
				preDepth++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if dropN > 0 {
				if tag == dropTag {
					dropN--
				}
				continue
			}
			switch {
			case tag == "title":
				if pageTitle {
					titleDone = true
				}
				inTitle, pageTitle = false, false
			case tag == "svg":
				svgDepth = max(svgDepth-1, 0)
			default:
				boundary(&body, tag)
			}
			if tag == "h1" && h1Depth > 0 {
				if h1Depth--; h1Depth == 0 {
					h1Done = true
				}
			}
			if tag == "pre" && preDepth > 0 {
				preDepth--
			}
		case html.TextToken:
			if dropN > 0 {
				continue
			}
			t := z.Text()
			switch {
			case inTitle:
				if pageTitle {
					titleText.Flow(t)
				}
				continue
			case preDepth > 0:
				body.Verbatim(t)
			default:
				body.Flow(t)
			}
			if h1Depth > 0 {
				h1Text.Flow(t)
			}
		}
	}
}

// boundary lays out the start or end of element tag: a paragraph break,
// a line break, or a space between table cells.
func boundary(t *textbuf.Buffer, tag string) {
	switch {
	case htmlParagraph[tag]:
		t.Paragraph()
	case htmlLine[tag]:
		t.LineBreak()
	case htmlCell[tag]:
		t.Space()
	}
}

// htmlResult chooses the title and puts it at the head of the text.
func htmlResult(title, h1, body string) (string, []byte) {
	if title == "" {
		return cleanTitle(h1), []byte(body)
	}
	first, _, _ := bytes.Cut([]byte(body), []byte("\n"))
	if string(first) == title {
		return cleanTitle(title), []byte(body)
	}
	text := make([]byte, 0, len(title)+2+len(body))
	text = append(text, title...)
	if body != "" {
		text = append(append(text, "\n\n"...), body...)
	}
	return cleanTitle(title), text
}
