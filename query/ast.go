package query

// Node is a node of a parsed query. The concrete types are And, Or, Not, Term,
// Phrase and Prefix. Terms in the tree are already analyzed (lowercased,
// stemmed) by the index's analyzer; Prefix keeps the lowercased surface prefix.
type Node interface{ String() string }

// And matches documents matching every child.
type And struct{ Children []Node }

// Or matches documents matching at least one child.
type Or struct{ Children []Node }

// Not matches documents that do not match Child. It only appears inside an
// And or Or that has a positive part; a query made only of negations is
// rejected by the parser.
type Not struct{ Child Node }

// Term matches documents containing the analyzed term.
type Term struct {
	Term string // analyzed term
	Word string // the user's word, for messages and highlighting
}

// Phrase matches documents where Terms occur at the given relative word
// positions: Offsets[i] is the position of Terms[i] minus the position of
// Terms[0]. Stop words between phrase words count as positions, so
// "bank of america" is bank@0, america@2.
type Phrase struct {
	Terms   []string
	Offsets []int
	Text    string // the phrase as written, without quotes
}

// Prefix matches documents containing any term that starts with Prefix.
type Prefix struct {
	Prefix string // lowercased surface prefix, not stemmed
}

// Walk visits the tree n depth first, in the order the query is written: it
// calls fn for n, then, if fn returns true, walks each child of n (the
// children of an And or Or, the child of a Not). negated reports whether the
// node lies under an odd number of Nots: a Not at the top is visited with
// negated false and its child with negated true. Returning false prunes the
// node's subtree only; the walk goes on with its siblings.
func Walk(n Node, fn func(n Node, negated bool) bool) { walk(n, false, fn) }

func walk(n Node, negated bool, fn func(Node, bool) bool) {
	if !fn(n, negated) {
		return
	}
	switch x := n.(type) {
	case *Not:
		walk(x.Child, !negated, fn)
	case *And:
		for _, k := range x.Children {
			walk(k, negated, fn)
		}
	case *Or:
		for _, k := range x.Children {
			walk(k, negated, fn)
		}
	}
}
