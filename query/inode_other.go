//go:build !unix

package query

import "io/fs"

// inode is 0 where the platform has none; size and mtime still tell a new
// MANIFEST from an old one.
func inode(fs.FileInfo) uint64 { return 0 }
