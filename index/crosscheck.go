package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A MANIFEST is checksummed, so damage to its bytes is detected, but a
// MANIFEST that is whole can still disagree with the files it names (a
// crafted one, or one restored from another copy). Every field of a segment's
// entry is checked against the file when the segment is opened
// (applyEntry). What an entry can lose without a trace in the files it
// names — a tombstone — is checked here, against the files it does not name.

// lostTombstone returns an error when dir holds a tombstone of one of m's
// segments that m neither names nor supersedes, and that a commit of m's
// generation or an earlier one wrote: m has lost the deletions it records.
// A tombstone of a later generation, or one numbered from m's next_file on,
// is what a writer that stopped before its commit left: not a loss.
func lostTombstone(dir string, m *Manifest) error {
	type segInfo struct {
		file  string
		named uint64 // sequence number of its named tombstone (0: none)
	}
	segs := map[uint64]segInfo{}
	named := map[string]bool{}
	for _, s := range m.Segments {
		seq, _ := fileSeq(s.File)
		info := segInfo{file: s.File}
		if s.Deletes != "" {
			info.named, _ = fileSeq(s.Deletes)
			named[s.Deletes] = true
		}
		segs[seq] = info
	}
	if len(segs) == 0 {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil // the segments' own opening reports an unreadable directory
	}
	suffix := fmt.Sprintf(".v%d.del", formatVersion)
	for _, e := range ents {
		n := e.Name()
		seq, ok := fileSeq(n)
		if !strings.HasSuffix(n, suffix) || !ok || named[n] || seq >= m.NextFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		t, err := decodeTombstone(n, b)
		if err != nil {
			continue // a damaged leftover: no commit relies on it
		}
		info, live := segs[t.segSeq]
		if !live || t.gen > m.Generation || seq < info.named {
			continue
		}
		return &CorruptError{File: filepath.Join(dir, ManifestName), Detail: fmt.Sprintf(
			"it does not name %s, the tombstone of %s that the commit of generation %d wrote: its deletions would be lost", n, info.file, t.gen)}
	}
	return nil
}

// orphanFiles returns the index files (segments, tombstones, lexicons) in a
// directory that has no MANIFEST.
func orphanFiles(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		n := e.Name()
		if _, ok := fileSeq(n); ok && (strings.HasSuffix(n, ".seg") || strings.HasSuffix(n, ".del") || strings.HasSuffix(n, ".lex")) {
			out = append(out, n)
		}
	}
	return out
}
