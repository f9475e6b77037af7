package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// A writer spills the dictionary of each segment it seals to a scratch file
// beside it, NAME.dict.tmp for segment NAME, and the lexicon merge of its
// commit reads the file back once, word by word. So a run that writes many
// segments of a large vocabulary (a source tree's identifiers) holds none of
// their words in memory until the commit, and the commit holds one buffered
// reader per segment. Like every *.tmp file, a spill left by a crash is
// removed when the next writer starts.
//
// The file is the segment's words in ascending order, each as: uvarint
// length, the word's bytes, uvarint termID, uvarint df, uvarint treatment code (segment.Entry.Code).
// It is not fsynced: it is scratch, and the commit reads it in the same run.

// spillDict writes d for segment seg in dir and returns the spilled
// dictionary that stands for it.
func spillDict(dir, seg string, d *segment.Dict) (*segment.Dict, error) {
	path := filepath.Join(dir, seg+".dict"+tmpSuffix)
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("spill the dictionary of %s: %w", seg, err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	var rec []byte
	for i, w := range d.Words {
		e := d.Entry(0, i)
		rec = binary.AppendUvarint(rec[:0], uint64(len(w)))
		rec = append(rec, w...)
		rec = binary.AppendUvarint(rec, uint64(e.ID))
		rec = binary.AppendUvarint(rec, uint64(e.DF))
		rec = binary.AppendUvarint(rec, e.Code())
		if _, err = bw.Write(rec); err != nil {
			break
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("spill the dictionary of %s: %w", seg, err)
	}
	return &segment.Dict{Spill: path, Spilled: len(d.Words)}, nil
}

// maxSpilledWord bounds the length a spilled word may claim, so a damaged
// scratch file cannot make the reader allocate without limit.
const maxSpilledWord = 1 << 16

// dictReader reads a spilled dictionary in order.
type dictReader struct {
	f    *os.File
	r    *bufio.Reader
	path string
	left int // words not read yet
}

func openSpill(d *segment.Dict) (*dictReader, error) {
	f, err := os.Open(d.Spill)
	if err != nil {
		return nil, fmt.Errorf("read a spilled dictionary: %w", err)
	}
	return &dictReader{f: f, r: bufio.NewReaderSize(f, 64<<10), path: d.Spill, left: d.Spilled}, nil
}

// next reads the next word into word and its entry into e; it returns false
// at the end.
func (dr *dictReader) next(word *[]byte, e *segment.Entry) (ok bool, err error) {
	if dr.left == 0 {
		return false, nil
	}
	dr.left--
	n, err := binary.ReadUvarint(dr.r)
	if err == nil && n > maxSpilledWord {
		err = fmt.Errorf("a word of %d bytes", n)
	}
	if err == nil {
		*word = slices.Grow((*word)[:0], int(n))[:n]
		_, err = io.ReadFull(dr.r, *word)
	}
	var v [3]uint64
	for i := range v {
		if err == nil {
			v[i], err = binary.ReadUvarint(dr.r)
		}
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return false, fmt.Errorf("read the spilled dictionary %s: %w", dr.path, err)
	}
	if *e, ok = segment.EntryOf(0, segment.TermID(v[0]), int(v[1]), v[2]); !ok {
		return false, fmt.Errorf("read the spilled dictionary %s: entry of %q has treatment code %d", dr.path, *word, v[2])
	}
	return true, nil
}

func (dr *dictReader) close() { dr.f.Close() }
