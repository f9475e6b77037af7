package tokenize

import (
	"go/build"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchWords is a fixed English vocabulary: common words (stop words among
// them) and inflected forms that keep the stemmer busy.
var benchWords = strings.Fields(`
the of and to in a is that for it as was with be by on not he I this are or
his from at which but have an they you were her she there been one all we
their has would when if so no will can more other what about up out them
time into only some could its then two now over also after first new any
these may such like our most where just year years people way between through
being used because each made many before must under well should back during
work without state world still government house number part system
program information development however against general national children
business service economic political university public running indexed
searching signatures documents columns filters queries matched verifying
ranking snippets highlighted segments dictionary frequencies positions
compressed allocations goroutines benchmarks measurements engineering
relational databases transactions operations concurrency consistency
international organization researchers experimental significantly
generalization responsibilities characterization internationalization
it's don't can't we're they'll O'Reilly e.g. i.e. 3.14 1,000 2024 v1.2.3
mutex_unlock foo-bar key:value`)

// benchText builds about n bytes of English-like prose from benchWords, with
// a Zipf-like word frequency, capitals and punctuation.
func benchText(n int) []byte {
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.Grow(n + 64)
	start := true
	for b.Len() < n {
		// Squaring a uniform index favours the common words at the front.
		f := r.Float64()
		w := benchWords[int(f*f*float64(len(benchWords)))]
		if start {
			w = strings.ToUpper(w[:1]) + w[1:]
			start = false
		}
		b.WriteString(w)
		switch r.IntN(16) {
		case 0:
			b.WriteString(". ")
			start = true
		case 1:
			b.WriteString(", ")
		case 2:
			b.WriteString("\n")
		default:
			b.WriteByte(' ')
		}
	}
	return []byte(b.String())
}

// goSource reads up to n bytes of the Go runtime's sources, a real text with
// a different mix (identifiers, punctuation, comments).
func goSource(b *testing.B, n int) []byte {
	files, _ := filepath.Glob(filepath.Join(build.Default.GOROOT, "src", "runtime", "*.go"))
	var text []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		text = append(text, data...)
		if len(text) >= n {
			return text[:n]
		}
	}
	if len(text) == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	return text
}

// BenchmarkAnalyze measures analysis throughput (MB/s). "warm" reuses one
// analyzer, as an indexing worker does, so most stems come from its cache;
// "cold" starts each pass with a new analyzer, so every distinct word is
// stemmed once per pass; "shared" is warm with a StemCache, whose lookups
// take a lock, as a searcher's analyzers share one.
func BenchmarkAnalyze(b *testing.B) {
	const size = 1 << 20
	english := benchText(size)
	bench := func(name string, text []byte, fresh bool) {
		b.Run(name, func(b *testing.B) {
			a := MustNew("english")
			if strings.HasSuffix(name, "/shared") {
				c, _ := NewStemCache("english")
				a = NewShared(c)
			}
			var toks []Token
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				if fresh {
					a = MustNew("english")
				}
				toks = a.Analyze(toks[:0], text)
				n += len(toks)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(n, 1)), "ns/token")
		})
	}
	bench("english/warm", english, false)
	bench("english/cold", english, true)
	bench("english/shared", english, false)
	src := goSource(b, size)
	bench("gosrc/warm", src, false)
	bench("gosrc/cold", src, true)
}
