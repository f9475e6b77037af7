package corpus

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTitleRunes is the length past which a title taken from a file is cut, at
// a word boundary if there is one in its second half, and marked with "…".
const maxTitleRunes = 100

// byteOrderMark is dropped from the start of a file before its title is
// looked for.
var byteOrderMark = []byte("\uFEFF")

// cleanTitle makes s fit for display as a title: invalid UTF-8 becomes
// U+FFFD, control characters become spaces, runs of white space collapse to
// one space, and a title longer than maxTitleRunes is cut.
func cleanTitle(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if utf8.RuneCountInString(s) <= maxTitleRunes {
		return s
	}
	end, n := 0, 0
	for i := range s {
		if n == maxTitleRunes {
			end = i
			break
		}
		n++
	}
	if sp := strings.LastIndexByte(s[:end], ' '); sp > end/2 {
		end = sp
	}
	return strings.TrimRight(s[:end], " ") + "…"
}

// firstLineTitle returns the first line of text that holds a letter or a
// digit, cleaned by cleanTitle; "" if there is none. Lines of punctuation
// alone ("{", "/*", "-----") name nothing. A license header is passed over:
// when that first line mentions a copyright or an SPDX license identifier,
// as the first line of most source files does, the lines up to the next
// blank line are the header, and the title is sought after it (it stays the
// header's first line if nothing follows).
func firstLineTitle(text []byte) string {
	text = bytes.TrimPrefix(text, byteOrderMark)
	first, rest := titleLine(text)
	if first == nil || !isLicenseLine(first) {
		return cleanTitle(string(first))
	}
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if len(bytes.TrimSpace(line)) == 0 {
			break
		}
	}
	if next, _ := titleLine(rest); next != nil {
		return cleanTitle(string(next))
	}
	return cleanTitle(string(first))
}

// titleLine returns the first line of text that holds a letter or a digit
// (cut by titlePrefix), and the text after it; nil if there is none.
func titleLine(text []byte) (line, rest []byte) {
	for len(text) > 0 {
		line, text, _ = bytes.Cut(text, []byte("\n"))
		line = titlePrefix(line)
		if bytes.ContainsFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			return line, text
		}
	}
	return nil, nil
}

// isLicenseLine reports whether line opens a license header.
func isLicenseLine(line []byte) bool {
	l := bytes.ToLower(line)
	return bytes.Contains(l, []byte("copyright")) || bytes.Contains(l, []byte("spdx-license-identifier"))
}

// titlePrefix returns enough of a line to make a title of it: a minified
// file can be one line of megabytes. The cut never splits a UTF-8 sequence.
func titlePrefix(line []byte) []byte {
	const maxBytes = 8 * maxTitleRunes * utf8.UTFMax
	if len(line) <= maxBytes {
		return line
	}
	line = line[:maxBytes]
	for i := 0; i < utf8.UTFMax-1 && len(line) > 0; i++ {
		if r, size := utf8.DecodeLastRune(line); r != utf8.RuneError || size != 1 {
			break
		}
		line = line[:len(line)-1]
	}
	return line
}
