package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/bitsieve/bitsieve/index"
)

// A write batch is one message of a shard's subject in the cluster's
// stream: documents to add and keys to delete, applied in order. Its
// bytes are
//
//	version  byte, 1
//	count    uvarint: the records that follow
//	record*  op byte: 'A' add, 'B' add whose text is in the object store,
//	                  'D' delete
//	         key    uvarint length, bytes
//	         for 'A' and 'B':
//	           title  uvarint length, bytes
//	           source uvarint length, bytes
//	           size   varint: the source file's size (0: none)
//	           mtime  varint: its modification time, Unix nanoseconds (0: none)
//	           text   uvarint length, bytes: for 'A' the text itself, for
//	                  'B' the name of the object holding it
//	crc      uint32, little endian: CRC-32C of every byte before it
//
// A record whose text would not fit in one message ('B') keeps its text
// in the cluster's object store, under a name of its own, until the
// generation that applies it is published.
const recordVersion = 1

const (
	opAdd     byte = 'A'
	opAddBlob byte = 'B'
	opDelete  byte = 'D'
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is one write of a batch.
type record struct {
	op   byte
	doc  index.Document // Key alone for a delete
	blob string         // opAddBlob: the object holding the text
}

// encodedSize bounds the bytes r takes in a batch.
func (r *record) encodedSize() int {
	n := 1 + 10 + len(r.doc.Key)
	if r.op != opDelete {
		n += 10 + len(r.doc.Title) + 10 + len(r.doc.Source) + 20 + 10 + max(len(r.doc.Text), len(r.blob))
	}
	return n
}

// appendBatch appends the batch of recs to dst.
func appendBatch(dst []byte, recs []record) []byte {
	start := len(dst)
	dst = append(dst, recordVersion)
	dst = binary.AppendUvarint(dst, uint64(len(recs)))
	str := func(b []byte, s string) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	for i := range recs {
		r := &recs[i]
		dst = append(dst, r.op)
		dst = str(dst, r.doc.Key)
		if r.op == opDelete {
			continue
		}
		dst = str(dst, r.doc.Title)
		dst = str(dst, r.doc.Source)
		dst = binary.AppendVarint(dst, r.doc.Size)
		var mtime int64
		if !r.doc.ModTime.IsZero() {
			mtime = r.doc.ModTime.UnixNano()
		}
		dst = binary.AppendVarint(dst, mtime)
		if r.op == opAddBlob {
			dst = str(dst, r.blob)
		} else {
			dst = append(binary.AppendUvarint(dst, uint64(len(r.doc.Text))), r.doc.Text...)
		}
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// errBadBatch is the error of a message that is not a write batch.
var errBadBatch = errors.New("not a write batch")

// decodeBatch decodes a write batch. The records' texts alias b.
func decodeBatch(b []byte) ([]record, error) {
	if len(b) < 5 {
		return nil, fmt.Errorf("%w: %d bytes", errBadBatch, len(b))
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errBadBatch)
	}
	if body[0] != recordVersion {
		return nil, fmt.Errorf("%w: version %d (this bitsieve reads version %d)", errBadBatch, body[0], recordVersion)
	}
	d := decoder{b: body[1:]}
	n := d.uvarint()
	if d.err != nil || n > uint64(len(body)) {
		return nil, fmt.Errorf("%w: bad record count", errBadBatch)
	}
	recs := make([]record, 0, n)
	for range n {
		r := record{op: d.byte()}
		r.doc.Key = string(d.bytes())
		switch r.op {
		case opDelete:
		case opAdd, opAddBlob:
			r.doc.Title = string(d.bytes())
			r.doc.Source = string(d.bytes())
			r.doc.Size = d.varint()
			if t := d.varint(); t != 0 {
				r.doc.ModTime = time.Unix(0, t)
			}
			if r.op == opAddBlob {
				r.blob = string(d.bytes())
			} else {
				r.doc.Text = d.bytes()
			}
		default:
			return nil, fmt.Errorf("%w: unknown operation %q", errBadBatch, r.op)
		}
		if d.err != nil {
			return nil, fmt.Errorf("%w: %v", errBadBatch, d.err)
		}
		recs = append(recs, r)
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last record", errBadBatch, len(d.b))
	}
	return recs, nil
}

// decoder reads the fields of a batch; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err, d.b = errors.New("truncated record"), nil }

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}
