package corpus

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreRules holds the gitignore patterns in force at one point of a walk,
// in git's order of precedence: .git/info/exclude first, then the
// .gitignore files from the repository root down to the current directory,
// each file's patterns in its own order. The last pattern that matches a path
// decides, so a deeper file overrides a shallower one and a later line an
// earlier one, as in git.
//
// Paths are matched as slices of elements relative to the repository root:
// the walk root itself, or the nearest directory above it that holds a .git
// entry (so indexing a subdirectory of a repository honours the .gitignore
// files above it). prefix is the walk root's path within the repository.
type ignoreRules struct {
	prefix   []string
	patterns []gitignore.Pattern
}

// newIgnoreRules finds the repository that root belongs to and loads the
// patterns that apply above root: the repository's .git/info/exclude and
// the .gitignore files of the directories between the repository root and
// root. Those of root itself and below are loaded as the walk enters them.
func newIgnoreRules(root string) *ignoreRules {
	r := &ignoreRules{}
	abs, err := filepath.Abs(root)
	if err != nil {
		return r
	}
	repo, prefix := abs, []string(nil)
	for {
		if _, err := os.Lstat(filepath.Join(repo, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(repo)
		if parent == repo { // no repository: root is the top
			repo, prefix = abs, nil
			break
		}
		prefix = append([]string{filepath.Base(repo)}, prefix...)
		repo = parent
	}
	r.prefix = prefix
	r.patterns = readIgnoreFile(filepath.Join(repo, ".git", "info", "exclude"), nil, r.patterns)
	dir := repo
	for i := range prefix {
		r.patterns = readIgnoreFile(filepath.Join(dir, ".gitignore"), prefix[:i], r.patterns)
		dir = filepath.Join(dir, prefix[i])
	}
	return r
}

// enter adds the patterns of the .gitignore in the directory full (keyed
// rel, "" for the root) and returns the number of patterns before them, to
// be passed to leave once the directory is done.
func (r *ignoreRules) enter(full, rel string) int {
	n := len(r.patterns)
	r.patterns = readIgnoreFile(filepath.Join(full, ".gitignore"), r.path(rel), r.patterns)
	return n
}

// leave drops the patterns added since enter returned n.
func (r *ignoreRules) leave(n int) {
	clear(r.patterns[n:])
	r.patterns = r.patterns[:n]
}

// ignored reports whether the entry keyed rel is excluded by the patterns
// in force.
func (r *ignoreRules) ignored(rel string, isDir bool) bool {
	if len(r.patterns) == 0 {
		return false
	}
	return gitignore.NewMatcher(r.patterns).Match(r.path(rel), isDir)
}

// path returns the elements of rel relative to the repository root.
func (r *ignoreRules) path(rel string) []string {
	p := append([]string(nil), r.prefix...)
	if rel != "" {
		p = append(p, strings.Split(rel, "/")...)
	}
	return p
}

// maxIgnoreFile is the largest ignore file read; a larger one is not a
// list of patterns anyone wrote.
const maxIgnoreFile = 1 << 20

// readIgnoreFile appends the patterns of the gitignore file at name, which
// apply under domain, to ps. A file that is missing, unreadable, larger than
// maxIgnoreFile or not a regular file (a symbolic link is not followed, as
// git does not) adds nothing. Blank lines and comments are dropped; a
// byte-order mark and CR line ends are tolerated.
func readIgnoreFile(name string, domain []string, ps []gitignore.Pattern) []gitignore.Pattern {
	f, err := openRegular(name)
	if err != nil {
		return ps
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() > maxIgnoreFile {
		return ps
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	if err != nil {
		return ps
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
