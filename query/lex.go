package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token kinds of the query lexer.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tWord           // a bare word, possibly ending in * (a prefix)
	tPhrase         // "..."; text is the content without the quotes
	tLParen
	tRParen
	tAnd
	tOr
	tNot
	tMinus // a - at the start of a word
)

type token struct {
	kind tokKind
	pos  int    // byte offset of the token in the query
	text string // a word, or a phrase's content
}

// nthWord returns the offset of the n-th space-separated word of q (1-based).
// It reads no further than that word, so it is cheap on huge input.
func nthWord(q string, n int) (int, bool) {
	inWord := false
	for i, r := range q {
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if !inWord {
			inWord = true
			if n--; n == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

// next reads the next token into p.tok.
func (p *parser) next() error {
	q, i := p.q, p.off
	for i < len(q) {
		if c := q[i]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(q[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	if i == len(q) {
		p.tok, p.off = token{kind: tEOF, pos: i}, i
		return nil
	}
	switch q[i] {
	case '(':
		p.tok, p.off = token{kind: tLParen, pos: i}, i+1
	case ')':
		p.tok, p.off = token{kind: tRParen, pos: i}, i+1
	case '"':
		j := strings.IndexByte(q[i+1:], '"')
		if j < 0 {
			return p.errorf(ErrSyntax, i, "unbalanced quote: the phrase starting at column %d is never closed", column(q, i))
		}
		p.tok, p.off = token{kind: tPhrase, pos: i, text: q[i+1 : i+1+j]}, i+2+j
	case '-':
		if i+1 < len(q) {
			r, _ := utf8.DecodeRuneInString(q[i+1:])
			if !unicode.IsSpace(r) && r != ')' {
				p.tok, p.off = token{kind: tMinus, pos: i}, i+1
				return nil
			}
		}
		return p.errorf(ErrSyntax, i, "the - at column %d must be followed directly, without a space, by the word, phrase, prefix or group to exclude", column(q, i))
	default:
		j := wordEnd(q, i)
		t := token{kind: tWord, pos: i, text: q[i:j]}
		switch t.text {
		case "AND":
			t.kind = tAnd
		case "OR":
			t.kind = tOr
		case "NOT":
			t.kind = tNot
		}
		p.tok, p.off = t, j
	}
	return nil
}

// wordEnd returns the end of the bare word starting at q[i]: the first space,
// parenthesis or double quote. A double quote between two Hebrew letters is
// part of the word, as in the segmenter (צה"ל is one word).
func wordEnd(q string, i int) int {
	start := i
	for i < len(q) {
		if c := q[i]; c < utf8.RuneSelf && c != '"' {
			if asciiSpace[c] || c == '(' || c == ')' {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(q[i:])
		switch {
		case unicode.IsSpace(r) || r == '(' || r == ')':
			return i
		case r == '"':
			prev, _ := utf8.DecodeLastRuneInString(q[start:i])
			next, _ := utf8.DecodeRuneInString(q[i+1:])
			if i == start || !isHebrewLetter(prev) || !isHebrewLetter(next) {
				return i
			}
		}
		i += size
	}
	return i
}

// asciiSpace marks the ASCII characters unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func isHebrewLetter(r rune) bool { return unicode.Is(unicode.Hebrew, r) && unicode.IsLetter(r) }
