package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// wordnetRoot is the noun synset the sample's WordNet entries descend from:
// "mammal, mammalian" in WordNet 3.0. All 117,000 noun synsets would drown
// the other sources; the mammals are a few thousand short, pleasant entries.
const wordnetRoot = "01861778"

type synset struct {
	offset string
	words  []string
	ptrs   []wnPtr
	gloss  string
}

type wnPtr struct{ sym, offset, pos string }

// readWordNet reads the mammal noun synsets of WordNet 3.0
// (usr/share/wordnet/data.noun of wordnet-base), one document per synset: its
// words, its gloss, what it is a kind of and what kinds it has.
func readWordNet(dir string) ([]doc, error) {
	path := filepath.Join(dir, "usr", "share", "wordnet", "data.noun")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	synsets := make(map[string]*synset)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		l := sc.Text()
		if strings.HasPrefix(l, "  ") { // the licence header
			continue
		}
		s, err := parseSynset(l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		synsets[s.offset] = s
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if synsets[wordnetRoot] == nil || synsets[wordnetRoot].words[0] != "mammal" {
		return nil, fmt.Errorf("%s: synset %s is not mammal", path, wordnetRoot)
	}

	// Breadth first from the root along hyponym pointers, in file order
	// within a level, so the output is deterministic.
	var docs []doc
	seen := map[string]bool{wordnetRoot: true}
	queue := []string{wordnetRoot}
	for len(queue) > 0 {
		s := synsets[queue[0]]
		queue = queue[1:]
		var kindOf, kinds []string
		for _, p := range s.ptrs {
			if p.pos != "n" || synsets[p.offset] == nil {
				continue
			}
			switch p.sym {
			case "@", "@i":
				kindOf = append(kindOf, synsets[p.offset].words[0])
			case "~", "~i":
				kinds = append(kinds, synsets[p.offset].words[0])
				if !seen[p.offset] {
					seen[p.offset] = true
					queue = append(queue, p.offset)
				}
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s.", s.words[0], s.gloss)
		if len(s.words) > 1 {
			fmt.Fprintf(&b, "\nAlso called: %s.", strings.Join(s.words[1:], ", "))
		}
		if len(kindOf) > 0 {
			fmt.Fprintf(&b, "\nA kind of: %s.", strings.Join(kindOf, ", "))
		}
		if len(kinds) > 0 {
			fmt.Fprintf(&b, "\nKinds: %s.", strings.Join(kinds, ", "))
		}
		docs = append(docs, doc{
			ID:    "wordnet/" + slug(s.words[0]),
			Title: "WordNet — " + strings.Join(s.words, ", "),
			Body:  b.String(),
		})
	}
	uniqueIDs(docs)
	return docs, nil
}

// parseSynset parses one line of a WordNet data file (see wndb(5)):
//
//	offset lex_filenum ss_type w_cnt(hex) {word lex_id} p_cnt {sym offset pos src/tgt} | gloss
func parseSynset(l string) (*synset, error) {
	data, gloss, ok := strings.Cut(l, " | ")
	if !ok {
		return nil, fmt.Errorf("no gloss")
	}
	f := strings.Fields(data)
	if len(f) < 4 {
		return nil, fmt.Errorf("short line")
	}
	s := &synset{offset: f[0], gloss: strings.TrimSpace(gloss)}
	nw, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || len(f) < 4+2*int(nw)+1 {
		return nil, fmt.Errorf("bad word count %q", f[3])
	}
	for i := 0; i < int(nw); i++ {
		s.words = append(s.words, strings.ReplaceAll(f[4+2*i], "_", " "))
	}
	rest := f[4+2*nw:]
	np, err := strconv.Atoi(rest[0])
	if err != nil || len(rest) < 1+4*np {
		return nil, fmt.Errorf("bad pointer count %q", rest[0])
	}
	for i := 0; i < np; i++ {
		p := rest[1+4*i:]
		s.ptrs = append(s.ptrs, wnPtr{sym: p[0], offset: p[1], pos: p[2]})
	}
	return s, nil
}
