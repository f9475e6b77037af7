package corpus

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file is checked for a NUL byte before the rest is
// read: a binary file is usually recognised, and abandoned, after one read.
const sniffLen = 8 << 10

// isBinaryHead reports whether the start of a file marks it as binary: a NUL
// byte never occurs in text (UTF-16 text has them too, and is not read).
func isBinaryHead(head []byte) bool {
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// isBinaryText reports whether more than 1% of data's bytes are not part of
// valid UTF-8. Text in a legacy 8-bit encoding (Latin-1 accents, a stray
// Windows quote) stays well under that in English prose and code, and is kept;
// compressed or encoded data is far above it.
func isBinaryText(data []byte) bool {
	if utf8.Valid(data) {
		return false
	}
	return countInvalid(data)*100 > len(data)
}

// countInvalid counts the bytes of b that are not part of a valid UTF-8
// sequence.
func countInvalid(b []byte) int {
	n := 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			n++
		}
		b = b[size:]
	}
	return n
}

// A glob is one compiled Include or Exclude pattern (syntax: see
// WalkOptions.Include). path.Match handles each element; "**" is handled here,
// since path.Match never lets a wildcard cross a slash.
type glob struct {
	text  string
	elems []string
}

func compileGlobs(kind string, patterns []string) ([]glob, error) {
	var gs []glob
	for _, p := range patterns {
		t := strings.Trim(p, "/")
		if t == "" {
			return nil, fmt.Errorf("corpus: empty %s pattern %q", kind, p)
		}
		g := glob{text: p, elems: strings.Split(t, "/")}
		for _, e := range g.elems {
			if _, err := path.Match(e, ""); err != nil {
				return nil, fmt.Errorf("corpus: %s pattern %q: %w", kind, p, err)
			}
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// match reports whether g matches the relative path rel (or its base name).
func (g glob) match(rel string) bool {
	elems := strings.Split(rel, "/")
	if matchElems(g.elems, elems) {
		return true
	}
	return len(elems) > 1 && matchElems(g.elems, elems[len(elems)-1:])
}

func matchElems(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := range len(name) + 1 {
				if matchElems(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

func matchAny(gs []glob, rel string) bool {
	for _, g := range gs {
		if g.match(rel) {
			return true
		}
	}
	return false
}

// displayPath returns p as is when it is printable UTF-8, and Go-quoted when it
// holds control characters (a newline in a file name) or invalid UTF-8, so one
// skipped entry is always one line of output.
func displayPath(p string) string {
	if !utf8.ValidString(p) || strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return strconv.Quote(p)
	}
	return p
}
