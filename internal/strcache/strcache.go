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
package strcache

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
