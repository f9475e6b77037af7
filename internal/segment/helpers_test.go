package segment

import (
	"bytes"
	"testing"

	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/internal/inplace"
	"github.com/bitsieve/bitsieve/tokenize"
)

// testCorpus makes n analyzed documents of the test kit's corpus
// (kit.Corpus), their texts cut to at most maxText bytes (0: any).
func testCorpus(n int, seed uint64, maxText int) []*Doc {
	an := NewAnalysis(tokenize.DefaultLanguage)
	docs := make([]*Doc, n)
	for i, d := range kit.Corpus(n, seed) {
		if maxText > 0 && len(d.Text) > maxText {
			d.Text = d.Text[:maxText]
		}
		docs[i] = &Doc{Key: d.Key, Title: d.Title, Text: d.Text, Size: int64(len(d.Text))}
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
