// Command phrasegen writes phrase queries made from a corpus's own lines,
// one per line, for benchmarks and exactness runs (bench.PhraseQueries):
//
//	go run ./tools/phrasegen [-n 300] [-seed 1] [-plain] PATH > phrases.txt
//
// PATH is a directory (read as `bitsieve index` reads one) or a JSONL file.
// With -plain the quotes are left out: the same words, ANDed, for comparing a
// phrase with its words.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/bitsieve/bitsieve/bench"
	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/tokenize"
)

func main() {
	n := flag.Int("n", 300, "queries to write")
	seed := flag.Uint64("seed", 1, "seed of the random choices")
	plain := flag.Bool("plain", false, "write the words without quotes")
	lang := flag.String("lang", tokenize.DefaultLanguage, "analyzer language")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: phrasegen [-n N] [-seed S] [-plain] PATH")
		os.Exit(2)
	}
	an, err := tokenize.New(*lang)
	if err != nil {
		fmt.Fprintln(os.Stderr, "phrasegen:", err)
		os.Exit(2)
	}
	var docs []corpus.Document
	if _, err := corpus.Read(flag.Arg(0), corpus.WalkOptions{}, func(d corpus.Document) error {
		docs = append(docs, d)
		return nil
	}); err != nil {
		fmt.Fprintln(os.Stderr, "phrasegen:", err)
		os.Exit(1)
	}
	for _, q := range bench.PhraseQueries(docs, *n, *seed, an) {
		if *plain {
			q = strings.Trim(q, `"`)
		}
		fmt.Println(q)
	}
}
