package corpus

import (
	"fmt"
	"sort"
	"strings"
)

// SkipReason says why a file or a JSONL line did not become a document. The
// values are short, stable words, fit for logs and JSON output.
type SkipReason string

// Reasons for skipping a directory entry.
const (
	SkipHidden     SkipReason = "hidden"      // name starts with '.' (and IncludeHidden is off)
	SkipVCS        SkipReason = "vcs"         // a version-control directory: .git, .hg, .svn, .bzr, .jj
	SkipSymlink    SkipReason = "symlink"     // symbolic links are never followed
	SkipNotRegular SkipReason = "not-regular" // FIFO, socket, device: never opened
	SkipTooLarge   SkipReason = "too-large"   // larger than WalkOptions.MaxFileSize
	SkipBinary     SkipReason = "binary"      // NUL byte in the first 8 KiB, or > 1% invalid UTF-8
	SkipUnreadable SkipReason = "unreadable"  // could not be opened, read or listed (permission, I/O error, vanished)
	SkipExcluded   SkipReason = "excluded"    // matched an Exclude pattern, or no Include pattern
	SkipIgnored    SkipReason = "ignored"     // excluded by a .gitignore file or .git/info/exclude (and NoIgnore is off)
	SkipCorrupt    SkipReason = "corrupt"     // a .gz file whose stream is damaged or truncated
)

// Reasons for skipping a JSONL line.
const (
	SkipBadJSON     SkipReason = "bad-json"     // not a JSON object
	SkipBadField    SkipReason = "bad-field"    // id, title, body or text of the wrong JSON type
	SkipNoBody      SkipReason = "no-body"      // neither body nor text (or both null)
	SkipDuplicateID SkipReason = "duplicate-id" // an id seen on an earlier line
)

// Skip is one file, directory or JSONL line that was not read as a document.
type Skip struct {
	Path   string     `json:"path"`             // the key the entry would have had (directory walk), or the JSONL name
	Line   int        `json:"line,omitempty"`   // 1-based line number for JSONL, 0 for files
	Reason SkipReason `json:"reason"`           //
	Detail string     `json:"detail,omitempty"` // what went wrong, for unreadable entries and bad lines; may be empty
}

// String formats a skip for a log line: "path: reason: detail" or
// "name:line: reason: detail". Paths are quoted when they hold control
// characters or invalid UTF-8.
func (s Skip) String() string {
	var b strings.Builder
	b.WriteString(displayPath(s.Path))
	if s.Line > 0 {
		fmt.Fprintf(&b, ":%d", s.Line)
	}
	b.WriteString(": ")
	b.WriteString(string(s.Reason))
	if s.Detail != "" {
		b.WriteString(": ")
		b.WriteString(s.Detail)
	}
	return b.String()
}

// Stats summarises one read.
type Stats struct {
	Docs  int   `json:"docs"`  // documents passed to fn
	Bytes int64 `json:"bytes"` // total len(Text) of those documents
	Lines int   `json:"lines"` // JSONL lines read, blank ones included (0 for a directory walk)

	// Skipped lists every skipped entry in the order it was met. A skipped
	// directory appears once; its contents are not visited. Counts has the
	// same information by reason.
	Skipped []Skip             `json:"skipped"`
	Counts  map[SkipReason]int `json:"counts"`
}

func (st *Stats) skip(s Skip) {
	st.Skipped = append(st.Skipped, s)
	if st.Counts == nil {
		st.Counts = make(map[SkipReason]int)
	}
	st.Counts[s.Reason]++
}

func (st *Stats) add(d Document) {
	st.Docs++
	st.Bytes += int64(len(d.Text))
}

// Summary is a one-line account, e.g.
// "1204 documents, 3.1 MB; skipped 12 (binary 3, hidden 9)".
func (st Stats) Summary() string {
	s := fmt.Sprintf("%d documents, %s", st.Docs, formatBytes(st.Bytes))
	if len(st.Skipped) == 0 {
		return s
	}
	reasons := make([]string, 0, len(st.Counts))
	for r := range st.Counts {
		reasons = append(reasons, string(r))
	}
	sort.Strings(reasons)
	for i, r := range reasons {
		reasons[i] = fmt.Sprintf("%s %d", r, st.Counts[SkipReason(r)])
	}
	return fmt.Sprintf("%s; skipped %d (%s)", s, len(st.Skipped), strings.Join(reasons, ", "))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// Add adds the counts and skipped entries of o to st.
func (st *Stats) Add(o Stats) {
	st.Docs += o.Docs
	st.Bytes += o.Bytes
	st.Skipped = append(st.Skipped, o.Skipped...)
	for r, n := range o.Counts {
		if st.Counts == nil {
			st.Counts = map[SkipReason]int{}
		}
		st.Counts[r] += n
	}
}
