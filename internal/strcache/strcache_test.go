package strcache

import (
	"strconv"
	"testing"
)

func TestBounded(t *testing.T) {
	c := New(100)
	for i := 0; i < 10_000; i++ {
		c.Put(strconv.Itoa(i), "v")
		if c.Len() > 200 {
			t.Fatalf("after %d puts the cache holds %d entries, more than two generations of 100", i+1, c.Len())
		}
	}
}

func TestKeepsWhatIsUsed(t *testing.T) {
	c := New(100)
	c.Put("hot", "HOT")
	for i := 0; i < 10_000; i++ {
		c.Put(strconv.Itoa(i), "v")
		if v, ok := c.Get([]byte("hot")); !ok || v != "HOT" {
			t.Fatalf("after %d other puts, Get(hot) = %q, %v; want HOT, true", i+1, v, ok)
		}
	}
	if _, ok := c.Get([]byte("5")); ok {
		t.Errorf("an entry used once is still held 10,000 puts later")
	}
}
