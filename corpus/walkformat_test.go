//go:build unix

package corpus

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gzipped returns content compressed with gzip.
func gzipped(t *testing.T, content string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWalkFormats(t *testing.T) {
	root := t.TempDir()
	changelog := "pkg (1.2-1) unstable; urgency=medium\n\n  * Fix the frobnicator.\n"
	page := "<html><head><title>Gzipped page</title></head><body><p>inner &amp; text</p></body></html>"
	writeFile(t, root, "changelog.Debian.gz", gzipped(t, changelog))
	writeFile(t, root, "index.html.gz", gzipped(t, page))
	writeFile(t, root, "page.HTM", page)
	writeFile(t, root, "README.md", "Project\n=======\n\nAbout it.\n")
	writeFile(t, root, "notes.txt", "\n\nFirst real line\nsecond\n")
	writeFile(t, root, "corrupt.gz", gzipped(t, "some text")[:12])
	writeFile(t, root, "garbage.gz", "not gzip at all")
	writeFile(t, root, "empty.gz", "")
	writeFile(t, root, "badsum.gz", corruptChecksum(gzipped(t, "checksummed text")))
	writeFile(t, root, "bomb.txt.gz", gzipped(t, strings.Repeat("all work and no play ", 1000)))
	writeFile(t, root, "zeros.gz", gzipped(t, strings.Repeat("\x00", 1000)))

	docs, st := collect(t, root, WalkOptions{MaxFileSize: 10_000})
	type doc struct{ Key, Title, Text string }
	var got []doc
	for _, d := range docs {
		got = append(got, doc{d.Key, d.Title, string(d.Text)})
	}
	want := []doc{
		{"README.md", "Project", "Project\n=======\n\nAbout it.\n"},
		{"changelog.Debian.gz", "pkg (1.2-1) unstable; urgency=medium", changelog},
		{"index.html.gz", "Gzipped page", "Gzipped page\n\ninner & text"},
		{"notes.txt", "First real line", "\n\nFirst real line\nsecond\n"},
		{"page.HTM", "Gzipped page", "Gzipped page\n\ninner & text"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("documents:\n got %q\nwant %q", got, want)
	}
	for _, d := range docs {
		info, err := os.Stat(filepath.Join(root, d.Key))
		if err != nil {
			t.Fatal(err)
		}
		if d.Size != info.Size() {
			t.Errorf("%s: Size %d, want the file's size %d", d.Key, d.Size, info.Size())
		}
	}

	wantSkips := map[string]SkipReason{
		"corrupt.gz":  SkipCorrupt,
		"garbage.gz":  SkipCorrupt,
		"empty.gz":    SkipCorrupt,
		"badsum.gz":   SkipCorrupt,
		"bomb.txt.gz": SkipTooLarge,
		"zeros.gz":    SkipBinary,
	}
	if got := skipped(st); !reflect.DeepEqual(got, wantSkips) {
		t.Errorf("skipped:\n got %v\nwant %v", got, wantSkips)
	}
	for _, s := range st.Skipped {
		if s.Reason != SkipBinary && s.Detail == "" {
			t.Errorf("%s: no detail", s)
		}
		if s.Path == "bomb.txt.gz" && !strings.Contains(s.Detail, "decompressed") {
			t.Errorf("%s: the detail does not say the limit is on the decompressed size", s)
		}
	}
}

// corruptChecksum flips a bit of the CRC-32 in a gzip stream's trailer.
func corruptChecksum(gz string) string {
	b := []byte(gz)
	b[len(b)-8] ^= 1
	return string(b)
}

func TestWalkRootGzip(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "manual.html.gz", gzipped(t, "<title>Manual</title><p>words</p>"))
	docs, st := collect(t, root+"/manual.html.gz", WalkOptions{})
	if len(docs) != 1 || docs[0].Key != "manual.html.gz" || docs[0].Title != "Manual" || string(docs[0].Text) != "Manual\n\nwords" {
		t.Errorf("docs = %+v, stats %+v", docs, st)
	}
}
