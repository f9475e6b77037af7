// Package mmap maps index files read-only into memory, on every platform
// bitsieve builds for (mmap on Unix, a file mapping on Windows, a plain read
// elsewhere).
//
// # Huge pages
//
// A query reads an index at random: a few bits of many rows, the forward
// entries of its candidates, their lengths and keys. In 4 KiB pages most of
// those reads miss the TLB, and in a virtual machine each miss walks two
// page tables. Backed by 2 MiB pages, a mapping needs 512 times fewer
// translations. On Linux, FileHuge asks for that (MADV_HUGEPAGE), and the
// kernel grants it where the page cache holds the file in 2 MiB folios,
// which it makes when it reads the file from disk for a mapping so advised,
// on a filesystem with large folios (XFS; ext4 on recent kernels). A file
// just written is held in the folios its writes made, mostly smaller: its
// writer calls DropWritten after syncing it, so that its first reader reads
// it again, in 2 MiB folios. Elsewhere both are hints that change nothing.
package mmap

import (
	"fmt"
	"os"
)

// File maps a whole file read-only. An empty file maps to nil.
func File(path string) ([]byte, error) { return Map(path, false) }

// FileHuge is File for a file read at random, many times: it asks for the
// mapping to be backed by 2 MiB pages where the kernel can (see Huge
// pages). A caller maps with it only files that fit in memory together
// (FitsMemory), since each page read from disk is then 2 MiB.
func FileHuge(path string) ([]byte, error) { return Map(path, true) }

// hugeFrom is the smallest file worth a huge page: one 2 MiB page.
const hugeFrom = 2 << 20

// Map is FileHuge when huge, File otherwise: for a caller that decides once
// for many files.
func Map(path string, huge bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if size == 0 {
		return nil, nil
	}
	if size != int64(int(size)) {
		return nil, fmt.Errorf("%s: file of %d bytes is too large to map", path, size)
	}
	data, err := mmap(f, int(size))
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	if huge && size >= hugeFrom {
		adviseHuge(data) // before the first read, which fills the page cache
	}
	return data, nil
}

// DropWritten asks the kernel to drop from its page cache the pages of f, a
// file of size bytes that was just written and synced, so that the next
// FileHuge of it reads it again from disk, in 2 MiB folios (see Huge
// pages). Its pages are clean, so nothing is lost; it does nothing to a file
// too small for a huge page, or where the kernel has no such hint.
func DropWritten(f *os.File, size int64) {
	if size >= hugeFrom {
		dropCache(f)
	}
}

// FitsMemory reports whether files of total bytes, together, fit in half
// of the machine's memory: the most that should be mapped with FileHuge.
// Where the memory is not known, it reports false.
func FitsMemory(total int64) bool {
	m := memoryBytes()
	return m > 0 && total <= m/2
}

// Unmap releases a mapping made by File or FileHuge.
func Unmap(data []byte) error {
	if data == nil {
		return nil
	}
	return munmap(data)
}
