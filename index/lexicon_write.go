package index

import (
	"bufio"
	"fmt"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// writeLexicon writes the lexicon of manifest m and names it there. Each
// segment of m is one of the snapshot the commit started from (old, with
// manifest oldM; both nil when there is none), whose entries are carried
// over, or one this commit wrote, whose dictionary is in fresh by file name.
// When m has the old segments in the same order the old lexicon is named
// again. It returns the name of the file it wrote ("" when none): the
// caller removes it if the commit fails.
func writeLexicon(dir string, m *Manifest, old *lexicon, oldM *Manifest, fresh map[string]*segment.Dict) (string, error) {
	m.Lexicon, m.LexiconBytes = "", 0
	if len(m.Segments) == 0 {
		return "", nil
	}
	pos := make(map[string]int, len(m.Segments))
	seqs := make([]uint64, len(m.Segments))
	for i, s := range m.Segments {
		pos[s.File] = i
		seqs[i], _ = fileSeq(s.File)
	}
	covered := make([]bool, len(m.Segments))
	var sources []*lexSource
	if old != nil && oldM != nil {
		remap := make([]int, len(oldM.Segments))
		same, kept := len(oldM.Segments) == len(m.Segments), false
		for i, s := range oldM.Segments {
			j, ok := pos[s.File]
			if !ok {
				j, same = -1, false
			} else {
				covered[j], kept = true, true
				same = same && i == j
			}
			remap[i] = j
		}
		if same {
			m.Lexicon, m.LexiconBytes = oldM.Lexicon, oldM.LexiconBytes
			return "", nil
		}
		if kept {
			identity := true
			for i, j := range remap {
				identity = identity && i == j
			}
			sources = append(sources, &lexSource{lx: old, remap: remap, identity: identity})
		}
	}
	for i, s := range m.Segments {
		if covered[i] {
			continue
		}
		d, ok := fresh[s.File]
		if !ok {
			return "", fmt.Errorf("write lexicon: no dictionary for segment %s", s.File)
		}
		sources = append(sources, &lexSource{dict: d, ord: i})
	}
	b, err := mergeLexicon(sources)
	if err != nil {
		return "", fmt.Errorf("write lexicon: %w", err)
	}
	name := lexiconFileName(m.NextFile)
	m.NextFile++
	t, err := createTemp(dir, name)
	if err != nil {
		return "", fmt.Errorf("write lexicon %s: %w", name, err)
	}
	bw := bufio.NewWriterSize(t, 1<<20)
	err = b.encode(bw, seqs)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		t.abort()
		return "", fmt.Errorf("write lexicon %s: %w", name, err)
	}
	size := t.n
	if err := t.commit(); err != nil {
		return "", fmt.Errorf("write lexicon %s: %w", name, err)
	}
	m.Lexicon, m.LexiconBytes = name, size
	return name, nil
}
