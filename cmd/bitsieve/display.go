package main

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// displayName makes a document key or title safe to print on a line of a
// terminal: one holding control characters (a newline, an escape sequence)
// or bytes that are not UTF-8 is shown Go-quoted, so it can neither break
// the line nor drive the terminal.
func displayName(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strconv.Quote(s)
}
