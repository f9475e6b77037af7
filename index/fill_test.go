package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWorstFill checks that no document fills more than ln 2 of its
// segment's shared rows. Every document below has 20 distinct terms (one
// length class), but most hold only common words (private rows), while 100
// hold 20 words of a pool of 50 (shared rows): sized for the mean load
// alone, the shared rows would be a dozen, and those documents would set
// every one of them and match any query of shared words.
func TestWorstFill(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	var docs []Document
	for i := 0; i < 4000; i++ {
		var words []string
		if i%40 == 0 {
			for _, j := range r.Perm(50)[:20] {
				words = append(words, fmt.Sprintf("mid%dx", j))
			}
		} else {
			for _, j := range r.Perm(25)[:20] {
				words = append(words, fmt.Sprintf("common%dx", j))
			}
		}
		text := strings.Join(words, " ")
		docs = append(docs, Document{Key: fmt.Sprintf("d%04d", i), Text: []byte(text), Size: int64(len(text))})
	}
	for name, docs := range map[string][]Document{"uneven": docs, "zipf": testCorpus(3000, 21)} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			buildIndex(t, dir, docs, WriterOptions{})
			mustCheck(t, dir)
			ix, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			shared := 0
			for _, s := range ix.Segments() {
				q, err := s.Quality()
				if err != nil {
					t.Fatal(err)
				}
				shared += q.SharedTerms
				t.Logf("%s: %d documents, %d shared terms in %d+%d rows, worst fill %.3f, mean %.3f, false positives %d (model %.1f)",
					s.Name(), s.NumDocs(), q.SharedTerms, s.SharedRows(), s.HighRows(), q.WorstFill, q.MeanFill, q.MeasuredFP, q.PredictedFP)
				if q.WorstFill > math.Ln2 {
					t.Errorf("%s: a document fills %.3f of the shared rows, more than ln 2", s.Name(), q.WorstFill)
				}
			}
			if shared == 0 {
				t.Fatal("no shared terms: the test needs some")
			}
		})
	}
}
