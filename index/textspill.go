package index

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// A writer keeps the texts of the documents it buffers on disk, not in
// memory: each length class's buffer appends them to a scratch file,
// NNNNNNNN.text.tmp, as its documents arrive, and the seal that writes the
// buffer as a segment reads the file back whole and removes it. Only the
// texts' store needs them, at the seal; analysis is done by then. So the
// memory budget holds the analyzed documents (their terms and positions),
// which are what a query needs to be laid out in few, full segments; texts
// would otherwise be a third or more of it, and a class's buffer would be
// sealed early, as a segment of its own, more often. Like every *.tmp
// file, a scratch file left by a crash is removed when the next writer
// starts. It is not fsynced: it is read back in the same run.

// textSpill is the scratch file of one class buffer's texts.
type textSpill struct {
	path string
	f    *os.File
	w    *bufio.Writer
	size int64 // bytes appended
	err  error // the first error appending
}

// spilledText is where a buffered document's text is: bytes at to at+n of
// the spill.
type spilledText struct {
	spill *textSpill
	at, n int64
}

// newTextSpill creates the scratch file of sequence number seq in dir.
func newTextSpill(dir string, seq uint64) (*textSpill, error) {
	path := filepath.Join(dir, fmt.Sprintf("%08d.text%s", seq, tmpSuffix))
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("spill texts: %w", err)
	}
	return &textSpill{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// add appends text and returns where it is.
func (s *textSpill) add(text []byte) (spilledText, error) {
	if s.err == nil {
		if s.err = injectedWriteError(s.path, len(text)); s.err == nil {
			_, s.err = s.w.Write(text)
		}
	}
	if s.err != nil {
		return spilledText{}, fmt.Errorf("spill texts to %s: %w", s.path, s.err)
	}
	at := s.size
	s.size += int64(len(text))
	return spilledText{spill: s, at: at, n: int64(len(text))}, nil
}

// finish flushes what add buffered; the spill is then read, not added to.
func (s *textSpill) finish() error {
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return fmt.Errorf("spill texts to %s: %w", s.path, s.err)
	}
	return nil
}

// readAll reads back every text appended (after finish).
func (s *textSpill) readAll() ([]byte, error) {
	buf := make([]byte, s.size)
	if _, err := s.f.ReadAt(buf, 0); err != nil && !(err == io.EOF && s.size == 0) {
		return nil, fmt.Errorf("read spilled texts %s: %w", s.path, err)
	}
	return buf, nil
}

// remove closes and deletes the scratch file.
func (s *textSpill) remove() {
	s.f.Close()
	os.Remove(s.path)
}

// loadTexts gives every document of docs whose text was spilled its text
// back, reading each spill they come from once, and removes those spills.
// It returns the bytes read.
func loadTexts(docs []*analyzedDoc) (int64, error) {
	var read int64
	texts := map[*textSpill][]byte{}
	defer func() {
		for s := range texts {
			s.remove()
		}
	}()
	for _, d := range docs {
		s := d.spilled.spill
		if s == nil {
			continue
		}
		buf, ok := texts[s]
		if !ok {
			var err error
			if buf, err = s.readAll(); err != nil {
				texts[s] = nil
				return read, err
			}
			texts[s] = buf
			read += int64(len(buf))
		}
		at, end := d.spilled.at, d.spilled.at+d.spilled.n
		d.Text = buf[at:end:end]
	}
	return read, nil
}
