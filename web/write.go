package web

import (
	"bufio"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/labstack/echo/v5"
)

// writeResponse is the body of a successful write.
type writeResponse struct {
	WriteResult
	TookMillis int64 `json:"took_ms"`
}

// authorizeWrite refuses writes unless the server has a write token and the
// request carries it.
func (s *Server) authorizeWrite(c *echo.Context) error {
	if s.opt.Sample {
		return errorf(http.StatusForbidden, "read-only",
			"this server shows the embedded sample corpus, which cannot be changed; start it with --index DIR to serve an index you can write to")
	}
	if s.opt.WriteToken == "" {
		return errorf(http.StatusForbidden, "writes disabled",
			"the write API is disabled; start the server with --write-token or BITSIEVE_WRITE_TOKEN to enable it")
	}
	auth := c.Request().Header.Get("Authorization")
	// The scheme is case-insensitive (RFC 9110 §11.1).
	scheme, token, ok := strings.Cut(strings.TrimSpace(auth), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.opt.WriteToken)) != 1 {
		return errorf(http.StatusUnauthorized, "unauthorized", "send the server's write token as an Authorization: Bearer header")
	}
	return nil
}

func (s *Server) apiAddDocuments(c *echo.Context) error {
	if err := s.authorizeWrite(c); err != nil {
		return err
	}
	body := http.MaxBytesReader(c.Response(), c.Request().Body, s.limits.MaxBodyBytes)
	docs, err := readDocuments(body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return echo.ErrStatusRequestEntityTooLarge
		}
		return err
	}
	if len(docs) == 0 {
		return badRequest("the body holds no documents; send a JSON array or JSON lines of {\"id\", \"title\", \"body\"}")
	}
	return s.write(c, "add", docs, nil)
}

func (s *Server) apiDeleteDocument(c *echo.Context) error {
	if err := s.authorizeWrite(c); err != nil {
		return err
	}
	key, err := documentKey(c)
	if err != nil {
		return err
	}
	return s.write(c, "delete", nil, []string{key})
}

// write applies one batch through the backend: in one commit, visible
// when the response is sent, on one index; stored by the cluster's stream
// (and indexed shortly) on a cluster. Documents identical to the indexed
// ones are left alone.
func (s *Server) write(c *echo.Context, op string, docs []index.Document, deletes []string) error {
	start := time.Now()
	st, err := s.backend.Write(c.Request().Context(), docs, deletes)
	if err != nil {
		s.metrics.writes.WithLabelValues(op, "error").Inc()
		switch {
		case errors.Is(err, index.ErrLocked):
			return &apiError{Status: http.StatusConflict, Err: "locked", RetryAfter: 5,
				Detail: "another writer (such as a 'bitsieve index' run) holds the index lock; retry when it has finished"}
		case errors.Is(err, query.ErrNotFound):
			return errorf(http.StatusNotFound, "not found", "no document with this key is in the index")
		}
		return err
	}
	if st.CompactErr != nil {
		s.log.Warn("compaction after a write failed; the write stands", "request_id", requestID(c), "error", st.CompactErr)
	}
	s.metrics.writes.WithLabelValues(op, "ok").Inc()
	s.log.Info("index changed through the API", "request_id", requestID(c), "op", op, "added", st.Added,
		"replaced", st.Replaced, "unchanged", st.Unchanged, "deleted", st.Deleted, "generation", st.Generation, "pending", st.Pending)
	return c.JSON(http.StatusOK, writeResponse{WriteResult: st, TookMillis: time.Since(start).Milliseconds()})
}

// readDocuments decodes a JSON array of documents, or JSON lines (any
// sequence of JSON objects separated by white space), each with
// corpus.DecodeJSON: it needs an id (a string or a number) and a body; the
// title is optional. The text indexed is title + "\n" + body, as for a
// JSONL corpus. The whole body is rejected if one document is malformed or
// an id repeats.
func readDocuments(r io.Reader) ([]index.Document, error) {
	br := bufio.NewReader(r)
	first, err := peekNonSpace(br)
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(br)
	array := first == '['
	if array {
		if _, err := dec.Token(); err != nil {
			return nil, jsonError(0, err)
		}
	}
	var docs []index.Document
	seen := map[string]int{}
	for n := 1; ; n++ {
		if array && !dec.More() {
			if _, err := dec.Token(); err != nil { // the closing ]
				return nil, jsonError(n, err)
			}
			if _, err := dec.Token(); err != io.EOF {
				return nil, badRequest("unexpected data after the array's closing ]")
			}
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF && !array {
				break
			}
			return nil, jsonError(n, err)
		}
		d, err := document(n, raw)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[d.Key]; dup {
			return nil, badRequest("document %d: id %q repeats document %d's", n, d.Key, prev)
		}
		seen[d.Key] = n
		docs = append(docs, d)
	}
	return docs, nil
}

// jsonError describes a decoding error of document n; a body past the size
// limit is passed on as is.
func jsonError(n int, err error) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return err
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("the body ends in the middle of document %d", max(n, 1))
	case n == 0:
		return badRequest("the body is not a JSON array or JSON lines: %v", err)
	}
	return badRequest("document %d: %v", n, err)
}

// document decodes document n of a request, as a JSONL line is decoded
// (the same rule for ids: corpus.MaxKeyBytes, integers read exactly) but
// with its id required.
func document(n int, raw []byte) (index.Document, error) {
	d, err := corpus.DecodeJSON(raw)
	switch {
	case errors.Is(err, corpus.ErrNotObject):
		return index.Document{}, badRequest("document %d is not a JSON object", n)
	case err != nil:
		return index.Document{}, badRequest("document %d: %v", n, err)
	}
	return index.Document(d), nil
}

func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case 0xEF: // a UTF-8 byte order mark
			if next, err := br.Peek(2); err == nil && next[0] == 0xBB && next[1] == 0xBF {
				br.Discard(2)
				continue
			}
		}
		return b, br.UnreadByte()
	}
}
