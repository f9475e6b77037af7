package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// segmentOracles reads every stored text of the snapshot (deleted
// documents included, as df counts them) into one test kit oracle per
// segment, whose terms and their holders are what the lexicon must say.
func segmentOracles(t testing.TB, ix *Index) []*kit.Oracle {
	t.Helper()
	out := make([]*kit.Oracle, len(ix.Segments()))
	for si, s := range ix.Segments() {
		out[si] = kit.NewOracle(ix.Analyzer())
		for d := 0; d < s.NumDocs(); d++ {
			text, err := s.Text(nil, d)
			if err != nil {
				t.Fatal(err)
			}
			out[si].Add(s.DocKey(d), text)
		}
	}
	return out
}

// checkLexicon compares every lookup and a set of prefix expansions with the
// brute-force answer.
func checkLexicon(t *testing.T, ix *Index) {
	t.Helper()
	truth := segmentOracles(t, ix)
	df := func(si int, w string) int { return len(truth[si].Holders(w)) }
	all := map[string]bool{}
	for _, o := range truth {
		for _, w := range o.Terms() {
			all[w] = true
		}
	}
	words := make([]string, 0, len(all))
	for w := range all {
		words = append(words, w)
	}
	sort.Strings(words)
	if n := ix.lex.numWords(); n != len(words) {
		t.Fatalf("lexicon holds %d words, the documents %d", n, len(words))
	}
	var es []segment.Entry
	for _, w := range words {
		var err error
		if es, err = ix.Lookup(w, es[:0]); err != nil {
			t.Fatal(err)
		}
		var want []int
		for si := range truth {
			if df(si, w) > 0 {
				want = append(want, si)
			}
		}
		if len(es) != len(want) {
			t.Fatalf("%q: %d entries, want segments %v", w, len(es), want)
		}
		// Again: the entries were checked, and are now only decoded.
		again, err := ix.Lookup(w, nil)
		if err != nil || !slices.Equal(again, es) {
			t.Fatalf("%q looked up again: %+v, %v; the first time %+v", w, again, err, es)
		}
		for i, e := range es {
			s := ix.Segments()[e.Seg]
			if e.Seg != want[i] || e.DF != df(e.Seg, w) {
				t.Fatalf("%q: entry %+v, want segment %d with df %d", w, e, want[i], df(want[i], w))
			}
			if id, ok := s.Lookup(w); !ok || id != e.ID || s.DF(id) != e.DF || s.Treatment(id) != e.Treatment() {
				t.Fatalf("%q: the segment's own view disagrees with entry %+v", w, e)
			}
		}
	}
	// Absent words: before the first, after the last, between any two, and
	// beside every word: a byte longer or shorter, its last byte one up or
	// down (a lookup scans a block's words without rebuilding them).
	absent := []string{"", "\x00", "zzzzzzzzzzzz", words[0] + "\x00", words[len(words)/2] + "zz", "!"}
	for _, w := range words {
		last := len(w) - 1
		absent = append(absent, w+"\x00", w+"a", w+"~", w[:last], w[:last]+string(w[last]+1), w[:last]+string(w[last]-1))
	}
	for _, w := range absent {
		if all[w] {
			continue
		}
		if es, err := ix.Lookup(w, es[:0]); err != nil || len(es) != 0 {
			t.Fatalf("absent word %q: %v, %v", w, es, err)
		}
	}
	for _, p := range []string{"", "a", "co", "th", words[len(words)/3][:1], words[len(words)/2]} {
		var got []string
		if err := ix.Prefix(p, func(w string, es []segment.Entry) bool { got = append(got, w); return true }); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, w := range words {
			if strings.HasPrefix(w, p) {
				want = append(want, w)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("prefix %q: %d words, want %d", p, len(got), len(want))
		}
	}
}

// TestLexicon checks the lexicon against the documents after a build, after
// updates and deletions (which carry the old entries over, renumbered), and
// after compaction.
func TestLexicon(t *testing.T) {
	dir := t.TempDir()
	docs := testCorpus(3000, 11)
	opt := WriterOptions{Capacity: 512}
	opt.Compact.Disabled = true
	buildIndex(t, dir, docs[:2000], opt)
	check := func(stage string, segsAtLeast int) {
		t.Helper()
		ix, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if len(ix.Segments()) < segsAtLeast {
			t.Fatalf("%s: %d segments, the test needs %d", stage, len(ix.Segments()), segsAtLeast)
		}
		t.Run(stage, func(t *testing.T) { checkLexicon(t, ix) })
		mustCheck(t, dir)
	}
	check("built", 4)

	// Only new segments: the old lexicon's records are copied as they are.
	update(t, dir, opt, func(w *Writer) {
		for _, d := range docs[2000:2500] {
			w.Add(d)
		}
	})
	check("added", 5)

	// Deletions that empty segments renumber the others.
	update(t, dir, opt, func(w *Writer) {
		for _, d := range docs[2500:] {
			w.Add(d)
		}
		for _, d := range docs[:1000] {
			w.Delete(d.Key)
		}
	})
	check("updated", 5)

	m, _ := readManifest(dir)
	update(t, dir, opt, func(w *Writer) { w.Delete(docs[1500].Key) })
	m2, _ := readManifest(dir)
	if m2.Lexicon != m.Lexicon || m2.Generation == m.Generation {
		t.Fatalf("a deletion wrote lexicon %s over %s (generation %d → %d); it changes no segment", m2.Lexicon, m.Lexicon, m.Generation, m2.Generation)
	}

	if _, err := Compact(dir, CompactOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	check("compacted", 1)
}

// TestLexiconDamage flips bytes all over a lexicon file: opening the index
// or checking it reports the damage and names the file.
func TestLexiconDamage(t *testing.T) {
	dir := t.TempDir()
	buildIndex(t, dir, testCorpus(400, 3), WriterOptions{})
	m, _ := readManifest(dir)
	path := filepath.Join(dir, m.Lexicon)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	step := max(1, len(good)/97)
	for at := 0; at < len(good); at += step {
		if at >= 12 && at < 16 {
			continue // the format version: refused with a message to rebuild
		}
		bad := slices.Clone(good)
		bad[at] ^= 0x5a
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(dir)
		if err == nil {
			ix.Close()
			t.Fatalf("byte %d flipped: the index opens", at)
		}
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), m.Lexicon) {
			t.Fatalf("byte %d flipped: %v, want damage to %s", at, err, m.Lexicon)
		}
		if rep, err := Check(dir); err != nil || len(rep.Problems) == 0 {
			t.Fatalf("byte %d flipped: check finds %v, %v", at, rep, err)
		}
	}
	os.WriteFile(path, good, 0o644)
	mustCheck(t, dir)
}

// TestLexiconBytesCrossChecked rewrites the manifest with a wrong
// lexicon_bytes (and a valid checksum): opening refuses it and check
// reports it.
func TestLexiconBytesCrossChecked(t *testing.T) {
	dir := t.TempDir()
	buildIndex(t, dir, testCorpus(300, 4), WriterOptions{})
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.LexiconBytes++
	b, _ := encodeManifest(m)
	if err := os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if ix, err := Open(dir); err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "the manifest says") {
		if ix != nil {
			ix.Close()
		}
		t.Fatalf("open: %v, want the lexicon's size refused", err)
	}
	if rep, err := Check(dir); err != nil || len(rep.Problems) == 0 {
		t.Fatalf("check: %v, %v; want a problem", rep, err)
	}
}

// FuzzLexicon decodes arbitrary lexicon files: opening, lookups, prefixes
// and scans either work or report damage, never panic.
func FuzzLexicon(f *testing.F) {
	segs, lex := smallIndexFiles(f, 200, 2)
	f.Add(lex)
	f.Add([]byte(fileMagic + lexiconKind))
	f.Fuzz(func(t *testing.T, b []byte) {
		lx, err := newLexicon("fuzz.lex", b, segment.VerifyNone)
		if err != nil {
			return
		}
		if len(lx.segSeq) == len(segs) {
			ss := make([]*segment.Segment, len(segs))
			for i, d := range segs {
				if ss[i], err = segment.New(filepath.Base(segName(i)), d, segment.VerifyNone); err != nil {
					t.Fatal(err)
				}
			}
			lx.attach(ss)
		}
		lx.Lookup("the", nil)
		lx.Lookup("", nil)
		lx.Prefix("a", func(string, []segment.Entry) bool { return true })
		lx.checkLookups()
		for i := range lx.segSeq {
			lx.dict(i, 1000)
		}
	})
}

func segName(i int) string { return segmentFileName(uint64(i + 1)) }

// TestLexiconBlockSearch checks block, the two-level search of the heads,
// against a scan of the keys, on a lexicon whose words run in long families
// sharing their first 8 bytes (many blocks with the same head, across the
// top level's strides), shorter than 8 bytes, or exactly 8, and for every
// word, every word one byte longer or shorter, and words between them.
func TestLexiconBlockSearch(t *testing.T) {
	var words []string
	for _, fam := range []string{"", "a", "abcdefg", "abcdefgh", "abcdefghij", "internationalization", "m", "zzzzzzzz"} {
		n := 40
		if len(fam) > 8 {
			n = 2000 // dozens of blocks whose first words share 8 bytes
		}
		for i := range n {
			words = append(words, fmt.Sprintf("%s%d", fam, i))
		}
		if fam != "" {
			words = append(words, fam)
		}
	}
	sort.Strings(words)
	words = slices.Compact(words)
	var b lexBuilder
	for i, w := range words {
		e, ok := segment.EntryOf(0, segment.TermID(i), 1, 1<<2|1)
		if !ok {
			t.Fatal("no entry")
		}
		if err := b.add([]byte(w), []segment.Entry{e}); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := b.encode(&buf, []uint64{1}); err != nil {
		t.Fatal(err)
	}
	lx, err := newLexicon("blocks.lex", buf.Bytes(), segment.VerifyData)
	if err != nil {
		t.Fatal(err)
	}
	nb := len(lx.blockOff) - 1
	if nb < 10*lexTopStride {
		t.Fatalf("%d blocks, the test needs more than %d", nb, 10*lexTopStride)
	}
	want := func(w string) int { // the last block whose key is at most w
		b := -1
		for b+1 < nb && string(lx.key(b+1)) <= w {
			b++
		}
		return b
	}
	probes := []string{"", "\x00", "~", "zzzzzzzzzz", "abcdefgh\x00", "abcdefgh\xff", "internationalizatio", "internationalizationz"}
	for _, w := range words {
		probes = append(probes, w, w+"\x00", w+"5", w[:len(w)/2])
		if w != "" {
			probes = append(probes, w[:len(w)-1])
		}
	}
	for _, w := range probes {
		if got, want := lx.block(w), want(w); got != want {
			t.Fatalf("block(%q) = %d, want %d (keys %q, %q)", w, got, want, lx.key(max(want, 0)), lx.key(min(want+1, nb-1)))
		}
	}

	// LookupWords finds what Lookup finds, word by word, in batches
	// smaller and larger than its stack's room for blocks.
	found := 0
	for _, n := range []int{1, 5, 16, 17, 100} {
		var dst []segment.Entry
		for from := 0; from < len(probes); from += n {
			batch := probes[from:min(from+n, len(probes))]
			calls := 0
			dst, err = lx.LookupWords(batch, dst, func(i int, es []segment.Entry) {
				if i != calls {
					t.Fatalf("LookupWords called back for word %d, want %d", i, calls)
				}
				calls++
				want, err := lx.Lookup(batch[i], nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(es, want) {
					t.Fatalf("LookupWords(%q) = %v, Lookup = %v", batch[i], es, want)
				}
				found += len(es)
			})
			if err != nil || calls != len(batch) {
				t.Fatalf("LookupWords of %d words: %d calls, error %v", len(batch), calls, err)
			}
		}
	}
	if found == 0 {
		t.Fatal("LookupWords found no word")
	}
}

// BenchmarkLexiconLookup looks every word of a many-segment lexicon up in
// turn: the cost of a query's lookups when the lexicon is in cache.
func BenchmarkLexiconLookup(b *testing.B) {
	dir := b.TempDir()
	opt := WriterOptions{Capacity: 512}
	opt.Compact.Disabled = true
	buildIndex(b, dir, testCorpus(4000, 11), opt)
	ix, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	var words []string
	if err := ix.lex.each(func(w []byte, _ []segment.Entry) error {
		words = append(words, string(w))
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	var es []segment.Entry
	i := 0
	for b.Loop() {
		if es, err = ix.lex.Lookup(words[i%len(words)], es[:0]); err != nil || len(es) == 0 {
			b.Fatalf("%q: %d entries, %v", words[i%len(words)], len(es), err)
		}
		i++
	}
	b.ReportMetric(float64(len(ix.Segments())), "segments")
}
