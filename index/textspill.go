package index

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// A writer keeps the texts of the documents it buffers on disk, not in
// memory: each length class's buffer appends them to a scratch file,
// NNNNNNNN.text.tmp, as its documents arrive, and the seal that writes the
// buffer as a segment reads the file back in order, a text at a time as
// the segment's store takes them (segment.Doc.LoadText), and removes it.
// Only the store needs the texts; analysis is done by then. So the
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

// remove closes and deletes the scratch file.
func (s *textSpill) remove() {
	s.f.Close()
	os.Remove(s.path)
}

// spillReader reads a spill's texts back in the order they were added,
// skipping those of documents dropped meanwhile.
type spillReader struct {
	r   *bufio.Reader
	s   *textSpill
	pos int64
}

// text appends the text t to dst. Texts are asked for in the order they
// were added.
func (sr *spillReader) text(t spilledText, dst []byte) ([]byte, error) {
	if t.at < sr.pos {
		return dst, fmt.Errorf("read spilled texts %s: the text at %d is asked for after %d", sr.s.path, t.at, sr.pos)
	}
	if _, err := sr.r.Discard(int(t.at - sr.pos)); err != nil {
		return dst, fmt.Errorf("read spilled texts %s: %w", sr.s.path, err)
	}
	dst = slices.Grow(dst, int(t.n))
	n, err := io.ReadFull(sr.r, dst[len(dst):len(dst)+int(t.n)])
	sr.pos = t.at + int64(n)
	if err != nil {
		return dst, fmt.Errorf("read spilled texts %s: %w", sr.s.path, err)
	}
	return dst[:len(dst)+n], nil
}

// readSpilledTexts gives every document of docs whose text was spilled a
// LoadText that reads it back (segment.Build asks for them in order), and
// returns a func that removes the spills they come from, once their
// segment is written.
func readSpilledTexts(docs []*analyzedDoc) (done func()) {
	readers := map[*textSpill]*spillReader{}
	for _, d := range docs {
		t := d.spilled
		if t.spill == nil {
			continue
		}
		sr := readers[t.spill]
		if sr == nil {
			sr = &spillReader{r: bufio.NewReaderSize(io.NewSectionReader(t.spill.f, 0, t.spill.size), 256<<10), s: t.spill}
			readers[t.spill] = sr
		}
		d.LoadText = func(dst []byte) ([]byte, error) { return sr.text(t, dst) }
	}
	return func() {
		for s := range readers {
			s.remove()
		}
	}
}
