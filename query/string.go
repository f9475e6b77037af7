package query

import "strings"

// String renders the query canonically, in the query language: Parse of the
// result gives the same tree (with a different Term.Word only if the tree was
// not built by Parse). AND is implicit (a space), OR binds tighter than it,
// negation is -, and parentheses appear only where needed:
//
//	a b OR c -d "x y" pre* -(e OR f) (g h) OR i
//
// Terms are shown as the user wrote them (Word), which re-analyzes to the
// same term; a stemmed term would not always (allocs → alloc).
func (n *And) String() string { return render(n) }

// String renders the query; see And.String.
func (n *Or) String() string { return render(n) }

// String renders the query; see And.String.
func (n *Not) String() string { return render(n) }

// String renders the query; see And.String.
func (n *Term) String() string { return render(n) }

// String renders the query; see And.String.
func (n *Phrase) String() string { return render(n) }

// String renders the query; see And.String.
func (n *Prefix) String() string { return render(n) }

func render(n Node) string {
	var b strings.Builder
	write(&b, n, false)
	return b.String()
}

// write renders n to b; inGroup tells that n is an operand of an Or or a Not,
// where an And or Or needs parentheses.
func write(b *strings.Builder, n Node, inGroup bool) {
	switch n := n.(type) {
	case *And:
		writeList(b, n.Children, " ", true, inGroup)
	case *Or:
		writeList(b, n.Children, " OR ", false, inGroup)
	case *Not:
		b.WriteByte('-')
		write(b, n.Child, true)
	case *Term:
		w := n.Word
		if w == "" {
			w = n.Term
		}
		writeWord(b, w)
	case *Phrase:
		text := n.Text
		if text == "" {
			text = strings.Join(n.Terms, " ")
		}
		// Only quotes make a phrase; a quoted text cannot hold a quote.
		b.WriteString(`"` + strings.ReplaceAll(text, `"`, " ") + `"`)
	case *Prefix:
		b.WriteString(n.Prefix)
		b.WriteByte('*')
	case nil:
		b.WriteString("<nil>")
	default:
		b.WriteString(n.String())
	}
}

// writeList writes children joined by sep. Inside an And, an Or needs no
// parentheses (it binds tighter); an And does, which only a tree not built by
// Parse can have.
func writeList(b *strings.Builder, children []Node, sep string, isAnd, inGroup bool) {
	if inGroup {
		b.WriteByte('(')
	}
	for i, c := range children {
		if i > 0 {
			b.WriteString(sep)
		}
		_, childAnd := c.(*And)
		_, childOr := c.(*Or)
		write(b, c, childAnd || (childOr && !isAnd))
	}
	if inGroup {
		b.WriteByte(')')
	}
}

// writeWord writes a word or phrase text so that it lexes back as one word
// (the shortest form) or else as one phrase.
func writeWord(b *strings.Builder, s string) {
	if isBare(s) || strings.Contains(s, `"`) {
		// A text with a double quote came from a bare word (a quoted
		// phrase cannot hold one), so it lexes back as that word.
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

// isBare reports whether s, written as it is, lexes as the single bare word s.
func isBare(s string) bool {
	switch s {
	case "", "AND", "OR", "NOT":
		return false
	}
	return s[0] != '-' && s[0] != '"' && s[len(s)-1] != '*' && wordEnd(s, 0) == len(s)
}

// PlainWords rewrites text so that Parse reads it as its words only, as a
// user quoting a document would: the operator characters (quotes,
// parentheses, stars) become spaces, leading dashes go, and the operator
// keywords OR, AND and NOT are lowercased (stop words, then). The Lucene
// marks Parse refuses, ~ and ^, become spaces too: the analyzer splits words
// at them, so the terms stay the same.
func PlainWords(text string) string {
	text = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`"()*~^`, r) {
			return ' '
		}
		return r
	}, text)
	f := strings.Fields(text)
	for i, w := range f {
		w = strings.TrimLeft(w, "-")
		switch w {
		case "OR", "AND", "NOT":
			w = strings.ToLower(w)
		}
		f[i] = w
	}
	return strings.Join(f, " ")
}
