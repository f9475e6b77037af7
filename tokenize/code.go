package tokenize

import (
	"unicode"
	"unicode/utf8"
)

// The code analyzer. Its words are identifiers: maximal runs of letters,
// numbers, combining marks and underscores. Everything else (spaces,
// operators, and so the . of sync.WaitGroup, the :: and -> of C++, the /
// of a path) only separates words. A word splits into parts:
//
//   - at underscores, which belong to no part (mutex_unlock: mutex, unlock);
//   - before an upper-case letter that follows a letter that is not upper
//     case, a digit or a mark (WaitGroup: wait, group; Int64Slice: int64,
//     slice);
//   - before the last letter of a run of two or more upper-case letters
//     followed by two or more lower-case ones (HTTPServer: http, server),
//     but not before a single lower-case letter (URLs, IPv4 stay whole);
//   - never at a letter–digit boundary (utf8, sha256, parseURL2: parse,
//     url2), and never inside a word that starts with a digit: a number
//     literal (0x1F, 1e9, 1_000) stays whole.
//
// When the word is its only part (go, waitgroup, HTTP), it is one token. Otherwise
// the whole word comes first, then its parts, each at the next position:
// sync.WaitGroup is sync@0, waitgroup@1, wait@2, group@3. Terms are
// lowercased (bytes.ToLower, as in every analyzer), neither stemmed nor
// filtered by a stop list (if, for, return are words of code), and a term
// longer than MaxTokenBytes is dropped but keeps its position, so a long
// identifier is still found by its parts.
//
// The scheme keeps one token per position, as the index's positions
// require, and makes every way of writing an identifier a query that
// analyzes like the text: waitgroup is the whole-word term; WaitGroup is
// the And of waitgroup, wait and group; "wait group" is the phrase of two
// adjacent parts, found in WaitGroup, wait_group and wait group alike; and
// "sync.WaitGroup" is the phrase sync, waitgroup, wait, group. A phrase ends
// at the last part of an identifier and starts at the whole word of one,
// so "wg.Add" finds wg.Add(1) but not wg.AddAll.
//
// An identifier and its first part start at the same byte, so analysis
// cannot start from an arbitrary token: the code analyzer is not
// Restartable.

// noStopWords is the code analyzer's stop list: empty.
func noStopWords(string) bool { return false }

// unstemmed is the code analyzer's stemmer: none.
func unstemmed(s string, _ bool) string { return s }

// identChar reports whether r belongs to an identifier.
func identChar(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// identifiers calls fn for every token of data (valid UTF-8): for each
// identifier, the whole word and then its parts, or the word alone.
func (a *Analyzer) identifiers(data []byte, terms bool, fn func(term string, start, end int)) {
	for i := 0; i < len(data); {
		r, size := rune(data[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(data[i:])
		}
		if !identChar(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(data) {
			r, size = rune(data[j]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRune(data[j:])
			}
			if !identChar(r) {
				break
			}
			j += size
		}
		a.identifier(data, i, j, terms, fn)
		i = j
	}
}

// identifier calls fn for the tokens of the word data[start:end].
func (a *Analyzer) identifier(data []byte, start, end int, terms bool, fn func(term string, start, end int)) {
	a.parts = appendParts(a.parts[:0], data, start, end)
	emit := func(s, e int) {
		term := ""
		if terms {
			term = a.term(data[s:e])
		}
		fn(term, s, e)
	}
	switch {
	case len(a.parts) == 0: // underscores only
		return
	case len(a.parts) == 2 && a.parts[0] == start && a.parts[1] == end:
		emit(start, end)
		return
	}
	emit(start, end)
	for k := 0; k < len(a.parts); k += 2 {
		emit(a.parts[k], a.parts[k+1])
	}
}

// Letter classes for splitting at case changes.
const (
	caseOther = iota // digits, marks, letters without case
	caseLower
	caseUpper
)

func caseOf(r rune) int {
	switch {
	case r < utf8.RuneSelf && 'a' <= r && r <= 'z':
		return caseLower
	case r < utf8.RuneSelf && 'A' <= r && r <= 'Z':
		return caseUpper
	case r < utf8.RuneSelf:
		return caseOther
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return caseUpper
	case unicode.IsLower(r):
		return caseLower
	}
	return caseOther
}

// appendParts appends the start and end offsets of the parts of the word
// data[start:end] to dst: split at underscores, then at case changes.
func appendParts(dst []int, data []byte, start, end int) []int {
	if first, _ := utf8.DecodeRune(data[start:end]); unicode.IsNumber(first) {
		return append(dst, start, end)
	}
	for i := start; i < end; {
		if data[i] == '_' {
			i++
			continue
		}
		j := i
		for j < end && data[j] != '_' {
			j++
		}
		dst = appendCaseParts(dst, data, i, j)
		i = j
	}
	return dst
}

// appendCaseParts appends the parts of data[start:end], a word without
// underscores, split at case changes.
func appendCaseParts(dst []int, data []byte, start, end int) []int {
	// Walk the runes keeping the classes of the two before the current one
	// and the offset of the one before.
	partStart := start
	prev2, prev := -1, -1
	prevAt := start
	for i := start; i < end; {
		r, size := utf8.DecodeRune(data[i:end])
		c := caseOf(r)
		switch {
		case c == caseUpper && prev != -1 && prev != caseUpper:
			dst = append(dst, partStart, i)
			partStart = i
		case c == caseLower && prev == caseUpper && prev2 == caseUpper && prevAt > partStart && lowerRun(data[i:end]) >= 2:
			dst = append(dst, partStart, prevAt)
			partStart = prevAt
		}
		prev2, prev, prevAt = prev, c, i
		i += size
	}
	return append(dst, partStart, end)
}

// lowerRun counts the lower-case letters at the start of b, up to 2.
func lowerRun(b []byte) int {
	n := 0
	for len(b) > 0 && n < 2 {
		r, size := utf8.DecodeRune(b)
		if caseOf(r) != caseLower {
			break
		}
		n++
		b = b[size:]
	}
	return n
}
