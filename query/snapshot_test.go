package query

import (
	"context"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
)

// TestLiveKeepsGenerations: a replaced snapshot stays open for Keep, so a
// search pinned to its generation finds it, and closes once the time is
// up and its last holder is gone.
func TestLiveKeepsGenerations(t *testing.T) {
	dir := t.TempDir()
	docs := indextest.Corpus(200, 3)
	indextest.Build(t, dir, docs[:100], index.WriterOptions{})
	l, err := OpenLive(dir, LiveOptions{Keep: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	first := l.Acquire()
	gen1 := first.Index().Generation()
	first.Release()

	w, err := index.OpenWriter(dir, index.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs[100:] {
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := l.Reload(false); err != nil {
		t.Fatal(err)
	}
	cur := l.Acquire()
	defer cur.Release()
	if cur.Index().Generation() == gen1 || cur.Index().NumDocs() != 200 {
		t.Fatalf("after the commit: generation %d, %d documents", cur.Index().Generation(), cur.Index().NumDocs())
	}
	old := l.AcquireGeneration(gen1)
	if old == nil {
		t.Fatalf("generation %d is not kept", gen1)
	}
	n, err := old.Searcher().Count(context.Background(), "kalo OR mine OR ruvin")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := cur.Searcher().Count(context.Background(), "kalo OR mine OR ruvin")
	if old.Index().NumDocs() != 100 || n > m {
		t.Fatalf("kept snapshot: %d documents, count %d (current %d)", old.Index().NumDocs(), n, m)
	}
	if l.AcquireGeneration(gen1+100) != nil {
		t.Fatal("a generation never served was found")
	}
	// Its time up, the kept snapshot is released; the holder's reference
	// keeps it open until it is given back.
	l.mu.Lock()
	l.expire(time.Now().Add(2 * time.Hour))
	l.mu.Unlock()
	if l.AcquireGeneration(gen1) != nil {
		t.Fatal("an expired generation was found")
	}
	if old.Index().Segments() == nil {
		t.Fatal("the kept snapshot closed under its holder")
	}
	old.Release()
	if old.Index().Segments() != nil {
		t.Fatal("the expired snapshot did not close with its last holder")
	}
}
