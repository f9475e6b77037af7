package kit

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/bitsieve/bitsieve/corpus"
)

// Corpus makes n documents over a Zipfian vocabulary of English-like words
// (two to four syllables) with one word in five a stop word, separated by
// spaces and newlines; a document has from 1 to 512 words. Keys are
// doc-00000, doc-00001, ..., titles Doc 0, Doc 1, ..., and Size is the
// text's length.
func Corpus(n int, seed uint64) []corpus.Document {
	r := rand.New(rand.NewPCG(seed, 3))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sta", "tor", "vin", "qua", "ber", "dis", "pre"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for j := 0; j < 2+r.IntN(3); j++ {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = b.String()
	}
	stops := []string{"the", "of", "and", "a", "to", "in", "is", "it"}
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(vocab)-1))
	docs := make([]corpus.Document, n)
	for i := range docs {
		words := 1 + r.IntN(1<<uint(1+r.IntN(9)))
		var b strings.Builder
		for j := 0; j < words; j++ {
			if r.IntN(5) == 0 {
				b.WriteString(stops[r.IntN(len(stops))])
			} else {
				b.WriteString(vocab[zipf.Uint64()])
			}
			b.WriteByte(" \n"[r.IntN(2)])
		}
		docs[i] = document(fmt.Sprintf("doc-%05d", i), fmt.Sprintf("Doc %d", i), b.String())
	}
	return docs
}

// CodeCorpus makes n source-like documents for the code analyzer: lines of
// identifiers in camel, snake and upper case, qualified by ., ::, -> and /,
// with numbers and a few keywords, over a Zipfian vocabulary of parts. Keys
// are code/00000.go, code/00001.go, ..., with no title.
func CodeCorpus(n int, seed uint64) []corpus.Document {
	r := rand.New(rand.NewPCG(seed, 5))
	syll := []string{"wa", "it", "gro", "up", "add", "mu", "tex", "lo", "ck", "ser", "ver", "url", "id", "http", "rd"}
	parts := make([]string, 400)
	for i := range parts {
		var b strings.Builder
		for j := 0; j < 1+r.IntN(3); j++ {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if r.IntN(8) == 0 {
			fmt.Fprint(&b, r.IntN(100))
		}
		parts[i] = b.String()
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(parts)-1))
	ident := func() string {
		var b strings.Builder
		k := 1 + r.IntN(3)
		style := r.IntN(4)
		for j := 0; j < k; j++ {
			p := parts[zipf.Uint64()]
			switch {
			case style == 1 && j > 0: // snake_case
				b.WriteString("_")
			case style == 2: // UPPER_CASE
				p = strings.ToUpper(p)
				if j > 0 {
					b.WriteString("_")
				}
			case style != 1 && (j > 0 || r.IntN(2) == 0): // camelCase, PascalCase
				p = strings.ToUpper(p[:1]) + p[1:]
			}
			b.WriteString(p)
		}
		return b.String()
	}
	seps := []string{".", ".", "::", "->", "/", " ", " ", "(", ") ", ", ", " = ", "\n\t", "\n"}
	keywords := []string{"if", "for", "return", "func", "var", "go"}
	docs := make([]corpus.Document, n)
	for i := range docs {
		var b strings.Builder
		for range 1 + r.IntN(1<<uint(1+r.IntN(8))) {
			if r.IntN(6) == 0 {
				b.WriteString(keywords[r.IntN(len(keywords))])
			} else {
				b.WriteString(ident())
			}
			b.WriteString(seps[r.IntN(len(seps))])
		}
		docs[i] = document(fmt.Sprintf("code/%05d.go", i), "", b.String())
	}
	return docs
}

func document(key, title, text string) corpus.Document {
	return corpus.Document{Key: key, Title: title, Text: []byte(text), Size: int64(len(text))}
}
