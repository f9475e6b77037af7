package corpus

import (
	"bytes"
	"strings"
)

// markdownTitle returns the title of a Markdown document: its first heading,
// ATX ("# Title", at any level, closing #s dropped) or setext (a line
// underlined with === or ---), provided nothing of substance comes before
// it. Blank lines, YAML front matter, HTML comments, lines of HTML markup
// and lines of badge images ("[![build](…)](…)") do not count as substance.
// A document that does not begin with a heading is titled by its first
// line with a letter or digit, as plain text is.
func markdownTitle(text []byte) string {
	text = bytes.TrimPrefix(text, byteOrderMark)
	rest := skipFrontMatter(text)
	inComment := false
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		t := bytes.TrimSpace(line)
		switch {
		case inComment:
			inComment = !bytes.Contains(t, []byte("-->"))
			continue
		case len(t) == 0:
			continue
		case bytes.HasPrefix(t, []byte("<!--")):
			inComment = !bytes.Contains(t[4:], []byte("-->"))
			continue
		case t[0] == '<' || bytes.HasPrefix(t, []byte("[![")) || bytes.HasPrefix(t, []byte("![")):
			continue
		}
		if h, ok := atxHeading(line); ok {
			if h == "" {
				continue // "#" alone: an empty heading, not a title
			}
			return cleanTitle(h)
		}
		next, _, _ := bytes.Cut(rest, []byte("\n"))
		if isSetextUnderline(next) && indent(line) < 4 {
			return cleanTitle(string(titlePrefix(t)))
		}
		break
	}
	return firstLineTitle(text)
}

// skipFrontMatter returns text after a YAML front matter block: a first line
// "---" up to a line "---" or "...". Text without a closed block is returned
// whole.
func skipFrontMatter(text []byte) []byte {
	first, rest, ok := bytes.Cut(text, []byte("\n"))
	if !ok || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return text
	}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if t := string(bytes.TrimRight(line, " \t\r")); t == "---" || t == "..." {
			return rest
		}
	}
	return text
}

// atxHeading reports whether line is an ATX heading (up to three spaces of
// indent, one to six '#', then a space or the end of the line) and returns
// its text without the optional closing sequence of '#'.
func atxHeading(line []byte) (string, bool) {
	if indent(line) >= 4 {
		return "", false
	}
	s := strings.TrimLeft(string(titlePrefix(line)), " ")
	n := len(s) - len(strings.TrimLeft(s, "#"))
	if n < 1 || n > 6 {
		return "", false
	}
	s = s[n:]
	if s != "" && s[0] != ' ' && s[0] != '\t' && s[0] != '\r' {
		return "", false
	}
	s = strings.TrimSpace(s)
	if closing := strings.TrimRight(s, "#"); closing == "" {
		s = ""
	} else if c := closing[len(closing)-1]; c == ' ' || c == '\t' {
		s = strings.TrimSpace(closing)
	}
	return s, true
}

// isSetextUnderline reports whether line underlines the line before it as a
// setext heading: up to three spaces of indent, then only '=' or only '-'.
func isSetextUnderline(line []byte) bool {
	if indent(line) >= 4 {
		return false
	}
	t := bytes.TrimSpace(line)
	if len(t) == 0 || (t[0] != '=' && t[0] != '-') {
		return false
	}
	return len(bytes.Trim(t, string(t[0]))) == 0
}

// indent returns the number of leading spaces of line, a tab counting as 4.
func indent(line []byte) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}
