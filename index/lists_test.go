package index

import (
	"errors"
	"slices"
	"testing"

	"github.com/bitsieve/bitsieve/internal/segment"
)

// TestMalformedListRefused damages a chunked list of a real segment, without
// fixing its checksum (the structure is checked even where checksums are
// not), and expects the lookup of its word to report damage instead of
// reading past the list.
func TestMalformedListRefused(t *testing.T) {
	segs, lexData := smallIndexFiles(t, 300, 5)
	data := segs[0]
	s, lx := openPair(t, segs, lexData)
	sec := sectionNamed(t, data, "lists")
	var word string
	var at int
	lx.each(func(w []byte, es []segment.Entry) error {
		if tr := es[0].Treatment(); word == "" && es[0].Seg == 0 && tr.List && s.ListOf(es[0]).Chunked() && es[0].DF < 256 {
			word, at = string(w), tr.ListAt
		}
		return nil
	})
	if word == "" {
		t.Fatal("the segment has no chunked list to damage")
	}
	for name, damage := range map[string]func(b []byte){
		"a chunk claims 256 entries":     func(b []byte) { b[1] = 255 },
		"a chunk past the last document": func(b []byte) { b[0] = 255 },
	} {
		bad := slices.Clone(data)
		damage(bad[sec.Offset+uint64(at):])
		_, lx := openPair(t, append([][]byte{bad}, segs[1:]...), lexData)
		_, err := lx.Lookup(word, nil)
		if err == nil || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: lookup says %v, want damage", name, err)
		}
	}
}
