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
