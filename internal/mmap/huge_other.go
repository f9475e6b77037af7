//go:build !linux

package mmap

import "os"

// adviseHuge, dropCache and memoryBytes have no portable counterpart: huge
// pages are not asked for outside Linux.

func adviseHuge([]byte) {}

func dropCache(*os.File) {}

func memoryBytes() int64 { return 0 }
