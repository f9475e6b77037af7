package index

import "github.com/cespare/xxhash/v2"

// SourceTag is the 32-bit tag that a document record keeps of its source's
// name (Document.Source): the low 32 bits of the name's xxhash64, with 0
// kept for documents that name no source, so a named source never gets 0.
// Two sources whose names share a tag are one source to DeleteUnseen; with
// the handful of sources an index has, that happens about once in a
// billion indexes, and costs only the deletion of a vanished document.
func SourceTag(name string) uint32 {
	if name == "" {
		return 0
	}
	if t := uint32(xxhash.Sum64String(name)); t != 0 {
		return t
	}
	return 1
}
