package kit

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bitsieve/bitsieve/tokenize"
)

// node is a parsed query. A nil *node is a word, phrase, prefix or group
// with nothing searchable in it.
type node struct {
	op      op
	terms   []string // opWord: its terms; opPhrase: its terms in order
	offsets []int    // opPhrase: each term's position after the first's
	prefix  string   // opPrefix: lowercased
	kids    []*node  // opNot: one; opAnd, opOr: any
}

type op uint8

const (
	opWord op = iota
	opPhrase
	opPrefix
	opNot
	opAnd
	opOr
)

// parse reads q in the query language, analyzing its words with a. It
// reads the language's operators, words, phrases, prefixes and groups; it
// has none of the engine's refusals (of Lucene syntax, of short prefixes,
// of the limits), which generated queries never need.
func parse(q string, a *tokenize.Analyzer) (*node, error) {
	p := &parser{q: q, a: a}
	p.next()
	n, _, err := p.and()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.errorf("unbalanced )")
	}
	return n, nil
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tWord
	tPhrase
	tLParen
	tRParen
	tAnd
	tOr
	tNot
	tMinus
	tBad // an unclosed quote, or a - before nothing
)

type parser struct {
	q   string
	a   *tokenize.Analyzer
	off int
	tok struct {
		kind tokKind
		pos  int
		text string
	}
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("query %q, at byte %d: %s", p.q, p.tok.pos, fmt.Sprintf(format, args...))
}

// next reads the next token: spaces separate words; parentheses and double
// quotes are always syntax; a - starts a negation when what it negates
// follows directly; AND, OR and NOT in upper case are operators.
func (p *parser) next() {
	q, i := p.q, p.off
	for i < len(q) {
		r, size := utf8.DecodeRuneInString(q[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	p.tok.pos, p.tok.text = i, ""
	switch {
	case i == len(q):
		p.tok.kind, p.off = tEOF, i
	case q[i] == '(':
		p.tok.kind, p.off = tLParen, i+1
	case q[i] == ')':
		p.tok.kind, p.off = tRParen, i+1
	case q[i] == '"':
		j := strings.IndexByte(q[i+1:], '"')
		if j < 0 {
			p.tok.kind, p.off = tBad, len(q)
			return
		}
		p.tok.kind, p.tok.text, p.off = tPhrase, q[i+1:i+1+j], i+2+j
	case q[i] == '-':
		r, _ := utf8.DecodeRuneInString(q[i+1:])
		if i+1 == len(q) || unicode.IsSpace(r) || r == ')' {
			p.tok.kind, p.off = tBad, len(q)
			return
		}
		p.tok.kind, p.off = tMinus, i+1
	default:
		j := i
		for j < len(q) {
			r, size := utf8.DecodeRuneInString(q[j:])
			if unicode.IsSpace(r) || r == '(' || r == ')' || r == '"' {
				break
			}
			j += size
		}
		p.tok.kind, p.tok.text, p.off = tWord, q[i:j], j
		switch p.tok.text {
		case "AND":
			p.tok.kind = tAnd
		case "OR":
			p.tok.kind = tOr
		case "NOT":
			p.tok.kind = tNot
		}
	}
}

// startsOperand reports whether the current token can begin an operand.
func (p *parser) startsOperand() bool {
	switch p.tok.kind {
	case tWord, tPhrase, tLParen, tNot, tMinus:
		return true
	}
	return false
}

// and parses operands up to the end or a ), ANDed; n counts the operands
// written, searchable or not.
func (p *parser) and() (*node, int, error) {
	and := &node{op: opAnd}
	n := 0
	for {
		switch p.tok.kind {
		case tEOF, tRParen:
			return and, n, nil
		case tAnd:
			if n == 0 {
				return nil, 0, p.errorf("AND with nothing on its left")
			}
			if p.next(); !p.startsOperand() {
				return nil, 0, p.errorf("AND with nothing on its right")
			}
			continue
		}
		kid, err := p.or()
		if err != nil {
			return nil, 0, err
		}
		and.kids = append(and.kids, kid)
		n++
	}
}

// or parses operands separated by OR, which binds tighter than AND.
func (p *parser) or() (*node, error) {
	first, err := p.unary()
	if err != nil || p.tok.kind != tOr {
		return first, err
	}
	or := &node{op: opOr, kids: []*node{first}}
	for p.tok.kind == tOr {
		if p.next(); !p.startsOperand() {
			return nil, p.errorf("OR with nothing on its right")
		}
		kid, err := p.unary()
		if err != nil {
			return nil, err
		}
		or.kids = append(or.kids, kid)
	}
	return or, nil
}

// unary parses NOT and - before an operand; two negations cancel.
func (p *parser) unary() (*node, error) {
	neg := false
	for p.tok.kind == tNot || p.tok.kind == tMinus {
		if p.next(); !p.startsOperand() {
			return nil, p.errorf("negation of nothing")
		}
		neg = !neg
	}
	n, err := p.primary()
	if err != nil || !neg || n == nil {
		return n, err
	}
	return &node{op: opNot, kids: []*node{n}}, nil
}

// primary parses a word, a prefix, a phrase or a parenthesised group.
func (p *parser) primary() (*node, error) {
	var n *node
	switch t := p.tok; t.kind {
	case tWord:
		if surface, ok := strings.CutSuffix(t.text, "*"); ok {
			n = prefix(strings.TrimRight(surface, "*"))
			break
		}
		if toks := p.a.Analyze(nil, []byte(t.text)); len(toks) > 0 {
			n = &node{op: opWord}
			for _, tk := range toks {
				n.terms = append(n.terms, tk.Term)
			}
		}
	case tPhrase:
		if toks := p.a.Analyze(nil, []byte(t.text)); len(toks) > 0 {
			n = &node{op: opPhrase}
			for _, tk := range toks {
				n.terms = append(n.terms, tk.Term)
				n.offsets = append(n.offsets, tk.Pos-toks[0].Pos)
			}
		}
	case tLParen:
		p.next()
		group, count, err := p.and()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tRParen {
			return nil, p.errorf("unbalanced (")
		}
		if count == 0 {
			return nil, p.errorf("empty group")
		}
		n = group
	case tBad:
		return nil, p.errorf("unclosed quote or - before nothing")
	default:
		return nil, p.errorf("unexpected %q", t.text)
	}
	p.next()
	return n, nil
}

// prefix is the prefix surface*: the lowercased surface, matched against
// the terms, or nothing if no term can be that long.
func prefix(surface string) *node {
	lower := strings.ToLower(surface)
	if len(lower) > tokenize.MaxTokenBytes {
		return nil
	}
	return &node{op: opPrefix, prefix: lower}
}
