package query

import (
	"errors"
	"testing"

	"github.com/bitsieve/bitsieve/tokenize"
)

// FuzzParse checks that Parse never panics, that its errors are located
// ParseErrors, that the trees it returns keep the promised invariants, and
// that String renders a tree Parse reads back to the same rendering.
// Seeds are in testdata/fuzz/FuzzParse, besides the ones added here.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`foo bar OR baz -qux "new york" run*`,
		`(foo OR -(bar baz)) NOT "the bank of america" e.g foo-bar`,
		`日本語 カタカナ l'homme mutex_unlock 3.14 צה"ל`,
		`"unclosed (paren -`,
		`a OR -b`,
	} {
		f.Add(s)
	}
	a := tokenize.MustNew("english")
	f.Fuzz(func(t *testing.T, q string) {
		n, err := Parse(q, a)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): %T %v, want a *ParseError", q, err, err)
			}
			if pe.Pos < 0 || pe.Pos > len(q) || pe.Query != q || pe.Msg == "" || pe.Err == nil {
				t.Fatalf("Parse(%q): bad error %#v", q, pe)
			}
			if n != nil {
				t.Fatalf("Parse(%q): both a node and an error", q)
			}
			return
		}
		checkTree(t, q, n)
		s := n.String()
		n2, err := Parse(s, a)
		if err != nil {
			if errors.Is(err, ErrTooLarge) && len(s) > MaxQueryBytes {
				// A rendering can be a few bytes longer than a query at
				// the size limit ("OR(" becomes "OR (").
				return
			}
			t.Fatalf("Parse(%q) = %s, which does not parse: %v", q, s, err)
		}
		if s2 := n2.String(); s2 != s {
			t.Fatalf("Parse(%q) = %s, which parses to %s", q, s, s2)
		}
	})
}
