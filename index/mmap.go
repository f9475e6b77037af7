package index

import (
	"fmt"
	"os"
)

// mapFile maps a whole file read-only. An empty file maps to nil.
func mapFile(path string) ([]byte, error) {
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

func unmapFile(data []byte) error {
	if data == nil {
		return nil
	}
	return munmap(data)
}

// MapFile maps a whole file read-only (nil for an empty file), for other
// files kept beside segments, such as the inverted baseline's postings.
func MapFile(path string) ([]byte, error) { return mapFile(path) }

// UnmapFile releases a mapping made by MapFile.
func UnmapFile(data []byte) error { return unmapFile(data) }
