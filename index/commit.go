package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/internal/bitrow"
)

// Commit seals the remaining documents, writes the tombstones, and
// atomically makes the result the directory's index; then it runs the
// compaction policy. Files the new MANIFEST no longer names are removed;
// open readers keep working on their snapshot. A writer with nothing to
// change commits nothing: the generation stays the same.
func (w *Writer) Commit() (WriteStats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return WriteStats{}, errorf("Commit after Commit or Abort")
	}
	w.stop()
	groups, classes := groupLeftovers(w.buf.classes, w.opt.Capacity)
	for i, g := range groups {
		w.seal(g, classes[i])
	}
	w.seals.Wait()
	w.removeTextSpills()
	defer w.release()
	if w.err != nil {
		w.removeNew()
		return WriteStats{}, w.err
	}
	st := w.changeStats()
	m, tombs := w.newManifest()
	if !w.rebuild && w.baseM != nil && len(w.segs) == 0 && len(w.baseDel) == 0 {
		st.Generation = w.baseM.Generation
		st.IndexBytes = manifestBytes(w.baseM)
		st.IndexSegments = len(w.baseM.Segments)
		st.Elapsed = time.Since(w.start)
		return st, nil
	}
	if err := w.publish(m, tombs); err != nil {
		return WriteStats{}, err
	}
	st.Tombstones = len(tombs)
	w.committed = true
	w.closeBase()
	w.forget()
	removeUnlisted(w.dir, m)
	if !w.opt.Compact.Disabled && (!w.rebuild || w.early > 0) {
		// A rebuild's segments are laid out full, unless the memory budget
		// sealed some early: the policy merges those as it merges updates'.
		cm, cst, err := compactLocked(w.dir, m, CompactOptions{
			Params: w.opt.Params, Capacity: w.opt.Capacity, MaxSegmentBytes: w.opt.MaxSegmentBytes,
			MemoryBudget: w.opt.MemoryBudget, Policy: w.opt.Compact,
		})
		st.Compaction, st.CompactErr = cst, err
		m = cm
	}
	st.Generation = m.Generation
	st.IndexBytes = manifestBytes(m)
	st.IndexSegments = len(m.Segments)
	st.Elapsed = time.Since(w.start)
	return st, nil
}

// changeStats counts what the commit changes: the documents added, replaced
// and deleted against the base, and what the writer saw and sealed.
func (w *Writer) changeStats() WriteStats {
	st := WriteStats{Unchanged: w.unchanged, Bytes: w.bytes.Load(), Duplicates: w.dups, Segments: len(w.segs)}
	for key := range w.baseDel {
		if _, ok := w.loc[key]; ok {
			st.Replaced++
		} else {
			st.Deleted++
		}
	}
	st.Docs = len(w.loc)
	st.Added = st.Docs - st.Replaced
	return st
}

// publish makes m the directory's index, following the commit
// protocol of docs/format.md: it writes and fsyncs the tombstones and the
// lexicon, fsyncs the directory so the sealed segments' names are durable,
// then renames m's MANIFEST into place. On failure it removes the files
// this writer created, unless the MANIFEST may already be in place.
func (w *Writer) publish(m *Manifest, tombs []pendingFile) error {
	for _, t := range tombs {
		w.newFiles = append(w.newFiles, t.name)
		if err := writeFileSynced(w.dir, t.name, t.data); err != nil {
			w.removeNew()
			return fmt.Errorf("write tombstones %s: %w", t.name, err)
		}
	}
	var oldLex *lexicon
	if !w.rebuild && w.base != nil {
		oldLex = w.base.lex
	}
	lexName, err := writeLexicon(w.dir, m, oldLex, w.baseM, w.dicts)
	w.removeSpills()
	if lexName != "" {
		w.newFiles = append(w.newFiles, lexName)
	}
	if err != nil {
		w.removeNew()
		return err
	}
	if err := syncDir(w.dir); err != nil {
		w.removeNew()
		return err
	}
	if err := commitManifest(w.dir, m); err != nil {
		if !errors.Is(err, errManifestUnsynced) {
			w.removeNew()
		}
		return fmt.Errorf("commit index %s: %w", w.dir, err)
	}
	return nil
}

// manifestBytes is the size of the files a manifest names: its segments
// and its lexicon.
func manifestBytes(m *Manifest) int64 {
	n := m.LexiconBytes
	for _, s := range m.Segments {
		n += s.Bytes
	}
	return n
}

type pendingFile struct {
	name string
	data []byte
}

// newManifest builds the manifest of the commit and the tombstone files it
// names: the base's segments (none in a rebuild) with this writer's
// deletions applied, then the new segments. A segment left without a live
// document is dropped.
func (w *Writer) newManifest() (*Manifest, []pendingFile) {
	m := &Manifest{Format: formatVersion, Analyzer: w.opt.Analyzer}
	if w.baseM != nil {
		m.Generation = w.baseM.Generation
	}
	m.Generation++
	var tombs []pendingFile
	apply := func(ms ManifestSegment, del []uint64, added []uint32) {
		if len(added) == 0 {
			m.Segments = append(m.Segments, ms)
			return
		}
		if del == nil {
			del = make([]uint64, (ms.Docs+63)/64)
		}
		for _, d := range added {
			del[d/64] |= 1 << (d % 64)
		}
		n := bitrow.Count(del)
		if n == ms.Docs {
			return // nothing left: drop the segment
		}
		seq, _ := fileSeq(ms.File)
		name := tombstoneFileName(w.fileSeq.Add(1) - 1)
		tombs = append(tombs, pendingFile{name, encodeTombstone(seq, m.Generation, ms.Docs, del)})
		ms.Deletes, ms.Deleted = name, n
		m.Segments = append(m.Segments, ms)
	}
	if !w.rebuild && w.base != nil {
		bySeg := make([][]uint32, len(w.base.segs))
		for _, ref := range w.baseDel {
			bySeg[ref.Seg] = append(bySeg[ref.Seg], uint32(ref.Doc))
		}
		for i, ms := range w.baseM.Segments {
			var del []uint64
			if len(bySeg[i]) > 0 {
				del = w.base.segs[i].DeletedBits()
			}
			apply(ms, del, bySeg[i])
		}
	}
	slices.SortFunc(w.segs, func(a, b ManifestSegment) int { return strings.Compare(a.File, b.File) })
	for _, ms := range w.segs {
		apply(ms, nil, w.newDel[ms.File])
	}
	slices.SortFunc(m.Segments, func(a, b ManifestSegment) int { return strings.Compare(a.File, b.File) })
	m.NextFile = w.fileSeq.Load()
	return m, tombs
}

// Abort discards every change; the directory's index is unchanged.
func (w *Writer) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lock == nil {
		return nil
	}
	w.stop()
	w.seals.Wait()
	w.removeTextSpills()
	w.removeNew()
	w.release()
	return nil
}

func (w *Writer) removeNew() {
	for _, f := range w.newFiles {
		os.Remove(filepath.Join(w.dir, f))
	}
	w.removeSpills()
	w.newFiles, w.segs, w.dicts = nil, nil, nil
}

// removeSpills removes the spilled dictionaries of the new segments.
func (w *Writer) removeSpills() {
	for _, d := range w.dicts {
		if d.Spill != "" {
			os.Remove(d.Spill)
		}
	}
}

// removeTextSpills removes the scratch files of texts that no seal has
// read (a seal removes those it reads); the seals must have ended.
func (w *Writer) removeTextSpills() {
	for _, s := range w.spills {
		s.remove()
	}
	w.spills = nil
}

func (w *Writer) closeBase() {
	if w.ownBase && w.base != nil {
		w.base.Close()
	}
	w.base = nil
}

// forget drops what the writer kept of its documents once they are
// committed, so that the compaction after the commit has the memory budget
// to itself.
func (w *Writer) forget() {
	w.buf = newClassBuffers()
	w.loc, w.pending, w.session, w.kept = nil, nil, nil, nil
	w.baseDel, w.newDel, w.dicts = nil, nil, nil
}

func (w *Writer) release() {
	w.closeBase()
	if w.lock != nil {
		w.lock.Close()
		w.lock = nil
	}
}
