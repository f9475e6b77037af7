package segment

import (
	"bytes"
	"testing"
)

// TestBuildReadRebuild builds a segment, checks every invariant of what it
// reads back, and rebuilds it from its own documents (DocReader, as
// compaction does): the file must come out byte for byte the same, and so
// must every document's terms, positions and text.
func TestBuildReadRebuild(t *testing.T) {
	docs := testCorpus(700, 9, 0)
	data, dict := buildFile(t, docs, DefaultParams)
	s := openFile(t, data, dict)
	if errs := s.Check(); len(errs) > 0 {
		t.Fatalf("check: %v", errs)
	}
	if s.NumDocs() != len(docs) || s.NumTerms() != len(dict.Words) {
		t.Fatalf("%d documents and %d terms, want %d and %d", s.NumDocs(), s.NumTerms(), len(docs), len(dict.Words))
	}
	for i, w := range dict.Words {
		if id, ok := s.Lookup(w); !ok || uint32(id) != dict.IDs[i] {
			t.Fatalf("Lookup(%q) = %d, %v; want %d", w, id, ok, dict.IDs[i])
		}
	}
	r, err := s.NewDocReader()
	if err != nil {
		t.Fatal(err)
	}
	again := make([]*Doc, s.NumDocs())
	for d := range again {
		if again[d], err = r.Doc(d); err != nil {
			t.Fatal(err)
		}
		a, b := docs[d], again[d]
		if a.Key != b.Key || !bytes.Equal(a.Text, b.Text) || !bytes.Equal(a.Pos, b.Pos) || a.Tokens != b.Tokens || len(a.Terms) != len(b.Terms) {
			t.Fatalf("document %d (%s) does not come back as it was built", d, a.Key)
		}
		for i := range a.Terms {
			if a.Terms[i] != b.Terms[i] {
				t.Fatalf("document %d: term %d is %v, was %v", d, i, b.Terms[i], a.Terms[i])
			}
		}
	}
	rebuilt, _ := buildFile(t, again, DefaultParams)
	if !bytes.Equal(rebuilt, data) {
		t.Fatalf("the rebuilt segment differs: %d bytes, was %d", len(rebuilt), len(data))
	}
}
