package index

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// sealClass seals class c's buffer; early: before it was full, to keep the
// writer within its memory budget (compaction merges such segments).
func (w *Writer) sealClass(c int, early bool) {
	if early {
		w.early++
	}
	w.seal(w.buf.take(c), c)
}

// seal writes the documents not dropped meanwhile as a new segment file, in
// the background. Their names and local ids are fixed here, so later calls
// can delete them by tombstone.
func (w *Writer) seal(docs []*analyzedDoc, class int) {
	kept := make([]*analyzedDoc, 0, len(docs))
	for _, d := range docs {
		if !d.dropped {
			kept = append(kept, d)
		}
	}
	if len(kept) == 0 {
		return
	}
	seq := w.fileSeq.Add(1) - 1
	name := segmentFileName(seq)
	for i, d := range kept {
		w.loc[d.Key] = sealedAt(seq, i)
		delete(w.pending, d.Key)
	}
	var mem int64
	for _, d := range kept {
		mem += d.mem
	}
	var last *textSpill
	for _, d := range docs {
		if s := d.spilled.spill; s != nil && s != last {
			if err := s.finish(); err != nil {
				w.fail(err)
			}
			last = s
		}
	}
	w.sealMu.Lock()
	w.sealing += mem
	w.sealMu.Unlock()
	w.sealSem <- struct{}{}
	w.seals.Add(1)
	go func() {
		defer w.seals.Done()
		defer func() {
			<-w.sealSem
			w.sealMu.Lock()
			w.sealing -= mem
			w.sealEnd.Broadcast()
			w.sealMu.Unlock()
		}()
		if w.errSet.Load() {
			return
		}
		done := readSpilledTexts(kept)
		seg, dict, err := writeSegmentFile(w.dir, name, segmentDocs(kept), w.opt.Params, class, w.opt.Analyzer)
		done()
		if err == nil {
			// The commit's lexicon reads it back; until then its words
			// would grow the writer's memory with every segment.
			if dict, err = spillDict(w.dir, seg.File, dict); err != nil {
				os.Remove(filepath.Join(w.dir, seg.File))
			}
		}
		if err != nil {
			w.fail(err)
			return
		}
		w.segMu.Lock()
		if w.dicts == nil {
			w.dicts = map[string]*segment.Dict{}
		}
		w.dicts[seg.File] = dict
		w.segs = append(w.segs, seg)
		w.newFiles = append(w.newFiles, seg.File)
		w.segMu.Unlock()
	}()
}

// writeSegmentFile writes docs as the segment file name in dir: to a
// temporary file, fsynced, renamed. The caller fsyncs the directory. The
// segment's dictionary is returned for the lexicon.
func writeSegmentFile(dir, name string, docs []*segment.Doc, p Params, class int, analyzer string) (ManifestSegment, *segment.Dict, error) {
	t, err := createTemp(dir, name)
	if err != nil {
		return ManifestSegment{}, nil, fmt.Errorf("create segment: %w", err)
	}
	dict, err := segment.Build(t, docs, p, class, analyzer)
	if err != nil {
		t.abort()
		return ManifestSegment{}, nil, fmt.Errorf("write segment %s: %w", name, err)
	}
	size := t.n
	if err := t.commit(); err != nil {
		return ManifestSegment{}, nil, fmt.Errorf("write segment %s: %w", name, err)
	}
	return ManifestSegment{File: name, Docs: len(docs), Class: class, Bytes: size}, dict, nil
}
