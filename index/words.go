package index

import (
	"encoding/binary"
	"unsafe"
)

// The signature rows, the term table and the document table are used in place
// from the mmap'd file, so their little-endian words are reinterpreted as Go
// slices. That is only correct on little-endian machines (amd64, arm64,
// riscv64, ...); Open refuses to run anywhere else.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func wordsAsBytes(w []uint64) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*8)
}

func u32AsBytes(w []uint32) []byte {
	if len(w) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), len(w)*4)
}

// bytesAsWords views b (8-byte aligned, length a multiple of 8) as words.
func bytesAsWords(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// bytesAsU32 views b (4-byte aligned, length a multiple of 4) as uint32s.
func bytesAsU32(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func bytesAsU16(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}
