package index

import (
	"errors"
	"fmt"
)

// errorf makes an error with the package's prefix.
func errorf(format string, a ...any) error { return fmt.Errorf("index: "+format, a...) }

// ErrNoIndex is returned by Open when the directory holds no index.
var ErrNoIndex = errors.New("no index found")

// ErrLocked is returned when another writer holds the index lock.
var ErrLocked = errors.New("index is locked by another writer")

// ErrNotFound is returned by Writer.Delete for a key that is not live.
var ErrNotFound = errors.New("no such document")

// ErrCorrupt is wrapped by every error about bytes that fail a checksum or
// an invariant; errors.Is(err, ErrCorrupt) tells damage from I/O failure.
var ErrCorrupt = errors.New("index file is damaged")

// CorruptError names the file and section that failed validation.
type CorruptError struct {
	File    string
	Section string // "" when the damage is in the header, table or tail
	Detail  string
}

func (e *CorruptError) Error() string {
	if e.Section != "" {
		return fmt.Sprintf("%s: section %s is damaged: %s", e.File, e.Section, e.Detail)
	}
	return fmt.Sprintf("%s is damaged: %s", e.File, e.Detail)
}

func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// errManifestUnsynced says the new MANIFEST was renamed into place but the
// directory could not be fsynced: after a crash the directory may hold the
// old or the new one, so the files of both must be kept.
var errManifestUnsynced = errors.New("the directory could not be synced after the MANIFEST was replaced")
