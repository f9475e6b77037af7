package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/internal/segment"
	"github.com/bitsieve/bitsieve/query"
)

// sampleWithDeletes indexes the embedded sample in segments of at most 1,000
// documents, then deletes every 97th document by tombstone.
func sampleWithDeletes(t *testing.T, dir string) {
	t.Helper()
	opt := index.WriterOptions{Capacity: 1000, Compact: index.CompactPolicy{Disabled: true}}
	w, err := index.Create(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	if _, err := corpus.Sample(func(d corpus.Document) error {
		keys = append(keys, d.Key)
		return w.Add(index.Document(d))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w, err = index.OpenWriter(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(keys); i += 97 {
		if err := w.Delete(keys[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestResealKeepsDocumentsLayoutAndAnswers(t *testing.T) {
	tmp := t.TempDir()
	src, dst := filepath.Join(tmp, "src"), filepath.Join(tmp, "dst")
	sampleWithDeletes(t, src)
	p := index.Params{Density: 0.2, SNR: 5, KMin: 1, KMax: 12, ListDensity: 0}
	if err := index.Reseal(src, dst, p, index.ResealOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := index.Check(dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("check of the resealed index: %v", rep.Problems)
	}
	a, err := index.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := index.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if rep.Docs != a.NumDocs() || rep.Deleted != 0 || b.NumDocs() != a.NumDocs() || b.Analyzer() != a.Analyzer() {
		t.Fatalf("resealed: %d live, %d deleted documents; source %d live", rep.Docs, rep.Deleted, a.NumDocs())
	}

	// The same segments in the same order, the same documents in each, only
	// the parameters changed.
	as, bs := a.Segments(), b.Segments()
	if len(as) != len(bs) || len(as) < 6 {
		t.Fatalf("%d segments resealed from %d", len(bs), len(as))
	}
	deleted := 0
	for i := range as {
		x, y := as[i], bs[i]
		deleted += x.NumDeleted()
		// A segment records the list density it used: the default, or
		// lower where lists would have held most postings (withTail).
		xp := x.Params()
		if xp.ListDensity > 0 && xp.ListDensity <= index.DefaultParams.ListDensity {
			xp.ListDensity = index.DefaultParams.ListDensity
		}
		if y.Params() != p || xp != index.DefaultParams {
			t.Fatalf("segment %d: params %+v (source %+v), want %+v", i, y.Params(), x.Params(), p)
		}
		if y.LengthClass() != x.LengthClass() || y.NumDocs() != x.NumLive() || y.NumLive() != y.NumDocs() {
			t.Fatalf("segment %d: class %d, %d documents; source class %d, %d live", i, y.LengthClass(), y.NumDocs(), x.LengthClass(), x.NumLive())
		}
		if y.NumLists() != 0 {
			t.Fatalf("segment %d has %d lists with list density 0", i, y.NumLists())
		}
		yd := 0
		for d := 0; d < x.NumDocs(); d++ {
			if !x.IsLive(d) {
				continue
			}
			xi, yi := x.Doc(d), y.Doc(yd)
			if xi != yi {
				t.Fatalf("segment %d: document %d is %+v, resealed as %d: %+v", i, d, xi, yd, yi)
			}
			yd++
		}
	}
	if deleted == 0 {
		t.Fatal("the source has no deleted documents: the test lost its point")
	}

	// The same answers, by key, from both engines over the resealed index.
	post, err := inverted.Build(b, inverted.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer post.Close()
	sa, err := query.NewSearcher(a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := query.NewSearcher(b)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := inverted.NewSearcher(b, post)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	qs := append(wordsOf(t, a, 150), "python exception", `"standard library"`, "lambda -python", "pyth*", "file OR directory", "whale -ship", "zzzzqqq")
	for _, q := range qs {
		ma, erra := sa.Matches(ctx, q)
		mb, err := sb.Matches(ctx, q)
		if erra != nil || err != nil {
			if erra == nil || err == nil || erra.Error() != err.Error() {
				t.Fatalf("%q: source error %v, resealed error %v", q, erra, err)
			}
			continue // refused alike (stop words)
		}
		mi, err := ib.Matches(ctx, q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		ka, kb, ki := matchKeys(a, ma), matchKeys(b, mb), matchKeys(b, mi)
		if !slices.Equal(ka, kb) || !slices.Equal(kb, ki) {
			t.Fatalf("%q: source %d matches, resealed %d (inverted %d)", q, len(ka), len(kb), len(ki))
		}
		ra, err := sa.Search(ctx, query.Request{Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		rb, err := sb.Search(ctx, query.Request{Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if ra.Total != rb.Total || !slices.EqualFunc(ra.Hits, rb.Hits, func(x, y query.Hit) bool { return x.Key == y.Key && x.Score == y.Score }) {
			t.Fatalf("%q: first pages differ", q)
		}
	}
}

// wordsOf draws n queries of one or two words from the texts of ix.
func wordsOf(t *testing.T, ix *index.Index, n int) []string {
	var out []string
	for si, s := range ix.Segments() {
		r := s.NewTextReader()
		for d := si; d < s.NumDocs() && len(out) < n*(si+1)/len(ix.Segments()); d += 37 {
			text, err := r.Text(d)
			if err != nil {
				t.Fatal(err)
			}
			words := strings.FieldsFunc(string(text), func(c rune) bool { return !('a' <= c && c <= 'z') })
			if len(words) < 2 {
				continue
			}
			i := (d * 7) % (len(words) - 1)
			if d%2 == 0 {
				out = append(out, words[i])
			} else {
				out = append(out, words[i]+" "+words[i+1])
			}
		}
	}
	return out
}

func matchKeys(ix *index.Index, m *query.Matches) []string {
	var keys []string
	for si, docs := range m.Docs {
		for _, d := range docs {
			keys = append(keys, ix.Segments()[si].DocKey(int(d)))
		}
	}
	slices.Sort(keys)
	return keys
}

func TestResealRefusesAndCleansUp(t *testing.T) {
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	w, err := index.Create(src, index.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		w.Add(index.Document{Key: fmt.Sprint(i), Text: []byte(fmt.Sprintf("word%d common text", i%7))})
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}

	// A directory with anything in it is refused and left alone.
	full := filepath.Join(tmp, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o644)
	if err := index.Reseal(src, full, index.DefaultParams, index.ResealOptions{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("reseal into a non-empty directory: %v", err)
	}
	if ents, _ := os.ReadDir(full); len(ents) != 1 {
		t.Fatalf("the refused directory holds %d entries", len(ents))
	}
	if err := index.Reseal(src, src, index.DefaultParams, index.ResealOptions{}); err == nil {
		t.Fatal("reseal of an index onto itself succeeded")
	}

	// Bad parameters and a missing source leave nothing behind.
	bad := filepath.Join(tmp, "bad")
	if err := index.Reseal(src, bad, index.Params{Density: 0.1, SNR: 10, KMin: 1, KMax: 12, ListDensity: 0.5}, index.ResealOptions{}); err == nil {
		t.Fatal("a list density above the row density was accepted")
	}
	if err := index.Reseal(filepath.Join(tmp, "nothing"), bad, index.DefaultParams, index.ResealOptions{}); err == nil {
		t.Fatal("reseal of a missing index succeeded")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatalf("a failed reseal left %s: %v", bad, err)
	}

	// An existing empty directory is fine; the zero Params are the defaults.
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	if err := index.Reseal(src, empty, index.Params{}, index.ResealOptions{}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.NumDocs() != 50 || ix.Segments()[0].Params() != index.DefaultParams {
		t.Fatalf("%d documents, params %+v", ix.NumDocs(), ix.Segments()[0].Params())
	}
	if err := (index.Params{}).Validate(); err == nil {
		t.Fatal("the zero Params validated")
	}
}

// TestResealOrders reseals with documents shuffled and sorted by MinHash:
// every segment keeps its documents (in another order), and both engines
// give the source's answers.
func TestResealOrders(t *testing.T) {
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	sampleWithDeletes(t, src)
	a, err := index.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sa, err := query.NewSearcher(a)
	if err != nil {
		t.Fatal(err)
	}
	qs := append(wordsOf(t, a, 80), "python exception", `"standard library"`, "lambda -python", "pyth*", "file OR directory")
	for _, o := range []segment.DocOrder{segment.OrderShuffled, segment.OrderMinHash} {
		dst := filepath.Join(tmp, o.String())
		if err := index.Reseal(src, dst, index.DefaultParams, index.ResealOptions{Order: o, Seed: 3}); err != nil {
			t.Fatal(err)
		}
		if rep, err := index.Check(dst); err != nil || len(rep.Problems) > 0 {
			t.Fatalf("%v: check: %v %v", o, err, rep)
		}
		b, err := index.Open(dst)
		if err != nil {
			t.Fatal(err)
		}
		moved := 0
		for i, x := range a.Segments() {
			y := b.Segments()[i]
			var kx, ky []string
			for d := 0; d < x.NumDocs(); d++ {
				if x.IsLive(d) {
					kx = append(kx, x.DocKey(d))
				}
			}
			for d := 0; d < y.NumDocs(); d++ {
				ky = append(ky, y.DocKey(d))
				if d < len(kx) && ky[d] != kx[d] {
					moved++
				}
			}
			slices.Sort(kx)
			slices.Sort(ky)
			if !slices.Equal(kx, ky) {
				t.Fatalf("%v: segment %d holds other documents", o, i)
			}
		}
		if moved == 0 {
			t.Fatalf("%v: no document moved", o)
		}
		sb, err := query.NewSearcher(b)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for _, q := range qs {
			ma, erra := sa.Matches(ctx, q)
			mb, errb := sb.Matches(ctx, q)
			if erra != nil || errb != nil {
				if erra == nil || errb == nil {
					t.Fatalf("%v %q: errors %v, %v", o, q, erra, errb)
				}
				continue
			}
			if !slices.Equal(matchKeys(a, ma), matchKeys(b, mb)) {
				t.Fatalf("%v %q: answers differ", o, q)
			}
			ra, _ := sa.Search(ctx, query.Request{Query: q, Limit: 10})
			rb, _ := sb.Search(ctx, query.Request{Query: q, Limit: 10})
			if !slices.EqualFunc(ra.Hits, rb.Hits, func(x, y query.Hit) bool { return x.Key == y.Key && x.Score == y.Score }) {
				t.Fatalf("%v %q: first pages differ", o, q)
			}
		}
		b.Close()
	}
}
