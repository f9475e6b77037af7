//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/index"
)

// TestHostileTree indexes a directory holding one of everything a file
// system can throw at an indexer, twice (the second run must find every
// document unchanged), and searches it.
func TestHostileTree(t *testing.T) {
	isolate(t)
	src, ix := filepath.Join(t.TempDir(), "tree"), filepath.Join(t.TempDir(), "ix")
	writeFiles(t, src, map[string]string{
		"empty.txt":               "",
		"nul.txt":                 "text with a\x00NUL byte",
		"invalid.txt":             strings.Repeat("valid words ", 40) + "caf\xe9 \xff\xfe latin tail",
		"name\nwith newline.txt":  "newline name words",
		"bad\xffname.txt":         "invalid utf8 name words",
		"esc\x1b[31mred.txt":      "escape sequence name words",
		"deep/a/b/c/d/e/f/g.txt":  "deep words",
		"spaces in name/file.txt": "spaced words",
	})
	for _, l := range [][2]string{{"loop2", "loop1"}, {"loop1", "loop2"}, {".", "self"}, {"/etc/passwd", "outside"}} {
		if err := os.Symlink(l[0], filepath.Join(src, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	devices := 0
	if err := syscall.Mknod(filepath.Join(src, "zero-device"), syscall.S_IFCHR|0o644, 1<<8|5); err == nil {
		devices = 1 // /dev/zero's numbers: endless if it were ever read
	} else {
		t.Logf("no device file (mknod needs root): %v", err)
	}
	big, err := os.Create(filepath.Join(src, "sparse-1GiB.txt"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(1 << 30)
	big.Close()

	start := time.Now()
	out := mustRun(t, "index", "--index", ix, "--verbose", src)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("indexing took %v: the 1 GiB file or the FIFO was read", d)
	}
	for _, want := range []string{
		"indexed 7 documents", "binary 1", "symlink 4", "too-large 1", fmt.Sprintf("not-regular %d", 1+devices),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	mustRun(t, "check", "--index", ix)

	// Keys with newlines, invalid UTF-8 and escapes round-trip: the second
	// run finds every document unchanged.
	out = mustRun(t, "index", "--index", ix, src)
	if !strings.Contains(out, "added 0, replaced 0, deleted 0, unchanged 7") {
		t.Fatalf("second run:\n%s", out)
	}

	// Search finds them, prints them quoted in text and exactly in JSON.
	out = mustRun(t, "search", "--index", ix, "name words")
	for _, want := range []string{`"tree/name\nwith newline.txt"`, `"tree/bad\xffname.txt"`, `"tree/esc\x1b[31mred.txt"`} {
		if !strings.Contains(out, want) {
			t.Errorf("search output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[31m") {
		t.Errorf("a file name drives the terminal:\n%q", out)
	}
	out = mustRun(t, "search", "--index", ix, "--json", "newline")
	var res struct{ Hits []struct{ Key string } }
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Hits) != 1 || res.Hits[0].Key != "tree/name\nwith newline.txt" {
		t.Errorf("json: %v %+v", err, res)
	}
	if code, out, _ := runCLI(t, "search", "--index", ix, "--count", "latin"); code != exitOK || strings.TrimSpace(out) != "1" {
		t.Errorf("the file with invalid bytes: %d %q", code, out)
	}
}

// TestHostileJSONL: NUL bytes and invalid UTF-8 inside JSONL documents, and
// a line of 50 MB.
func TestHostileJSONL(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	data := filepath.Join(dir, "docs.jsonl")
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id": "nul", "body": "before\u0000trailing nul"}` + "\n")
	f.WriteString("{\"id\": \"invalid\", \"body\": \"caf\xe9 \xff raw invalid bytes\"}\n")
	f.WriteString(`{"id": "surrogate", "body": "lone \ud800 surrogate"}` + "\n")
	// Ids that are not keys: each line is skipped and named, the rest read.
	badIDs := []string{`"` + strings.Repeat("k", 1_000_000) + `"`, strings.Repeat("9", 5000), "null", "1e400"}
	for _, id := range badIDs {
		f.WriteString(`{"id": ` + id + `, "body": "trailing bad id"}` + "\n")
	}
	huge := !testing.Short()
	if huge {
		f.WriteString(`{"id": "huge", "body": "`)
		words := []string{"lorem ", "ipsum ", "dolor ", "sit ", "amet "}
		var b strings.Builder
		for b.Len() < 1<<20 {
			b.WriteString(words[b.Len()%5])
		}
		chunk := b.String()
		for i := 0; i < 50; i++ {
			f.WriteString(chunk)
		}
		f.WriteString(`needle"}` + "\n")
	}
	f.Close()
	start := time.Now()
	out := mustRun(t, "index", "--index", ix, data)
	t.Logf("indexed in %v:\n%s", time.Since(start), out)
	want := 3
	if huge {
		want = 4
	}
	if !strings.Contains(out, fmt.Sprintf("indexed %d documents", want)) {
		t.Fatalf("summary:\n%s", out)
	}
	for i, want := range []string{"id is 1000000 bytes long", "id 99999999999999999999… (5000 characters) is not an integer", "id is null", "id 1e400 is not an integer"} {
		if line := fmt.Sprintf("docs.jsonl:%d: bad-field: ", 4+i); !strings.Contains(out, line+want) {
			t.Errorf("summary lacks %q:\n%s", line+want, out)
		}
	}
	if len(out) > 4000 {
		t.Errorf("the summary echoes the ids: %d bytes", len(out))
	}
	for q, key := range map[string]string{"trailing": "nul", "raw": "invalid", "surrogate": "surrogate"} {
		out := mustRun(t, "search", "--index", ix, "--json", q)
		if !strings.Contains(out, `"key":"`+key+`"`) {
			t.Errorf("search %s: %s", q, out)
		}
	}
	if huge {
		if code, out, _ := runCLI(t, "search", "--index", ix, "--count", "needle lorem"); code != exitOK || strings.TrimSpace(out) != "1" {
			t.Errorf("the 50 MB document: %d %q", code, out)
		}
	}
	mustRun(t, "check", "--index", ix)
}

// TestHostileQueries: huge, deep and malformed queries are refused quickly
// with one sentence. (Unbalanced quotes and parentheses: TestBadInput.)
func TestHostileQueries(t *testing.T) {
	isolate(t)
	ix := indexNotes(t)
	var many strings.Builder
	for i := 0; i < 10_000; i++ {
		fmt.Fprintf(&many, "w%d ", i)
	}
	for name, c := range map[string]struct {
		q    string
		code int
	}{
		"10k terms":        {many.String(), exitError},
		"deep nesting":     {strings.Repeat("(", 5000) + "bloom" + strings.Repeat(")", 5000), exitError},
		"deep negation":    {strings.Repeat("-", 4001) + "bloom", exitError},
		"10k quoted words": {`"` + many.String() + `"`, exitError},
		"control bytes":    {"\x00\x1b[2J\xff", exitNoMatch}, // "2j" is a word; the rest is not searched
	} {
		start := time.Now()
		code, out, errs := runCLI(t, "search", "--index", ix, c.q)
		if code != c.code || strings.Count(strings.TrimSpace(errs), "\n") != 0 || strings.Contains(out+errs, "\x1b") {
			t.Errorf("%s: exit %d, %q %q", name, code, out, errs)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: %v", name, d)
		}
	}
}

// TestUnreadableKept: a file or directory that cannot be read is skipped,
// and its documents stay in the index (it is not gone, only unreadable);
// once it is really gone they are deleted. As root, permissions do not deny
// reads, so the indexer runs as the user nobody.
func TestUnreadableKept(t *testing.T) {
	isolate(t)
	base, err := os.MkdirTemp("", "bitsieve-perm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	src, ix := filepath.Join(base, "src"), filepath.Join(base, "ix")
	writeFiles(t, src, map[string]string{"ok.txt": "open words", "locked.txt": "locked words", "lockeddir/inside.txt": "inside words"})
	indexAs := index0
	if os.Geteuid() == 0 {
		indexAs = asNobody(t, base)
	}
	out := indexAs(t, ix, src)
	if !strings.Contains(out, "added 3") {
		t.Fatalf("first run:\n%s", out)
	}
	os.Chmod(filepath.Join(src, "locked.txt"), 0)
	os.Chmod(filepath.Join(src, "lockeddir"), 0)
	t.Cleanup(func() { os.Chmod(filepath.Join(src, "lockeddir"), 0o755) })
	out = indexAs(t, ix, src)
	if !strings.Contains(out, "unreadable 2") || !strings.Contains(out, "deleted 0") {
		t.Fatalf("run with unreadable entries:\n%s", out)
	}
	if got := indexedTexts(t, ix); len(got) != 3 {
		t.Fatalf("unreadable documents were dropped: %v", got)
	}
	os.Remove(filepath.Join(src, "locked.txt"))
	out = indexAs(t, ix, src)
	if !strings.Contains(out, "deleted 1") {
		t.Fatalf("run after removing the locked file:\n%s", out)
	}
}

// index0 runs 'bitsieve index' in-process.
func index0(t *testing.T, ix, src string) string {
	return mustRun(t, "index", "--index", ix, "--verbose", src)
}

// asNobody returns a function that runs 'bitsieve index' as the user
// nobody (uid 65534), from a copy of the test binary that user may run.
func asNobody(t *testing.T, base string) func(*testing.T, string, string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "bitsieve.test")
	in, _ := os.Open(exe)
	outf, _ := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE, 0o755)
	io.Copy(outf, in)
	in.Close()
	outf.Close()
	return func(t *testing.T, ix, src string) string {
		t.Helper()
		filepath.Walk(base, func(p string, info os.FileInfo, err error) error {
			if err == nil && p != bin && (info.Mode().IsDir() || strings.HasPrefix(p, ix)) {
				os.Chown(p, 65534, 65534)
			}
			return nil
		})
		cmd := exec.Command(bin, "index", "--index", ix, "--verbose", src)
		cmd.Env = append(os.Environ(), "BITSIEVE_TEST_MAIN=1", "HOME="+base)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("index as nobody: %v\n%s", err, out)
		}
		return string(out)
	}
}

// TestFullDiskTmpfs fills a real (small) file system during indexing: the
// run fails with a clear message and the previous index stays usable.
func TestFullDiskTmpfs(t *testing.T) {
	isolate(t)
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a 1 MiB tmpfs (%v); index.TestFullDisk injects the same failure", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, 0) })
	ix := filepath.Join(mnt, "ix")
	src := t.TempDir()
	writeFiles(t, src, map[string]string{"a.txt": "small words", "b.txt": "more small words"})
	mustRun(t, "index", "--index", ix, src)

	// About 3 MB of text that does not compress well.
	for i := 0; i < 60; i++ {
		var b strings.Builder
		for j := 0; b.Len() < 50_000; j++ {
			fmt.Fprintf(&b, "x%dq%d ", i*7919+j*104729%1000003, j)
		}
		writeFiles(t, src, map[string]string{fmt.Sprintf("big/%02d.txt", i): b.String()})
	}
	for _, args := range [][]string{{"index", "--index", ix, src}, {"index", "--rebuild", "--index", ix, src}} {
		code, _, errs := runCLI(t, args...)
		if code != exitError || !strings.Contains(errs, "no space left on device") || !strings.Contains(errs, "unchanged") {
			t.Fatalf("%v on a full disk: exit %d, %q", args, code, errs)
		}
	}
	if got := indexedTexts(t, ix); len(got) != 2 {
		t.Fatalf("the previous index holds %v", got)
	}
	mustRun(t, "check", "--index", ix)
	if code, out, _ := runCLI(t, "search", "--index", ix, "--count", "small"); code != exitOK || strings.TrimSpace(out) != "2" {
		t.Fatalf("search after the failure: %d %q", code, out)
	}
	ents, _ := os.ReadDir(ix)
	m, _ := index.Open(ix)
	named := len(m.Manifest().Segments)
	m.Close()
	if len(ents) != named+3 { // + the lexicon, MANIFEST and LOCK
		t.Errorf("files left on the full disk: %d entries for %d segments", len(ents), named)
	}
}
