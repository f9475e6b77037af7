package query

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned by Document for a key that is not in the index.
var ErrNotFound = errors.New("document not found")

// prefixTooBroad is the error for a prefix that expands to more than
// MaxPrefixTerms terms in the index: a ParseError of class ErrTooLarge, as
// the parser's own limits are.
func prefixTooBroad(prefix string) error {
	return &ParseError{Query: prefix + "*", Err: ErrTooLarge,
		Msg: fmt.Sprintf("prefix %s* matches more than %d terms; use a longer prefix", prefix, MaxPrefixTerms)}
}
