package query_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
)

// ExampleSearcher indexes three documents and searches them.
func ExampleSearcher() {
	dir, err := os.MkdirTemp("", "bitsieve-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	w, err := index.Create(dir, index.WriterOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range []index.Document{
		{Key: "bloom.txt", Title: "Bloom filters", Text: []byte("A Bloom filter answers set membership with false positives but no false negatives.")},
		{Key: "bitfunnel.txt", Title: "BitFunnel", Text: []byte("BitFunnel stores Bloom filter signatures as bit-sliced rows.")},
		{Key: "trie.txt", Title: "Tries", Text: []byte("A trie stores strings by their prefixes.")},
	} {
		if err := w.Add(d); err != nil {
			log.Fatal(err)
		}
	}
	if _, err := w.Commit(); err != nil {
		log.Fatal(err)
	}

	ix, err := index.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	s, err := query.NewSearcher(ix)
	if err != nil {
		log.Fatal(err)
	}
	res, err := s.Search(context.Background(), query.Request{Query: `"bloom filter" -membership`, Snippets: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Total, "hit")
	for _, h := range res.Hits {
		fmt.Println(h.Key, "—", h.Title)
		for _, r := range h.Highlights {
			fmt.Printf("  %q\n", h.Snippet[r.Start:r.End])
		}
	}
	// Output:
	// 1 hit
	// bitfunnel.txt — BitFunnel
	//   "Bloom filter"
}
