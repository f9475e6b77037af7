package strcache

import (
	"strconv"
	"testing"
	"unsafe"
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

func TestIntern(t *testing.T) {
	c := New(4)
	a := c.Intern(string([]byte("word")))
	for i := 0; i < 20; i++ {
		c.Intern(strconv.Itoa(i))
		b := c.Intern(string([]byte("word")))
		if b != "word" {
			t.Fatalf("Intern(word) = %q", b)
		}
		if unsafe.StringData(a) != unsafe.StringData(b) {
			t.Fatalf("round %d: Intern returned a second copy of a string it holds", i)
		}
	}
}
