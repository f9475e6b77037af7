package bench

import (
	"runtime"
	"testing"

	"github.com/bitsieve/bitsieve/internal/indextest"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/tokenize"
)

// Micro-benchmarks of the build side on real text (the embedded sample).
// The match kernel, verification and ranking are benchmarked in package
// query (inverted_bench_test.go), next to the code they measure.

func sampleDocs(b *testing.B, n int) []index.Document {
	var docs []index.Document
	if _, err := corpus.Sample(func(d corpus.Document) error {
		if len(docs) < n {
			docs = append(docs, index.Document(d))
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return docs
}

// BenchmarkAnalyzer is the english analyzer's throughput on the sample
// corpus, with a warm stem cache as an indexing worker has.
func BenchmarkAnalyzer(b *testing.B) {
	docs := sampleDocs(b, 1<<30)
	var size int64
	for _, d := range docs {
		size += int64(len(d.Text))
	}
	a := tokenize.MustNew("english")
	var terms []string
	for _, d := range docs { // warm the cache
		terms = a.Terms(terms[:0], d.Text)
	}
	b.SetBytes(size)
	for b.Loop() {
		for _, d := range docs {
			terms = a.Terms(terms[:0], d.Text)
		}
	}
	b.ReportMetric(float64(size)*float64(b.N)/1e6/b.Elapsed().Seconds(), "MB/s")
}

// BenchmarkSegmentBuild indexes 4,096 sample documents end to end (analysis
// on every core, rows, forward index, store, commit) and reports documents
// per second.
func BenchmarkSegmentBuild(b *testing.B) {
	docs := sampleDocs(b, 4096)
	var size int64
	for _, d := range docs {
		size += int64(len(d.Text))
	}
	b.SetBytes(size)
	for b.Loop() {
		indextest.Build(b, b.TempDir(), docs, index.WriterOptions{})
	}
	b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkPostingsBuild builds the inverted baseline's postings of the
// whole sample index from its forward index, in memory.
func BenchmarkPostingsBuild(b *testing.B) {
	ix, _ := sampleIndex(b)
	docs := ix.NumDocs()
	for b.Loop() {
		x, err := inverted.Build(ix, inverted.BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		x.Close()
	}
	b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkRowsBuild rebuilds the sample index's signature rows from its
// forward index, in memory: BenchmarkPostingsBuild's counterpart.
func BenchmarkRowsBuild(b *testing.B) {
	ix, _ := sampleIndex(b)
	docs := ix.NumDocs()
	for b.Loop() {
		if _, err := timeRows(ix); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkProbe is the bandwidth probe's streaming AND over 256 KiB (hot)
// and 256 MiB (cold).
func BenchmarkProbe(b *testing.B) {
	for _, c := range []struct {
		name  string
		bytes int
	}{{"hot", 256 << 10}, {"cold", 256 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			words := c.bytes / 16
			x, y := make([]uint64, words), make([]uint64, words)
			for i := range x {
				x[i], y[i] = uint64(i), ^uint64(i)
			}
			b.SetBytes(int64(c.bytes))
			var sink uint64
			for b.Loop() {
				sink |= andStream(x, y)
			}
			runtime.KeepAlive(sink)
			b.ReportMetric(float64(c.bytes)*float64(b.N)/1e9/b.Elapsed().Seconds(), "GB/s")
		})
	}
}
