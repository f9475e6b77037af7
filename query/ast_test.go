package query

import (
	"slices"
	"testing"
)

// walkTree is a hand-built tree with every node type, a negated group and a
// double negation (which Parse would cancel):
//
//	a -(b OR "c d") e* -(-f g)
func walkTree() Node {
	return &And{Children: []Node{
		&Term{Term: "a", Word: "a"},
		&Not{Child: &Or{Children: []Node{
			&Term{Term: "b", Word: "b"},
			&Phrase{Terms: []string{"c", "d"}, Offsets: []int{0, 1}, Text: "c d"},
		}}},
		&Prefix{Prefix: "e"},
		&Not{Child: &And{Children: []Node{
			&Not{Child: &Term{Term: "f", Word: "f"}},
			&Term{Term: "g", Word: "g"},
		}}},
	}}
}

// visit names a node for the tests: its type, and its words for a leaf;
// a leading - marks a node visited as negated.
func visit(n Node, negated bool) string {
	s := ""
	if negated {
		s = "-"
	}
	switch x := n.(type) {
	case *And:
		return s + "And"
	case *Or:
		return s + "Or"
	case *Not:
		return s + "Not"
	case *Term:
		return s + x.Term
	case *Phrase:
		return s + `"` + x.Text + `"`
	case *Prefix:
		return s + x.Prefix + "*"
	}
	return s + "?"
}

func TestWalkOrder(t *testing.T) {
	var got []string
	Walk(walkTree(), func(n Node, negated bool) bool {
		got = append(got, visit(n, negated))
		return true
	})
	want := []string{"And", "a", "Not", "-Or", "-b", `-"c d"`, "e*", "Not", "-And", "-Not", "f", "-g"}
	if !slices.Equal(got, want) {
		t.Errorf("visits\n got %q\nwant %q", got, want)
	}
}

func TestWalkPrune(t *testing.T) {
	tests := []struct {
		name  string
		prune func(Node) bool // true: do not walk n's children
		want  []string
	}{
		{"nots", func(n Node) bool { _, ok := n.(*Not); return ok },
			[]string{"And", "a", "Not", "e*", "Not"}},
		{"ors", func(n Node) bool { _, ok := n.(*Or); return ok },
			[]string{"And", "a", "Not", "-Or", "e*", "Not", "-And", "-Not", "f", "-g"}},
		{"root", func(Node) bool { return true },
			[]string{"And"}},
		{"leaves", func(n Node) bool { return isLeaf(n) }, // a leaf has no children: nothing changes
			[]string{"And", "a", "Not", "-Or", "-b", `-"c d"`, "e*", "Not", "-And", "-Not", "f", "-g"}},
	}
	for _, tt := range tests {
		var got []string
		Walk(walkTree(), func(n Node, negated bool) bool {
			got = append(got, visit(n, negated))
			return !tt.prune(n)
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: visits\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// A leaf at the root is visited once, not negated; a Not at the root is
// visited not negated and its child negated.
func TestWalkRoot(t *testing.T) {
	for _, tt := range []struct {
		n    Node
		want []string
	}{
		{&Term{Term: "x"}, []string{"x"}},
		{&Not{Child: &Prefix{Prefix: "y"}}, []string{"Not", "-y*"}},
	} {
		var got []string
		Walk(tt.n, func(n Node, negated bool) bool {
			got = append(got, visit(n, negated))
			return true
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("Walk(%s): visits %q, want %q", tt.n, got, tt.want)
		}
	}
}
