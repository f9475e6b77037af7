package index_test

import (
	"fmt"
	"log"
	"os"

	"github.com/bitsieve/bitsieve/index"
)

// ExampleOpenWriter shows an index's life cycle: a first commit, a snapshot
// opened on it, an update through a second writer, the snapshot seeing that
// it is no longer current, and a check of the result.
func ExampleOpenWriter() {
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
		{Key: "a.txt", Title: "A", Text: []byte("bit-sliced signatures")},
		{Key: "b.txt", Title: "B", Text: []byte("an inverted index")},
	} {
		if err := w.Add(d); err != nil {
			log.Fatal(err)
		}
	}
	st, err := w.Commit()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("generation", st.Generation, "added", st.Added)

	ix, err := index.Open(dir) // a snapshot: later commits do not change it
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	w, err = index.OpenWriter(dir, index.WriterOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Add(index.Document{Key: "a.txt", Title: "A", Text: []byte("bit-sliced signature files")}); err != nil {
		log.Fatal(err)
	}
	if err := w.Delete("b.txt"); err != nil {
		log.Fatal(err)
	}
	if st, err = w.Commit(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("generation", st.Generation, "replaced", st.Replaced, "deleted", st.Deleted)
	fmt.Println("snapshot current:", ix.IsCurrent(), "documents:", ix.NumDocs())

	rep, err := index.Check(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("check: documents", rep.Docs, "problems", len(rep.Problems))
	// Output:
	// generation 1 added 2
	// generation 2 replaced 1 deleted 1
	// snapshot current: false documents: 2
	// check: documents 1 problems 0
}
