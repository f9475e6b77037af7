package corpus

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSample(t *testing.T) {
	seen := make(map[string]bool)
	sources := make(map[string]int)
	var short, long int
	st, err := Sample(func(d Document) error {
		if seen[d.Key] {
			t.Errorf("duplicate key %q", d.Key)
		}
		seen[d.Key] = true
		if !utf8.Valid(d.Text) || !utf8.ValidString(d.Title) {
			t.Errorf("%s: invalid UTF-8", d.Key)
		}
		if d.Title == "" || !bytes.HasPrefix(d.Text, []byte(d.Title+"\n")) || len(d.Text) <= len(d.Title)+1 {
			t.Errorf("%s: title %q, %d bytes of text", d.Key, d.Title, len(d.Text))
		}
		src, _, _ := strings.Cut(d.Key, "/")
		sources[src]++
		switch {
		case len(d.Text) < 500:
			short++
		case len(d.Text) > 8000:
			long++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Docs < 1000 || len(st.Skipped) != 0 {
		t.Fatalf("sample: %s", st.Summary())
	}
	for _, src := range []string{"bitsieve", "python", "go", "jargon", "devil", "twain", "newton", "wordnet"} {
		if sources[src] == 0 {
			t.Errorf("no documents from %s", src)
		}
	}
	if short < 500 || long < 50 {
		t.Errorf("%d documents under 500 bytes and %d over 8000: want a spread of lengths", short, long)
	}
	t.Logf("%s; %d bytes compressed", st.Summary(), SampleCompressedSize())
}

// TestSampleDemoQueries checks that the queries the documentation suggests
// find something, with a plain substring search on lowercased text.
func TestSampleDemoQueries(t *testing.T) {
	queries := [][]string{{"hash table"}, {"exception", "handling"}, {"white whale"}, {"bloom filter"}, {"goroutine"}, {"tom", "fence"}}
	found := make([]int, len(queries))
	_, err := Sample(func(d Document) error {
		text := strings.ToLower(string(d.Text))
		for i, q := range queries {
			all := true
			for _, w := range q {
				all = all && strings.Contains(text, w)
			}
			if all {
				found[i]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		if found[i] == 0 {
			t.Errorf("%q finds nothing in the sample", q)
		}
	}
}
