package query

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bitsieve/bitsieve/tokenize"
)

// Limits on a query. They keep the cost of hostile input small: parsing is
// linear in the query's length and stops at the first limit broken, and a
// query longer than MaxQueryBytes is refused before any word is analyzed.
const (
	// MaxQueryBytes is the longest query Parse accepts, in bytes.
	MaxQueryBytes = 4096
	// MaxTerms is the most terms a query may hold: each Term and Prefix
	// counts one, each Phrase counts its terms. A query longer than
	// MaxQueryBytes that has more than MaxTerms words is reported as having
	// too many terms, the more useful of its two faults.
	MaxTerms = 1024
	// MaxDepth is the deepest nesting of parentheses Parse accepts.
	MaxDepth = 32
	// MinPrefixRunes is the shortest prefix (in characters, before the *)
	// Parse accepts: shorter ones would expand to most of the dictionary.
	MinPrefixRunes = 2
)

// Column is the 1-based column (in characters) of Pos, as messages print it.
func (e *ParseError) Column() int { return column(e.Query, e.Pos) }

func column(q string, pos int) int {
	pos = min(max(pos, 0), len(q))
	return utf8.RuneCountInString(q[:pos]) + 1
}

// Parse parses a query in bitsieve's query language, analyzing its words with
// a, which must be the analyzer of the index the query will run on. Parse
// uses a's caches, so it is no more safe for concurrent use than a.
//
// The language, Google style:
//
//	foo bar        both words (an explicit AND is also accepted: foo AND bar)
//	foo OR bar     either word; OR binds tighter than AND, so
//	               a b OR c means a AND (b OR c)
//	-foo, NOT foo  documents without foo; negates a word, phrase, prefix
//	               or parenthesised group
//	"foo bar"      the phrase: the words at these relative positions
//	foo*           any term starting with foo (at least MinPrefixRunes
//	               characters, a single word)
//	(a OR b) c     parentheses group, up to MaxDepth deep
//
// AND, OR and NOT are operators only in upper case; and, or, not are ordinary
// words (stop words in English). Parentheses and double quotes are always
// syntax; a - is a negation only at the start of a word (foo-bar is a word)
// and must be followed directly by what it negates. A colon is part of a
// word (title:x is the text title:x, as the analyzer reads it); the Lucene
// syntax that would otherwise be read as other words is refused with a
// message that says what to write instead (see checkLucene).
//
// Every word goes through the analyzer, as the documents did. A word that
// analyzes to one term becomes a Term; one that analyzes to several (foo-bar,
// e.g, 日本語) becomes the And of them, not a phrase (only quotes ask for
// adjacency); one that analyzes to none (a stop word, punctuation, a word
// longer than tokenize.MaxTokenBytes) is dropped. A phrase keeps the
// positions of its terms relative to the first kept one, stop words in
// between included, and drops leading and trailing stop words; it becomes a
// Term if one term is left, and is dropped if none is. A prefix is the
// lowercased surface text (not stemmed), matched against the dictionary's
// terms.
//
// The tree Parse returns is simplified: dropped words vanish from And and Or,
// groups left empty vanish, And and Or with one child are replaced by the
// child, an And directly inside an And (an Or inside an Or) is flattened into
// its parent, a double negation cancels, and repeated leaves of an And or Or
// are kept once. Nodes are pointers: *And, *Or, *Not, *Term, *Phrase,
// *Prefix.
//
// The query always requires a word, so its candidates can be drawn from
// signature rows: a leaf requires a word, an And does when one of its
// children does, an Or when all of its children do, a Not never, and the
// root does. Below an And that requires a word, other children need not:
// a (-b OR -c) is accepted, -b OR -c and a OR -b alone are not.
//
// Errors are *ParseError values wrapping one of the Err* classes.
func Parse(q string, a *tokenize.Analyzer) (Node, error) {
	if strings.TrimSpace(q) == "" {
		return nil, &ParseError{Query: q, Pos: 0, Err: ErrEmptyQuery,
			Msg: "empty query: type at least one word to search for"}
	}
	if len(q) > MaxQueryBytes {
		if pos, ok := nthWord(q, MaxTerms+1); ok {
			return nil, tooManyTerms(q, pos)
		}
		return nil, &ParseError{Query: q, Pos: MaxQueryBytes, Err: ErrTooLarge,
			Msg: fmt.Sprintf("query too long: it has %d bytes and the limit is %d", len(q), MaxQueryBytes)}
	}
	return new(parser).parse(q, a)
}

// parse is Parse with this parser's buffers and node arenas: the nodes it
// returns live until the parser parses again.
func (p *parser) parse(q string, a *tokenize.Analyzer) (Node, error) {
	if strings.TrimSpace(q) == "" || len(q) > MaxQueryBytes {
		return Parse(q, a) // the errors
	}
	p.reset(q, a)
	if err := p.next(); err != nil {
		return nil, err
	}
	root, _, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	if p.tok.kind == tRParen {
		return nil, p.errorf(ErrSyntax, p.tok.pos, "unbalanced parenthesis: the ) at column %d has no matching (", column(q, p.tok.pos))
	}
	if root == nil {
		return nil, p.noTerms()
	}
	if !required(root) {
		if or := optionalOr(root); or != nil {
			pos := p.orPos[or]
			return nil, p.errorf(ErrOnlyNegated, pos,
				"the OR at column %d would match documents that contain none of the query's words: give each of its sides a word that is not negated, or add one outside it", column(q, pos))
		}
		msg := "a query needs at least one word that is not negated"
		switch len(p.dropped) {
		case 0:
		case 1:
			msg += fmt.Sprintf(" (%s is ignored as a stop word or not searchable)", p.droppedList())
		default:
			msg += fmt.Sprintf(" (%s are ignored as stop words or not searchable)", p.droppedList())
		}
		return nil, p.errorf(ErrOnlyNegated, max(p.negPos, 0), "%s", msg)
	}
	return root, nil
}

type parser struct {
	q   string
	a   *tokenize.Analyzer
	off int   // lexer position: the byte after tok
	tok token // current token

	depth   int
	terms   int
	negPos  int         // first negation operator, -1 if none
	orPos   map[*Or]int // each Or's first OR operator, for messages
	dropped []string    // words that analyzed to nothing, for the no-terms message
	dropPos int         // position of the first dropped word
	buf     []byte      // scratch: a word as bytes for the analyzer
	toks    []tokenize.Token

	// Arenas the nodes come from, reused by the next parse (reset). A node
	// is never changed once made, so one made before an arena grew stays
	// valid where it is.
	terms_  []Term
	phrases []Phrase
	prefxs  []Prefix
	nots    []Not
	ands    []And
	ors     []Or
	nodes   []Node // children of And and Or
	strs    []string
	ints    []int
}

// reset readies the parser for q, keeping its buffers and arenas.
func (p *parser) reset(q string, a *tokenize.Analyzer) {
	p.q, p.a, p.off, p.tok = q, a, 0, token{}
	p.depth, p.terms, p.negPos = 0, 0, -1
	clear(p.orPos)
	p.dropped, p.dropPos = p.dropped[:0], 0
	p.terms_, p.phrases, p.prefxs, p.nots = p.terms_[:0], p.phrases[:0], p.prefxs[:0], p.nots[:0]
	p.ands, p.ors, p.nodes, p.strs, p.ints = p.ands[:0], p.ors[:0], p.nodes[:0], p.strs[:0], p.ints[:0]
}

func (p *parser) newTerm(term, word string) *Term {
	p.terms_ = append(p.terms_, Term{Term: term, Word: word})
	return &p.terms_[len(p.terms_)-1]
}

// children copies nodes into the node arena.
func (p *parser) children(nodes []Node) []Node {
	start := len(p.nodes)
	p.nodes = append(p.nodes, nodes...)
	return p.nodes[start:len(p.nodes):len(p.nodes)]
}

func (p *parser) errorf(class error, pos int, format string, args ...any) *ParseError {
	return &ParseError{Query: p.q, Pos: pos, Err: class, Msg: fmt.Sprintf(format, args...)}
}

func tooManyTerms(q string, pos int) *ParseError {
	return &ParseError{Query: q, Pos: pos, Err: ErrTooLarge,
		Msg: fmt.Sprintf("too many terms: a query may have at most %d terms, and the limit is passed at column %d",
			MaxTerms, column(q, pos))}
}

// endsOperand reports whether the current token cannot start an operand.
func (p *parser) endsOperand() bool {
	switch p.tok.kind {
	case tEOF, tRParen, tAnd, tOr:
		return true
	}
	return false
}

// parseAnd parses a sequence of OR-expressions, ANDed, up to the end of the
// query or a closing parenthesis. n counts the operands as written, before
// any was dropped, so that () can be told from (the).
func (p *parser) parseAnd() (node Node, n int, err error) {
	var buf [8]Node
	items := buf[:0]
	for {
		switch p.tok.kind {
		case tEOF, tRParen:
			return p.makeAnd(items), n, nil
		case tAnd:
			pos := p.tok.pos
			if n == 0 {
				return nil, 0, p.errorf(ErrSyntax, pos, "the AND at column %d has nothing on its left: it needs a word, phrase, prefix or group on each side", column(p.q, pos))
			}
			if err := p.next(); err != nil {
				return nil, 0, err
			}
			if p.endsOperand() {
				return nil, 0, p.errorf(ErrSyntax, pos, "the AND at column %d has nothing on its right: it needs a word, phrase, prefix or group on each side", column(p.q, pos))
			}
			continue
		case tOr:
			pos := p.tok.pos
			return nil, 0, p.errorf(ErrSyntax, pos, "the OR at column %d has nothing on its left: it needs a word, phrase, prefix or group on each side", column(p.q, pos))
		}
		item, err := p.parseOr()
		if err != nil {
			return nil, 0, err
		}
		n++
		if item != nil {
			items = append(items, item)
		}
	}
}

// parseOr parses unary expressions separated by OR.
func (p *parser) parseOr() (Node, error) {
	first, err := p.parseUnary()
	if err != nil || p.tok.kind != tOr {
		return first, err
	}
	var buf [8]Node
	items := append(buf[:0], first)
	orPos := p.tok.pos
	for p.tok.kind == tOr {
		pos := p.tok.pos
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.endsOperand() {
			return nil, p.errorf(ErrSyntax, pos, "the OR at column %d has nothing on its right: it needs a word, phrase, prefix or group on each side", column(p.q, pos))
		}
		item, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return p.makeOr(items, orPos), nil
}

// parseUnary parses any number of negations and the operand they apply to.
// Negations are counted, not nested, so a long run of them costs no stack.
func (p *parser) parseUnary() (Node, error) {
	neg := false
	for p.tok.kind == tNot || p.tok.kind == tMinus {
		op := p.tok
		if err := p.next(); err != nil {
			return nil, err
		}
		if p.endsOperand() {
			name := "NOT"
			if op.kind == tMinus {
				name = "-"
			}
			return nil, p.errorf(ErrSyntax, op.pos, "the %s at column %d has nothing after it: it must be followed by the word, phrase, prefix or group to exclude", name, column(p.q, op.pos))
		}
		if p.negPos < 0 {
			p.negPos = op.pos
		}
		neg = !neg
	}
	n, err := p.parsePrimary()
	if err != nil || !neg {
		return n, err
	}
	return p.negate(n), nil
}

// parsePrimary parses a word, a phrase or a parenthesised group.
func (p *parser) parsePrimary() (Node, error) {
	t := p.tok
	var n Node
	var err error
	switch t.kind {
	case tWord:
		if err := p.checkLucene(t); err != nil {
			return nil, err
		}
		if strings.HasSuffix(t.text, "*") {
			n, err = p.prefix(t)
		} else {
			n, err = p.analyze(t.text, t.pos, t.text, false)
		}
	case tPhrase:
		if err := p.checkLucene(t); err != nil {
			return nil, err
		}
		n, err = p.analyze(t.text, t.pos, `"`+t.text+`"`, true)
	case tLParen:
		p.depth++
		if p.depth > MaxDepth {
			return nil, p.errorf(ErrTooLarge, t.pos, "too deeply nested: the ( at column %d opens more than %d levels of parentheses", column(p.q, t.pos), MaxDepth)
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		var count int
		n, count, err = p.parseAnd()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tRParen {
			return nil, p.errorf(ErrSyntax, t.pos, "unbalanced parenthesis: the ( at column %d is never closed", column(p.q, t.pos))
		}
		if count == 0 {
			return nil, p.errorf(ErrSyntax, t.pos, "empty group: the parentheses at column %d contain nothing", column(p.q, t.pos))
		}
		p.depth--
	default:
		// The callers only call parsePrimary on a token that starts an operand.
		return nil, p.errorf(ErrSyntax, t.pos, "unexpected %q at column %d", t.text, column(p.q, t.pos))
	}
	if err != nil {
		return nil, err
	}
	return n, p.next()
}

// analyze turns a word or a phrase's text into a Term, a Phrase, or nil when
// nothing in it is searchable. pos is the text's offset in the query; shown
// is how to name the text if it is dropped. A bare word that the analyzer
// splits (foo-bar, e.g, 日本) becomes the AND of its terms, not a phrase: an
// unquoted query is a conjunction of the terms it analyzes to, so a line of
// plain words means the same to bitsieve as to any tool that analyzes it.
// Quotes ask for adjacency.
func (p *parser) analyze(text string, pos int, shown string, phrase bool) (Node, error) {
	p.buf = append(p.buf[:0], text...)
	p.toks = p.a.Analyze(p.toks[:0], p.buf)
	toks := p.toks
	if len(toks) == 0 {
		p.drop(shown, pos)
		return nil, nil
	}
	if err := p.count(len(toks), pos); err != nil {
		return nil, err
	}
	if len(toks) == 1 {
		return p.newTerm(toks[0].Term, text[toks[0].Start:toks[0].End]), nil
	}
	if !phrase {
		var buf [8]Node
		terms := buf[:0]
		for _, t := range toks {
			terms = append(terms, p.newTerm(t.Term, text[t.Start:t.End]))
		}
		return p.makeAnd(terms), nil
	}
	s0, i0 := len(p.strs), len(p.ints)
	for _, t := range toks {
		p.strs = append(p.strs, t.Term)
		p.ints = append(p.ints, t.Pos-toks[0].Pos)
	}
	p.phrases = append(p.phrases, Phrase{
		Terms:   p.strs[s0:len(p.strs):len(p.strs)],
		Offsets: p.ints[i0:len(p.ints):len(p.ints)],
		Text:    text[toks[0].Start:toks[len(toks)-1].End],
	})
	return &p.phrases[len(p.phrases)-1], nil
}

// checkLucene refuses the Lucene syntax bitsieve does not have, which the
// analyzer would otherwise quietly turn into other words: a field before a
// phrase or group (title:"a b", title:(a b)), fuzzy words (whale~,
// whale~2), boosts (whale^2, "a b"^2) and proximity ("a b"~3). Each message
// says what to write instead.
//
// A colon inside a word is text, not a field: the analyzer keeps title:x,
// key:value and c:a as one word and finds exactly that text, as it does
// 10:30, std::vector and URLs, so only a field name directly before a quote
// or a parenthesis is refused.
func (p *parser) checkLucene(t token) error {
	next := byte(0) // the character right after the token, 0 at the end
	if p.off < len(p.q) {
		next = p.q[p.off]
	}
	if t.kind == tPhrase {
		shown := `"` + t.text + `"`
		switch next {
		case '~':
			return p.errorf(ErrSyntax, t.pos, "proximity search is not supported: remove the ~ after %s at column %d to search for the exact phrase, or drop the quotes to find the words anywhere in a document", shown, column(p.q, t.pos))
		case '^':
			return p.errorf(ErrSyntax, t.pos, "boosts are not supported: remove the ^ after %s at column %d; every word and phrase counts by its BM25 score", shown, column(p.q, t.pos))
		}
		return nil
	}
	if name, ok := strings.CutSuffix(t.text, ":"); ok && (next == '"' || next == '(') && isFieldName(name) {
		return p.errorf(ErrSyntax, t.pos, "fields are not supported: remove %q at column %d and search for what follows it in any part of the documents", t.text, column(p.q, t.pos))
	}
	word, num := splitNumberSuffix(t.text)
	if len(word) < 2 || strings.IndexFunc(word[:len(word)-1], isWordChar) < 0 {
		return nil // a ~ or ^ with no word before it modifies nothing
	}
	op := t.text[len(word)-1:] // ~, ~2, ^2
	switch {
	case op[0] == '~':
		return p.errorf(ErrSyntax, t.pos, "fuzzy search is not supported: write %q at column %d without the %s to search for the word exactly, or quote it to match it as text",
			t.text, column(p.q, t.pos), op)
	case op[0] == '^' && num != "":
		return p.errorf(ErrSyntax, t.pos, "boosts are not supported: write %q at column %d without the %s, or quote it to match it as text",
			t.text, column(p.q, t.pos), op)
	}
	return nil
}

func isWordChar(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// isFieldName reports whether s looks like a Lucene field name: a letter,
// then letters, digits, underscores and dots.
func isFieldName(s string) bool {
	for i, r := range s {
		if !(unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || r == '_' || r == '.')) {
			return false
		}
	}
	return s != ""
}

// splitNumberSuffix splits s before the number (digits, then optionally a dot
// and digits) it ends with; num is "" if it ends with none.
func splitNumberSuffix(s string) (word, num string) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i > 1 && i < len(s) && s[i-1] == '.' && s[i-2] >= '0' && s[i-2] <= '9' {
		j := i - 1
		for j > 0 && s[j-1] >= '0' && s[j-1] <= '9' {
			j--
		}
		i = j
	}
	return s[:i], s[i:]
}

// prefix turns a word ending in * into a Prefix.
func (p *parser) prefix(t token) (Node, error) {
	surface := strings.TrimRight(t.text, "*")
	if utf8.RuneCountInString(surface) < MinPrefixRunes {
		return nil, p.errorf(ErrSyntax, t.pos, "prefix too short: %q at column %d needs at least %d characters before the *", t.text, column(p.q, t.pos), MinPrefixRunes)
	}
	p.buf = bytes.ToLower(append(p.buf[:0], surface...))
	lower := string(p.buf)
	if _, one := p.a.Term(lower); !one || !prefixEdge(lower, true) || !prefixEdge(lower, false) {
		return nil, p.errorf(ErrSyntax, t.pos, "prefix %q at column %d must be a single word (letters and digits) followed by *, like data*", t.text, column(p.q, t.pos))
	}
	if len(lower) > tokenize.MaxTokenBytes {
		// No term is that long: the prefix is as unsearchable as a word
		// that long, and is dropped the same way.
		p.drop(t.text, t.pos)
		return nil, nil
	}
	if err := p.count(1, t.pos); err != nil {
		return nil, err
	}
	p.prefxs = append(p.prefxs, Prefix{Prefix: lower})
	return &p.prefxs[len(p.prefxs)-1], nil
}

// prefixEdge reports whether the first (or last) character of a prefix can
// begin (or end) a word, so the prefix is nothing but the word.
func prefixEdge(s string, first bool) bool {
	var r rune
	if first {
		r, _ = utf8.DecodeRuneInString(s)
	} else {
		r, _ = utf8.DecodeLastRuneInString(s)
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Pc, r) ||
		(!first && unicode.IsMark(r))
}

// count adds n terms to the query's total and fails past MaxTerms.
func (p *parser) count(n, pos int) error {
	p.terms += n
	if p.terms > MaxTerms {
		return tooManyTerms(p.q, pos)
	}
	return nil
}

func (p *parser) drop(shown string, pos int) {
	if len(p.dropped) == 0 {
		p.dropPos = pos
	}
	p.dropped = append(p.dropped, shown)
}

// noTerms is the error for a query whose every word was dropped.
func (p *parser) noTerms() *ParseError {
	if len(p.dropped) == 1 {
		return p.errorf(ErrNoTerms, p.dropPos, "no searchable term: %s is a stop word or not searchable", p.droppedList())
	}
	return p.errorf(ErrNoTerms, p.dropPos, "no searchable term: every word of the query (%s) is a stop word or not searchable", p.droppedList())
}

// droppedList names the dropped words, quoted, the first few only.
func (p *parser) droppedList() string {
	const show = 8
	var b strings.Builder
	for i, w := range p.dropped {
		if i == show {
			fmt.Fprintf(&b, " and %d more", len(p.dropped)-show)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", w)
	}
	return b.String()
}
