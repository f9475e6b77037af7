package index

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// testCorpus is the test kit's corpus (kit.Corpus) as Documents.
func testCorpus(n int, seed uint64) []Document {
	cs := kit.Corpus(n, seed)
	docs := make([]Document, len(cs))
	for i, d := range cs {
		docs[i] = Document(d)
	}
	return docs
}

func buildIndex(t testing.TB, dir string, docs []Document, opt WriterOptions) WriteStats {
	t.Helper()
	_, st := buildWriter(t, dir, docs, opt)
	return st
}

// buildWriter is buildIndex, also returning the committed writer.
func buildWriter(t testing.TB, dir string, docs []Document, opt WriterOptions) (*Writer, WriteStats) {
	t.Helper()
	w, err := Create(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	st, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return w, st
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	docs := testCorpus(3000, 1)
	st := buildIndex(t, dir, docs, WriterOptions{Capacity: 700})
	if st.Docs != len(docs) {
		t.Fatalf("committed %d docs, want %d", st.Docs, len(docs))
	}
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.NumDocs() != len(docs) {
		t.Fatalf("NumDocs = %d, want %d", ix.NumDocs(), len(docs))
	}
	// A small index fits in memory: on Linux it is mapped with huge pages.
	if got, want := ix.MapsHuge(), runtime.GOOS == "linux"; got != want {
		t.Fatalf("MapsHuge = %v on %s, want %v", got, runtime.GOOS, want)
	}
	a := tokenize.MustNew("english")
	byKey := map[string]Document{}
	for _, d := range docs {
		byKey[d.Key] = d
	}
	for _, s := range ix.Segments() {
		var post []segment.Posting
		for d := 0; d < s.NumDocs(); d++ {
			info := s.Doc(d)
			want, ok := byKey[info.Key]
			if !ok {
				t.Fatalf("unknown key %q", info.Key)
			}
			if info.Title != want.Title || info.Size != want.Size {
				t.Fatalf("doc %s: table entry %+v", info.Key, info)
			}
			text, err := s.Text(nil, d)
			if err != nil || string(text) != string(want.Text) {
				t.Fatalf("doc %s: text differs (err %v)", info.Key, err)
			}
			post, err = s.Forward(post[:0], d)
			if err != nil {
				t.Fatal(err)
			}
			tf := map[string]int{}
			for _, term := range a.Terms(nil, want.Text) {
				tf[term]++
			}
			if len(post) != len(tf) {
				t.Fatalf("doc %s: %d forward entries, want %d", info.Key, len(post), len(tf))
			}
			for term, c := range tf {
				id, ok := s.Lookup(term)
				if !ok {
					t.Fatalf("doc %s: term %q missing from dictionary", info.Key, term)
				}
				found := false
				for _, p := range post {
					if p.Term == id {
						found = int(p.TF) == c
					}
				}
				if !found {
					t.Fatalf("doc %s: term %q tf mismatch", info.Key, term)
				}
			}
		}
	}
	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("check: %v", rep.Problems)
	}
}

func TestCorruptionDetected(t *testing.T) {
	dir := t.TempDir()
	buildIndex(t, dir, testCorpus(500, 2), WriterOptions{})
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ix.Segments()[0].Name())
	ix.Close()
	orig, _ := os.ReadFile(path)
	secs, err := segment.Sections(path, orig)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range secs {
		if sec.Length == 0 {
			continue
		}
		b := append([]byte(nil), orig...)
		b[sec.Offset+sec.Length/2] ^= 0x40
		os.WriteFile(path, b, 0o644)
		rep, err := Check(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) == 0 {
			t.Errorf("flip in section %s not detected", sec.Name)
		} else if !strings.Contains(rep.Problems[0].Error(), filepath.Base(path)) {
			t.Errorf("problem does not name the file: %v", rep.Problems[0])
		}
		if sec.Name != "store" {
			if _, err := Open(dir); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Open with damaged %s: err = %v, want ErrCorrupt", sec.Name, err)
			}
		}
	}
	os.WriteFile(path, orig[:len(orig)-7], 0o644)
	if _, err := Open(dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open of truncated file: err = %v", err)
	}
}
