package index

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/tokenize"
)

// genDocs makes n documents of Zipf-distributed words over a vocabulary, with
// lengths spread over several length classes.
func genDocs(n int, seed uint64) []Document {
	r := rand.New(rand.NewPCG(seed, 1))
	zipf := rand.NewZipf(r, 1.1, 1, 5000)
	docs := make([]Document, n)
	for i := range docs {
		words := 1 + r.IntN(1<<uint(1+r.IntN(10)))
		var b strings.Builder
		for j := 0; j < words; j++ {
			fmt.Fprintf(&b, "w%dx ", zipf.Uint64())
		}
		docs[i] = Document{Key: fmt.Sprintf("doc-%05d", i), Title: fmt.Sprintf("Doc %d", i), Text: []byte(b.String())}
		docs[i].Size = int64(len(docs[i].Text))
	}
	return docs
}

func buildIndex(t testing.TB, dir string, docs []Document, opt WriterOptions) WriteStats {
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
	return st
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	docs := genDocs(3000, 1)
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
	a := tokenize.MustNew("english")
	byKey := map[string]Document{}
	for _, d := range docs {
		byKey[d.Key] = d
	}
	for _, s := range ix.Segments() {
		var post []Posting
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

func TestTreatment(t *testing.T) {
	p := DefaultParams
	if tr := p.treat(6554, 65536); !tr.Private {
		t.Errorf("df/n = 0.1 should get a private row, got %+v", tr)
	}
	// In a 100-document segment a row is 512 bits: a list of 10 is smaller.
	if tr := p.treat(10, 100); !tr.List {
		t.Errorf("df 10 of 100 should get a list, got %+v", tr)
	}
	// At density 0.1 a list is smaller than k ≥ 2 shared rows.
	if tr := p.treat(3000, 65536); !tr.List {
		t.Errorf("f=0.046: got %+v, want a list", tr)
	}
	// At density 0.5, k shared rows cost 2k bits a posting, a list 16:
	// f = 0.05, snr 20: ceil(ln(0.0025)/ln(0.5)) = 9 rows, a list;
	// snr 1: ceil(ln(0.05)/ln(0.5)) = 5 shared rows.
	half := Params{Density: 0.5, SNR: 20, KMin: 1, KMax: 12, ListDensity: 1.0 / 1024}
	if tr := half.treat(3277, 65536); !tr.List {
		t.Errorf("density 0.5, snr 20, f=0.05: got %+v, want a list", tr)
	}
	half.SNR = 1
	if tr := half.treat(3277, 65536); tr.List || tr.K != 5 {
		t.Errorf("density 0.5, snr 1, f=0.05: got %+v, want k=5", tr)
	}
	noLists := p
	noLists.ListDensity = 0
	// f = 0.05: ceil(ln(0.005)/ln(0.1)) = 3.
	if tr := noLists.treat(5, 100); tr.Private || tr.List || tr.K != 3 {
		t.Errorf("f=0.05: got %+v, want k=3", tr)
	}
	// f = 1/65536: a list by default; without lists
	// ceil(ln(1.53e-6)/ln(0.1)) = 6 shared rows.
	if tr := p.treat(1, 65536); !tr.List {
		t.Errorf("f=1/65536: got %+v, want a list", tr)
	}
	if tr := p.treat(1, MaxListDocs+1); tr.List {
		t.Errorf("a segment of %d documents got a list: %+v", MaxListDocs+1, tr)
	}
	if tr := noLists.treat(1, 65536); tr.List || tr.K != 6 {
		t.Errorf("f=1/65536 without lists: got %+v, want k=6", tr)
	}
	if m := p.sharedRowCount(3000, 1000); m != 30 {
		t.Errorf("m = %d, want 30", m)
	}
}

func TestCorruptionDetected(t *testing.T) {
	dir := t.TempDir()
	buildIndex(t, dir, genDocs(500, 2), WriterOptions{})
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	seg := ix.Segments()[0]
	secs := seg.secs
	path := seg.path
	ix.Close()
	orig, _ := os.ReadFile(path)
	for id, sec := range secs {
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
			t.Errorf("flip in section %s not detected", SectionName(id))
		} else if !strings.Contains(rep.Problems[0].Error(), filepath.Base(path)) {
			t.Errorf("problem does not name the file: %v", rep.Problems[0])
		}
		if id != secStore {
			if _, err := Open(dir); !errors.Is(err, ErrCorrupt) {
				t.Errorf("Open with damaged %s: err = %v, want ErrCorrupt", SectionName(id), err)
			}
		}
	}
	os.WriteFile(path, orig[:len(orig)-7], 0o644)
	if _, err := Open(dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open of truncated file: err = %v", err)
	}
}
