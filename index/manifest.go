package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bitsieve/bitsieve/internal/sectioned"
)

// The MANIFEST names the live files of an index. It is two lines: a JSON
// object (Manifest), then "crc32c " and the Castagnoli checksum of the first
// line's bytes in 8 hex digits. It is replaced atomically: written to
// MANIFEST.tmp, fsynced, renamed over MANIFEST, and the directory fsynced. A
// reader that has read one MANIFEST holds a consistent snapshot; a crash at any
// moment leaves either the old or the new one.

// ManifestName is the manifest's file name inside an index directory.
const ManifestName = "MANIFEST"

// LockName is the writer lock's file name inside an index directory.
const LockName = "LOCK"

// Manifest is the decoded MANIFEST.
type Manifest struct {
	Format     int               `json:"format"`
	Generation uint64            `json:"generation"` // increases with every commit
	Analyzer   string            `json:"analyzer"`
	NextFile   uint64            `json:"next_file"` // sequence number for the next file name
	Segments   []ManifestSegment `json:"segments"`

	// Lexicon names the index-wide term table of these segments (lexicon.go),
	// and LexiconBytes its size; both are absent when there is no segment.
	Lexicon      string `json:"lexicon,omitempty"`
	LexiconBytes int64  `json:"lexicon_bytes,omitempty"`
}

// ManifestSegment is one live segment file.
type ManifestSegment struct {
	File  string `json:"file"`
	Docs  int    `json:"docs"` // documents in the file, deleted ones included
	Class int    `json:"class"`
	Bytes int64  `json:"bytes"`

	// Deletes names the segment's tombstone file, which lists its Deleted
	// documents; both are absent when no document of the segment is deleted.
	Deletes string `json:"deletes,omitempty"`
	Deleted int    `json:"deleted,omitempty"`
}

// Live is the number of documents of the segment that are not deleted.
func (s ManifestSegment) Live() int { return s.Docs - s.Deleted }

// segmentFileName is the name of the segment file with sequence number seq;
// the format version is part of the name.
func segmentFileName(seq uint64) string { return fmt.Sprintf("%08d.v%d.seg", seq, formatVersion) }

// readManifest reads and verifies dir's MANIFEST (its checksum, format and
// file names) without opening the files it names; Open also checks every
// field against them.
func readManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		if files := orphanFiles(dir); len(files) > 0 {
			return nil, &CorruptError{File: path, Detail: fmt.Sprintf(
				"is missing, but the directory holds %d index files (%s, ...): restore the MANIFEST, or rebuild it from the files with 'bitsieve recover --index %s'", len(files), files[0], dir)}
		}
		return nil, fmt.Errorf("%s: %w", dir, ErrNoIndex)
	}
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, &CorruptError{File: path, Detail: "is not a regular file"}
		}
		return nil, err
	}
	return decodeManifest(path, b)
}

func decodeManifest(path string, b []byte) (*Manifest, error) {
	bad := func(detail string) error { return &CorruptError{File: path, Detail: detail} }
	body, sum, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return nil, bad("no checksum line (file truncated?)")
	}
	// The checksum line is exact, newline included: a damaged or truncated
	// last byte is damage too.
	want := fmt.Sprintf("crc32c %08x\n", sectioned.Checksum(body))
	if string(sum) != want {
		if len(sum) != len(want) || !bytes.HasPrefix(sum, []byte("crc32c ")) || sum[len(sum)-1] != '\n' {
			return nil, bad("malformed checksum line (file truncated?)")
		}
		return nil, bad("checksum mismatch")
	}
	var m Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, bad("invalid JSON: " + err.Error())
	}
	if m.Format != formatVersion {
		return nil, fmt.Errorf("%s: index format version %d is not supported (this bitsieve reads version %d); rebuild the index with bitsieve index --rebuild", path, m.Format, formatVersion)
	}
	seen := map[string]bool{}
	name := func(n, suffix string) error {
		seq, ok := fileSeq(n)
		if n == "" || n != filepath.Base(n) || !strings.HasSuffix(n, suffix) || !ok || seq >= m.NextFile || seen[n] {
			return bad(fmt.Sprintf("bad file name %q", n))
		}
		seen[n] = true
		return nil
	}
	if (m.Lexicon == "") != (len(m.Segments) == 0) || m.LexiconBytes < 0 {
		return nil, bad("the lexicon must be named exactly when there are segments")
	}
	if m.Lexicon != "" {
		if err := name(m.Lexicon, ".lex"); err != nil {
			return nil, err
		}
	}
	for _, s := range m.Segments {
		if err := name(s.File, ".seg"); err != nil {
			return nil, err
		}
		if s.Docs < 0 || s.Deleted < 0 || s.Deleted > s.Docs || (s.Deletes == "") != (s.Deleted == 0) || s.Bytes < 0 {
			return nil, bad(fmt.Sprintf("bad document counts for %s", s.File))
		}
		if s.Deletes != "" {
			if err := name(s.Deletes, ".del"); err != nil {
				return nil, err
			}
		}
	}
	return &m, nil
}

func encodeManifest(m *Manifest) ([]byte, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(body, "\ncrc32c %08x\n", sectioned.Checksum(body)), nil
}

// commitManifest atomically replaces the directory's MANIFEST. Unless the
// error wraps errManifestUnsynced, a failure leaves the old MANIFEST in place.
func commitManifest(dir string, m *Manifest) error {
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	if err := writeFileSynced(dir, ManifestName, b); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("%w: %w", errManifestUnsynced, err)
	}
	return nil
}
