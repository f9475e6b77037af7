package tokenize

import "github.com/cespare/xxhash/v2"

// Hash is a term's 64-bit hash, xxhash64 of its bytes. It picks the term's
// shared signature rows and is part of the on-disk format.
func Hash(term string) uint64 { return xxhash.Sum64String(term) }
