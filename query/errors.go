package query

import "errors"

// ErrNotFound is returned by Document for a key that is not in the index.
var ErrNotFound = errors.New("document not found")
