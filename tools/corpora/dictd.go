package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// A dictd database is two files. NAME.index has one line per headword:
//
//	headword TAB offset TAB length [TAB original-headword]
//
// where offset and length locate the entry in the uncompressed NAME.dict and
// are written in dictd's base64: digits A-Z a-z 0-9 + / (values 0..63), most
// significant digit first, no padding. NAME.dict.dz is NAME.dict compressed
// with dictzip, which is gzip with random-access chunks recorded in an extra
// header field; a plain gzip reader decompresses it.
//
// Headwords starting with "00-database-" (or the older "00database") are
// meta entries (the database's name, URL, licence notice); they are not
// documents, and neither are other headwords that point at the very same
// bytes (gcide aliases them as "00-gcide-short" and the like).

// dictdEntry is one line of a dictd index.
type dictdEntry struct {
	Headword string
	Offset   int64
	Length   int64
}

const dictdDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// decodeDictdNumber decodes a number in dictd's base64 notation.
func decodeDictdNumber(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty number")
	}
	if len(s) > 10 { // 60 bits; no dictionary is that large
		return 0, fmt.Errorf("number %q too long", s)
	}
	var v int64
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(dictdDigits, s[i])
		if d < 0 {
			return 0, fmt.Errorf("number %q: invalid digit %q", s, s[i])
		}
		v = v<<6 | int64(d)
	}
	return v, nil
}

// parseDictdIndex reads a dictd index.
func parseDictdIndex(r io.Reader) ([]dictdEntry, error) {
	var entries []dictdEntry
	br := bufio.NewReader(r)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if err == io.EOF {
				return entries, nil
			}
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 && len(f) != 4 {
			return nil, fmt.Errorf("line %d: want 3 or 4 tab-separated fields, got %d", lineNo, len(f))
		}
		off, err := decodeDictdNumber(f[1])
		if err != nil {
			return nil, fmt.Errorf("line %d: offset: %w", lineNo, err)
		}
		n, err := decodeDictdNumber(f[2])
		if err != nil {
			return nil, fmt.Errorf("line %d: length: %w", lineNo, err)
		}
		hw := f[0]
		if len(f) == 4 && f[3] != "" {
			hw = f[3] // dictfmt --index-keep-orig: field 1 is normalised, field 4 is as written
		}
		entries = append(entries, dictdEntry{Headword: hw, Offset: off, Length: n})
	}
}

func isDictdMeta(headword string) bool {
	return strings.HasPrefix(headword, "00-database-") || strings.HasPrefix(headword, "00database")
}

// dictdDocs turns index entries and the uncompressed dictionary into
// documents: one per entry, meta entries excluded. A headword that occurs
// more than once gets "#2", "#3"... appended to its id.
func dictdDocs(prefix string, entries []dictdEntry, dict []byte, emit func(Doc) error) error {
	type span struct{ off, n int64 }
	meta := make(map[span]bool)
	for _, e := range entries {
		if isDictdMeta(e.Headword) {
			meta[span{e.Offset, e.Length}] = true
		}
	}
	used := make(map[string]bool)
	for _, e := range entries {
		if isDictdMeta(e.Headword) || meta[span{e.Offset, e.Length}] {
			continue
		}
		if e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > int64(len(dict)) {
			return fmt.Errorf("entry %q: bytes %d+%d beyond the dictionary's %d bytes", e.Headword, e.Offset, e.Length, len(dict))
		}
		body := string(bytes.TrimSpace(dict[e.Offset : e.Offset+e.Length]))
		// WordNet entries open with a line holding just the headword, which the
		// title already says; the definition below it is indented.
		if first, rest, ok := strings.Cut(body, "\n"); ok && strings.TrimSpace(first) == e.Headword {
			body = dedent(strings.TrimLeft(rest, "\n"))
		}
		id := prefix + ":" + e.Headword
		for k := 2; used[id]; k++ {
			id = prefix + ":" + e.Headword + "#" + strconv.Itoa(k)
		}
		used[id] = true
		if err := emit(Doc{ID: id, Title: e.Headword, Body: body}); err != nil {
			return err
		}
	}
	return nil
}

// readDictzip decompresses a .dict.dz (or plain .dict) file.
func readDictzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !strings.HasSuffix(path, ".dz") && !strings.HasSuffix(path, ".gz") {
		return io.ReadAll(f)
	}
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

func runDictd(args []string) error {
	fs := flag.NewFlagSet("dictd", flag.ContinueOnError)
	prefix := fs.String("prefix", "", "id prefix and source name (gcide, wn)")
	out := fs.String("o", "", "output JSONL file")
	if err := parseFlags(fs, args, 2, 2); err != nil {
		return err
	}
	if *prefix == "" {
		return fmt.Errorf("%w: -prefix is required", errUsage)
	}
	indexPath, dictPath := fs.Arg(0), fs.Arg(1)
	f, err := os.Open(indexPath)
	if err != nil {
		return err
	}
	entries, err := parseDictdIndex(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", indexPath, err)
	}
	dict, err := readDictzip(dictPath)
	if err != nil {
		return err
	}
	return writeAll(*out, *prefix, func(jw *JSONLWriter) error {
		if err := dictdDocs(*prefix, entries, dict, jw.Write); err != nil {
			return fmt.Errorf("%s: %w", dictPath, err)
		}
		return nil
	})
}

// dedent removes the indentation common to all non-blank lines.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	if indent <= 0 {
		return s
	}
	for i, l := range lines {
		if len(l) >= indent {
			lines[i] = l[indent:]
		} else {
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}
