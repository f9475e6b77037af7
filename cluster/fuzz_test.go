package cluster

import (
	"bytes"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/index"
)

// FuzzDecodeBatch feeds arbitrary bytes to the write batch decoder, which
// reads what any client put on a shard's subject: it must return records
// or an error, never panic, and what it returns must encode to a batch
// that decodes to the same records.
func FuzzDecodeBatch(f *testing.F) {
	f.Add(appendBatch(nil, []record{
		{op: opAdd, doc: index.Document{Key: "a", Title: "A", Text: []byte("alpha beta"), Source: "s", Size: 10, ModTime: time.Unix(0, 123)}},
		{op: opDelete, doc: index.Document{Key: "b"}},
		{op: opAddBlob, doc: index.Document{Key: "c"}, blob: "text/x-1"},
	}))
	f.Add([]byte{1, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := decodeBatch(b)
		if err != nil {
			return
		}
		again, err := decodeBatch(appendBatch(nil, recs))
		if err != nil || len(again) != len(recs) {
			t.Fatalf("%d records encode to a batch that decodes to %d (%v)", len(recs), len(again), err)
		}
		for i := range recs {
			a, b := recs[i], again[i]
			if a.op != b.op || a.blob != b.blob || a.doc.Key != b.doc.Key || a.doc.Title != b.doc.Title || a.doc.Source != b.doc.Source ||
				a.doc.Size != b.doc.Size || !a.doc.ModTime.Equal(b.doc.ModTime) || !bytes.Equal(a.doc.Text, b.doc.Text) {
				t.Fatalf("record %d: %+v comes back as %+v", i, a, b)
			}
		}
	})
}

// FuzzDecodeGeneration feeds arbitrary bytes to the decoder of a shard's
// published generation (a key any client of the servers can write).
func FuzzDecodeGeneration(f *testing.F) {
	f.Add([]byte(`{"shard":0,"generation":1,"seq":0,"manifest":"","files":{}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodeGeneration(b)
	})
}
