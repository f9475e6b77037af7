package corpus

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultMaxFileSize is the size above which Walk skips a file unless
// WalkOptions.MaxFileSize says otherwise: larger files are rarely prose or
// code, and one of them would hold back a whole index segment.
const DefaultMaxFileSize = 10 << 20

// WalkOptions tunes a directory walk. The zero value is the default walk.
type WalkOptions struct {
	// MaxFileSize is the largest file read, in bytes; larger files are
	// skipped as too-large without being opened. 0 means DefaultMaxFileSize,
	// a negative value means no limit.
	MaxFileSize int64

	// IncludeHidden reads entries whose name starts with '.'. Version-control
	// directories (.git, .hg, .svn, .bzr, .jj) are skipped all the same.
	IncludeHidden bool

	// NoIgnore reads the files and directories that .gitignore files and
	// .git/info/exclude exclude; by default a directory walk skips them, as
	// git does (see the package documentation).
	NoIgnore bool

	// Include, when not empty, keeps only the regular files that match at
	// least one pattern; directories are always entered. Exclude skips files
	// and whole directories that match any pattern.
	//
	// Patterns use path.Match syntax within a path element (*, ?, [a-z], \
	// escapes), and a whole element "**" matches any number of elements, none
	// included. A pattern matches an entry if it matches the entry's slash
	// path relative to the root, or its base name: "*.go" matches Go files at
	// any depth, "cmd/*.go" only those directly under cmd, "docs/**/*.md"
	// Markdown files anywhere under docs, and "vendor" or "vendor/**" the
	// vendor directory (for Exclude, all of it). A leading or trailing slash
	// is ignored. A malformed pattern makes Walk fail before reading anything.
	Include []string
	Exclude []string

	// Only, when not empty, restricts a directory walk to these paths
	// (slash-separated, relative to the root: files or directories, which
	// need not exist) and what lies under them. Entries elsewhere are
	// neither read nor reported; every other option applies as in a full
	// walk, so a partial walk yields exactly the documents and skips a full
	// walk would yield for those paths. It serves to re-read what changed.
	Only []string
}

// vcsDirs are skipped even when hidden entries are read: their contents are a
// repository's internals, not its documents.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true, ".jj": true}

// Walk reads the regular text files under root, in sorted order, and calls fn
// with one Document per file. See the package documentation for what is
// skipped and how keys are formed. If root is a regular file, Walk reads just
// that file, keyed by its base name.
//
// Walk fails only if root cannot be read as a whole (it does not exist, it is
// neither a directory nor a regular file, or its own listing is denied), if a
// pattern in opt is malformed, or if fn returns an error, which Walk returns
// as is. The Stats are valid up to the point of failure.
func Walk(root string, opt WalkOptions, fn func(Document) error) (Stats, error) {
	w := &walker{fn: fn, max: opt.MaxFileSize, hidden: opt.IncludeHidden, only: opt.Only}
	if w.max == 0 {
		w.max = DefaultMaxFileSize
	}
	var err error
	if w.include, err = compileGlobs("include", opt.Include); err != nil {
		return w.st, err
	}
	if w.exclude, err = compileGlobs("exclude", opt.Exclude); err != nil {
		return w.st, err
	}

	info, err := os.Stat(root) // the root itself may be a symlink: follow it
	if err != nil {
		return w.st, fmt.Errorf("corpus: %s: %w", root, pathErr(err))
	}
	switch {
	case info.IsDir():
		var entries []fs.DirEntry
		if entries, err = os.ReadDir(root); err != nil {
			return w.st, fmt.Errorf("corpus: cannot list directory %s: %w", root, pathErr(err))
		}
		if !opt.NoIgnore {
			w.ignore = newIgnoreRules(root)
			w.ignore.enter(root, "")
		}
		err = w.entries(root, "", entries)
	case info.Mode().IsRegular():
		err = w.file(root, filepath.Base(root), info)
	default:
		err = fmt.Errorf("corpus: %s is neither a directory nor a regular file (%s)", root, info.Mode().Type())
	}
	return w.st, err
}

type walker struct {
	fn               func(Document) error
	max              int64 // < 0: no limit
	hidden           bool
	include, exclude []glob
	only             []string
	ignore           *ignoreRules // nil: .gitignore files are not honoured
	st               Stats
}

// dir lists the directory at full (keyed rel) and walks its entries. A
// directory that cannot be listed is reported, and what could be listed of it
// is still walked.
func (w *walker) dir(full, rel string) error {
	entries, err := os.ReadDir(full)
	if err != nil {
		w.st.skip(Skip{Path: rel, Reason: SkipUnreadable, Detail: pathErr(err).Error()})
	}
	if w.ignore != nil {
		defer w.ignore.leave(w.ignore.enter(full, rel))
	}
	return w.entries(full, rel, entries)
}

// entries walks the (sorted) entries of the directory at dir, keyed prefix.
func (w *walker) entries(dir, prefix string, entries []fs.DirEntry) error {
	for _, e := range entries {
		name := e.Name()
		rel := name
		if prefix != "" {
			rel = prefix + "/" + name
		}
		full := filepath.Join(dir, name)
		typ := e.Type()
		if !w.inScope(rel, typ.IsDir()) {
			continue
		}
		var err error
		switch {
		case vcsDirs[name]:
			w.st.skip(Skip{Path: rel, Reason: SkipVCS})
		case strings.HasPrefix(name, ".") && !w.hidden:
			w.st.skip(Skip{Path: rel, Reason: SkipHidden})
		case matchAny(w.exclude, rel):
			w.st.skip(Skip{Path: rel, Reason: SkipExcluded})
		case w.ignore != nil && w.ignore.ignored(rel, typ.IsDir()):
			w.st.skip(Skip{Path: rel, Reason: SkipIgnored})
		case typ&fs.ModeSymlink != 0:
			w.st.skip(Skip{Path: rel, Reason: SkipSymlink})
		case typ.IsDir():
			err = w.dir(full, rel)
		case !typ.IsRegular():
			w.st.skip(Skip{Path: rel, Reason: SkipNotRegular, Detail: typ.String()})
		case len(w.include) > 0 && !matchAny(w.include, rel):
			w.st.skip(Skip{Path: rel, Reason: SkipExcluded, Detail: "matches no include pattern"})
		default:
			var info fs.FileInfo
			if info, err = e.Info(); err != nil {
				w.st.skip(Skip{Path: rel, Reason: SkipUnreadable, Detail: pathErr(err).Error()})
				err = nil
				continue
			}
			err = w.file(full, rel, info)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// file reads one regular file, described by info (from Lstat), as a document
// keyed rel. It returns only fn's error; anything wrong with the file is a skip.
func (w *walker) file(full, rel string, info fs.FileInfo) error {
	if len(rel) > MaxKeyBytes {
		w.st.skip(Skip{Path: strings.ToValidUTF8(rel[:64], "") + "…", Reason: SkipUnreadable, Detail: fmt.Sprintf("its path is %d bytes long, and a key at most %d", len(rel), MaxKeyBytes)})
		return nil
	}
	if w.tooLarge(info.Size()) {
		w.st.skip(Skip{Path: rel, Reason: SkipTooLarge, Detail: fmt.Sprintf("%d bytes", info.Size())})
		return nil
	}
	f, err := openRegular(full)
	if err != nil {
		w.st.skip(Skip{Path: rel, Reason: SkipUnreadable, Detail: pathErr(err).Error()})
		return nil
	}
	defer f.Close()
	// The entry may have changed since it was listed: trust only the open file.
	if info, err = f.Stat(); err != nil {
		w.st.skip(Skip{Path: rel, Reason: SkipUnreadable, Detail: pathErr(err).Error()})
		return nil
	}
	if !info.Mode().IsRegular() {
		w.st.skip(Skip{Path: rel, Reason: SkipNotRegular, Detail: info.Mode().Type().String()})
		return nil
	}
	content, size, skip := w.content(f, info.Size(), full)
	if skip.Reason != "" {
		skip.Path = rel
		w.st.skip(skip)
		return nil
	}
	title, text := formatOf(full).extract(content)
	d := Document{Key: rel, Title: title, Text: text, Size: size, ModTime: info.ModTime()}
	if err := w.fn(d); err != nil {
		return err
	}
	w.st.add(d)
	return nil
}

// inScope reports whether the entry rel is one of the Only paths, lies
// under one, or is a directory on the way to one.
func (w *walker) inScope(rel string, dir bool) bool {
	if len(w.only) == 0 {
		return true
	}
	for _, p := range w.only {
		if rel == p || strings.HasPrefix(rel, p+"/") || (dir && strings.HasPrefix(p, rel+"/")) {
			return true
		}
	}
	return false
}

func (w *walker) tooLarge(n int64) bool { return w.max >= 0 && n > w.max }

// content reads the content of the open file f, of the given size, named
// name: decompressed if the name ends in .gz. It returns the content and the
// size of the source (the bytes read, or the compressed size), or, in
// skip.Reason and skip.Detail, why the file is not read.
func (w *walker) content(f io.Reader, size int64, name string) ([]byte, int64, Skip) {
	if !isGzip(name) {
		text, reason, err := w.read(f, size)
		if reason != "" {
			return nil, 0, Skip{Reason: reason, Detail: errDetail(err)}
		}
		return text, int64(len(text)), Skip{}
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, 0, gzipSkip(err)
	}
	defer zr.Close()
	hint := 3 * size // text compresses 3 to 10 times
	if w.max >= 0 {
		hint = min(hint, w.max)
	}
	text, reason, err := w.read(zr, hint)
	switch {
	case reason == SkipTooLarge:
		return nil, 0, Skip{Reason: SkipTooLarge, Detail: fmt.Sprintf("more than %d bytes decompressed", w.max)}
	case reason == SkipUnreadable:
		return nil, 0, gzipSkip(err)
	case reason != "":
		return nil, 0, Skip{Reason: reason}
	}
	return text, size, Skip{}
}

// gzipSkip classifies an error met reading a gzip file: a damaged stream is
// corrupt, a failure to read the file itself (an I/O error) unreadable.
func gzipSkip(err error) Skip {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return Skip{Reason: SkipUnreadable, Detail: errDetail(err)}
	}
	if err == io.EOF {
		return Skip{Reason: SkipCorrupt, Detail: "empty file, no gzip header"}
	}
	return Skip{Reason: SkipCorrupt, Detail: errDetail(err)}
}

// errDetail is the Detail of a skip caused by err ("" for none).
func errDetail(err error) string {
	if err == nil {
		return ""
	}
	return pathErr(err).Error()
}

// read reads a file of the given (expected) size. It stops early, with a skip
// reason, at a NUL byte in the first sniffLen bytes or when the file has grown
// past the size limit; otherwise it checks the whole text for invalid UTF-8.
func (w *walker) read(r io.Reader, size int64) ([]byte, SkipReason, error) {
	text := make([]byte, 0, size+1) // +1: a read past size finds EOF without growing
	sniffed := false
	for {
		if len(text) == cap(text) { // the file grew while being read
			text = append(text, 0)[:len(text)]
		}
		limit := cap(text)
		if !sniffed {
			limit = min(limit, len(text)+sniffLen)
		}
		n, err := r.Read(text[len(text):limit])
		text = text[:len(text)+n]
		if !sniffed && (len(text) >= sniffLen || err != nil) {
			sniffed = true
			if isBinaryHead(text) {
				return nil, SkipBinary, nil
			}
		}
		if w.tooLarge(int64(len(text))) {
			return nil, SkipTooLarge, nil
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, SkipUnreadable, err
		}
	}
	if isBinaryText(text) {
		return nil, SkipBinary, nil
	}
	return text, "", nil
}

// pathErr drops the path from a *fs.PathError: the caller names the entry by
// its key, or the root as given.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
