// Package mmap maps index files read-only into memory, on every platform
// bitsieve builds for (mmap on Unix, a file mapping on Windows, a plain read
// elsewhere).
package mmap

import (
	"fmt"
	"os"
)

// File maps a whole file read-only. An empty file maps to nil.
func File(path string) ([]byte, error) {
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
	return data, nil
}

// Unmap releases a mapping made by File.
func Unmap(data []byte) error {
	if data == nil {
		return nil
	}
	return munmap(data)
}
