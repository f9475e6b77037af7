package index

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// CompactPolicy is the compaction a Writer runs after each commit. Small
// segments are grouped in size tiers (a factor of four in live documents
// apart); when one tier holds MergeFactor segments, they are merged. A
// segment whose deleted fraction exceeds MaxDeletedFraction is rewritten
// without its deleted documents. Each document is thus rewritten about
// log4(Capacity/commit size) times over its life, and no segment carries
// more than a quarter of dead weight.
type CompactPolicy struct {
	Disabled           bool    // no compaction after commits
	MergeFactor        int     // small segments of one tier that trigger a merge; default 8
	MaxDeletedFraction float64 // deleted fraction that triggers a rewrite; default 0.25
}

// CompactOptions configure Compact.
type CompactOptions struct {
	Params          Params // signature parameters of merged segments; default DefaultParams
	Capacity        int    // most documents per segment; default 65,536
	MaxSegmentBytes int64  // most text bytes per segment; default 128 MiB
	MemoryBudget    int64  // most bytes of documents held while merging; default DefaultMemoryBudget

	// All merges every segment that has deleted documents or is not full,
	// instead of only what Policy asks for.
	All    bool
	Policy CompactPolicy
}

func (opt *CompactOptions) setDefaults() error {
	if err := segmentDefaults(&opt.Params, &opt.Capacity, &opt.MaxSegmentBytes, &opt.MemoryBudget); err != nil {
		return err
	}
	if opt.Policy.MergeFactor < 2 {
		opt.Policy.MergeFactor = 8
	}
	if opt.Policy.MaxDeletedFraction <= 0 {
		opt.Policy.MaxDeletedFraction = 0.25
	}
	return nil
}

// CompactStats summarise a compaction.
type CompactStats struct {
	Merges      int           `json:"merges"`       // merges committed (each one MANIFEST swap)
	SegmentsIn  int           `json:"segments_in"`  // segments merged away
	SegmentsOut int           `json:"segments_out"` // segments written
	Docs        int           `json:"documents"`    // live documents rewritten
	Dropped     int           `json:"dropped"`      // deleted documents removed for good
	BytesIn     int64         `json:"bytes_in"`     // size of the segments merged away
	BytesOut    int64         `json:"bytes_out"`    // size of the segments written
	Generation  uint64        `json:"generation"`
	Elapsed     time.Duration `json:"elapsed_ns"`
}

// Compact merges segments of the index in dir and drops deleted documents,
// taking the writer lock. See CompactPolicy and CompactOptions.All for what
// is merged. Each merge is committed like any change (new segment files,
// then a MANIFEST swap), so readers keep their snapshot, and a crash leaves
// the index as it was before or after the merge.
func Compact(dir string, opt CompactOptions) (CompactStats, error) {
	if err := opt.setDefaults(); err != nil {
		return CompactStats{}, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return CompactStats{}, err
	}
	defer lock.Close()
	removeTemps(dir)
	m, err := readManifest(dir)
	if err != nil {
		return CompactStats{}, err
	}
	_, st, err := compactLocked(dir, m, opt)
	return st, err
}

// compactLocked runs merges until the policy is satisfied (or one pass of
// everything, for All), with the lock held; m is the current manifest. It
// returns the manifest in force afterwards.
func compactLocked(dir string, m *Manifest, opt CompactOptions) (*Manifest, CompactStats, error) {
	start := time.Now()
	st := CompactStats{Generation: m.Generation}
	if err := opt.setDefaults(); err != nil {
		return m, st, err
	}
	for iter := 0; iter < 32; iter++ {
		group := planCompaction(m, opt)
		if len(group) == 0 {
			break
		}
		next, err := merge(dir, m, group, opt, &st)
		if err != nil {
			st.Elapsed = time.Since(start)
			return m, st, fmt.Errorf("compact %s: %w", dir, err)
		}
		m = next
		st.Generation = m.Generation
		if opt.All {
			break
		}
	}
	st.Elapsed = time.Since(start)
	return m, st, nil
}

// planCompaction chooses the segments (indices into m.Segments) of the next
// merge, from the manifest alone. A segment is full when it holds half its
// capacity of documents or a quarter of MaxSegmentBytes.
func planCompaction(m *Manifest, opt CompactOptions) []int {
	var group []int
	tiers := map[int][]int{}
	for i, s := range m.Segments {
		full := s.Docs >= opt.Capacity/2 || s.Bytes >= opt.MaxSegmentBytes/4
		if opt.All {
			if s.Deleted > 0 || !full {
				group = append(group, i)
			}
			continue
		}
		if s.Deleted > 0 && float64(s.Deleted) > opt.Policy.MaxDeletedFraction*float64(s.Docs) {
			group = append(group, i)
		} else if !full {
			// Segments merge only within a band of length classes, so the
			// pieces of a merge are full or alone in their band and tier.
			t := bits.Len(uint(s.Live()))/2 + 64*classBand(s.Class)
			tiers[t] = append(tiers[t], i)
		}
	}
	for _, idx := range tiers {
		if len(idx) >= opt.Policy.MergeFactor {
			group = append(group, idx...)
		}
	}
	slices.Sort(group)
	if len(group) == 1 && m.Segments[group[0]].Deleted == 0 {
		return nil
	}
	return group
}

// merge rewrites the live documents of the group's segments into new
// segments and commits a manifest without the group.
//
// Documents are rebuilt from the forward index, not re-analyzed: the forward
// index holds exactly what the analyzer produced (every term with its
// frequency) and the document table the token count, so a merged document
// is the same as a freshly analyzed one, and a merge costs decompressing
// the stored texts and sealing, about a hundred times less than analysis
// (stemming runs at 3–4 MB/s per core). Each text is checked against its
// hash, so a merge never carries damage into a new file. Documents are
// routed by their own length class, as the writer routes them.
func merge(dir string, m *Manifest, group []int, opt CompactOptions, st *CompactStats) (*Manifest, error) {
	mg := &merger{dir: dir, m: m, opt: opt, seq: m.NextFile, fresh: map[string]*segment.Dict{}, buf: newClassBuffers()}
	// The words of the merged segments, and of those kept, are in the
	// lexicon of m.
	lx, err := openLexicon(dir, m.Lexicon, segment.VerifyData, false)
	if err != nil {
		return nil, err
	}
	defer lx.close()
	mg.lx = lx
	for _, i := range group {
		if err := mg.addSegment(i); err != nil {
			mg.removeOutputs()
			return nil, err
		}
	}
	groups, gclass := packLeftovers(mg.buf.classes, opt.Capacity, opt.MaxSegmentBytes)
	for i, g := range groups {
		if err := mg.write(g, gclass[i]); err != nil {
			mg.removeOutputs()
			return nil, err
		}
	}
	next, err := mg.commit(group)
	if err != nil {
		return nil, err
	}
	removeUnlisted(dir, next)
	st.Merges++
	st.SegmentsIn += len(group)
	st.SegmentsOut += len(mg.outs)
	st.Docs += mg.docs
	st.Dropped += mg.dropped
	st.BytesIn += mg.bytesIn
	st.BytesOut += manifestBytes(&Manifest{Segments: mg.outs})
	return next, nil
}

// merger is the state of one merge: the files it has written, and the
// documents it holds in buffers by length class until they fill a segment.
type merger struct {
	dir string
	m   *Manifest // the manifest the merge starts from
	opt CompactOptions
	lx  *lexicon // m's lexicon

	seq     uint64                   // sequence number of the next file
	outs    []ManifestSegment        // the segments written
	fresh   map[string]*segment.Dict // their dictionaries, by file name
	lexName string                   // the lexicon written, once it is
	buf     classBuffers             // documents not yet written, by length class

	docs, dropped int   // documents carried over and deleted ones left behind
	bytesIn       int64 // size of the merged segments
}

// addSegment routes the live documents of m's segment i into the class
// buffers, rebuilt from its forward index and checked against their
// hashes, and counts the deleted ones it drops.
func (mg *merger) addSegment(i int) error {
	ms := mg.m.Segments[i]
	mg.bytesIn += ms.Bytes
	s, err := openEntry(mg.dir, ms, mg.m.Analyzer, segment.VerifyData, false)
	if err != nil {
		return err
	}
	defer s.Close()
	mg.lx.lendDict(s, i)
	src, err := s.NewDocReader()
	if err != nil {
		return err
	}
	for d := 0; d < s.NumDocs(); d++ {
		if !s.IsLive(d) {
			mg.dropped++
			continue
		}
		doc, err := src.Doc(d)
		if err != nil {
			return err
		}
		ad := &analyzedDoc{Doc: *doc}
		mg.docs++
		if err := mg.route(ad); err != nil {
			return err
		}
	}
	return nil
}

// route buffers a document in its length class, and writes a segment of
// the class when the buffer is full, or of the largest buffer when the
// buffers together reach the memory budget.
func (mg *merger) route(ad *analyzedDoc) error {
	ad.mem = ad.footprint()
	c, seal, _ := mg.buf.add(ad, mg.opt.Capacity, mg.opt.MaxSegmentBytes, mg.opt.MemoryBudget)
	if !seal {
		return nil
	}
	return mg.write(mg.buf.take(c), c)
}

// write seals docs, of length class class, into the merge's next segment
// file.
func (mg *merger) write(docs []*analyzedDoc, class int) error {
	name := segmentFileName(mg.seq)
	mg.seq++
	ms, dict, err := writeSegmentFile(mg.dir, name, segmentDocs(docs), mg.opt.Params, class, mg.m.Analyzer)
	if err != nil {
		return err
	}
	mg.outs = append(mg.outs, ms)
	mg.fresh[ms.File] = dict
	return nil
}

// commit makes the directory's index the manifest that replaces the
// group's segments by the merged ones, with a lexicon of its own,
// following the commit protocol of docs/format.md. On failure it removes
// the files the merge wrote, unless the MANIFEST may already be in place.
func (mg *merger) commit(group []int) (*Manifest, error) {
	m := mg.m
	next := &Manifest{Format: formatVersion, Generation: m.Generation + 1, Analyzer: m.Analyzer, NextFile: mg.seq}
	for i, s := range m.Segments {
		if _, merged := slices.BinarySearch(group, i); !merged {
			next.Segments = append(next.Segments, s)
		}
	}
	next.Segments = append(next.Segments, mg.outs...)
	slices.SortFunc(next.Segments, func(a, b ManifestSegment) int { return strings.Compare(a.File, b.File) })
	var err error
	mg.lexName, err = writeLexicon(mg.dir, next, mg.lx, m, mg.fresh)
	if err != nil {
		mg.removeOutputs()
		return nil, err
	}
	if err := syncDir(mg.dir); err != nil {
		mg.removeOutputs()
		return nil, err
	}
	if err := commitManifest(mg.dir, next); err != nil {
		if !errors.Is(err, errManifestUnsynced) {
			mg.removeOutputs()
		}
		return nil, err
	}
	return next, nil
}

// removeOutputs removes the files the merge has written: a merge that
// fails leaves the directory as it found it.
func (mg *merger) removeOutputs() {
	for _, o := range mg.outs {
		os.Remove(filepath.Join(mg.dir, o.File))
	}
	if mg.lexName != "" {
		os.Remove(filepath.Join(mg.dir, mg.lexName))
	}
}

// packLeftovers cuts the class buffers left at the end of a merge into
// segments. Like the writer's groupLeftovers it concatenates classes in
// ascending order, but it cuts pieces of at least capacity/2 documents (or
// maxBytes/4 of text) and at most capacity documents (or maxBytes): every
// piece but a lone one is then full (planCompaction), so a merge of small
// segments always yields fewer, larger ones and the policy cannot loop.
// Neighbouring classes differ in length by a factor of two; only classes of
// one band (classBand) too small to fill half a segment share one.
func packLeftovers(classes map[int]*classBuffer, capacity int, maxBytes int64) (groups [][]*analyzedDoc, class []int) {
	keys := make([]int, 0, len(classes))
	for c, b := range classes {
		if len(b.docs) > 0 {
			keys = append(keys, c)
		}
	}
	slices.Sort(keys)
	var cur []*analyzedDoc
	var curBytes int64
	curClass := 0
	cut := func() {
		groups, class = append(groups, cur), append(class, curClass)
		cur, curBytes = nil, 0
	}
	for _, c := range keys {
		if len(cur) > 0 && classBand(c) != classBand(curClass) {
			cut()
		}
		for _, d := range classes[c].docs {
			if len(cur) >= capacity || (len(cur) > 0 && curBytes+int64(len(d.Text)) > maxBytes) {
				cut()
			}
			cur = append(cur, d)
			curBytes += int64(len(d.Text))
			curClass = c
		}
		if len(cur) >= capacity/2 || curBytes >= maxBytes/4 {
			cut()
		}
	}
	if len(cur) > 0 {
		cut()
	}
	// A small last piece joins the one before when both fit in one segment.
	if n := len(groups); n >= 2 && classBand(class[n-1]) == classBand(class[n-2]) && len(groups[n-1])+len(groups[n-2]) <= capacity && sumText(groups[n-1])+sumText(groups[n-2]) <= maxBytes {
		groups[n-2] = append(groups[n-2], groups[n-1]...)
		class[n-2] = class[n-1]
		groups, class = groups[:n-1], class[:n-1]
	}
	return groups, class
}

func sumText(docs []*analyzedDoc) int64 {
	var n int64
	for _, d := range docs {
		n += int64(len(d.Text))
	}
	return n
}
