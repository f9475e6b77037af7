package query

import (
	"fmt"
	"slices"
	"strings"
)

// makeAnd builds the And of items (nil items already removed), flattened,
// without repeated leaves, collapsed when it has fewer than two children.
func (p *parser) makeAnd(items []Node) Node {
	var buf [16]Node
	children := buf[:0]
	for _, it := range items {
		if and, ok := it.(*And); ok {
			children = append(children, and.Children...)
		} else {
			children = append(children, it)
		}
	}
	children = dedupe(children)
	switch len(children) {
	case 0:
		return nil
	case 1:
		return children[0]
	}
	p.ands = append(p.ands, And{Children: p.children(children)})
	return &p.ands[len(p.ands)-1]
}

// makeOr is makeAnd for Or; items may hold nils (dropped words). pos is the
// first OR operator, recorded for error messages.
func (p *parser) makeOr(items []Node, pos int) Node {
	var buf [16]Node
	children := buf[:0]
	for _, it := range items {
		switch it := it.(type) {
		case nil:
		case *Or:
			children = append(children, it.Children...)
		default:
			children = append(children, it)
		}
	}
	children = dedupe(children)
	switch len(children) {
	case 0:
		return nil
	case 1:
		return children[0]
	}
	p.ors = append(p.ors, Or{Children: p.children(children)})
	or := &p.ors[len(p.ors)-1]
	if p.orPos == nil {
		p.orPos = make(map[*Or]int)
	}
	p.orPos[or] = pos
	return or
}

// negate returns NOT n; a double negation cancels.
func (p *parser) negate(n Node) Node {
	switch n := n.(type) {
	case nil:
		return nil
	case *Not:
		return n.Child
	}
	p.nots = append(p.nots, Not{Child: n})
	return &p.nots[len(p.nots)-1]
}

// dedupe removes repeated leaves (and negated leaves) from children, in
// place, keeping the first. Groups are left alone: comparing them would cost
// more than a repeated group does.
func dedupe(children []Node) []Node {
	if len(children) < 2 {
		return children
	}
	if len(children) > 64 {
		return dedupeMap(children)
	}
	out := children[:0]
	for _, c := range children {
		if !slices.ContainsFunc(out, func(o Node) bool { return sameLeaf(o, c) }) {
			out = append(out, c)
		}
	}
	return out
}

// dedupeMap is dedupe for many children, by key.
func dedupeMap(children []Node) []Node {
	seen := make(map[string]bool, len(children))
	out := children[:0]
	for _, c := range children {
		if k, ok := leafKey(c); ok {
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, c)
	}
	return out
}

// sameLeaf reports whether a and b are leaves (or negated leaves) that match
// the same documents: leafKey equal, without building keys.
func sameLeaf(a, b Node) bool {
	switch a := a.(type) {
	case *Term:
		b, ok := b.(*Term)
		return ok && a.Term == b.Term
	case *Prefix:
		b, ok := b.(*Prefix)
		return ok && a.Prefix == b.Prefix
	case *Phrase:
		b, ok := b.(*Phrase)
		return ok && slices.Equal(a.Terms, b.Terms) && slices.Equal(a.Offsets, b.Offsets)
	case *Not:
		b, ok := b.(*Not)
		return ok && isLeaf(a.Child) && sameLeaf(a.Child, b.Child)
	}
	return false
}

func isLeaf(n Node) bool {
	switch n.(type) {
	case *Term, *Prefix, *Phrase:
		return true
	}
	return false
}

// leafKey identifies what a leaf matches (not how it was written).
func leafKey(n Node) (string, bool) {
	switch n := n.(type) {
	case *Term:
		return "t\x00" + n.Term, true
	case *Prefix:
		return "p\x00" + n.Prefix, true
	case *Phrase:
		var b strings.Builder
		b.WriteString("q")
		for i, t := range n.Terms {
			fmt.Fprintf(&b, "\x00%d\x00%s", n.Offsets[i], t)
		}
		return b.String(), true
	case *Not:
		if k, ok := leafKey(n.Child); ok {
			return "-" + k, true
		}
	}
	return "", false
}

// required reports whether every document matching n contains at least one
// word of n: then n can be answered from the signature rows of its words.
func required(n Node) bool {
	switch n := n.(type) {
	case *Term, *Phrase, *Prefix:
		return true
	case *And:
		for _, c := range n.Children {
			if required(c) {
				return true
			}
		}
		return false
	case *Or:
		for _, c := range n.Children {
			if !required(c) {
				return false
			}
		}
		return true
	}
	return false
}

// optionalOr finds, in a tree that is not required, the first Or that has a
// word that is not negated but also a side that requires nothing: the OR to
// blame. It looks through Ands only, and returns nil when the tree has no
// such word (only negations).
func optionalOr(n Node) *Or {
	var blame *Or
	Walk(n, func(n Node, _ bool) bool {
		switch x := n.(type) {
		case *And:
			return blame == nil
		case *Or:
			if blame == nil && hasPositive(x) {
				blame = x
			}
		}
		return false
	})
	return blame
}

// hasPositive reports whether n has a word outside any negation.
func hasPositive(n Node) bool {
	found := false
	Walk(n, func(n Node, _ bool) bool {
		switch n.(type) {
		case *Term, *Phrase, *Prefix:
			found = true
		case *And, *Or:
			return !found
		}
		return false // a Not: its words are negated
	})
	return found
}
