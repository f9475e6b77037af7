// Package inplace views the little-endian words of a mapped index file as Go
// slices, without copying them.
package inplace

import (
	"encoding/binary"
	"unsafe"
)

// The signature rows, the term table and the document table are used in place
// from the mmap'd file, so their little-endian words are reinterpreted as Go
// slices. That is only correct on little-endian machines (amd64, arm64,
// riscv64, ...); Open refuses to run anywhere else.
var LittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func Uint64Bytes(w []uint64) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8)
}

func Uint32Bytes(w []uint32) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*4)
}

// Uint16Bytes views the bytes of w.
func Uint16Bytes(w []uint16) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*2)
}

// Uint64s views b (8-byte aligned, length a multiple of 8) as words.
func Uint64s(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// Uint32s views b (4-byte aligned, length a multiple of 4) as uint32s.
func Uint32s(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func Uint16s(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}
