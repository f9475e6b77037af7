package segment

import (
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// The document store keeps every document's text, compressed with zstd in
// blocks of about StoreBlockSize raw bytes. A document that fits in a block
// lies in one; a longer one starts a block and fills whole blocks of
// StoreBlockSize bytes, its rest starting the next, so that a snippet
// decompresses only the block or two its window lies in. Each block is one
// zstd frame with its content checksum, so a damaged block is detected when
// read. The block table keeps each block's newlines, so that the line of a
// snippet deep in a long text is known without decompressing the blocks
// before it.
//
// The size trades the store's size for the time a snippet takes: most of
// that time is zstd decompressing the hit's block, which grows with the
// block, while the compression ratio falls only slowly as blocks shrink. On
// the prose corpus, 4 KiB blocks make the store 29% larger than 16 KiB ones
// (the index 9%), and top-10 queries with snippets take about 40% less time
// (docs/BENCHMARKS.md).

// StoreBlockSize is the raw size of a full store block. The block table
// keeps raw lengths and newline counts in 16 bits, so it is at most 65,535
// (the blank constant below does not compile otherwise).
const StoreBlockSize = 4 << 10

const _ = uint16(StoreBlockSize)

// zstdMaxRatio bounds how much a zstd frame can expand: a block of at most
// 128 KiB needs at least 4 compressed bytes (an RLE block). A block table
// entry claiming more is damaged, and is refused before any allocation.
const zstdMaxRatio = 32 << 10

var (
	encoderOnce sync.Once
	encoder     *zstd.Encoder
	decoderOnce sync.Once
	decoder     *zstd.Decoder
)

func storeEncoder() *zstd.Encoder {
	encoderOnce.Do(func() {
		encoder, _ = zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(true),
			zstd.WithEncoderLevel(zstd.SpeedDefault))
	})
	return encoder
}

func storeDecoder() *zstd.Decoder {
	decoderOnce.Do(func() {
		decoder, _ = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
			zstd.WithDecoderMaxMemory(1<<30))
	})
	return decoder
}
