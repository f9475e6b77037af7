package sectioned

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func name(id uint32) string { return fmt.Sprintf("s%d", id) }

func write(t *testing.T, parts map[uint32][]byte, order []uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, "TST\x00", 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range order {
		w.Begin(id)
		w.Write(parts[id])
		w.End()
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRoundTrip writes sections and reads them back, and checks that every
// single-byte change anywhere in the file is caught: by Read, or by the
// checksum of the section it falls in.
func TestRoundTrip(t *testing.T) {
	parts := map[uint32][]byte{1: []byte("params"), 5: bytes.Repeat([]byte("rows"), 40), 9: {}}
	order := []uint32{1, 5, 9}
	data := write(t, parts, order)
	secs, err := Read(data, "TST\x00", 3, name)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range parts {
		s, ok := secs[id]
		if !ok || !bytes.Equal(s.Bytes(data), want) || !s.Verify(data) || s.Offset%64 != 0 {
			t.Fatalf("section %d: %+v", id, s)
		}
	}
	for i := range data {
		d := bytes.Clone(data)
		d[i] ^= 0x40
		secs, err := Read(d, "TST\x00", 3, name)
		if err != nil {
			continue
		}
		caught := false
		for _, s := range secs {
			if !s.Verify(d) {
				caught = true
			}
		}
		if !caught {
			t.Fatalf("a change of byte %d of %d goes unnoticed", i, len(data))
		}
	}
	var ve *VersionError
	if _, err := Read(data, "TST\x00", 4, name); !errors.As(err, &ve) || ve.Got != 3 {
		t.Errorf("another version: %v", err)
	}
	var de *DamageError
	if _, err := Read(data, "OTH\x00", 3, name); !errors.As(err, &de) {
		t.Errorf("another kind: %v", err)
	}
	if _, err := Read(data[:len(data)-1], "TST\x00", 3, name); !errors.As(err, &de) {
		t.Errorf("truncated: %v", err)
	}
}
