// Package strcache is a bounded map from strings to strings that keeps the
// entries in use: the stem cache of an analyzer, which sees a vocabulary
// that grows without end on a large corpus.
//
// Entries live in two generations. New entries go into the young one; when
// it is full it becomes the old one and the previous old one is dropped. A
// hit in the old generation moves the entry into the young one, so a word
// that keeps occurring survives every turnover, while one seen once is
// dropped after at most two. The cache never holds more than twice its
// generation size.
//
// A Cache belongs to one goroutine; Shared is one cache for many.
package strcache

import (
	"hash/maphash"
	"sync"
)

// Cache is a two-generation bounded map. It is not safe for concurrent use.
type Cache struct {
	young, old map[string]string
	size       int
}

// New returns a cache whose generations hold size entries each (at least 1).
func New(size int) *Cache {
	size = max(size, 1)
	return &Cache{young: make(map[string]string), size: size}
}

// Get returns the value stored under the key whose bytes are k, without
// allocating unless the entry moves to the young generation.
func (c *Cache) Get(k []byte) (string, bool) {
	if v, ok := c.young[string(k)]; ok {
		return v, true
	}
	v, ok := c.old[string(k)]
	if ok {
		c.Put(string(k), v)
	}
	return v, ok
}

// Put stores v under k in the young generation, turning the generations
// over first if it is full.
func (c *Cache) Put(k, v string) {
	if len(c.young) >= c.size {
		c.old, c.young = c.young, make(map[string]string, c.size)
	}
	c.young[k] = v
}

// Len is the number of entries held, counting a key in both generations twice.
func (c *Cache) Len() int { return len(c.young) + len(c.old) }

// Shared is a Cache that goroutines share: its keys are spread over shards,
// each a Cache behind its own lock, so that concurrent lookups of different
// words seldom wait for one another.
type Shared struct {
	seed   maphash.Seed
	shards [sharedShards]shard
}

// sharedShards is the number of shards of a Shared cache.
const sharedShards = 16

type shard struct {
	mu sync.Mutex
	c  Cache
	_  [64]byte // one shard's lock and another's on different cache lines
}

// NewShared returns a shared cache that holds about size entries in each
// generation, over all its shards.
func NewShared(size int) *Shared {
	s := &Shared{seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].c = *New(max(1, size/sharedShards))
	}
	return s
}

// shard is the shard of the key whose bytes are k; maphash.Bytes and
// maphash.String agree on equal contents (shardOf).
func (s *Shared) shard(k []byte) *shard {
	return &s.shards[maphash.Bytes(s.seed, k)%sharedShards]
}

func (s *Shared) shardOf(k string) *shard {
	return &s.shards[maphash.String(s.seed, k)%sharedShards]
}

// Get is Cache.Get; it is safe for concurrent use.
func (s *Shared) Get(k []byte) (string, bool) {
	sh := s.shard(k)
	sh.mu.Lock()
	v, ok := sh.c.Get(k)
	sh.mu.Unlock()
	return v, ok
}

// Put is Cache.Put; it is safe for concurrent use.
func (s *Shared) Put(k, v string) {
	sh := s.shardOf(k)
	sh.mu.Lock()
	sh.c.Put(k, v)
	sh.mu.Unlock()
}

// Len is Cache.Len over all the shards.
func (s *Shared) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.c.Len()
		sh.mu.Unlock()
	}
	return n
}
