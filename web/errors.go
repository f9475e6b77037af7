package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
	"github.com/labstack/echo/v5"
)

// apiError is an error a client sees: a status, a short class and a sentence.
// It is the body of every failed API response: {"error": ..., "detail": ...}.
type apiError struct {
	Status     int    `json:"-"`
	Err        string `json:"error"`
	Detail     string `json:"detail"`
	RetryAfter int    `json:"-"` // seconds; 0: no Retry-After header
	reason     string // for bitsieve_http_rejected_total; "" if not a rejection
}

func (e *apiError) Error() string { return e.Err + ": " + e.Detail }

// StatusCode lets echo's machinery see the status.
func (e *apiError) StatusCode() int { return e.Status }

// statusClientClosed is logged for a request whose client went away before
// the answer (nginx's convention); no client ever receives it.
const statusClientClosed = 499

func errorf(status int, class, format string, a ...any) *apiError {
	return &apiError{Status: status, Err: class, Detail: fmt.Sprintf(format, a...)}
}

func badRequest(format string, a ...any) *apiError {
	return errorf(http.StatusBadRequest, "bad request", format, a...)
}

// errInternal is what a client sees of a bug or an I/O error; the cause is
// logged with the request id.
func errInternal(id string) *apiError {
	return errorf(http.StatusInternalServerError, "internal error",
		"the server could not answer this request; the problem was logged (request id %s)", id)
}

// classify turns an error from query or index into what the client sees.
// Only errors the client can act on carry their message; the rest become a
// 500 whose cause is logged.
func (s *Server) classify(c *echo.Context, err error) *apiError {
	var ae *apiError
	var pe *query.ParseError
	var sc echo.HTTPStatusCoder
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &pe):
		return errorf(http.StatusBadRequest, "bad query", "%s", pe.Error())
	case errors.Is(err, query.ErrNotFound):
		return errorf(http.StatusNotFound, "not found", "no document with this key is in the index")
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{Status: http.StatusServiceUnavailable, Err: "timeout", RetryAfter: 1, reason: "search_timeout",
			Detail: fmt.Sprintf("the search took longer than the limit of %s and was stopped", s.limits.SearchTimeout)}
	case errors.Is(err, context.Canceled):
		// The client went away; nobody reads this, but the log and the
		// metrics should not count it as the server's failure.
		return errorf(statusClientClosed, "canceled", "the client closed the request")
	case errors.As(err, &sc) && sc.StatusCode() > 0:
		code := sc.StatusCode()
		msg := http.StatusText(code)
		var he *echo.HTTPError
		if errors.As(err, &he) && he.Message != "" {
			msg = he.Message
		}
		switch code {
		case http.StatusNotFound:
			return errorf(code, "not found", "there is nothing at %s", c.Request().URL.Path)
		case http.StatusMethodNotAllowed:
			return errorf(code, "method not allowed", "%s is not allowed on %s", c.Request().Method, c.Request().URL.Path)
		case http.StatusRequestEntityTooLarge:
			return &apiError{Status: code, Err: "too large", reason: "body_too_large",
				Detail: fmt.Sprintf("the request body is larger than the limit of %d bytes", s.limits.MaxBodyBytes)}
		}
		if code < 500 {
			return errorf(code, strings.ToLower(http.StatusText(code)), "%s", msg)
		}
	}
	var ce *index.CorruptError
	if errors.As(err, &ce) {
		s.metrics.damaged.WithLabelValues(ce.Section).Inc()
	}
	s.log.Error("request failed", "request_id", requestID(c), "method", c.Request().Method,
		"path", c.Request().URL.Path, "error", err)
	return errInternal(requestID(c))
}

// handleError is echo's HTTPErrorHandler: JSON for the API, an HTML page for
// the page routes.
func (s *Server) handleError(c *echo.Context, err error) {
	if r, _ := echo.UnwrapResponse(c.Response()); r != nil && r.Committed {
		return
	}
	ae := s.classify(c, err)
	if ae.reason != "" {
		s.metrics.rejected.WithLabelValues(ae.reason).Inc()
	}
	if ae.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	if ae.Status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="bitsieve"`)
	}
	if c.Request().Method == http.MethodHead {
		c.NoContent(ae.Status)
		return
	}
	if wantsHTML(c) {
		s.renderError(c, ae)
		return
	}
	c.JSON(ae.Status, ae)
}
