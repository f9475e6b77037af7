package segment

import (
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/internal/indextest/kit"
	"github.com/bitsieve/bitsieve/tokenize"
)

// TestFalsePositives checks section 15 against a brute-force reading of the
// rows: for every term with shared rows, the documents that set all of its
// rows' bits and do not hold it. Dense rows of few hashes, with and without
// a higher rank and word pairs, make false positives plentiful.
func TestFalsePositives(t *testing.T) {
	docs := testCorpus(900, 21, 0)
	o := kit.NewOracle(tokenize.DefaultLanguage)
	for _, d := range docs {
		o.Add(d.Key, d.Text)
	}
	for _, p := range []Params{
		{Density: 0.4, SNR: 1, KMin: 1, KMax: 2},
		{Density: 0.3, SNR: 2, KMin: 1, KMax: 4, ListDensity: 1.0 / 256, Rank: 3, PairK: 2},
		DefaultParams,
	} {
		data, dict := buildFile(t, docs, p)
		s := openFile(t, data, dict)
		holds := make([][]string, s.NumTerms()) // by termID, the keys of the documents holding it
		for i, w := range dict.Words {
			holds[dict.IDs[i]] = o.Holders(w)
		}
		shared, total := 0, 0
		var rows []int
		for i, w := range dict.Words {
			id := TermID(dict.IDs[i])
			tr := s.Treatment(id)
			got := s.FalsePositives(Entry{ID: id})
			if tr.Private || tr.List {
				if len(got) > 0 {
					t.Fatalf("%+v: %q (%+v) has false positives %v", p, w, tr, got)
				}
				continue
			}
			shared++
			rows = s.TermRowsOf(rows[:0], termHash(w), tr)
			var want []uint32
			for d := range docs {
				admitted := true
				for _, r := range rows {
					c := d >> s.RowRank(r)
					admitted = admitted && s.Row(r)[c/64]&(1<<(c%64)) != 0
				}
				if _, held := slices.BinarySearch(holds[id], docs[d].Key); admitted && !held {
					want = append(want, uint32(d))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%+v: false positives of %q are %v, the rows give %v", p, w, got, want)
			}
			total += len(want)
		}
		if shared == 0 || (total == 0 && p.Density >= 0.3) {
			t.Fatalf("%+v: %d terms with shared rows, %d false positives: nothing tested", p, shared, total)
		}
		t.Logf("%+v: %d terms with shared rows, %d false positives", p, shared, total)
	}
}

// TestCheckFalsePositives damages section 15 (behind its checksum, as a
// writer's bug would) and expects Check to name it.
func TestCheckFalsePositives(t *testing.T) {
	data, dict := buildFile(t, testCorpus(600, 5, 0), Params{Density: 0.4, SNR: 1, KMin: 1, KMax: 2})
	s := openFile(t, data, dict)
	if errs := s.Check(); len(errs) > 0 {
		t.Fatalf("check: %v", errs)
	}
	if len(s.fps) == 0 {
		t.Fatal("no false positives to damage")
	}
	s.fps[0] ^= 1
	errs := s.Check()
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "falsepositives") {
		t.Fatalf("check of a damaged section 15: %v", errs)
	}
}
