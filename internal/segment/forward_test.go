package segment

import (
	"slices"
	"testing"
)

// TestPrefetchForward checks that prefetching entries stays within the
// forward section for every document of a segment whose entries run from a
// few bytes to many cache lines (a prefetch changes nothing it could check
// beyond that: lookups after it find what they found before).
func TestPrefetchForward(t *testing.T) {
	data, dict := buildFile(t, genDocs(300, 7, 4000), DefaultParams)
	s := openFile(t, data, dict)
	var docs []int32
	long := 0
	for d := range s.NumDocs() {
		docs = append(docs, int32(d))
		if s.fwdOff[d+1]-s.fwdOff[d] > prefetchBytes {
			long++
		}
	}
	if long == 0 {
		t.Fatal("no entry is longer than what is prefetched: the test needs longer documents")
	}
	want := make([][]Posting, len(docs))
	for d := range docs {
		want[d], _ = s.Forward(nil, d)
	}
	lengths := make([]int, len(docs))
	for d := range docs {
		lengths[d] = s.DocTokens(d)
	}
	s.PrefetchForward(docs)
	s.PrefetchForward(docs[len(docs)-1:])
	s.PrefetchForward(nil)
	s.PrefetchLengths(docs)
	s.PrefetchLengths(docs[len(docs)-1:])
	s.PrefetchLengths(nil)
	for d := range docs {
		if got := s.DocTokens(d); got != lengths[d] {
			t.Fatalf("doc %d after prefetching: length %d, want %d", d, got, lengths[d])
		}
	}
	for d := range docs {
		if got, err := s.Forward(nil, d); err != nil || !slices.Equal(got, want[d]) {
			t.Fatalf("doc %d after prefetching: %v, %v; want %v", d, got, err, want[d])
		}
	}
}
