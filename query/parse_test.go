package query

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/tokenize"
)

func english(t testing.TB) *tokenize.Analyzer {
	t.Helper()
	a, err := tokenize.New("english")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestParseString checks the tree Parse builds through its canonical
// rendering, and that the rendering parses back to itself.
func TestParseString(t *testing.T) {
	a := english(t)
	tests := []struct{ in, want string }{
		// Words, implicit and explicit AND.
		{"foo", "foo"},
		{"foo bar", "foo bar"},
		{"foo AND bar", "foo bar"},
		{"  foo \t bar\n", "foo bar"},
		{"Foo BAR", "Foo BAR"},

		// OR binds tighter than AND (Google style).
		{"foo OR bar", "foo OR bar"},
		{"foo bar OR baz", "foo bar OR baz"},
		{"foo OR bar baz", "foo OR bar baz"},
		{"foo OR bar OR baz", "foo OR bar OR baz"},
		{"foo AND bar OR baz", "foo bar OR baz"},
		{"(foo bar) OR baz", "(foo bar) OR baz"},
		{"foo OR (bar baz)", "foo OR (bar baz)"},
		{"(foo OR bar) (baz OR qux)", "foo OR bar baz OR qux"},

		// Lowercase operators are words (English stop words).
		{"foo or bar", "foo bar"},
		{"foo and bar not baz", "foo bar baz"},
		{"Or foo", "foo"},

		// Negation.
		{"foo -bar", "foo -bar"},
		{"foo NOT bar", "foo -bar"},
		{"foo AND NOT bar", "foo -bar"},
		{"-bar foo", "-bar foo"},
		{`foo -"new york"`, `foo -"new york"`},
		{"foo -bar*", "foo -bar*"},
		{"foo -(bar OR baz)", "foo -(bar OR baz)"},
		{"foo NOT (bar baz)", "foo -(bar baz)"},
		{"foo --bar", "foo bar"},
		{"foo NOT -bar", "foo bar"},
		{"foo NOT NOT NOT bar", "foo -bar"},
		{"foo (-bar OR -baz)", "foo -bar OR -baz"},
		{"foo OR -bar baz", "foo OR -bar baz"},
		{"foo-bar", "foo bar"}, // a hyphen inside a word is not a negation

		// Phrases.
		{`"new york"`, `"new york"`},
		{`"bank of america"`, `"bank of america"`},
		{`"the bank of america"`, `"bank of america"`},
		{`"bank of the"`, "bank"},
		{`"the running"`, "running"},
		{`"the of"`, ""},
		{`foo "the of"`, "foo"},
		{`"foo-bar"`, `"foo-bar"`},
		{`""`, ""},
		{`foo ""`, "foo"},
		{`foo"bar baz"`, `foo "bar baz"`},
		{`"new  york" city`, `"new  york" city`},

		// Words the analyzer splits need all their terms (quotes make a phrase).
		{"foo-bar baz", "foo bar baz"},
		{"e.g", "e.g"},
		{"日本語", "日 本 語"},
		{"foo-the-bar", "foo bar"},
		{"x OR foo-bar", "x OR (foo bar)"},
		{"the-bar", "bar"},
		{"foo.", "foo"},
		{"(foo)", "foo"},
		{"mutex_unlock", "mutex_unlock"},
		{"it's", "it's"},
		{`צה"ל foo`, `צה"ל foo`},

		// Prefixes are lowercased, not stemmed.
		{"run*", "run*"},
		{"Running*", "running*"},
		{"foo**", "foo*"},
		{"the*", "the*"},
		{"mutex_un*", "mutex_un*"},
		{"v1.2*", "v1.2*"},
		{"ÉCO*", "éco*"},

		// Dropping, flattening, collapsing, de-duplicating.
		{"the foo", "foo"},
		{"foo the OR bar", "foo bar"},
		{"foo (the of)", "foo"},
		{"foo -the", "foo"},
		{"foo (bar (baz qux))", "foo bar baz qux"},
		{"foo OR (bar OR (baz OR qux))", "foo OR bar OR baz OR qux"},
		{"((((foo))))", "foo"},
		{"foo foo", "foo"},
		{"running runs run", "running"},
		{"foo OR foo", "foo"},
		{"foo -bar -bar", "foo -bar"},
		{`"new york" "new york"`, `"new york"`},
		{"foo ... ,,, bar", "foo bar"},
		{strings.Repeat("x", 65) + " foo", "foo"},

		// Operators next to parentheses and quotes.
		{"(foo)OR(bar)", "foo OR bar"},
		{`"foo bar"OR"baz qux"`, `"foo bar" OR "baz qux"`},
		{"-(foo bar) baz", "-(foo bar) baz"},
	}
	for _, tt := range tests {
		n, err := Parse(tt.in, a)
		if tt.want == "" {
			if !errors.Is(err, ErrNoTerms) {
				t.Errorf("Parse(%q) = %v, %v; want ErrNoTerms", tt.in, n, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		got := n.String()
		if got != tt.want {
			t.Errorf("Parse(%q) = %s; want %s", tt.in, got, tt.want)
		}
		checkTree(t, tt.in, n)
		n2, err := Parse(got, a)
		if err != nil {
			t.Errorf("Parse(%q) again: %v", got, err)
		} else if n2.String() != got {
			t.Errorf("Parse(%q) again = %s", got, n2)
		}
	}
}

// TestParseTree checks the exact nodes the planner sees.
func TestParseTree(t *testing.T) {
	a := english(t)
	tests := []struct {
		in   string
		want Node
	}{
		{"Running", &Term{Term: "run", Word: "Running"}},
		{"allocs", &Term{Term: "alloc", Word: "allocs"}},
		{`"the Running."`, &Term{Term: "run", Word: "Running"}},
		{"it's", &Term{Term: "it", Word: "it's"}},
		{`"bank of america"`, &Phrase{Terms: []string{"bank", "america"}, Offsets: []int{0, 2}, Text: "bank of america"}},
		{`"  to be the Bank of  America, "`, &Phrase{Terms: []string{"bank", "america"}, Offsets: []int{0, 2}, Text: "Bank of  America"}},
		{"foo-bar", &And{Children: []Node{&Term{Term: "foo", Word: "foo"}, &Term{Term: "bar", Word: "bar"}}}},
		{"foo-the-bars", &And{Children: []Node{&Term{Term: "foo", Word: "foo"}, &Term{Term: "bar", Word: "bars"}}}},
		{"日本", &And{Children: []Node{&Term{Term: "日", Word: "日"}, &Term{Term: "本", Word: "本"}}}},
		{`"foo-bar"`, &Phrase{Terms: []string{"foo", "bar"}, Offsets: []int{0, 1}, Text: "foo-bar"}},
		{`"foo-the-bars"`, &Phrase{Terms: []string{"foo", "bar"}, Offsets: []int{0, 2}, Text: "foo-the-bars"}},
		{"Data*", &Prefix{Prefix: "data"}},
		{"foo bar OR baz -qux", &And{Children: []Node{
			&Term{Term: "foo", Word: "foo"},
			&Or{Children: []Node{&Term{Term: "bar", Word: "bar"}, &Term{Term: "baz", Word: "baz"}}},
			&Not{Child: &Term{Term: "qux", Word: "qux"}},
		}}},
		{"(foo bar) OR -(baz qux*) OR fish", &Or{Children: []Node{
			&And{Children: []Node{&Term{Term: "foo", Word: "foo"}, &Term{Term: "bar", Word: "bar"}}},
			&Not{Child: &And{Children: []Node{&Term{Term: "baz", Word: "baz"}, &Prefix{Prefix: "qux"}}}},
			&Term{Term: "fish", Word: "fish"},
		}}},
	}
	for _, tt := range tests {
		// An Or with a negated side is only valid under a required word.
		in, want := tt.in, tt.want
		if or, ok := want.(*Or); ok && !required(or) {
			in = "zebra (" + in + ")"
			want = &And{Children: []Node{&Term{Term: "zebra", Word: "zebra"}, or}}
		}
		n, err := Parse(in, a)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if !reflect.DeepEqual(n, want) {
			t.Errorf("Parse(%q) =\n\t%#v\nwant\n\t%#v", in, dump(n), dump(want))
		}
	}
}

// dump renders a tree with its terms, for failure messages.
func dump(n Node) string {
	switch n := n.(type) {
	case *And:
		return "And" + dumpList(n.Children)
	case *Or:
		return "Or" + dumpList(n.Children)
	case *Not:
		return "Not(" + dump(n.Child) + ")"
	case *Term:
		return fmt.Sprintf("Term(%q %q)", n.Term, n.Word)
	case *Phrase:
		return fmt.Sprintf("Phrase(%q %v %q)", n.Terms, n.Offsets, n.Text)
	case *Prefix:
		return fmt.Sprintf("Prefix(%q)", n.Prefix)
	}
	return fmt.Sprintf("%#v", n)
}

func dumpList(children []Node) string {
	s := make([]string, len(children))
	for i, c := range children {
		s[i] = dump(c)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func TestParseErrors(t *testing.T) {
	a := english(t)
	tests := []struct {
		in    string
		class error
		pos   int      // byte offset of the problem
		msg   []string // substrings the message must hold
	}{
		{"", ErrEmptyQuery, 0, []string{"empty query"}},
		{"  \t\n", ErrEmptyQuery, 0, []string{"empty query"}},

		{"the of and", ErrNoTerms, 0, []string{"no searchable term", "stop word", `"the", "of", "and"`}},
		{"  the", ErrNoTerms, 2, []string{"no searchable term", `"the" is a stop word`}},
		{`"to be or not to be"`, ErrNoTerms, 0, []string{`"\"to be or not to be\""`}},
		{"... !!!", ErrNoTerms, 0, []string{`"..."`, `"!!!"`}},
		{"-the", ErrNoTerms, 1, []string{`"the"`}},
		{"(the) OR (of)", ErrNoTerms, 1, []string{`"the", "of"`}},
		{strings.Repeat("the ", 20), ErrNoTerms, 0, []string{"and 12 more"}},

		{`foo "bar baz`, ErrSyntax, 4, []string{"unbalanced quote", "column 5", "never closed"}},
		{`"foo" "`, ErrSyntax, 6, []string{"unbalanced quote", "column 7"}},
		{`日本 "bar`, ErrSyntax, 7, []string{"column 4"}}, // columns count characters

		{"(foo bar", ErrSyntax, 0, []string{"unbalanced parenthesis", "( at column 1", "never closed"}},
		{"foo ((bar) baz", ErrSyntax, 4, []string{"( at column 5", "never closed"}},
		{"foo bar)", ErrSyntax, 7, []string{"unbalanced parenthesis", ") at column 8", "no matching ("}},
		{"(foo)) bar", ErrSyntax, 5, []string{") at column 6"}},
		{")", ErrSyntax, 0, []string{") at column 1"}},
		{"foo ()", ErrSyntax, 4, []string{"empty group", "column 5"}},

		{"OR foo", ErrSyntax, 0, []string{"OR at column 1", "nothing on its left"}},
		{"foo OR", ErrSyntax, 4, []string{"OR at column 5", "nothing on its right"}},
		{"foo OR OR bar", ErrSyntax, 4, []string{"OR at column 5", "nothing on its right"}},
		{"foo (OR bar)", ErrSyntax, 5, []string{"OR at column 6", "nothing on its left"}},
		{"(foo OR) bar", ErrSyntax, 5, []string{"OR at column 6", "nothing on its right"}},
		{"foo OR AND bar", ErrSyntax, 4, []string{"OR at column 5", "nothing on its right"}},
		{"AND foo", ErrSyntax, 0, []string{"AND at column 1", "nothing on its left"}},
		{"foo AND", ErrSyntax, 4, []string{"AND at column 5", "nothing on its right"}},
		{"foo AND AND bar", ErrSyntax, 4, []string{"AND at column 5"}},
		{"foo AND OR bar", ErrSyntax, 4, []string{"AND at column 5", "nothing on its right"}},
		{"(foo AND) bar", ErrSyntax, 5, []string{"AND at column 6"}},

		{"foo NOT", ErrSyntax, 4, []string{"NOT at column 5", "nothing after it"}},
		{"foo (bar NOT)", ErrSyntax, 9, []string{"NOT at column 10"}},
		{"NOT OR foo", ErrSyntax, 0, []string{"NOT at column 1"}},
		{"foo -", ErrSyntax, 4, []string{"- at column 5", "directly"}},
		{"foo - bar", ErrSyntax, 4, []string{"- at column 5", "without a space"}},
		{"(foo -) bar", ErrSyntax, 5, []string{"- at column 6"}},
		{"foo -OR bar", ErrSyntax, 4, []string{"- at column 5", "nothing after it"}},

		{"-foo", ErrOnlyNegated, 0, []string{"at least one word that is not negated"}},
		{"NOT foo", ErrOnlyNegated, 0, []string{"at least one word that is not negated"}},
		{"-foo -bar", ErrOnlyNegated, 0, []string{"not negated"}},
		{"-(foo bar)", ErrOnlyNegated, 0, []string{"not negated"}},
		{"the -foo", ErrOnlyNegated, 4, []string{"not negated", `"the" is ignored as a stop word`}},
		{"the of -foo", ErrOnlyNegated, 7, []string{`"the", "of" are ignored as stop words`}},
		{"-foo OR -bar", ErrOnlyNegated, 0, []string{"not negated"}},
		{"foo OR -bar", ErrOnlyNegated, 4, []string{"OR at column 5", "none of the query's words"}},
		{"-baz (foo OR -bar)", ErrOnlyNegated, 10, []string{"OR at column 11"}},

		{"f*", ErrSyntax, 0, []string{"prefix too short", `"f*"`, "at least 2 characters"}},
		{"foo é*", ErrSyntax, 4, []string{"prefix too short", "column 5"}},
		{"*", ErrSyntax, 0, []string{"prefix too short"}},
		{"foo -*", ErrSyntax, 5, []string{"prefix too short", "column 6"}},
		{"foo-ba*", ErrSyntax, 0, []string{`prefix "foo-ba*"`, "single word"}},
		{"fo*o*", ErrSyntax, 0, []string{"single word"}},
		{"foo.*", ErrSyntax, 0, []string{"single word"}},
		{".foo*", ErrSyntax, 0, []string{"single word"}},
		{"日本*", ErrSyntax, 0, []string{"single word"}},

		// Lucene syntax that bitsieve does not have.
		{`title:"white whale"`, ErrSyntax, 0, []string{"fields are not supported", `remove "title:" at column 1`}},
		{`foo -body:(a OR b)`, ErrSyntax, 5, []string{"fields are not supported", `"body:"`, "column 6"}},
		{`"white whale"~3`, ErrSyntax, 0, []string{"proximity search is not supported", "column 1", "drop the quotes"}},
		{`foo "white whale"^2`, ErrSyntax, 4, []string{"boosts are not supported", "column 5"}},
		{"whale~", ErrSyntax, 0, []string{"fuzzy search is not supported", `"whale~"`, "without the ~", "quote it"}},
		{"foo whale~2", ErrSyntax, 4, []string{"fuzzy search", "without the ~2", "column 5"}},
		{"whale~0.8", ErrSyntax, 0, []string{"fuzzy search", "without the ~0.8"}},
		{"(whale^2 OR shark)", ErrSyntax, 1, []string{"boosts are not supported", `"whale^2"`, "without the ^2"}},
		{"x^1.5", ErrSyntax, 0, []string{"boosts", "without the ^1.5"}},

		{strings.Repeat("(", MaxDepth+1) + "foo" + strings.Repeat(")", MaxDepth+1), ErrTooLarge, MaxDepth, []string{"too deeply nested", fmt.Sprint(MaxDepth)}},
		{strings.Repeat("x", MaxQueryBytes+1), ErrTooLarge, MaxQueryBytes, []string{"too long", fmt.Sprint(MaxQueryBytes)}},
	}
	for _, tt := range tests {
		n, err := Parse(tt.in, a)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q) = %v, %v; want a *ParseError", tt.in, n, err)
			continue
		}
		if !errors.Is(err, tt.class) {
			t.Errorf("Parse(%q): %v; want class %v", tt.in, err, tt.class)
		}
		if pe.Pos != tt.pos {
			t.Errorf("Parse(%q): %v; at %d, want %d", tt.in, err, pe.Pos, tt.pos)
		}
		if pe.Query != tt.in {
			t.Errorf("Parse(%q): error holds query %q", tt.in, pe.Query)
		}
		for _, m := range tt.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("Parse(%q): %q does not mention %q", tt.in, err, m)
			}
		}
	}
}

func TestParseErrorColumn(t *testing.T) {
	_, err := Parse(`日本 "foo`, english(t))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Column() != 4 {
		t.Fatalf("got %v (column %d), want an error at column 4", err, pe.Column())
	}
}

func TestParseLimits(t *testing.T) {
	a := english(t)
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("w%d", i)
		}
		return strings.Join(w, " ")
	}

	// At the limit, as long as it fits in MaxQueryBytes.
	var q strings.Builder
	for i := 0; i < MaxTerms; i++ {
		q.WriteString("x ")
	}
	if _, err := Parse(q.String(), a); err != nil {
		t.Fatalf("%d terms: %v", MaxTerms, err)
	}
	if _, err := Parse(q.String()+"y", a); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "too many terms") {
		t.Fatalf("%d terms: %v", MaxTerms+1, err)
	} else if pe := err.(*ParseError); pe.Pos != 2*MaxTerms {
		t.Errorf("too many terms at %d, want %d", pe.Pos, 2*MaxTerms)
	}

	// Terms in phrases count, and so do the parts of split words.
	long := strings.TrimSuffix(strings.Repeat("x-", MaxTerms+1), "-")
	if _, err := Parse(long, a); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "too many terms") {
		t.Fatalf("a word of %d parts: %v", MaxTerms+1, err)
	}

	// A huge query is refused without being analyzed: quickly, with the
	// error a user can act on.
	huge := words(10_000)
	start := time.Now()
	_, err := Parse(huge, a)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "too many terms") {
		t.Fatalf("10,000 terms: %v", err)
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("10,000 terms took %v", d)
	}
	if pe := err.(*ParseError); !strings.HasPrefix(huge[pe.Pos:], fmt.Sprintf("w%d ", MaxTerms)) {
		t.Errorf("too many terms at %q, want the %dth word", huge[pe.Pos:pe.Pos+10], MaxTerms+1)
	}

	// Nesting: MaxDepth is fine, one more is not, and deep input is cheap.
	ok := strings.Repeat("(foo ", MaxDepth) + strings.Repeat(")", MaxDepth)
	if _, err := Parse(ok, a); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	deep := strings.Repeat("(", MaxQueryBytes)
	if _, err := Parse(deep, a); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("depth %d: %v", MaxQueryBytes, err)
	}
	negs := strings.Repeat("-", MaxQueryBytes-5) + "foo"
	if _, err := Parse(negs, a); !errors.Is(err, ErrOnlyNegated) {
		t.Fatalf("%d negations: %v", MaxQueryBytes-5, err)
	}
}

// TestParseCost bounds the time of the worst queries that pass the size
// checks: all of them must stay far below a millisecond-scale budget.
func TestParseCost(t *testing.T) {
	a := english(t)
	var alts strings.Builder
	for i := 0; alts.Len() < MaxQueryBytes-16; i++ {
		fmt.Fprintf(&alts, "w%d OR ", i)
	}
	alts.WriteString("end")
	queries := map[string]string{
		"words":   strings.TrimSpace(strings.Repeat("running ", MaxQueryBytes/8)),
		"ors":     alts.String(),
		"nested":  strings.Repeat("(foo OR bar ", MaxDepth) + strings.Repeat(")", MaxDepth),
		"phrases": strings.Repeat(`"foo bar" `, MaxQueryBytes/10),
		"split":   strings.Repeat("ab-", MaxQueryBytes/3-1) + "ab",
	}
	for name, q := range queries {
		if len(q) > MaxQueryBytes {
			t.Fatalf("%s: %d bytes", name, len(q))
		}
		start := time.Now()
		_, err := Parse(q, a)
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("%s: %v (err %v)", name, d, err)
		}
	}
}

// TestParseLanguages checks that operator words of other languages are
// searchable when quoted, and render back quoted.
func TestParseLanguages(t *testing.T) {
	a, err := tokenize.New("french")
	if err != nil {
		t.Fatal(err)
	}
	n, err := Parse(`"OR" NOT or`, a)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := n.String(), `"OR" -or`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// "OR" and "or" analyze to the same term: one is required, one is
	// excluded, and both stay so the query means what was typed.
	if n2, err := Parse(n.String(), a); err != nil || n2.String() != n.String() {
		t.Errorf("again: %v, %v", n2, err)
	}
}

// checkTree asserts the invariants Parse promises the planner.
func checkTree(t testing.TB, q string, root Node) {
	t.Helper()
	if root == nil {
		t.Fatalf("Parse(%q) returned no node and no error", q)
	}
	if _, ok := root.(*Not); ok {
		t.Errorf("Parse(%q): root is a Not", q)
	}
	if !required(root) {
		t.Errorf("Parse(%q) = %s: requires no word", q, root)
	}
	terms := 0
	var walk func(n Node, parent Node)
	walk = func(n Node, parent Node) {
		switch n := n.(type) {
		case *And:
			if len(n.Children) < 2 {
				t.Errorf("Parse(%q): And with %d children", q, len(n.Children))
			}
			if _, ok := parent.(*And); ok {
				t.Errorf("Parse(%q): And inside And", q)
			}
			for _, c := range n.Children {
				walk(c, n)
			}
		case *Or:
			if len(n.Children) < 2 {
				t.Errorf("Parse(%q): Or with %d children", q, len(n.Children))
			}
			if _, ok := parent.(*Or); ok {
				t.Errorf("Parse(%q): Or inside Or", q)
			}
			for _, c := range n.Children {
				walk(c, n)
			}
		case *Not:
			if _, ok := n.Child.(*Not); ok {
				t.Errorf("Parse(%q): double negation", q)
			}
			walk(n.Child, n)
		case *Term:
			terms++
			if n.Term == "" || n.Word == "" {
				t.Errorf("Parse(%q): empty term %#v", q, n)
			}
		case *Phrase:
			terms += len(n.Terms)
			if len(n.Terms) < 2 || len(n.Offsets) != len(n.Terms) || n.Offsets[0] != 0 || n.Text == "" {
				t.Errorf("Parse(%q): bad phrase %#v", q, n)
			}
			for i := 1; i < len(n.Offsets); i++ {
				if n.Offsets[i] <= n.Offsets[i-1] {
					t.Errorf("Parse(%q): phrase offsets %v not increasing", q, n.Offsets)
				}
			}
			for _, term := range n.Terms {
				if term == "" {
					t.Errorf("Parse(%q): empty phrase term %#v", q, n)
				}
			}
		case *Prefix:
			terms++
			if len(n.Prefix) == 0 || len(n.Prefix) > tokenize.MaxTokenBytes {
				t.Errorf("Parse(%q): bad prefix %q", q, n.Prefix)
			}
		default:
			t.Errorf("Parse(%q): unexpected node %#v", q, n)
		}
	}
	walk(root, nil)
	if terms > MaxTerms {
		t.Errorf("Parse(%q): %d terms", q, terms)
	}
}

func BenchmarkParse(b *testing.B) {
	a := english(b)
	q := `golang "garbage collector" (latency OR pause*) -java concurrent mark-sweep`
	b.SetBytes(int64(len(q)))
	for b.Loop() {
		if _, err := Parse(q, a); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseColonsAndMarks checks that text with colons, tildes and carets
// that is not Lucene syntax parses as the words the analyzer makes of it, and
// that quoting what Parse refuses as Lucene syntax searches for it as text.
func TestParseColonsAndMarks(t *testing.T) {
	a := english(t)
	tests := []struct{ in, want string }{
		{"title:x", "title:x"}, // one word to the analyzer: the text title:x
		{"key:value", "key:value"},
		{"title:whale*", "title:whale*"},
		{"10:30", "10 30"},
		{"std::vector", "std vector"},
		{"Glib::Object::Introspection", "Glib Object Introspection"},
		{"http://example.com/a", "http example.com"},
		{`C:\Windows`, "C Windows"},
		{"Cython: high", "Cython high"},
		{":writer accessor", "writer accessor"},
		{"json: \"name\"", "json name"},
		{"~/bin", "bin"},
		{"foo ~ bar", "foo bar"},
		{"foo~bar", "foo bar"},
		{"x^y", "x y"},
		{"^2 foo", "2 foo"},
		{`"title:x"`, "title:x"},
		{`"whale~2"`, `"whale~2"`},
		{`"x^2"`, `"x^2"`},
	}
	for _, tt := range tests {
		n, err := Parse(tt.in, a)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := n.String(); got != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := PlainWords(`title:"a b"~3 whale~2 x^2`); got != "title: a b 3 whale 2 x 2" {
		t.Errorf("PlainWords: %q", got)
	}
}

// TestParseBenchQueries parses every line of the query sets of
// bench/queries: they are plain text, and must stay valid queries.
func TestParseBenchQueries(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "bench", "queries", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("bench/queries holds %d query files, want 3", len(files))
	}
	a := english(t)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if _, err := Parse(line, a); err != nil {
				t.Errorf("%s:%d: %q: %v", filepath.Base(f), i+1, line, err)
			}
			n++
		}
		t.Logf("%s: %d queries", filepath.Base(f), n)
	}
}
