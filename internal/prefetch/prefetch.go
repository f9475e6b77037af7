// Package prefetch asks the processor to bring memory into its caches
// without waiting for it. A loop that will read scattered places soon (the
// forward entries of the next candidates, say) prefetches them first, so
// that their cache misses overlap one another and the work in between,
// where plain loads would hold the processor at each miss it cannot hide.
//
// A prefetch is a hint: it never faults, changes no memory and may be
// dropped, so it cannot change what a program computes, only how long the
// reads after it wait. On amd64 it is PREFETCHT0 and on arm64 PRFM
// PLDL1KEEP; elsewhere the functions do nothing.
package prefetch

import (
	"unsafe"

	"github.com/bitsieve/bitsieve/internal/inplace"
)

// Words prefetches every cache line that holds a word of w, into all levels
// of the cache.
func Words(w []uint64) { Range(inplace.Uint64Bytes(w)) }

// Uint16s prefetches every cache line that holds an element of w.
func Uint16s(w []uint16) { Range(inplace.Uint16Bytes(w)) }

// Slice prefetches every cache line that holds an element of s.
func Slice[T any](s []T) {
	if len(s) == 0 {
		return
	}
	Range(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0]))))
}
