package index

import (
	"errors"
	"fmt"

	"github.com/bitsieve/bitsieve/internal/sectioned"
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
var ErrCorrupt = sectioned.ErrCorrupt

// CorruptError names the file and section that failed validation: File,
// Section ("" when the damage is in a file's header, table or tail) and
// Detail, what is wrong.
type CorruptError = sectioned.CorruptError

// errManifestUnsynced says the new MANIFEST was renamed into place but the
// directory could not be fsynced: after a crash the directory may hold the
// old or the new one, so the files of both must be kept.
var errManifestUnsynced = errors.New("the directory could not be synced after the MANIFEST was replaced")
