//go:build unix

package corpus

import (
	"path/filepath"
	"reflect"
	"testing"
)

// ignoreTree builds a repository whose .gitignore files exclude part of it.
func ignoreTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, root, ".git/info/exclude", "# local excludes\nsecret.md\n")
	writeFile(t, root, ".gitignore", "*.log\r\nbuild/\n/top-only.txt\n\n# comment\n")
	writeFile(t, root, "a.txt", "a")
	writeFile(t, root, "debug.log", "log")
	writeFile(t, root, "secret.md", "secret")
	writeFile(t, root, "top-only.txt", "anchored to the root")
	writeFile(t, root, "build/out.txt", "build output")
	writeFile(t, root, "x/build", "a file named build: build/ matches directories only")
	writeFile(t, root, "x/top-only.txt", "not at the root")
	writeFile(t, root, "sub/.gitignore", "*.txt\n!keep.txt\n")
	writeFile(t, root, "sub/a.txt", "a")
	writeFile(t, root, "sub/keep.txt", "kept")
	writeFile(t, root, "sub/x.log", "log")
	writeFile(t, root, "sub/notes.md", "md")
	writeFile(t, root, "sub/deeper/b.txt", "b")
	writeFile(t, root, "sub/deeper/keep.txt", "kept")
	writeFile(t, root, "other/b.txt", "sub/.gitignore does not reach here")
	return root
}

func TestWalkGitignore(t *testing.T) {
	root := ignoreTree(t)
	docs, st := collect(t, root, WalkOptions{})
	want := []string{"a.txt", "other/b.txt", "sub/deeper/keep.txt", "sub/keep.txt", "sub/notes.md", "x/build", "x/top-only.txt"}
	if got := keys(docs); !reflect.DeepEqual(got, want) {
		t.Errorf("keys:\n got %q\nwant %q", got, want)
	}
	wantSkips := map[string]SkipReason{
		".git":             SkipVCS,
		".gitignore":       SkipHidden,
		"sub/.gitignore":   SkipHidden,
		"build":            SkipIgnored, // the directory, once; its files are not visited
		"debug.log":        SkipIgnored,
		"secret.md":        SkipIgnored,
		"top-only.txt":     SkipIgnored,
		"sub/a.txt":        SkipIgnored,
		"sub/x.log":        SkipIgnored,
		"sub/deeper/b.txt": SkipIgnored,
	}
	if got := skipped(st); !reflect.DeepEqual(got, wantSkips) {
		t.Errorf("skipped:\n got %v\nwant %v", got, wantSkips)
	}

	// A partial walk applies the .gitignore files on the way to its paths.
	docs, st = collect(t, root, WalkOptions{Only: []string{"sub/a.txt", "sub/keep.txt", "build/out.txt", "debug.log"}})
	if got := keys(docs); !reflect.DeepEqual(got, []string{"sub/keep.txt"}) {
		t.Errorf("partial walk: keys %q", got)
	}
	if got, want := skipped(st), (map[string]SkipReason{"build": SkipIgnored, "debug.log": SkipIgnored, "sub/a.txt": SkipIgnored}); !reflect.DeepEqual(got, want) {
		t.Errorf("partial walk: skipped %v, want %v", got, want)
	}

	// NoIgnore reads everything the other rules let through.
	docs, st = collect(t, root, WalkOptions{NoIgnore: true})
	want = []string{"a.txt", "build/out.txt", "debug.log", "other/b.txt", "secret.md", "sub/a.txt", "sub/deeper/b.txt",
		"sub/deeper/keep.txt", "sub/keep.txt", "sub/notes.md", "sub/x.log", "top-only.txt", "x/build", "x/top-only.txt"}
	if got := keys(docs); !reflect.DeepEqual(got, want) {
		t.Errorf("NoIgnore keys:\n got %q\nwant %q", got, want)
	}
	if st.Counts[SkipIgnored] != 0 {
		t.Errorf("NoIgnore: %d ignored", st.Counts[SkipIgnored])
	}
}

// Walking a directory inside a repository honours the .gitignore files
// above it, with their patterns relative to their own directories.
func TestWalkGitignoreAbove(t *testing.T) {
	repo := t.TempDir()
	writeFile(t, repo, ".git/HEAD", "ref: refs/heads/main\n")
	writeFile(t, repo, ".gitignore", "*.tmp\n/project/anchored.txt\n/anchored-elsewhere.txt\n")
	writeFile(t, repo, "project/.gitignore", "generated/\n")
	writeFile(t, repo, "project/docs/.gitignore", "draft.md\n")
	writeFile(t, repo, "project/docs/draft.md", "draft")
	writeFile(t, repo, "project/docs/guide.md", "guide")
	writeFile(t, repo, "project/docs/x.tmp", "tmp")
	writeFile(t, repo, "project/docs/anchored.txt", "anchored elsewhere")
	writeFile(t, repo, "project/docs/anchored-elsewhere.txt", "anchored at the repository root")
	writeFile(t, repo, "project/docs/generated/g.txt", "generated")
	writeFile(t, repo, "project/anchored.txt", "anchored")

	docs, st := collect(t, filepath.Join(repo, "project", "docs"), WalkOptions{})
	want := []string{"anchored-elsewhere.txt", "anchored.txt", "guide.md"}
	if got := keys(docs); !reflect.DeepEqual(got, want) {
		t.Errorf("keys:\n got %q\nwant %q", got, want)
	}
	if st.Counts[SkipIgnored] != 3 { // draft.md, generated, x.tmp
		t.Errorf("skipped %v", st.Skipped)
	}

	docs, _ = collect(t, filepath.Join(repo, "project"), WalkOptions{})
	if got := keys(docs); !reflect.DeepEqual(got, []string{"docs/anchored-elsewhere.txt", "docs/anchored.txt", "docs/guide.md"}) {
		t.Errorf("keys from project: %q", got)
	}
}
