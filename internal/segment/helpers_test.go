package segment

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/tokenize"
)

// genDocs makes n analyzed documents of Zipf-distributed words over a
// vocabulary, as the index's tests do, of texts at most maxText bytes
// (0: any).
func genDocs(n int, seed uint64, maxText int) []*Doc {
	r := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(r, 1.1, 1, 5000)
	an := NewAnalysis(tokenize.DefaultLanguage)
	docs := make([]*Doc, n)
	for i := range docs {
		words := 1 + r.IntN(1<<uint(1+r.IntN(10)))
		var b strings.Builder
		for j := 0; j < words; j++ {
			fmt.Fprintf(&b, "w%dx ", zipf.Uint64())
		}
		text := []byte(b.String())
		if maxText > 0 && len(text) > maxText {
			text = text[:maxText]
		}
		docs[i] = &Doc{Key: fmt.Sprintf("doc-%05d", i), Title: fmt.Sprintf("Doc %d", i), Text: text, Size: int64(len(text))}
		an.Analyze(docs[i])
	}
	return docs
}

// buildFile builds docs into the bytes of a segment file, aligned as a
// mapping is, and returns them with the segment's dictionary.
func buildFile(t testing.TB, docs []*Doc, p Params) ([]byte, *Dict) {
	t.Helper()
	var buf bytes.Buffer
	dict, err := Build(&buf, docs, p, LengthClassOf(len(docs[0].Terms)), tokenize.DefaultLanguage)
	if err != nil {
		t.Fatal(err)
	}
	return aligned(buf.Bytes()), dict
}

// aligned copies b to memory aligned as a mapping is: sections are read in
// place as words.
func aligned(b []byte) []byte {
	words := make([]uint64, (len(b)+7)/8)
	out := inplace.Uint64Bytes(words)
	if out == nil {
		return b
	}
	out = out[:len(b)]
	copy(out, b)
	return out
}

// openFile opens a segment file's bytes, verified, with its dictionary.
func openFile(t testing.TB, data []byte, dict *Dict) *Segment {
	t.Helper()
	s, err := New("00000001.v11.seg", data, VerifyData)
	if err != nil {
		t.Fatal(err)
	}
	s.SetDict(func() (*Dict, error) { return dict, nil })
	return s
}
