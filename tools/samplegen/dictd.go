package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// readDictd reads a dictd database (name.index and name.dict.dz under
// usr/share/dictd of the unpacked package) as one document per headword.
//
// The index has one line per headword: "headword TAB offset TAB length", the
// numbers in dictd's base64 (A-Z a-z 0-9 + /, most significant digit first),
// addressing the uncompressed .dict text. A .dict.dz is gzip-compatible
// (dictzip adds a random-access table in a gzip extra field).
func readDictd(dir, name, book string) ([]doc, error) {
	base := filepath.Join(dir, "usr", "share", "dictd", name)
	f, err := os.Open(base + ".dict.dz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s.dict.dz: %w", base, err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s.dict.dz: %w", base, err)
	}

	idx, err := os.Open(base + ".index")
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	var docs []doc
	done := make(map[[2]int]bool) // one entry may be indexed under several headwords
	sc := bufio.NewScanner(idx)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 3 {
			return nil, fmt.Errorf("%s.index:%d: want 3 fields", base, line)
		}
		head := fields[0]
		if strings.HasPrefix(head, "00") { // database metadata entries
			continue
		}
		off, err1 := dictb64(fields[1])
		n, err2 := dictb64(fields[2])
		if err1 != nil || err2 != nil || off+n > len(text) {
			return nil, fmt.Errorf("%s.index:%d: bad offset or length", base, line)
		}
		if done[[2]int{off, n}] {
			continue
		}
		done[[2]int{off, n}] = true
		body := cleanDictEntry(string(text[off:off+n]), head)
		if body == "" {
			continue
		}
		docs = append(docs, doc{
			ID:    name + "/" + slug(head),
			Title: book + " — " + head,
			Body:  body,
		})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	uniqueIDs(docs)
	return docs, nil
}

// dictb64 decodes one of dictd's base64 numbers.
func dictb64(s string) (int, error) {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	n := 0
	for _, c := range s {
		d := strings.IndexRune(digits, c)
		if d < 0 {
			return 0, fmt.Errorf("bad digit %q", c)
		}
		n = n*64 + d
	}
	return n, nil
}

// cleanDictEntry removes the headword line dictfmt repeats at the top of each
// entry, the common indentation of the rest, and the Jargon File's braces.
func cleanDictEntry(entry, head string) string {
	lines := strings.Split(strings.TrimRight(entry, "\n"), "\n")
	if len(lines) > 0 && strings.EqualFold(strings.TrimSpace(lines[0]), head) {
		lines = lines[1:]
	}
	// The Jargon File marks cross-references as {term}.
	return tidy(crossRef.ReplaceAllString(dedent(strings.Join(lines, "\n")), "$1"))
}

var crossRef = regexp.MustCompile(`\{([^{}\n]+)\}`)
