package strcache

import (
	"strconv"
	"sync"
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

// TestShared checks that a Shared cache finds by bytes what was stored by
// string, whichever shard holds it, stays bounded, and keeps what is used.
func TestShared(t *testing.T) {
	s := NewShared(1600) // 100 a shard
	s.Put("hot", "HOT")
	for i := 0; i < 100_000; i++ {
		k := strconv.Itoa(i)
		s.Put(k, "v"+k)
		if v, ok := s.Get([]byte(k)); !ok || v != "v"+k {
			t.Fatalf("Get(%q) just after Put = %q, %v", k, v, ok)
		}
		if v, ok := s.Get([]byte("hot")); !ok || v != "HOT" {
			t.Fatalf("after %d other puts, Get(hot) = %q, %v; want HOT, true", i+1, v, ok)
		}
	}
	if n := s.Len(); n > 2*1600 {
		t.Errorf("the cache holds %d entries, more than two generations of 1600", n)
	}
}

// TestSharedConcurrent uses one Shared cache from many goroutines (run
// with -race): every Get finds the value of its key or nothing.
func TestSharedConcurrent(t *testing.T) {
	s := NewShared(64)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				k := strconv.Itoa((i * (g + 1)) % 300)
				if v, ok := s.Get([]byte(k)); ok && v != "v"+k {
					t.Errorf("Get(%q) = %q", k, v)
					return
				}
				s.Put(k, "v"+k)
			}
		}()
	}
	wg.Wait()
}
