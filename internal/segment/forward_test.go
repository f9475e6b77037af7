package segment

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPrefetchForward checks that prefetching entries stays within the
// forward section for every document of a segment whose entries run from a
// few bytes to many cache lines (a prefetch changes nothing it could check
// beyond that: lookups after it find what they found before).
func TestPrefetchForward(t *testing.T) {
	data, dict := buildFile(t, testCorpus(300, 7, 4000), DefaultParams)
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

// TestForwardSeek checks ForwardLookup's walk (seek, through the skips)
// against the terms encoded, on entries built to mix one-byte pairs with longer ones
// (deltas and tfs of 128 and more) at every alignment, with and without
// skips, for every term of each entry and the ids between them.
func TestForwardSeek(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		n := 1 + r.IntN(3*SkipsFrom)
		ids, tfs, listOff := make([]uint32, n), make([]uint32, n), make([]uint32, n+1)
		id := uint32(r.IntN(3)) // the first id may be 0
		for i := range n {
			if i > 0 {
				id += 1 + uint32(r.IntN(20))
				if r.IntN(6) == 0 {
					id += 128 + uint32(r.IntN(400)) // a two-byte delta
				}
			}
			ids[i], tfs[i] = id, 1+uint32(r.IntN(3))
			if r.IntN(8) == 0 {
				tfs[i] = 128 + uint32(r.IntN(300)) // a two-byte tf
			}
			listOff[i+1] = listOff[i] + tfs[i]
		}
		entry := appendForwardEntry(nil, ids, tfs, listOff)
		s := &Segment{name: "seek", fwd: entry, fwdOff: []uint64{0, uint64(len(entry))}}
		want := map[uint32]uint32{}
		for i, id := range ids {
			want[id] = tfs[i]
		}
		// Every id of the entry's range, in random ascending subsets.
		var probe []TermID
		for x := uint32(0); x <= ids[n-1]+2; x++ {
			if _, ok := want[x]; ok || r.IntN(4) == 0 {
				if trial%2 == 0 || r.IntN(3) == 0 {
					probe = append(probe, TermID(x))
				}
			}
		}
		tf := make([]uint32, len(probe))
		if err := s.ForwardLookup(0, probe, tf); err != nil {
			t.Fatal(err)
		}
		for i, id := range probe {
			if tf[i] != want[uint32(id)] {
				t.Fatalf("trial %d, %d terms: term %d has tf %d, want %d", trial, n, id, tf[i], want[uint32(id)])
			}
		}
		for _, id := range ids { // each from a fresh cursor, then one past the last
			got := []uint32{0, 0}
			if err := s.ForwardLookup(0, []TermID{TermID(id), TermID(ids[n-1] + 1)}, got); err != nil || got[0] != want[id] || got[1] != 0 {
				t.Fatalf("trial %d: term %d has tf %d, the one past the last %d (%v); want %d, 0", trial, id, got[0], got[1], err, want[id])
			}
		}
	}
}
