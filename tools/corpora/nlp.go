package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// nlp-corpus ships builds/doc-N.json, each a JSON array of strings: English
// sentences and short passages (lyrics, transcripts, SMS, speeches, fiction,
// forum posts) in random order. Each string is one document, id
// "nlp:doc-N/I" (I its index in the array). The texts have no titles.

// nlpDocs converts every doc-N.json under dir in numeric order of N.
func nlpDocs(dir string, emit func(Doc) error) error {
	paths, err := filepath.Glob(filepath.Join(dir, "doc-*.json"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s: no doc-*.json files found", dir)
	}
	num := func(p string) int {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "doc-"), ".json"))
		if err != nil {
			return -1
		}
		return n
	}
	sort.Slice(paths, func(i, j int) bool {
		if ni, nj := num(paths[i]), num(paths[j]); ni != nj {
			return ni < nj
		}
		return paths[i] < paths[j]
	})
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var texts []string
		if err := json.Unmarshal(data, &texts); err != nil {
			return fmt.Errorf("%s: want a JSON array of strings: %w", path, err)
		}
		base := strings.TrimSuffix(filepath.Base(path), ".json")
		for i, t := range texts {
			t = strings.TrimSpace(t)
			if t == "" {
				continue
			}
			if err := emit(Doc{ID: "nlp:" + base + "/" + strconv.Itoa(i), Body: t}); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return nil
}

func runNLP(args []string) error {
	fs := flag.NewFlagSet("nlp", flag.ContinueOnError)
	out := fs.String("o", "", "output JSONL file")
	if err := parseFlags(fs, args, 1, 1); err != nil {
		return err
	}
	return writeAll(*out, "nlp", func(jw *JSONLWriter) error {
		return nlpDocs(fs.Arg(0), jw.Write)
	})
}
