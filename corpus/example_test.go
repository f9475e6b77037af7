package corpus_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bitsieve/bitsieve/corpus"
)

func ExampleWalk() {
	root, _ := os.MkdirTemp("", "walk")
	defer os.RemoveAll(root)
	os.MkdirAll(filepath.Join(root, "notes", ".git"), 0o755)
	os.WriteFile(filepath.Join(root, "notes", "todo.txt"), []byte("buy milk"), 0o644)
	os.WriteFile(filepath.Join(root, "notes", "image.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o644)
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# Notes"), 0o644)

	st, err := corpus.Walk(root, corpus.WalkOptions{}, func(d corpus.Document) error {
		fmt.Printf("%s: %q\n", d.Key, d.Text)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range st.Skipped {
		fmt.Println("skipped", s)
	}
	fmt.Println(st.Summary())
	// Output:
	// README.md: "# Notes"
	// notes/todo.txt: "buy milk"
	// skipped notes/.git: vcs
	// skipped notes/image.png: binary
	// 2 documents, 15 B; skipped 2 (binary 1, vcs 1)
}

func ExampleReadJSONL() {
	input := `{"id": "q1", "title": "Question", "body": "What is a Bloom filter?"}
{"id": 2, "text": "A set with false positives."}
{"id": "q3", "title": "no body"}
`
	st, _ := corpus.ReadJSONL(strings.NewReader(input), "faq.jsonl", func(d corpus.Document) error {
		fmt.Printf("%s: %q\n", d.Key, d.Text)
		return nil
	})
	for _, s := range st.Skipped {
		fmt.Println("skipped", s)
	}
	// Output:
	// q1: "Question\nWhat is a Bloom filter?"
	// 2: "\nA set with false positives."
	// skipped faq.jsonl:3: no-body: body is missing
}
