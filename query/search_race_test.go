package query

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/indextest"
)

// TestSetWorkersWhileSearching changes the number of workers while searches
// run: the race detector (make test-long) checks that nothing is shared
// unguarded, and every search still gives the same total.
func TestSetWorkersWhileSearching(t *testing.T) {
	docs := indextest.Corpus(3000, 7)
	_, s := openSearcher(t, createIndex(t, docs, index.WriterOptions{Capacity: 300}))
	q := strings.Fields(string(docs[0].Text))[0]
	want, err := s.Search(context.Background(), Request{Query: q, CountOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				res, err := s.Search(context.Background(), Request{Query: q, CountOnly: true})
				if err != nil || res.Total != want.Total {
					t.Errorf("search: %v, %d hits, want %d", err, res.Total, want.Total)
					return
				}
			}
		}()
	}
	for i := 0; i < 50; i++ {
		s.SetWorkers(1 + i%3)
	}
	wg.Wait()
}
