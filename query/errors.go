package query

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned by Document for a key that is not in the index.
var ErrNotFound = errors.New("document not found")

// Errors a ParseError wraps, for errors.Is. The ParseError's message is the
// sentence to show a user; these only classify it.
var (
	// ErrEmptyQuery: the query holds nothing but spaces.
	ErrEmptyQuery = errors.New("empty query")
	// ErrNoTerms: every word of the query is a stop word or has nothing
	// searchable (punctuation, a word longer than tokenize.MaxTokenBytes).
	ErrNoTerms = errors.New("no searchable term")
	// ErrSyntax: unbalanced quotes or parentheses, an operator missing an
	// operand, an empty group or a malformed prefix.
	ErrSyntax = errors.New("query syntax error")
	// ErrOnlyNegated: the query would match documents that contain none of
	// its words (it is made only of negations, or an OR has a side with
	// nothing required).
	ErrOnlyNegated = errors.New("query has no required word")
	// ErrTooLarge: the query breaks MaxQueryBytes, MaxTerms or MaxDepth,
	// or (from a Searcher) a prefix expands past MaxPrefixTerms.
	ErrTooLarge = errors.New("query too large")
)

// ParseError is the error Parse returns. Error gives one sentence for the
// user; Pos locates the problem so an interface can point at it.
type ParseError struct {
	Query string // the query as given
	Pos   int    // byte offset in Query of the problem
	Msg   string // the sentence Error returns
	Err   error  // one of the Err* values above
}

func (e *ParseError) Error() string { return e.Msg }

// Unwrap returns the error's class (ErrSyntax, ErrNoTerms, ...).
func (e *ParseError) Unwrap() error { return e.Err }

// prefixTooBroad is the error for a prefix that expands to more than
// MaxPrefixTerms terms in the index: a ParseError of class ErrTooLarge, as
// the parser's own limits are.
func prefixTooBroad(prefix string) error {
	return &ParseError{Query: prefix + "*", Err: ErrTooLarge,
		Msg: fmt.Sprintf("prefix %s* matches more than %d terms; use a longer prefix", prefix, MaxPrefixTerms)}
}
