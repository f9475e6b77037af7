package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
}

// ManifestSegment is one live segment file.
type ManifestSegment struct {
	File  string `json:"file"`
	Docs  int    `json:"docs"`
	Class int    `json:"class"`
	Bytes int64  `json:"bytes"`
}

// segmentFileName is the name of the segment file with sequence number seq;
// the format version is part of the name.
func segmentFileName(seq uint64) string { return fmt.Sprintf("%08d.v%d.seg", seq, formatVersion) }

func readManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoIndex)
	}
	if err != nil {
		return nil, err
	}
	return decodeManifest(path, b)
}

func decodeManifest(path string, b []byte) (*Manifest, error) {
	bad := func(detail string) error { return &CorruptError{File: path, Detail: detail} }
	body, sum, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return nil, bad("no checksum line")
	}
	var want uint32
	if _, err := fmt.Sscanf(strings.TrimSpace(string(sum)), "crc32c %08x", &want); err != nil {
		return nil, bad("malformed checksum line")
	}
	if crc32.Checksum(body, castagnoli) != want {
		return nil, bad("checksum mismatch")
	}
	var m Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, bad("invalid JSON: " + err.Error())
	}
	if m.Format != formatVersion {
		return nil, fmt.Errorf("%s: format version %d is not supported (this bitsieve reads version %d)", path, m.Format, formatVersion)
	}
	seen := map[string]bool{}
	for _, s := range m.Segments {
		if s.File == "" || s.File != filepath.Base(s.File) || strings.HasPrefix(s.File, ".") || seen[s.File] {
			return nil, bad(fmt.Sprintf("bad segment file name %q", s.File))
		}
		seen[s.File] = true
	}
	return &m, nil
}

func encodeManifest(m *Manifest) ([]byte, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(body, "\ncrc32c %08x\n", crc32.Checksum(body, castagnoli)), nil
}

// writeManifest atomically replaces the directory's MANIFEST.
func writeManifest(dir string, m *Manifest) error {
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	return writeFileAtomic(dir, ManifestName, b)
}

// writeFileAtomic writes name in dir through a temp file, fsync and rename,
// then fsyncs the directory, so the file is either wholly old or wholly new.
func writeFileAtomic(dir, name string, b []byte) error {
	tmp := filepath.Join(dir, name+tmpSuffix)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// tmpSuffix marks files being written; leftovers are removed by the next writer.
const tmpSuffix = ".tmp"

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// lockDir takes the index's writer lock (an flock on LOCK), failing at once
// if another process holds it.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, fmt.Errorf("%s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return f, nil
}
