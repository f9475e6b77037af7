package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pierrec/lz4/v4"
)

// A Debian Translation-en file (apt's lists/*_i18n_Translation-en, stored
// plain, .lz4 or .gz) is a sequence of deb822 paragraphs separated by blank
// lines:
//
//	Package: bash
//	Description-md5: 3522aa7b4374048d6450e348a5bb45d9
//	Description-en: GNU Bourne Again SHell
//	 Bash is an sh-compatible command language interpreter ...
//	 .
//	 Bash can run most sh scripts without modification.
//
// The first line of Description-en is the synopsis (the title); the
// continuation lines, each indented by one space, are the long description,
// where a line " ." stands for an empty line and lines indented further are
// verbatim text.

// debDescription is one package's English description.
type debDescription struct {
	Package  string
	Synopsis string
	Long     string
}

// parseTranslation reads the paragraphs of a Translation file and calls emit
// for each one that has a Package and a Description-en field.
func parseTranslation(r io.Reader, emit func(debDescription) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var (
		fields  = make(map[string]*strings.Builder)
		last    *strings.Builder
		lineNo  int
		started int // line number where the paragraph began
	)
	flush := func() error {
		defer func() {
			clear(fields)
			last = nil
		}()
		pkg, desc := fields["package"], fields["description-en"]
		if pkg == nil || desc == nil {
			return nil
		}
		d := debDescription{Package: strings.TrimSpace(pkg.String())}
		if d.Package == "" {
			return fmt.Errorf("line %d: empty Package field", started)
		}
		synopsis, long, _ := strings.Cut(desc.String(), "\n")
		d.Synopsis = strings.TrimSpace(synopsis)
		d.Long = debLongDescription(long)
		return emit(d)
	}
	for {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if err != io.EOF {
				return err
			}
			return flush()
		}
		lineNo++
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.TrimSpace(line) == "":
			if err := flush(); err != nil {
				return err
			}
		case line[0] == ' ' || line[0] == '\t':
			if last == nil {
				return fmt.Errorf("line %d: continuation line outside a field", lineNo)
			}
			last.WriteByte('\n')
			last.WriteString(line)
		default:
			name, value, ok := strings.Cut(line, ":")
			if !ok {
				return fmt.Errorf("line %d: want \"Field: value\", got %q", lineNo, truncate(line, 60))
			}
			if len(fields) == 0 {
				started = lineNo
			}
			b := new(strings.Builder)
			b.WriteString(strings.TrimSpace(value))
			fields[strings.ToLower(strings.TrimSpace(name))] = b
			last = b
		}
	}
}

// debLongDescription turns the continuation lines of a description into
// plain text.
func debLongDescription(s string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			l = l[1:] // the one-character indent every continuation line has
		}
		if strings.TrimSpace(l) == "." {
			l = ""
		}
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// openMaybeCompressed opens path, decompressing .lz4 and .gz files.
func openMaybeCompressed(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.HasSuffix(path, ".lz4"):
		return readCloser{lz4.NewReader(bufio.NewReaderSize(f, 1<<16)), f}, nil
	case strings.HasSuffix(path, ".gz"):
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return readCloser{zr, f}, nil
	case strings.HasSuffix(path, ".xz"), strings.HasSuffix(path, ".zst"), strings.HasSuffix(path, ".bz2"):
		f.Close()
		return nil, fmt.Errorf("%s: compression not supported (plain, .lz4 and .gz are)", path)
	}
	return f, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func runDebian(args []string) error {
	fs := flag.NewFlagSet("debian", flag.ContinueOnError)
	out := fs.String("o", "", "output JSONL file")
	if err := parseFlags(fs, args, 1, -1); err != nil {
		return err
	}
	return writeAll(*out, "deb", func(jw *JSONLWriter) error {
		// A package described in several files (a suite and its updates) is
		// one document: the first description wins, so list newer suites first.
		seen := make(map[string]bool)
		for _, path := range fs.Args() {
			r, err := openMaybeCompressed(path)
			if err != nil {
				return err
			}
			err = parseTranslation(r, func(d debDescription) error {
				if seen[d.Package] {
					return nil
				}
				seen[d.Package] = true
				return jw.Write(Doc{ID: "deb:" + d.Package, Title: d.Synopsis, Body: d.Long})
			})
			r.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		return nil
	})
}
