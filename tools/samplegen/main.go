// Command samplegen builds bitsieve's embedded sample corpus,
// corpus/sample/sample.jsonl.zst, from public-domain and permissively
// licensed English texts that Debian and the Go distribution ship. See
// corpus/sample/README.md for the sources, their licences and how to fetch
// them; run it from the repository root:
//
//	go run ./tools/samplegen -src /tmp/samplesrc -out corpus/sample/sample.jsonl.zst
//
// where -src holds the Debian packages unpacked with dpkg-deb -x, one
// directory per package. The output is deterministic: the same inputs give the
// same bytes.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/build"
	"log"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// doc is one line of the sample: the JSONL fields corpus.ReadJSONL reads.
type doc struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// source is one text collection: a name for the report and a function that
// reads it.
type source struct {
	name string
	read func() ([]doc, error)
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("samplegen: ")
	src := flag.String("src", "/tmp/samplesrc", "directory of unpacked Debian packages, one subdirectory per package")
	goroot := flag.String("goroot", build.Default.GOROOT, "Go distribution holding doc/go_spec.html and src/testdata/Isaac.Newton-Opticks.txt")
	sawyer := flag.String("sawyer", "", "Mark.Twain-Tom.Sawyer.txt (default: from the klauspost/compress module's testdata)")
	about := flag.String("about", "tools/samplegen/about", "directory of Markdown pages about bitsieve itself")
	out := flag.String("out", "corpus/sample/sample.jsonl.zst", "output file")
	flag.Parse()
	if *sawyer == "" {
		*sawyer = defaultSawyer()
	}

	pkg := func(name string) string { return filepath.Join(*src, name) }
	sources := []source{
		{"bitsieve", func() ([]doc, error) { return readAbout(*about) }},
		{"python", func() ([]doc, error) { return readPython(pkg("python3.11-doc")) }},
		{"go-spec", func() ([]doc, error) { return readGoSpec(filepath.Join(*goroot, "doc", "go_spec.html")) }},
		{"jargon", func() ([]doc, error) { return readDictd(pkg("dict-jargon"), "jargon", "The Jargon File") }},
		{"devil", func() ([]doc, error) { return readDictd(pkg("dict-devil"), "devil", "The Devil's Dictionary") }},
		{"sawyer", func() ([]doc, error) { return readSawyer(*sawyer) }},
		{"opticks", func() ([]doc, error) {
			return readOpticks(filepath.Join(*goroot, "src", "testdata", "Isaac.Newton-Opticks.txt"))
		}},
		{"wordnet", func() ([]doc, error) { return readWordNet(pkg("wordnet-base")) }},
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	seen := make(map[string]bool)
	total := 0
	for _, s := range sources {
		docs, err := s.read()
		if err != nil {
			log.Fatalf("%s: %v", s.name, err)
		}
		size := 0
		for _, d := range docs {
			if seen[d.ID] {
				log.Fatalf("%s: duplicate id %q", s.name, d.ID)
			}
			seen[d.ID] = true
			if !utf8.ValidString(d.Title) || !utf8.ValidString(d.Body) {
				log.Fatalf("%s: %s: invalid UTF-8", s.name, d.ID)
			}
			if err := enc.Encode(d); err != nil {
				log.Fatal(err)
			}
			size += len(d.Title) + 1 + len(d.Body)
		}
		total += len(docs)
		log.Printf("%-8s %5d documents, %8d bytes of text", s.name, len(docs), size)
	}

	zw, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		log.Fatal(err)
	}
	z := zw.EncodeAll(buf.Bytes(), nil)
	if err := os.WriteFile(*out, z, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d documents, %d bytes of JSONL, %d compressed", *out, total, buf.Len(), len(z))
}

// defaultSawyer finds Tom Sawyer in the module cache's copy of
// klauspost/compress, whose testdata ships it.
func defaultSawyer() string {
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		cache = filepath.Join(gopath, "pkg", "mod")
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "github.com", "klauspost", "compress@*", "testdata", "Mark.Twain-Tom.Sawyer.txt"))
	if len(matches) == 0 {
		log.Fatal("Tom Sawyer not found in the module cache: run 'go mod download github.com/klauspost/compress' or pass -sawyer")
	}
	return matches[len(matches)-1]
}

// slug turns a heading into a key element: lowercase letters and digits,
// other runs of characters become one '-'.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	return b.String()
}

// uniqueIDs appends -2, -3, ... to ids already used within one source.
func uniqueIDs(docs []doc) {
	used := make(map[string]int)
	for i := range docs {
		id := docs[i].ID
		if n := used[id]; n > 0 {
			docs[i].ID = fmt.Sprintf("%s-%d", id, n+1)
		}
		used[id]++
	}
}

// tidy trims every line's trailing space and collapses runs of blank lines
// into one.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := true // drop leading blank lines
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// dedent removes the indentation common to all non-blank lines.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " \t")); indent < 0 || n < indent {
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
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}
