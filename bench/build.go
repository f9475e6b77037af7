package bench

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/index/inverted"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// Build is what building each engine cost.
//
// Both engines need the same pipeline (analysis, dictionary, forward index,
// document table and store); they differ in one structure built from the
// forward index: signature rows or roaring postings. IndexSeconds is the whole
// signature index as `bitsieve index` builds it (measured only when this run
// built it); RowsSeconds and PostingsSeconds time the engine-specific parts
// alone, each built in memory from the same forward index with the same number
// of goroutines, alternately, Rounds times (the medians are kept). The
// inverted engine's whole build is then estimated as
// IndexSeconds − RowsSeconds + PostingsSeconds.
type Build struct {
	Measured        bool    `json:"measured"` // the index was built by this run
	Source          string  `json:"source,omitempty"`
	Documents       int     `json:"documents"`
	TextBytes       int64   `json:"text_bytes"`
	IndexSeconds    float64 `json:"index_seconds,omitempty"`
	IndexPeakRSS    int64   `json:"index_peak_rss,omitempty"`
	Rounds          int     `json:"rounds"`
	RowsSeconds     float64 `json:"rows_seconds"`     // signature rows (and row popcounts) from the forward index, in memory
	PostingsSeconds float64 `json:"postings_seconds"` // roaring postings from the forward index, serialized in memory
	// PostingsWriteSeconds is the build of the postings files the run
	// used: built, written, fsynced; PostingsPeakRSS the peak RSS meanwhile.
	PostingsWriteSeconds float64       `json:"postings_write_seconds"`
	PostingsPeakRSS      int64         `json:"postings_peak_rss,omitempty"`
	Engines              []EngineBuild `json:"engines"`
}

// EngineBuild is one engine's whole build.
type EngineBuild struct {
	Engine    string  `json:"engine"`
	Seconds   float64 `json:"seconds"`
	MBps      float64 `json:"mb_per_s"` // MB of input text per second
	PeakRSS   int64   `json:"peak_rss,omitempty"`
	Estimated bool    `json:"estimated,omitempty"`
}

// Finish derives the engines' whole builds from the measured parts.
func (b *Build) Finish() {
	b.Engines = nil
	if !b.Measured || b.IndexSeconds <= 0 {
		return
	}
	mbps := func(s float64) float64 { return float64(b.TextBytes) / 1e6 / s }
	inv := b.IndexSeconds - b.RowsSeconds + b.PostingsSeconds
	b.Engines = []EngineBuild{
		{Engine: "signature", Seconds: b.IndexSeconds, MBps: mbps(b.IndexSeconds), PeakRSS: b.IndexPeakRSS},
		{Engine: "inverted", Seconds: inv, MBps: mbps(inv), PeakRSS: max(b.IndexPeakRSS, b.PostingsPeakRSS), Estimated: true},
	}
}

// IndexCorpus indexes paths into dir as `bitsieve index` does (a directory,
// a JSONL file or a file; with several paths, keys are prefixed by each
// path's base name), replacing the index there, and times it.
func IndexCorpus(dir string, paths []string, b *Build) error {
	ResetPeakRSS()
	start := time.Now()
	w, err := index.Create(dir, index.WriterOptions{})
	if err != nil {
		return err
	}
	for _, p := range paths {
		prefix := ""
		if len(paths) > 1 {
			prefix = filepath.Base(filepath.Clean(p)) + "/"
		}
		_, err := corpus.Read(p, corpus.WalkOptions{}, func(d corpus.Document) error {
			d.Key = prefix + d.Key
			return w.Add(index.Document(d))
		})
		if err != nil {
			w.Abort()
			return fmt.Errorf("index %s: %w", p, err)
		}
	}
	st, err := w.Commit()
	if err != nil {
		return err
	}
	b.Measured = true
	b.IndexSeconds = time.Since(start).Seconds()
	b.IndexPeakRSS = PeakRSS()
	b.TextBytes = st.Bytes
	b.Documents = st.Docs
	return nil
}

// BuildPostings builds the inverted engine's postings beside ix's segments
// (in memory when dir is ""), timing it and its peak memory.
func BuildPostings(ix *index.Index, dir string, b *Build) (*inverted.Index, error) {
	debug.FreeOSMemory() // so the peak is not the heap an index build left behind
	ResetPeakRSS()
	start := time.Now()
	inv, err := inverted.Build(ix, inverted.BuildOptions{Dir: dir})
	if err != nil {
		return nil, err
	}
	b.PostingsWriteSeconds = time.Since(start).Seconds()
	b.PostingsPeakRSS = PeakRSS()
	return inv, nil
}

// TimeParts times each engine's own structure built in memory from the
// forward index, rows then postings, rounds times, and keeps the medians.
func TimeParts(ix *index.Index, rounds int, b *Build) error {
	var rows, post []float64
	for r := 0; r < max(1, rounds); r++ {
		s, err := timeRows(ix)
		if err != nil {
			return err
		}
		rows = append(rows, s)
		runtime.GC()
		start := time.Now()
		x, err := inverted.Build(ix, inverted.BuildOptions{})
		if err != nil {
			return err
		}
		post = append(post, time.Since(start).Seconds())
		x.Close()
	}
	b.Rounds = len(rows)
	b.RowsSeconds, b.PostingsSeconds = medianFloat(rows), medianFloat(post)
	return nil
}

// timeRows rebuilds every segment's signature rows (and their popcounts) in
// memory from the forward index, as sealing a segment does, and returns the
// seconds it took.
func timeRows(ix *index.Index) (float64, error) {
	segs := ix.Segments()
	runtime.GC()
	start := time.Now()
	errs := make([]error, len(segs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, seg := range segs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = buildRows(seg)
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return secs, nil
}

// rowsSink keeps rebuilt rows observable so the work is not optimized away.
var rowsSink atomic.Uint64

// buildRows rebuilds a segment's rows with the writer's own code.
func buildRows(seg *segment.Segment) error {
	pop, err := seg.RebuildRows()
	if len(pop) > 0 {
		rowsSink.Add(uint64(pop[len(pop)-1]))
	}
	return err
}
