//go:build unix

package mmap

import (
	"os"
	"syscall"
)

// mmap maps the first size bytes of f, shared and read-only. The mapping
// outlives f's descriptor.
func mmap(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

func munmap(data []byte) error { return syscall.Munmap(data) }
