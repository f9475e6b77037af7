package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// TestSpilledDictionaries: a writer leaves no spilled dictionary behind,
// whether it commits or aborts, and the commit's lexicon, merged from the
// spills, finds every word of every segment.
func TestSpilledDictionaries(t *testing.T) {
	docs := testCorpus(400, 21)
	spills := func(dir string) []string {
		m, _ := filepath.Glob(filepath.Join(dir, "*.dict"+tmpSuffix))
		return m
	}
	dir := t.TempDir()
	st := buildIndex(t, dir, docs, WriterOptions{MemoryBudget: 64 << 10})
	if st.Segments < 4 {
		t.Fatalf("%d segments: too few to test the merge of spills", st.Segments)
	}
	if s := spills(dir); len(s) > 0 {
		t.Fatalf("left after Commit: %v", s)
	}
	checkSound(t, dir)

	w, err := OpenWriter(dir, WriterOptions{MemoryBudget: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range testCorpus(200, 22) {
		d.Key = "more-" + d.Key
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	if s := spills(dir); len(s) > 0 {
		t.Fatalf("left after Abort: %v", s)
	}
}

// TestSpillDamaged: a spilled dictionary cut short is an error that names
// it, not a lexicon with words missing.
func TestSpillDamaged(t *testing.T) {
	dir := t.TempDir()
	d := &segment.Dict{Words: []string{"alpha", "beta", "gamma"}, IDs: []uint32{2, 0, 1}, Info: []uint32{5, 1, 6, 1, 7, 1}}
	sp, err := spillDict(dir, "00000001.v7.seg", d)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(sp.Spill)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sp.Spill, fi.Size()-3); err != nil {
		t.Fatal(err)
	}
	src := &lexSource{dict: sp}
	_, err = mergeLexicon([]*lexSource{src})
	if err == nil || !strings.Contains(err.Error(), sp.Spill) {
		t.Fatalf("merging a truncated spill: %v; want an error naming %s", err, sp.Spill)
	}
}
