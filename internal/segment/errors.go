package segment

import "fmt"

// errorf makes an error with the index's prefix: a segment is read and
// written for package index, and its messages are the index's.
func errorf(format string, a ...any) error { return fmt.Errorf("index: "+format, a...) }
