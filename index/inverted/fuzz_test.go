package inverted

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/internal/segment"
)

// reseal recomputes every checksum of a postings file image in place (as far
// as its table can be found), so fuzzing reaches the offsets and the roaring
// decoder behind the checksums.
func reseal(data []byte) {
	if len(data) < headerSize+tailSize || string(data[len(data)-8:]) != tailMagic {
		return
	}
	tail := data[len(data)-tailSize:]
	count := uint64(binary.LittleEndian.Uint32(tail))
	if count > 16 || count*tableEntry > uint64(len(data)-headerSize-tailSize) {
		return
	}
	tableStart := uint64(len(data)-tailSize) - count*tableEntry
	for i := uint64(0); i < count; i++ {
		e := data[tableStart+i*tableEntry:]
		off, n := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		if off <= tableStart && n <= tableStart-off {
			binary.LittleEndian.PutUint32(e[24:], crc32.Checksum(data[off:off+n], castagnoli))
		}
	}
	binary.LittleEndian.PutUint32(tail[4:], crc32.Checksum(data[tableStart:len(data)-tailSize+4], castagnoli))
}

// FuzzOpen feeds damaged postings files (with their checksums made right
// again) to the reader: it must return an error or postings that pass Check,
// and never panic.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	docs := testCorpus(300, 9)
	w, err := index.Create(dir, index.WriterOptions{})
	if err != nil {
		f.Fatal(err)
	}
	for _, d := range docs {
		w.Add(d)
	}
	if _, err := w.Commit(); err != nil {
		f.Fatal(err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer ix.Close()
	if _, err := Build(ix, BuildOptions{Dir: dir}); err != nil {
		f.Fatal(err)
	}
	seg := ix.Segments()[0]
	good, err := os.ReadFile(filepath.Join(dir, FileName(seg.Name())))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		data = append([]byte(nil), data...)
		reseal(data)
		s, err := newSegment(seg, "fuzz.inv", data)
		if err != nil {
			return
		}
		for id := 0; id < seg.NumTerms(); id++ {
			bm, err := s.Postings(segment.TermID(id))
			if err != nil {
				continue
			}
			if validate(bm) == nil {
				bm.GetCardinality()
			}
		}
		s.check()
	})
}
