package index

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Install makes dir hold a generation of an index copied from elsewhere
// (a cluster's shard, from its object store): the MANIFEST manifest (its
// bytes, checksum line included) and every file it names. Files that dir
// already holds with the same content, as keep reports, stay; the others
// are written by fetch, each through a temporary file, fsync and rename;
// then the MANIFEST replaces the old one atomically and the files it does
// not name are removed, as a writer's commit removes them. Until the
// MANIFEST is replaced, readers see the old generation; a failure leaves
// it in place. Install takes the writer lock, so it waits for (or fails
// with ErrLocked behind) a writer at work in dir, which it creates if need
// be. The files are checked when the generation is opened, as any
// generation's are (Open): a damaged copy is named there.
func Install(dir string, manifest []byte, keep func(name string) bool, fetch func(name string, w io.Writer) error) error {
	m, err := decodeManifest(filepath.Join(dir, ManifestName), manifest)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	removeTemps(dir)
	for _, name := range manifestFiles(m) {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil && keep(name) {
			continue
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		t, err := createTemp(dir, name)
		if err != nil {
			return err
		}
		if err := fetch(name, t); err != nil {
			t.abort()
			return fmt.Errorf("install %s in %s: %w", name, dir, err)
		}
		if err := t.commit(); err != nil {
			return err
		}
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	if err := writeFileSynced(dir, ManifestName, manifest); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	removeUnlisted(dir, m)
	return nil
}

// ManifestFiles are the files a MANIFEST's bytes name: its lexicon, its
// segments and their tombstones. It reads and checks the bytes as Open
// reads a MANIFEST.
func ManifestFiles(manifest []byte) ([]string, error) {
	m, err := decodeManifest(ManifestName, manifest)
	if err != nil {
		return nil, err
	}
	return manifestFiles(m), nil
}

// manifestFiles lists the files m names.
func manifestFiles(m *Manifest) []string {
	var out []string
	if m.Lexicon != "" {
		out = append(out, m.Lexicon)
	}
	for _, s := range m.Segments {
		out = append(out, s.File)
		if s.Deletes != "" {
			out = append(out, s.Deletes)
		}
	}
	return out
}

// ReadManifest returns the bytes of dir's MANIFEST, checked as Open checks
// them.
func ReadManifest(dir string) ([]byte, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := decodeManifest(path, b); err != nil {
		return nil, err
	}
	return b, nil
}
