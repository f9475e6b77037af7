//go:build amd64 || arm64

package prefetch

// Range prefetches every cache line that holds a byte of b, into all levels
// of the cache.
//
//go:noescape
func Range(b []byte)
