//go:build !unix && !windows

package mmap

import (
	"io"
	"os"
)

// mmap reads the first size bytes of f where the platform has no mapping:
// segments are then held in memory.
func mmap(f *os.File, size int) ([]byte, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

func munmap([]byte) error { return nil }
