package index

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/sectioned"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/tokenize"
)

// freqsDocs is a generated corpus with what section 13 must get right: terms
// with private rows, plain and chunked lists (a rare word in a run of
// neighbouring documents), and frequencies from 255 on, of a common word
// and of a rare one.
func freqsDocs() []Document {
	docs := testCorpus(4000, 13)
	for i := 300; i < 340; i++ {
		docs[i].Text = append(docs[i].Text, " clusterx"...)
	}
	docs[500].Text = append(docs[500].Text, strings.Repeat(" "+commonWord(docs), 300)...)
	docs[501].Text = append(docs[501].Text, strings.Repeat(" rarex", 256)+" rarex"...)
	docs[502].Text = append(docs[502].Text, " rarex"...)
	docs[503].Text = append(docs[503].Text, strings.Repeat(" rarex", 254)...)
	for i := range docs {
		docs[i].Size = int64(len(docs[i].Text))
	}
	return docs
}

// commonWord returns the word found in the most documents, stop words
// aside.
func commonWord(docs []Document) string {
	a := tokenize.MustNew("english")
	df := map[string]int{}
	for _, d := range docs {
		words := strings.Fields(string(d.Text))
		slices.Sort(words)
		for _, w := range slices.Compact(words) {
			df[w]++
		}
	}
	best := ""
	for w, n := range df {
		if term, _ := a.Term(w); term != "" && (n > df[best] || n == df[best] && w < best) {
			best = w
		}
	}
	return best
}

// TestFreqsMatchForward reads, for every document of every segment, the
// frequency of each of its terms through segment.Segment.FreqsOf and segment.Freqs.Of, and
// compares it with its forward entry's: equal, or not given (only for a tf
// from 255 on, and for terms whose frequencies section 13 does not keep);
// a term the document lacks reads 0. The lengths section gives each
// document's length.
func TestFreqsMatchForward(t *testing.T) {
	dir := t.TempDir()
	buildIndex(t, dir, freqsDocs(), WriterOptions{})
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	kinds := map[string]int{}
	var es []segment.Entry
	for si, s := range ix.Segments() {
		if err := s.LoadTerms(); err != nil {
			t.Fatal(err)
		}
		freqs := map[segment.TermID]*segment.Freqs{} // the terms with frequencies in section 13
		s.Terms(func(term string, id segment.TermID) bool {
			if es, err = ix.Lookup(term, es[:0]); err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				if e.Seg != si {
					continue
				}
				f, ok := s.FreqsOf(e)
				tr := s.Treatment(id)
				switch {
				case ok && tr.Private:
					kinds["private"]++
				case ok && tr.List && !s.List(id).Chunked():
					kinds["plain list"]++
				case ok && tr.List && s.List(id).Chunked():
					kinds["chunked list"]++
				case !ok && !tr.List && !tr.Private:
					kinds["shared"]++
				default:
					t.Fatalf("%s: term %q (%+v): FreqsOf says %v", s.Name(), term, tr, ok)
				}
				if ok {
					freqs[id] = &f
				}
			}
			return true
		})
		var post []segment.Posting
		for d := 0; d < s.NumDocs(); d++ {
			if post, err = s.Forward(post[:0], d); err != nil {
				t.Fatal(err)
			}
			if s.DocTokens(d) != s.Doc(d).Tokens {
				t.Fatalf("%s: document %d has length %d, its record says %d", s.Name(), d, s.DocTokens(d), s.Doc(d).Tokens)
			}
			holds := map[segment.TermID]bool{}
			for _, p := range post {
				holds[p.Term] = true
				f, ok := freqs[p.Term]
				if !ok {
					continue
				}
				tf, ok := f.Of(d)
				switch {
				case !ok && p.TF >= 255: // a frequency byte saturates at 255
					kinds["saturated"]++
				case !ok || tf != p.TF:
					t.Fatalf("%s: document %d, term %d: Of gives %d (%v), the forward entry %d", s.Name(), d, p.Term, tf, ok, p.TF)
				}
			}
			for id, f := range freqs { // absent terms read 0
				if holds[id] {
					continue
				}
				if tf, ok := f.Of(d); tf != 0 || !ok {
					t.Fatalf("%s: document %d lacks term %d, Of gives %d (%v)", s.Name(), d, id, tf, ok)
				}
				break
			}
		}
	}
	for _, k := range []string{"private", "plain list", "chunked list", "shared", "saturated"} {
		if kinds[k] == 0 {
			t.Errorf("no %s in the corpus: %v", k, kinds)
		}
	}
	t.Logf("terms and hits: %v", kinds)
	mustCheck(t, dir)
}

// TestCheckFindsWrongFreqs changes one byte of section 13, one of section
// 14 and the newline count of section 7's first block of a segment, with
// their checksums made to match, as a faulty writer would: check must name
// each section.
func TestCheckFindsWrongFreqs(t *testing.T) {
	for _, name := range []string{"frequencies", "lengths", "blocks"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			buildIndex(t, dir, freqsDocs(), WriterOptions{})
			m, err := readManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, m.Segments[0].File)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sec := sectionNamed(t, data, name)
			at := sec.Offset + sec.Length - 1 // the last list's or document's
			if name == "frequencies" {
				blocks := (m.Segments[0].Docs + bitrow.BlockDocs - 1) / bitrow.BlockDocs
				at = sec.Offset + 4*uint64(blocks*privateRowsOf(t, dir))
			}
			if name == "blocks" {
				at = sec.Offset + 14 // offset, compressed length, raw length, newlines
			}
			data[at]++
			rechecksum(t, data)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Check(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("section %s", name)
			for _, p := range rep.Problems {
				if strings.Contains(p.Error(), want) && strings.Contains(p.Error(), m.Segments[0].File) {
					return
				}
			}
			t.Fatalf("check does not name %s of %s: %v", want, m.Segments[0].File, rep.Problems)
		})
	}
}

// privateRowsOf is the count of private rows of the first segment of the
// index in dir.
func privateRowsOf(t *testing.T, dir string) int {
	t.Helper()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	n := ix.Segments()[0].PrivateRows()
	if n == 0 {
		t.Fatal("the segment has no private rows")
	}
	return n
}

// rechecksum makes every section's checksum, and the table's, match the
// file's bytes (internal/sectioned gives the layout).
func rechecksum(t *testing.T, data []byte) {
	t.Helper()
	le := binary.LittleEndian
	tail := data[len(data)-sectioned.TailSize:]
	n := int(le.Uint32(tail))
	start := len(data) - sectioned.TailSize - n*sectioned.TableEntry
	for i := 0; i < n; i++ {
		e := data[start+i*sectioned.TableEntry:]
		off, length := le.Uint64(e[8:]), le.Uint64(e[16:])
		le.PutUint32(e[24:], sectioned.Checksum(data[off:off+length]))
	}
	// The table's checksum covers the table and the tail's count field.
	le.PutUint32(tail[4:], sectioned.Checksum(data[start:len(data)-sectioned.TailSize+4]))
}
