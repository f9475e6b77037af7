//go:build windows

package mmap

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// mmap maps the first size bytes of f read-only: a file mapping object for
// f, and a view of it. The view keeps the mapping object alive once its
// handle is closed, and outlives f's handle.
func mmap(f *os.File, size int) ([]byte, error) {
	n := uint64(size)
	h, err := windows.CreateFileMapping(windows.Handle(f.Fd()), nil, windows.PAGE_READONLY, uint32(n>>32), uint32(n), nil)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	addr, err := windows.MapViewOfFile(h, windows.FILE_MAP_READ, 0, 0, uintptr(size))
	if err != nil {
		return nil, err
	}
	// The view lies outside the Go heap, at addr for its whole life.
	return unsafe.Slice((*byte)(unsafe.Add(nil, addr)), size), nil
}

func munmap(data []byte) error {
	return windows.UnmapViewOfFile(uintptr(unsafe.Pointer(unsafe.SliceData(data))))
}
