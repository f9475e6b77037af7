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

// eachLeaf calls fn for every Term, Phrase and Prefix of n, in order, with
// whether it lies under an odd number of negations (negated starts it).
func eachLeaf(n Node, negated bool, fn func(leaf Node, negated bool)) {
	switch x := n.(type) {
	case *Term, *Phrase, *Prefix:
		fn(x, negated)
	case *Not:
		eachLeaf(x.Child, !negated, fn)
	case *And:
		for _, k := range x.Children {
			eachLeaf(k, negated, fn)
		}
	case *Or:
		for _, k := range x.Children {
			eachLeaf(k, negated, fn)
		}
	}
}
