package cluster

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bitsieve/bitsieve/query"
)

// The requests a client sends to a shard's owners, on the shard's subject
// (a queue group: one owner answers) or on one node's subject, and their
// replies, as JSON. A search takes two rounds: "stats" gathers each
// shard's statistics of the query's words, at the generation the
// answering node serves; "search" sends their sum, with that generation,
// to the node that answered, which searches the same generation (it keeps
// a replaced one for keepGenerations) and scores with the sum. So every
// shard scores as one index of all the documents would, and no shard's
// answer mixes two of its generations.
type request struct {
	Op    string `json:"op"` // opStats, opSearch, opSnippets, opExplain, opDocument, opKeys
	Shard int    `json:"shard"`
	// Generation is the generation to read; 0: the one served now.
	Generation uint64       `json:"generation,omitempty"`
	Query      string       `json:"query,omitempty"`
	Limit      int          `json:"limit,omitempty"`
	CountOnly  bool         `json:"count_only,omitempty"`
	Snippets   bool         `json:"snippets,omitempty"`
	Stats      *query.Stats `json:"stats,omitempty"`
	Key        string       `json:"key,omitempty"`
	// From is where a document's window starts (query.Searcher.Document).
	From int `json:"from,omitempty"`
	// Hits are the hits whose snippets opSnippets cuts.
	Hits []query.Hit `json:"hits,omitempty"`
	// Keys: the documents of these sources (index.SourceTag), or of all
	// with AllSources, whose keys sort after After; a page at a time.
	Sources    []uint32 `json:"sources,omitempty"`
	AllSources bool     `json:"all_sources,omitempty"`
	After      string   `json:"after,omitempty"`
}

const (
	opStats    = "stats"
	opSearch   = "search"
	opExplain  = "explain"
	opDocument = "document"
	opKeys     = "keys"
	opSnippets = "snippets"
)

// reply is a node's answer to a request.
type reply struct {
	Node       string              `json:"node"`
	Shard      int                 `json:"shard"`
	Generation uint64              `json:"generation"`
	Current    uint64              `json:"current"` // the generation the node serves now
	Error      *wireError          `json:"error,omitempty"`
	Stats      *query.Stats        `json:"stats,omitempty"`
	Result     *query.Result       `json:"result,omitempty"`
	Explain    *query.Explanation  `json:"explain,omitempty"`
	Document   *query.DocumentView `json:"document,omitempty"`
	Keys       []DocInfo           `json:"keys,omitempty"`
	More       bool                `json:"more,omitempty"` // Keys: another page follows
}

// DocInfo is what a writer compares to tell a changed document from an
// unchanged one (index.Writer.AddIfChanged's fields).
type DocInfo struct {
	Key     string `json:"key"`
	Source  uint32 `json:"source"`
	Title   string `json:"title"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime"` // Unix nanoseconds; 0: none
	TextLen int    `json:"text_len"`
	Hash    uint64 `json:"hash"` // xxhash64 of the text
}

// wireError is an error as a reply carries it: its kind, for the client
// to act on, and its sentence.
type wireError struct {
	Kind  string `json:"kind"`
	Msg   string `json:"msg"`
	Class string `json:"class,omitempty"` // kindQuery: the query.Err* it wraps
	Pos   int    `json:"pos,omitempty"`
}

// Kinds of errors a node replies with.
const (
	kindQuery      = "query"      // the query is refused (a *query.ParseError)
	kindNotFound   = "not-found"  // no document of that key
	kindStats      = "stats"      // the statistics do not cover the query (query.ErrStatsMismatch)
	kindGeneration = "generation" // the generation asked for is no longer (or not yet) served here
	kindNotOwner   = "not-owner"  // the node does not own the shard (any longer)
	kindInternal   = "internal"
)

var queryClasses = map[string]error{
	"empty": query.ErrEmptyQuery, "no-terms": query.ErrNoTerms, "syntax": query.ErrSyntax,
	"only-negated": query.ErrOnlyNegated, "too-large": query.ErrTooLarge,
}

// toWire turns a node's error into its reply form.
func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	if pe, ok := errors.AsType[*query.ParseError](err); ok {
		we := &wireError{Kind: kindQuery, Msg: pe.Msg, Pos: pe.Pos}
		for name, class := range queryClasses {
			if errors.Is(pe.Err, class) {
				we.Class = name
			}
		}
		return we
	}
	switch {
	case errors.Is(err, query.ErrNotFound):
		return &wireError{Kind: kindNotFound, Msg: err.Error()}
	case errors.Is(err, query.ErrStatsMismatch):
		return &wireError{Kind: kindStats, Msg: err.Error()}
	case errors.Is(err, errGeneration):
		return &wireError{Kind: kindGeneration, Msg: err.Error()}
	case errors.Is(err, errNotOwner):
		return &wireError{Kind: kindNotOwner, Msg: err.Error()}
	}
	return &wireError{Kind: kindInternal, Msg: err.Error()}
}

// errGeneration and errNotOwner are the node-side errors of kindGeneration
// and kindNotOwner.
var (
	errGeneration = errors.New("generation not served")
	errNotOwner   = errors.New("shard not owned")
)

// toError turns a reply's error back into an error a caller can classify
// as the same error of one index.
func (we *wireError) toError(q string) error {
	switch we.Kind {
	case kindQuery:
		return &query.ParseError{Query: q, Pos: we.Pos, Msg: we.Msg, Err: queryClasses[we.Class]}
	case kindNotFound:
		return query.ErrNotFound
	case kindStats:
		return fmt.Errorf("%w: %s", query.ErrStatsMismatch, we.Msg)
	case kindGeneration:
		return fmt.Errorf("%w: %s", errGeneration, we.Msg)
	case kindNotOwner:
		return fmt.Errorf("%w: %s", errNotOwner, we.Msg)
	}
	return errors.New(we.Msg)
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(reply{Error: &wireError{Kind: kindInternal, Msg: err.Error()}})
	}
	return b
}
