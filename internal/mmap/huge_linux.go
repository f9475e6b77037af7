package mmap

import (
	"os"

	"golang.org/x/sys/unix"
)

// adviseHuge asks for data to be backed by transparent huge pages. It is a
// hint: an error (a kernel without them) changes nothing.
func adviseHuge(data []byte) { unix.Madvise(data, unix.MADV_HUGEPAGE) }

// dropCache drops f's clean pages from the page cache.
func dropCache(f *os.File) { unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED) }

// memoryBytes is the machine's memory, 0 if unknown.
func memoryBytes() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
