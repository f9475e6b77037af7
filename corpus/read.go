package corpus

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// IsJSONL reports whether Read treats the file at path as JSONL: its name ends
// in .jsonl or .ndjson, optionally followed by .gz, .zst or .zstd (any case).
func IsJSONL(path string) bool {
	_, ok := jsonlCompression(path)
	return ok
}

// jsonlCompression returns the compression suffix of a JSONL file name ("" if
// uncompressed) and whether the name is a JSONL name at all.
func jsonlCompression(path string) (string, bool) {
	name := strings.ToLower(filepath.Base(path))
	comp := ""
	for _, c := range []string{".gz", ".zst", ".zstd"} {
		if strings.HasSuffix(name, c) {
			comp, name = c, strings.TrimSuffix(name, c)
			break
		}
	}
	return comp, strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".ndjson")
}

// Read reads the documents at path: a directory is walked (Walk, with opt), a
// JSONL file is read line by line (ReadJSONLFile; opt does not apply), and any
// other file is read as one document (Walk on the file). The returned error
// names path.
func Read(path string, opt WalkOptions, fn func(Document) error) (Stats, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Stats{}, fmt.Errorf("corpus: %s: %w", path, pathErr(err))
	}
	if info.Mode().IsRegular() && IsJSONL(path) {
		return ReadJSONLFile(path, fn)
	}
	return Walk(path, opt, fn)
}

// ReadJSONLFile reads the JSONL file at path with ReadJSONL, decompressing it
// first if its name ends in .gz, .zst or .zstd. Keys synthesised for lines
// without an id use the file's base name.
func ReadJSONLFile(path string, fn func(Document) error) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	r, closeFn, err := decompress(f, path)
	if err != nil {
		return Stats{}, err
	}
	defer closeFn()
	return ReadJSONL(r, filepath.Base(path), fn)
}

// decompress wraps f according to the compression suffix of path.
func decompress(f io.Reader, path string) (io.Reader, func(), error) {
	comp, _ := jsonlCompression(path)
	switch comp {
	case ".gz":
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, nil, fmt.Errorf("corpus: %s: %w", path, err)
		}
		return zr, func() { zr.Close() }, nil
	case ".zst", ".zstd":
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, fmt.Errorf("corpus: %s: %w", path, err)
		}
		return zr, zr.Close, nil
	}
	return f, func() {}, nil
}
