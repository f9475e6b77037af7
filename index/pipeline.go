package index

import "github.com/bitsieve/bitsieve/internal/segment"

func (w *Writer) startPipeline() {
	for i := 0; i < w.opt.Workers; i++ {
		w.workers.Add(1)
		go w.analyze()
	}
	w.collect.Add(1)
	go w.collector()
}

func (w *Writer) analyze() {
	defer w.workers.Done()
	an := segment.NewAnalysis(w.opt.Analyzer)
	for j := range w.in {
		if !j.del {
			d := j.doc
			j.res = &analyzedDoc{Doc: segment.Doc{Key: d.Key, Title: d.Title, Text: d.Text, Size: d.Size, ModTime: d.ModTime, Source: SourceTag(d.Source)}}
			an.Analyze(&j.res.Doc)
			j.res.mem = j.res.footprint()
			w.docs.Add(1)
			w.bytes.Add(int64(len(j.doc.Text)))
		}
		w.out <- j
	}
}

// collector puts analyzed documents and deletions back in call order (so an
// index is a deterministic function of its input, and the last call for a
// key wins) and applies them.
func (w *Writer) collector() {
	defer w.collect.Done()
	for j := range w.out {
		w.reorder[j.seq] = j
		for {
			j, ok := w.reorder[w.nextOut]
			if !ok {
				break
			}
			delete(w.reorder, w.nextOut)
			w.nextOut++
			w.dequeue(int64(len(j.doc.Text)))
			if j.del {
				w.remove(j.doc.Key)
			} else {
				w.route(j.res)
			}
		}
	}
}

// queueLimit is the most text queued for analysis, unless one document
// alone is longer.
func (w *Writer) queueLimit() int64 { return w.opt.MemoryBudget / 8 }

// enqueue waits until n more bytes of text may be queued for analysis, and
// counts them.
func (w *Writer) enqueue(n int64) {
	w.queueMu.Lock()
	for w.queued > 0 && w.queued+n > w.queueLimit() {
		w.queueFree.Wait()
	}
	w.queued += n
	w.queueMu.Unlock()
}

// dequeue uncounts the n bytes of a document the collector takes.
func (w *Writer) dequeue(n int64) {
	w.queueMu.Lock()
	w.queued -= n
	w.queueFree.Broadcast()
	w.queueMu.Unlock()
}

// remove deletes key: the version this writer added, and the base's.
func (w *Writer) remove(key string) {
	if prev, ok := w.loc[key]; ok {
		w.dropSession(key, prev)
		delete(w.loc, key)
	}
	w.deleteBase(key)
}

func (w *Writer) deleteBase(key string) {
	if w.base == nil || w.rebuild {
		return
	}
	if ref, ok := w.base.Find(key); ok {
		w.baseDel[key] = ref
	}
}

// dropSession deletes a document this writer added earlier: out of its
// buffer if it is not sealed yet, else by a tombstone in its new segment.
func (w *Writer) dropSession(key string, d sessionDoc) {
	if d == 0 {
		w.pending[key].dropped = true
		delete(w.pending, key)
		return
	}
	seg, local := d.segment()
	w.newDel[seg] = append(w.newDel[seg], local)
}

func (w *Writer) route(d *analyzedDoc) {
	key := d.Key
	if prev, ok := w.loc[key]; ok {
		if w.rebuild {
			w.dups = append(w.dups, key)
			return
		}
		w.dropSession(key, prev)
	}
	w.deleteBase(key)
	w.loc[key] = 0
	w.pending[key] = d
	if err := w.spillText(d); err != nil {
		w.fail(err) // the text stays in memory; the commit fails
	}
	if c, seal, early := w.buf.add(d, w.opt.Capacity, w.opt.MaxSegmentBytes, w.opt.MemoryBudget); seal {
		w.sealClass(c, early)
	}
	w.holdBudget()
}

// spillText moves d's text from memory to the scratch file of its class
// buffer (textspill.go), and its footprint with it.
func (w *Writer) spillText(d *analyzedDoc) error {
	b := w.buf.buffer(d)
	if b.spill == nil {
		s, err := newTextSpill(w.dir, uint64(len(w.spills)))
		if err != nil {
			return err
		}
		b.spill = s
		w.spills = append(w.spills, s)
	}
	st, err := b.spill.add(d.Text)
	if err != nil {
		return err
	}
	d.Text, d.spilled = nil, st
	d.mem = d.footprint()
	return nil
}

// holdBudget keeps the documents the writer holds, buffered or being
// sealed, within its memory budget: while they exceed it, the collector
// waits for a seal to end, and so, through the full channels behind it, do
// the analysis goroutines and Add. A class's buffer is sealed at half the
// budget, so a segment is written while the buffers refill, and never much
// more than the budget is held.
func (w *Writer) holdBudget() {
	w.sealMu.Lock()
	w.peakHeld = max(w.peakHeld, w.buf.buffered+w.sealing)
	for w.sealing > 0 && w.buf.buffered+w.sealing > w.opt.MemoryBudget {
		w.sealEnd.Wait()
	}
	w.sealMu.Unlock()
}

// stop closes the pipeline and waits for every goroutine.
func (w *Writer) stop() {
	if w.closed {
		return
	}
	w.closed = true
	close(w.in)
	w.workers.Wait()
	close(w.out)
	w.collect.Wait()
}
