package query

import (
	"bufio"
	"context"
	"os"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
)

func BenchmarkZZProf(b *testing.B) {
	dir := os.Getenv("PROF_INDEX")
	if dir == "" {
		b.Skip()
	}
	ix, err := index.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	s, _ := NewSearcher(ix)
	if os.Getenv("PROF_INV") != "" {
		inv, err := inverted.Open(ix)
		if err != nil {
			b.Fatal(err)
		}
		s, err = NewInvertedSearcher(ix, inv)
		if err != nil {
			b.Fatal(err)
		}
	}
	s.SetWorkers(1)
	f, _ := os.Open(os.Getenv("PROF_QUERIES"))
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(qs) < 300 {
		qs = append(qs, sc.Text())
	}
	count := os.Getenv("PROF_TOP") == ""
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, q := range qs {
			s.Search(context.Background(), Request{Query: q, CountOnly: count, Limit: 10})
		}
	}
}
