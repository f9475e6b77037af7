package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// readAbout reads the Markdown pages about bitsieve itself (written for this
// sample, under the project's licence): one document per file, titled by its
// first "# " line, in the order of their names (a numeric prefix orders them
// and is left out of the id).
func readAbout(dir string) ([]doc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var docs []doc
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		title, body, _ := strings.Cut(string(b), "\n")
		docs = append(docs, doc{
			ID:    "bitsieve/" + strings.TrimLeft(strings.TrimSuffix(filepath.Base(f), ".md"), "0123456789-"),
			Title: "bitsieve — " + strings.TrimPrefix(title, "# "),
			Body:  tidy(body),
		})
	}
	return docs, nil
}
