package corpus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// ReadJSONL reads documents from JSONL text, one JSON object per line (see the
// package documentation for the fields), and calls fn for each. name
// identifies the input in keys synthesised for lines without an id and in
// error messages; Read passes the file's base name.
//
// Malformed lines are skipped and reported in Stats with their line number.
// ReadJSONL fails only on a read error from r or when fn returns an error,
// which it returns as is.
func ReadJSONL(r io.Reader, name string, fn func(Document) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 64<<10)
	seen := make(map[string]struct{})
	var lp lineParser
	var line []byte // reused: holds the current line, however long
	for {
		var err error
		line, err = readLine(br, line[:0])
		if len(line) == 0 && err == io.EOF {
			return st, nil
		}
		if err != nil && err != io.EOF {
			return st, fmt.Errorf("corpus: %s: line %d: %w", name, st.Lines+1, err)
		}
		st.Lines++
		if st.Lines == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF")) // a UTF-8 byte order mark
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		d, err := lp.parse(line, false)
		if err == nil {
			if d.Key == "" {
				d.Key = name + ":" + strconv.Itoa(st.Lines)
			}
			if _, dup := seen[d.Key]; dup {
				err = &jsonError{SkipDuplicateID, fmt.Sprintf("id %q first seen on an earlier line", d.Key), nil}
			}
		}
		if err != nil {
			e := err.(*jsonError)
			st.skip(Skip{Path: name, Line: st.Lines, Reason: e.reason, Detail: e.msg})
			continue
		}
		seen[d.Key] = struct{}{}
		if err := fn(d); err != nil {
			return st, err
		}
		st.add(d)
	}
}

// readLine appends the next line of br to buf, without its line ending ("\n"
// or "\r\n"). It returns io.EOF with the last line if that line has no
// newline, and with an empty buf at the end of input.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			buf = buf[:len(buf)-1]
			if n := len(buf); n > 0 && buf[n-1] == '\r' {
				buf = buf[:n-1]
			}
		}
		return buf, err
	}
}

// lineParser decodes JSONL lines in one pass each: a reused jsontext
// decoder validates the line while it reads the object's members, keeping
// the raw values of the four fields a document uses (the last of a name
// given twice, as encoding/json would), and the strings are unquoted once,
// the body straight into the document's text.
//
// The raw values are slices of the line itself: a decoder reading a
// bytes.Buffer takes all its bytes at once and parses them in place,
// without moving or overwriting them, so a value stays valid after the
// reads that follow it.
type lineParser struct {
	buf  bytes.Buffer
	dec  jsontext.Decoder
	raws [4]jsontext.Value // by field (fieldTitle...); nil when absent or null
	str  []byte            // scratch for the unquoted title and id
}

// jsonlOptions make the decoder accept what encoding/json accepts: a
// repeated member name (the last one counts) and invalid UTF-8 in strings
// (each bad byte becomes U+FFFD).
var jsonlOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// The fields of a line's object that make a document.
const (
	fieldTitle = iota
	fieldBody
	fieldText
	fieldID
)

// DecodeJSON decodes one JSON document object, as a line of a JSONL file
// holds it (see the package documentation), for a caller that takes
// documents one by one and needs each to carry its id: "id" (a string, or a
// number kept as written), an optional "title", and "body" ("text" is
// accepted instead). The document's Text is title + "\n" + body, its Size
// len(Text). It fails, with the first fault in that order, if obj is not a
// JSON object (ErrNotObject, or the syntax error), if the id is missing,
// null or empty, or if a field has the wrong type or there is no body; the
// error's text says which, as a sentence fragment ("body must be a
// string").
func DecodeJSON(obj []byte) (Document, error) {
	var lp lineParser
	return lp.parse(obj, true)
}

// ErrNotObject is DecodeJSON's error for JSON that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// jsonError is what is wrong with a document object, classed as ReadJSONL
// reports the line that holds it.
type jsonError struct {
	reason SkipReason
	msg    string
	err    error // the decoder's error, for SkipBadJSON
}

func (e *jsonError) Error() string { return e.msg }
func (e *jsonError) Unwrap() error { return e.err }

func badField(msg string) error { return &jsonError{SkipBadField, msg, nil} }

// parse decodes one document object. A missing id is an error if needID,
// and otherwise leaves the Key "".
func (lp *lineParser) parse(line []byte, needID bool) (Document, error) {
	lp.buf = *bytes.NewBuffer(line)
	lp.dec.Reset(&lp.buf, jsonlOptions...)
	lp.raws = [4]jsontext.Value{}
	if err := lp.members(); err != nil {
		// The decoder's message says what and where (a byte offset, the
		// member), after its package's name.
		return Document{}, &jsonError{SkipBadJSON, strings.TrimPrefix(err.Error(), "jsontext: "), err}
	}

	if needID && lp.raws[fieldID] == nil {
		return Document{}, badField("id is missing")
	}
	key, err := lp.jsonID(lp.raws[fieldID])
	if err != nil {
		return Document{}, err
	}
	var title string
	if raw := lp.raws[fieldTitle]; isString(raw) {
		lp.str, _ = jsontext.AppendUnquote(lp.str[:0], raw)
		title = string(lp.str)
	} else if raw != nil {
		return Document{}, badField("title must be a string")
	}
	body := lp.raws[fieldBody]
	if !isString(body) {
		if body != nil {
			return Document{}, badField("body must be a string")
		}
		if body = lp.raws[fieldText]; body != nil && !isString(body) {
			return Document{}, badField("text must be a string")
		}
	}
	if body == nil {
		return Document{}, &jsonError{SkipNoBody, "body is missing", nil}
	}
	// The unquoted body is at most as long as its literal.
	text := make([]byte, 0, len(title)+1+len(body))
	text = append(text, title...)
	text = append(text, '\n')
	// The decoder has validated the literal: the only error left is
	// invalid UTF-8, which AppendUnquote has replaced as encoding/json does.
	text, _ = jsontext.AppendUnquote(text, body)
	return Document{Key: key, Title: title, Text: text, Size: int64(len(text))}, nil
}

// members reads the line's object, keeping the raw values of its fields
// in lp.raws (null as nil: an absent field), and checks that nothing but
// white space follows it.
func (lp *lineParser) members() error {
	d := &lp.dec
	if d.PeekKind() != '{' {
		if _, err := d.ReadValue(); err != nil {
			return err
		}
		return ErrNotObject
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return err
		}
		f := -1
		switch tok.String() {
		case "id":
			f = fieldID
		case "title":
			f = fieldTitle
		case "body":
			f = fieldBody
		case "text":
			f = fieldText
		}
		if f < 0 {
			if err := d.SkipValue(); err != nil {
				return err
			}
			continue
		}
		v, err := d.ReadValue()
		if err != nil {
			return err
		}
		if v.Kind() == 'n' && f != fieldID {
			v = nil // a null title or body is an absent one; a null id is an error
		}
		lp.raws[f] = v
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			return errors.New("more than one JSON value on the line")
		}
		return err
	}
	return nil
}

func isString(raw jsontext.Value) bool { return len(raw) > 0 && raw[0] == '"' }

// MaxKeyBytes is the longest document key, in bytes, whatever gives it: a
// JSONL id, a write to the server, a file's path.
const MaxKeyBytes = 4096

// MaxIntID is the largest magnitude of a number id: the integers up to
// 2^53−1 are those every JSON reader, JavaScript's included, reads
// exactly, so that such an id names the same document whichever tool wrote
// or reads the line.
const MaxIntID = 1<<53 - 1

// jsonID decodes the id field (an absent one is ""): a string of 1 to
// MaxKeyBytes bytes, or an integer of at most MaxIntID in magnitude, whose
// key is its decimal form. Anything else is an error that says what is
// wrong: null, an empty or over-long string, a fraction, an exponent, a
// number out of range, a boolean, an array or an object.
func (lp *lineParser) jsonID(raw jsontext.Value) (string, error) {
	switch {
	case raw == nil:
		return "", nil
	case raw.Kind() == 'n':
		return "", badField("id is null; give a string or an integer")
	case raw[0] == '"':
		lp.str, _ = jsontext.AppendUnquote(lp.str[:0], raw)
		if len(lp.str) == 0 {
			return "", badField("id is empty")
		}
		if len(lp.str) > MaxKeyBytes {
			return "", badField(fmt.Sprintf("id is %d bytes long; the most is %d", len(lp.str), MaxKeyBytes))
		}
		return string(lp.str), nil
	case raw.Kind() == '0':
		// The decoder has validated the literal as a JSON number.
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > MaxIntID || n < -MaxIntID {
			shown := string(raw)
			if len(shown) > 40 {
				shown = fmt.Sprintf("%s… (%d characters)", shown[:20], len(raw))
			}
			return "", badField(fmt.Sprintf("id %s is not an integer between -%d and %d; give such an integer, or a string", shown, MaxIntID, MaxIntID))
		}
		return strconv.FormatInt(n, 10), nil
	}
	return "", badField("id must be a string or an integer")
}
