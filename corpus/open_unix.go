//go:build unix

package corpus

import (
	"os"
	"syscall"
)

// openRegular opens a file the walk has seen as a regular file. O_NONBLOCK
// keeps the open from hanging if the entry was replaced by a FIFO since it was
// listed, O_NOFOLLOW from following a symlink put in its place; the caller
// checks the opened file is still regular.
func openRegular(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
