//go:build unix

package corpus

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeFile creates a file (and its directories) under root.
func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// collect walks root and returns the documents read, in order.
func collect(t *testing.T, root string, opt WalkOptions) ([]Document, Stats) {
	t.Helper()
	var docs []Document
	st, err := Walk(root, opt, func(d Document) error {
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		t.Fatalf("Walk(%s): %v", root, err)
	}
	return docs, st
}

// skipped returns the skipped entries as "path reason" strings.
func skipped(st Stats) map[string]SkipReason {
	m := make(map[string]SkipReason)
	for _, s := range st.Skipped {
		m[s.Path] = s.Reason
	}
	return m
}

// canDenyReads reports whether chmod 000 keeps this process from reading: not
// when running as root.
func canDenyReads() bool { return os.Geteuid() != 0 }

// testTree builds a tree holding one of everything the walk must handle.
func testTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, root, "a.txt", "alpha beta")
	writeFile(t, root, "b/c.md", "# gamma")
	writeFile(t, root, "b/d/e.txt", "epsilon")
	writeFile(t, root, "b.txt", "sorted after the directory b")
	writeFile(t, root, "empty.txt", "")
	writeFile(t, root, ".hidden.txt", "hidden file")
	writeFile(t, root, ".hiddendir/x.txt", "in a hidden directory")
	writeFile(t, root, ".git/config", "[core]")
	writeFile(t, root, "sub/.git", "gitdir: ../.git/worktrees/sub") // a worktree's .git file
	writeFile(t, root, "bin.dat", "ab\x00cd")
	writeFile(t, root, "latin1.txt", strings.Repeat("plain ascii text ", 20)+"caf\xe9") // 1 invalid byte in 345
	writeFile(t, root, "garbage.txt", strings.Repeat("a\xff\xfe", 100))
	writeFile(t, root, "new\nline.txt", "a name with a newline")
	writeFile(t, root, "bad\xffname.txt", "a name that is not UTF-8")
	writeFile(t, root, "vendor/v.go", "package v")
	writeFile(t, root, "docs/x/y.md", "deep markdown")

	mustSymlink := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	mustSymlink("a.txt", "link")
	mustSymlink("b", "dirlink")
	mustSymlink("loop2", "loop1")
	mustSymlink("loop1", "loop2")
	mustSymlink(".", "self")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	// A sparse 1 GiB file: reading it would take seconds and a gigabyte; it
	// must be skipped from its size alone.
	f, err := os.Create(filepath.Join(root, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()

	writeFile(t, root, "locked.txt", "no permission")
	writeFile(t, root, "lockeddir/inside.txt", "no permission")
	for _, p := range []string{"locked.txt", "lockeddir"} {
		p = filepath.Join(root, p)
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o755) }) // let t.TempDir remove it
	}
	return root
}

func TestWalk(t *testing.T) {
	root := testTree(t)
	start := time.Now()
	docs, st := collect(t, root, WalkOptions{})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("walk took %v: was the 1 GiB file read?", d)
	}

	want := []string{
		"a.txt", "b/c.md", "b/d/e.txt", "b.txt", "bad\xffname.txt", "docs/x/y.md",
		"empty.txt", "latin1.txt", "new\nline.txt", "vendor/v.go",
	}
	if !canDenyReads() {
		want = []string{
			"a.txt", "b/c.md", "b/d/e.txt", "b.txt", "bad\xffname.txt", "docs/x/y.md",
			"empty.txt", "latin1.txt", "locked.txt", "lockeddir/inside.txt", "new\nline.txt", "vendor/v.go",
		}
	}
	if got := keys(docs); !reflect.DeepEqual(got, want) {
		t.Errorf("keys:\n got %q\nwant %q", got, want)
	}

	wantSkips := map[string]SkipReason{
		".git":        SkipVCS,
		".hidden.txt": SkipHidden,
		".hiddendir":  SkipHidden,
		"sub/.git":    SkipVCS,
		"bin.dat":     SkipBinary,
		"garbage.txt": SkipBinary,
		"big.txt":     SkipTooLarge,
		"link":        SkipSymlink,
		"dirlink":     SkipSymlink,
		"loop1":       SkipSymlink,
		"loop2":       SkipSymlink,
		"self":        SkipSymlink,
		"fifo":        SkipNotRegular,
	}
	if canDenyReads() {
		wantSkips["locked.txt"] = SkipUnreadable
		wantSkips["lockeddir"] = SkipUnreadable
	}
	if got := skipped(st); !reflect.DeepEqual(got, wantSkips) {
		t.Errorf("skipped:\n got %v\nwant %v", got, wantSkips)
	}
	if st.Counts[SkipSymlink] != 5 || st.Counts[SkipBinary] != 2 {
		t.Errorf("counts = %v", st.Counts)
	}
	if st.Docs != len(docs) {
		t.Errorf("Stats.Docs = %d, want %d", st.Docs, len(docs))
	}
	var total int64
	for _, d := range docs {
		total += int64(len(d.Text))
		if title, _ := formatOf(d.Key).extract(d.Text); d.Size != int64(len(d.Text)) || d.ModTime.IsZero() || d.Title != title {
			t.Errorf("%q: Size %d, len(Text) %d, ModTime %v, Title %q", d.Key, d.Size, len(d.Text), d.ModTime, d.Title)
		}
	}
	if st.Bytes != total {
		t.Errorf("Stats.Bytes = %d, want %d", st.Bytes, total)
	}
	for _, d := range docs {
		switch d.Key {
		case "a.txt":
			if string(d.Text) != "alpha beta" {
				t.Errorf("a.txt text = %q", d.Text)
			}
		case "empty.txt":
			if len(d.Text) != 0 {
				t.Errorf("empty.txt text = %q", d.Text)
			}
		}
	}
	for _, s := range st.Skipped {
		if strings.Contains(s.String(), "\n") {
			t.Errorf("Skip.String() = %q spans lines", s.String())
		}
	}
	if sum := st.Summary(); !strings.Contains(sum, "symlink 5") {
		t.Errorf("Summary() = %q", sum)
	}

	// The same tree always yields the same documents in the same order.
	docs2, st2 := collect(t, root, WalkOptions{})
	if !reflect.DeepEqual(docs, docs2) || !reflect.DeepEqual(st, st2) {
		t.Error("a second walk of the same tree differs")
	}
}

func TestWalkIncludeHidden(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.txt", "a")
	writeFile(t, root, ".hidden.txt", "h")
	writeFile(t, root, ".config/x.txt", "x")
	writeFile(t, root, ".git/HEAD", "ref: refs/heads/main")
	writeFile(t, root, ".hg/x", "x")
	docs, st := collect(t, root, WalkOptions{IncludeHidden: true})
	if got, want := keys(docs), []string{".config/x.txt", ".hidden.txt", "a.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keys = %q, want %q", got, want)
	}
	if got, want := skipped(st), map[string]SkipReason{".git": SkipVCS, ".hg": SkipVCS}; !reflect.DeepEqual(got, want) {
		t.Errorf("skipped = %v, want %v", got, want)
	}
}

func TestWalkGlobs(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"main.go", "README.md", "cmd/x/main.go", "cmd/x/x_test.go", "docs/a.md", "docs/deep/b.md", "vendor/v/v.go", "node_modules/m/index.js"} {
		writeFile(t, root, f, f)
	}
	tests := []struct {
		name             string
		include, exclude []string
		want             []string
	}{
		{"all", nil, nil, []string{"README.md", "cmd/x/main.go", "cmd/x/x_test.go", "docs/a.md", "docs/deep/b.md", "main.go", "node_modules/m/index.js", "vendor/v/v.go"}},
		{"base name", []string{"*.go"}, nil, []string{"cmd/x/main.go", "cmd/x/x_test.go", "main.go", "vendor/v/v.go"}},
		{"anchored path", []string{"cmd/*/*.go"}, nil, []string{"cmd/x/main.go", "cmd/x/x_test.go"}},
		{"doublestar", []string{"docs/**/*.md"}, nil, []string{"docs/a.md", "docs/deep/b.md"}},
		{"exclude dirs", nil, []string{"vendor", "node_modules/**"}, []string{"README.md", "cmd/x/main.go", "cmd/x/x_test.go", "docs/a.md", "docs/deep/b.md", "main.go"}},
		{"both", []string{"*.go"}, []string{"*_test.go", "vendor/"}, []string{"cmd/x/main.go", "main.go"}},
		{"leading slash", []string{"/main.go"}, nil, []string{"cmd/x/main.go", "main.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, st := collect(t, root, WalkOptions{Include: tt.include, Exclude: tt.exclude})
			if got := keys(docs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("keys = %q, want %q", got, tt.want)
			}
			for _, s := range st.Skipped {
				if s.Reason != SkipExcluded {
					t.Errorf("skip %v: want only excluded", s)
				}
			}
		})
	}
	if _, err := Walk(root, WalkOptions{Include: []string{"[a-"}}, func(Document) error { return nil }); err == nil || !strings.Contains(err.Error(), `"[a-"`) {
		t.Errorf("bad pattern: err = %v, want an error naming the pattern", err)
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, rel string
		want         bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "x/y/a.go", true},
		{"*.go", "a.go/b", false},
		{"x/*.go", "x/a.go", true},
		{"x/*.go", "y/x/a.go", false},
		{"**/x/*.go", "y/x/a.go", true},
		{"**", "anything/at/all", true},
		{"a/**", "a", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/**/**/b", "a/x/b", true},
		{"?.txt", "\xff.txt", true},
		{"new*", "new\nline", true},
		{`\*.txt`, "*.txt", true},
		{`\*.txt`, "a.txt", false},
	}
	for _, tt := range tests {
		gs, err := compileGlobs("test", []string{tt.pattern})
		if err != nil {
			t.Fatal(err)
		}
		if got := gs[0].match(tt.rel); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.rel, got, tt.want)
		}
	}
}

func TestWalkMaxFileSize(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "small.txt", "12345")
	writeFile(t, root, "large.txt", "1234567890")
	docs, st := collect(t, root, WalkOptions{MaxFileSize: 5})
	if got := keys(docs); !reflect.DeepEqual(got, []string{"small.txt"}) {
		t.Errorf("keys = %q", got)
	}
	if st.Counts[SkipTooLarge] != 1 {
		t.Errorf("counts = %v", st.Counts)
	}
	docs, _ = collect(t, root, WalkOptions{MaxFileSize: -1})
	if len(docs) != 2 {
		t.Errorf("no limit: %d documents, want 2", len(docs))
	}
}

func TestWalkBinaryLateNUL(t *testing.T) {
	// A NUL past the sniffed prefix does not make a file binary: the sniff is
	// a heuristic on the head, and the text check covers the rest.
	root := t.TempDir()
	writeFile(t, root, "late.txt", strings.Repeat("x", sniffLen)+"\x00")
	writeFile(t, root, "early.txt", strings.Repeat("x", sniffLen-1)+"\x00")
	docs, _ := collect(t, root, WalkOptions{})
	if got := keys(docs); !reflect.DeepEqual(got, []string{"late.txt"}) {
		t.Errorf("keys = %q, want [late.txt]", got)
	}
}

func TestWalkRootFile(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "dir/one.txt", "just this")
	docs, st := collect(t, filepath.Join(root, "dir", "one.txt"), WalkOptions{Include: []string{"*.md"}})
	if len(docs) != 1 || docs[0].Key != "one.txt" || string(docs[0].Text) != "just this" {
		t.Errorf("docs = %+v", docs)
	}
	if st.Docs != 1 || len(st.Skipped) != 0 {
		t.Errorf("stats = %+v", st)
	}

	// A symlink given as the root is followed.
	link := filepath.Join(root, "rootlink")
	if err := os.Symlink("dir", link); err != nil {
		t.Fatal(err)
	}
	if docs, _ := collect(t, link, WalkOptions{}); len(docs) != 1 || docs[0].Key != "one.txt" {
		t.Errorf("via symlinked root: docs = %+v", docs)
	}
}

func TestWalkRootErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Walk(missing, WalkOptions{}, func(Document) error { return nil })
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing root: err = %v, want ErrNotExist naming %s", err, missing)
	}

	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Walk(fifo, WalkOptions{}, func(Document) error { return nil })
	if err == nil || !strings.Contains(err.Error(), fifo) {
		t.Errorf("FIFO root: err = %v, want an error naming it", err)
	}

	if canDenyReads() {
		locked := t.TempDir()
		os.Chmod(locked, 0)
		defer os.Chmod(locked, 0o755)
		_, err = Walk(locked, WalkOptions{}, func(Document) error { return nil })
		if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("unreadable root: err = %v, want ErrPermission", err)
		}
	}
}

func TestWalkStopsOnCallbackError(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a", "b", "c"} {
		writeFile(t, root, f, f)
	}
	stop := errors.New("stop")
	n := 0
	st, err := Walk(root, WalkOptions{}, func(Document) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("err = %v, want the callback's error", err)
	}
	if n != 2 || st.Docs != 1 {
		t.Errorf("callback called %d times, Stats.Docs = %d; want 2 and 1", n, st.Docs)
	}
}

// TestWalkOnly checks that a walk restricted to some paths yields exactly
// what a full walk yields for them, filters included.
func TestWalkOnly(t *testing.T) {
	root := testTree(t)
	full, fullSt := collect(t, root, WalkOptions{})
	only := []string{"b", "a.txt", "garbage.txt", ".hiddendir/x.txt", "missing/x", "docs/x", "link"}
	docs, st := collect(t, root, WalkOptions{Only: only})
	in := func(rel string) bool {
		for _, p := range only {
			if rel == p || strings.HasPrefix(rel, p+"/") || strings.HasPrefix(p, rel+"/") {
				return true
			}
		}
		return false
	}
	var want []string
	for _, d := range full {
		if in(d.Key) {
			want = append(want, d.Key)
		}
	}
	if got := keys(docs); !reflect.DeepEqual(got, want) {
		t.Errorf("keys = %q, want %q", got, want)
	}
	wantSkips := map[string]SkipReason{}
	for _, s := range fullSt.Skipped {
		if in(s.Path) {
			wantSkips[s.Path] = s.Reason
		}
	}
	if got := skipped(st); !reflect.DeepEqual(got, wantSkips) {
		t.Errorf("skipped = %v, want %v", got, wantSkips)
	}
	if _, ok := wantSkips[".hiddendir"]; !ok {
		t.Error("the hidden directory on the way to .hiddendir/x.txt is not reported")
	}
}
