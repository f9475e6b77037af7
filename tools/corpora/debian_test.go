package main

import (
	"bytes"
	"compress/gzip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
)

const translationMain = `Package: bash
Description-md5: 3522aa7b4374048d6450e348a5bb45d9
Description-en: GNU Bourne Again SHell
 Bash is an sh-compatible command language interpreter that executes
 commands read from the standard input or from a file.
 .
 Bash can run most sh scripts without modification:
   $ bash script.sh
 .

Package: hello
Description-md5: 0123456789abcdef0123456789abcdef
Description-en: example package based on GNU hello

Package: no-description
Description-md5: 00000000000000000000000000000000

Package: bash
Description-md5: ffffffffffffffffffffffffffffffff
Description-en: an older description of bash, listed twice
 Ignored: the package is already described.
`

const translationUpdates = "Package: tzdata\r\nDescription-md5: 1111\r\nDescription-en: time zone and daylight-saving time data\r\n This package contains data required for the implementation of\r\n standard local time.\r\n\r\nPackage: hello\r\nDescription-en: newer hello\r\n"

func TestDebianConvert(t *testing.T) {
	dir := t.TempDir()
	var lz bytes.Buffer
	zw := lz4.NewWriter(&lz)
	zw.Write([]byte(translationUpdates))
	zw.Close()
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(translationMain))
	gw.Close()
	updates := filepath.Join(dir, "x_bookworm-updates_main_i18n_Translation-en.lz4")
	main := filepath.Join(dir, "x_bookworm_main_i18n_Translation-en.gz")
	plain := filepath.Join(dir, "x_extra_i18n_Translation-en")
	writeFile(t, updates, lz.Bytes())
	writeFile(t, main, gz.Bytes())
	writeFile(t, plain, []byte("Package: zsh\nDescription-en: shell with lots of features\n"))

	out := filepath.Join(dir, "deb.jsonl")
	if err := runDebian([]string{"-o", out, updates, main, plain}); err != nil {
		t.Fatal(err)
	}
	docs := readJSONL(t, out)
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if got, want := strings.Join(ids, " "), "deb:tzdata deb:hello deb:bash deb:zsh"; got != want {
		t.Fatalf("ids = %q, want %q", got, want)
	}
	byID := docsByID(docs)
	wantBash := "Bash is an sh-compatible command language interpreter that executes\n" +
		"commands read from the standard input or from a file.\n\n" +
		"Bash can run most sh scripts without modification:\n  $ bash script.sh"
	if d := byID["deb:bash"]; d.Title != "GNU Bourne Again SHell" || d.Body != wantBash {
		t.Errorf("bash = %+v\nwant body %q", d, wantBash)
	}
	if d := byID["deb:hello"]; d.Title != "newer hello" || d.Body != "" {
		t.Errorf("hello = %+v; want the first file's description, no body", d)
	}
	if d := byID["deb:tzdata"]; d.Body != "This package contains data required for the implementation of\nstandard local time." {
		t.Errorf("CRLF lines: tzdata body = %q", d.Body)
	}
	noTempFiles(t, dir)
}

func TestDebianErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{" continuation first\n", "line 1: continuation line outside a field"},
		{"Package: a\nnot a field\n", `line 2: want "Field: value"`},
		{"Package:\nDescription-en: x\n", "empty Package"},
	} {
		err := parseTranslation(strings.NewReader(tc.in), func(debDescription) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseTranslation(%q) error = %v, want %q", tc.in, err, tc.want)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "Translation-en.xz")
	writeFile(t, bad, []byte("x"))
	err := runDebian([]string{"-o", filepath.Join(dir, "o.jsonl"), bad})
	if err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("xz input: error = %v", err)
	}
	noTempFiles(t, dir)
}

func FuzzParseTranslation(f *testing.F) {
	f.Add(translationMain)
	f.Add(translationUpdates)
	f.Fuzz(func(t *testing.T, in string) {
		_ = parseTranslation(strings.NewReader(in), func(d debDescription) error {
			if d.Package == "" {
				t.Fatal("emitted a description without a package")
			}
			return nil
		})
	})
}
