//go:build unix

package query

import (
	"io/fs"
	"syscall"
)

// inode is the file's inode number: a MANIFEST renamed into place has a new one.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
