package kit

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bitsieve/bitsieve/corpus"
)

// TestOracle checks the oracle on queries whose answers are known by hand.
func TestOracle(t *testing.T) {
	o := NewOracle("english")
	for _, d := range [][2]string{
		{"a", "the cat sat on the mat"},
		{"b", "cat cat dog cat"},
		{"c", "dog-cat friendship"},
		{"d", "a dog and a cat"},
		{"e", "a catalog of the things"},
		{"f", "the"},
	} {
		o.Add(d[0], []byte(d[1]))
	}
	for _, c := range []struct{ q, want string }{
		{"cat", "a b c d"},
		{"CAT", "a b c d"},
		// A phrase matches its terms at their offsets, a repeated word at
		// each of its own.
		{`"cat cat dog"`, "b"},
		{`"cat dog cat"`, "b"},
		{`"cat cat cat"`, ""},
		{`"dog cat"`, "b c"},
		// Stop words inside a phrase hold their places and match any word.
		{`"sat on the mat"`, "a"},
		{`"sat a an mat"`, "a"},
		{`"sat mat"`, ""},
		{`"the cat"`, "a b c d"},
		// A bare word the analyzer splits is the AND of its terms.
		{"dog-cat", "b c d"},
		{`"dog-cat"`, "b c"},
		// What has no searchable word is ignored, negated or not.
		{"cat -the", "a b c d"},
		{"cat NOT the", "a b c d"},
		{"cat (the OR a)", "a b c d"},
		{"cat OR the", "a b c d"},
		{"cat -dog", "a"},
		{"cat NOT dog", "a"},
		{"cat AND dog", "b c d"},
		// OR binds tighter than AND.
		{"friendship OR mat sat", "a"},
		{"cat* -(dog OR mat)", "e"},
		{"--dog", "b c d"},
		// A prefix is lowercased and matched against the terms, stemmed.
		{"cat*", "a b c d e"},
		{"CATA*", "e"},
		{"thing*", "e"},
		{"things*", ""},
		{"-cat", "e f"},
	} {
		got, err := o.Match(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s matches %q, want %q", c.q, got, c.want)
		}
	}
	for _, q := range []string{"the", "-the", `"the of"`, "(a) OR the"} {
		if got, err := o.Match(q); !errors.Is(err, ErrNoTerms) {
			t.Errorf("%s: %q, %v; want ErrNoTerms", q, got, err)
		}
	}
	for _, q := range []string{`"cat`, "cat OR", "OR cat", "cat AND", "(cat", "cat)", "()", "cat -", "- cat"} {
		if got, err := o.Match(q); err == nil || errors.Is(err, ErrNoTerms) {
			t.Errorf("%s: %q, %v; want a syntax error", q, got, err)
		}
	}
	if got := o.Holders("cat"); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Errorf("Holders(cat) = %q", got)
	}
	if got := o.Terms(); !slices.Equal(got, []string{"cat", "catalog", "dog", "friendship", "mat", "sat", "thing"}) {
		t.Errorf("Terms() = %q", got)
	}
}

// TestGenQuery: generated queries are in the query language, match
// something more often than not, and are the same for the same seed.
func TestGenQuery(t *testing.T) {
	for _, c := range []struct {
		analyzer string
		docs     func(int, uint64) []corpus.Document
	}{{"english", Corpus}, {"code", CodeCorpus}} {
		o := NewOracle(c.analyzer)
		for _, d := range c.docs(300, 1) {
			o.Add(d.Key, d.Text)
		}
		gen := func() []string {
			r := rand.New(rand.NewPCG(1, 2))
			qs := make([]string, 200)
			for i := range qs {
				qs[i] = GenQuery(r, o)
			}
			return qs
		}
		qs := gen()
		if !reflect.DeepEqual(qs, gen()) {
			t.Fatalf("%s: two runs with one seed generate different queries", c.analyzer)
		}
		matched := 0
		for _, q := range qs {
			keys, err := o.Match(q)
			if err != nil && !errors.Is(err, ErrNoTerms) {
				t.Fatalf("%s: %v", c.analyzer, err)
			}
			if len(keys) > 0 {
				matched++
			}
		}
		if matched < len(qs)/2 {
			t.Errorf("%s: only %d of %d generated queries match anything", c.analyzer, matched, len(qs))
		}
	}
}

// TestCorpusDeterministic: a seed gives the same documents every time and
// another seed other ones.
func TestCorpusDeterministic(t *testing.T) {
	for _, gen := range []func(int, uint64) []corpus.Document{Corpus, CodeCorpus} {
		a, b, c := gen(50, 1), gen(50, 1), gen(50, 2)
		if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
			t.Fatal("a corpus depends on something besides its seed, or not on its seed")
		}
	}
}
