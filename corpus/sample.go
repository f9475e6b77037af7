package corpus

import (
	"bytes"
	_ "embed"
	"fmt"
	"github.com/cespare/xxhash/v2"

	"github.com/klauspost/compress/zstd"
)

// SampleName names the embedded sample corpus wherever a file or directory
// name would appear (in keys of lines without ids, in messages, in an index's
// record of its source).
const SampleName = "sample"

// sampleZst is the sample corpus: 6,206 documents (Python 3.11 documentation,
// the Go specification, the Jargon File, The Devil's Dictionary, Tom Sawyer,
// Newton's Opticks, WordNet's mammals, a few pages about bitsieve) as
// zstd-compressed JSONL. sample/README.md gives the sources and licences,
// tools/samplegen rebuilds it.
//
//go:embed sample/sample.jsonl.zst
var sampleZst []byte

// Sample reads the embedded sample corpus, calling fn for each document in a
// fixed order. Keys are prefixed by source ("python/tutorial/errors#handling-exceptions",
// "jargon/hack", "twain/tom-sawyer/chapter-02").
func Sample(fn func(Document) error) (Stats, error) {
	zr, err := zstd.NewReader(bytes.NewReader(sampleZst), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return Stats{}, fmt.Errorf("corpus: embedded %s: %w", SampleName, err)
	}
	defer zr.Close()
	return ReadJSONL(zr, SampleName, fn)
}

// SampleCompressedSize is the size of the embedded sample in the binary.
func SampleCompressedSize() int { return len(sampleZst) }

// SampleVersion identifies the embedded sample's content (a hash of its
// bytes), so an index built from one version is never mistaken for another.
func SampleVersion() string {
	return fmt.Sprintf("%016x", xxhash.Sum64(sampleZst))
}
