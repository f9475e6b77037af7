// Package web serves bitsieve over HTTP: a JSON API for scripts and other
// services, and a server-rendered search page for people. It is built on
// echo (github.com/labstack/echo/v5) and reads the index through package
// query; nothing here changes how a query is answered.
//
// # Routes
//
//	GET  /                        the search page
//	GET  /search?q=&page=         results: highlighted snippets, total, time, candidates
//	GET  /doc?key=&q=&from=       one document, a window at a time, with every match highlighted
//	GET  /explain?q=              the signature's work drawn as SVG, term by term
//	GET  /api/search?q=&limit=&offset=&snippets=
//	GET  /api/documents/{key}?q=&from=  stored text (a window) and highlight ranges
//	GET  /api/explain?q=          what `bitsieve explain --json` prints
//	GET  /api/stats               documents, segments, rows, bytes
//	POST /api/documents           add or replace documents (JSON array or JSONL)
//	DELETE /api/documents/{key}   delete a document
//	GET  /healthz, /readyz, /metrics
//
// docs/api.md documents every route with examples. Errors are JSON objects
// {"error", "detail"} (HTML pages for the page routes); a 500 never carries
// internals, which go to the log with the request id.
//
// # Live snapshots
//
// An index.Index is an immutable snapshot of one MANIFEST. The server holds
// the current (Index, Searcher) pair behind an atomic pointer with a reference
// count: a request takes a reference when it starts and keeps that snapshot to
// its end, whatever happens meanwhile; when a new MANIFEST appears (fsnotify
// on the index directory, with a periodic stat of MANIFEST as a fallback) the
// new snapshot is opened and swapped in, and the old one is closed when its
// last request releases it. A snapshot that fails to open is not swapped in:
// the server goes on answering from the last good one and /readyz reports the
// error until a later MANIFEST opens cleanly. Each segment's document store
// is checked when a snapshot first holds it; a damaged one is served (its
// other blocks read well) but not ready.
//
// # Limits
//
// Every resource a request can consume is bounded (Limits, with defaults in
// DefaultLimits): query bytes and terms, page size and depth, request body
// size, concurrent searches and how long a request may wait for one, the time
// a search may take, and the server's read, write and idle timeouts. A request
// past a limit gets a 4xx or 503 with a sentence saying which limit it hit.
// A search is admitted by its cost, estimated before it runs (query.Cost):
// a heavy one (its cost past a quarter of the index's documents) takes a
// slot of a lane of its own first and runs on one goroutine, giving way
// between segments while cheap searches run, so a flood of expensive
// queries waits, and is refused, in that lane while cheap searches keep
// the other slots and most of the cores (Server.admit). A document is read
// a window at a time, so a request's memory is bounded whatever its size.
// With Options.TLS the server speaks HTTPS (tls.go).
package web
