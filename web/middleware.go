package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"
)

// Context keys.
const (
	keyRequestID = "bitsieve.request_id"
	keyPage      = "bitsieve.page" // set by page routes: errors render as HTML
)

func requestID(c *echo.Context) string {
	id, _ := c.Get(keyRequestID).(string)
	return id
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// observe wraps every request: it gives it an id, recovers a panic (logged
// with its stack, answered with a 500 without internals), sends errors
// through the error handler, then logs the request and records its metrics.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		start := time.Now()
		id := newRequestID()
		c.Set(keyRequestID, id)
		c.Response().Header().Set("X-Request-Id", id)
		s.metrics.inFlight.Inc()
		defer s.metrics.inFlight.Dec()

		err := s.recovered(c, next)
		if err != nil {
			s.handleError(c, err)
		}

		status, size := http.StatusOK, int64(0)
		if r, _ := echo.UnwrapResponse(c.Response()); r != nil {
			status, size = r.Status, r.Size
		}
		route := c.Path()
		if c.RouteInfo().Method == "" {
			route = "unmatched" // 404 and 405: never one label per path
		}
		d := time.Since(start)
		s.metrics.observeRequest(route, c.Request().Method, status, d)
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		} else if route == "/healthz" || route == "/readyz" || route == "/metrics" || strings.HasPrefix(route, "/static/") {
			level = slog.LevelDebug
		}
		s.log.LogAttrs(c.Request().Context(), level, "request",
			slog.String("request_id", id),
			slog.String("method", c.Request().Method),
			slog.String("route", route),
			slog.String("path", c.Request().URL.Path),
			slog.Int("status", status),
			slog.Int64("bytes", size),
			slog.Float64("duration_ms", float64(d.Microseconds())/1000),
			slog.String("remote", c.RealIP()),
		)
		return nil
	}
}

// recovered runs next, turning a panic into an internal error.
func (s *Server) recovered(c *echo.Context, next echo.HandlerFunc) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			s.log.Error("panic serving request", "request_id", requestID(c), "method", c.Request().Method,
				"path", c.Request().URL.Path, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = errInternal(requestID(c))
		}
	}()
	return next(c)
}

// contentSecurityPolicy allows the page's own styles, script and images and
// nothing else: no inline script or style, no framing, forms post only here.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// secure sets security headers on every response.
func secure(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer") // queries are in URLs
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		return next(c)
	}
}

// limiter bounds the searches running at once. A request waits up to wait
// for a slot; at most maxQueue requests wait, later ones are refused at once.
type limiter struct {
	name     string // prefix of its refusal reasons: "" or "heavy_"
	slots    chan struct{}
	waiting  atomic.Int64
	maxQueue int64
	wait     time.Duration
}

func newLimiter(name string, concurrent, queue int, wait time.Duration) *limiter {
	return &limiter{name: name, slots: make(chan struct{}, max(1, concurrent)), maxQueue: int64(queue), wait: wait}
}

func (l *limiter) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	if l.waiting.Add(1) > l.maxQueue {
		l.waiting.Add(-1)
		return &apiError{Status: http.StatusTooManyRequests, Err: "too many requests", RetryAfter: 1, reason: l.name + "queue_full",
			Detail: fmt.Sprintf("%d %ssearches are running and %d are waiting, the most this server queues; retry shortly", cap(l.slots), l.kind(), l.maxQueue)}
	}
	defer l.waiting.Add(-1)
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-t.C:
		return &apiError{Status: http.StatusServiceUnavailable, Err: "overloaded", RetryAfter: 1, reason: l.name + "queue_timeout",
			Detail: fmt.Sprintf("no %ssearch slot came free within %s; the server is overloaded, retry shortly", l.kind(), l.wait)}
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *limiter) release() { <-l.slots }

// kind names the lane in messages: "heavy " or nothing.
func (l *limiter) kind() string {
	if l.name == "" {
		return ""
	}
	return strings.TrimSuffix(l.name, "_") + " "
}

// limit is route middleware for the routes that search or read documents.
func (s *Server) limit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if err := s.limiter.acquire(c.Request().Context()); err != nil {
			return err
		}
		defer s.limiter.release()
		return next(c)
	}
}

// page marks a route as an HTML page, so its errors render as HTML.
func page(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		c.Set(keyPage, true)
		return next(c)
	}
}

// wantsHTML tells page requests (and browsers lost outside the API) from API
// requests.
func wantsHTML(c *echo.Context) bool {
	if p, _ := c.Get(keyPage).(bool); p {
		return true
	}
	path := c.Request().URL.Path
	if strings.HasPrefix(path, "/api/") || path == "/healthz" || path == "/readyz" || path == "/metrics" {
		return false
	}
	return strings.Contains(c.Request().Header.Get("Accept"), "text/html")
}
