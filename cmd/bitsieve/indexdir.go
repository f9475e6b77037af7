package main

import (
	"errors"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"path/filepath"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
)

// defaultIndexDir is where the index lives when --index is not given:
// $BITSIEVE_INDEX, else $XDG_DATA_HOME/bitsieve/index, else
// ~/.local/share/bitsieve/index.
func defaultIndexDir() string {
	if d := os.Getenv("BITSIEVE_INDEX"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "bitsieve", "index")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "bitsieve", "index")
	}
	return ".bitsieve"
}

// indexFlag adds --index to a flag set.
func indexFlag(fs *pflag.FlagSet) *string {
	return fs.String("index", "", "index directory (default $BITSIEVE_INDEX or ~/.local/share/bitsieve/index; the embedded sample when none exists)")
}

// openIndex opens the index a read-only command should use. An explicit
// --index must exist; the default one falls back to the embedded sample.
func openIndex(dir string, stderr io.Writer) (*index.Index, error) {
	return openIndexWith(dir, stderr, index.Open)
}

// openIndexWith is openIndex with the function that opens an explicit or
// default index (index.Open, or index.OpenMeta for statistics).
func openIndexWith(dir string, stderr io.Writer, open func(string) (*index.Index, error)) (*index.Index, error) {
	explicit := dir != ""
	if !explicit {
		dir = defaultIndexDir()
	}
	ix, err := open(dir)
	if err == nil || explicit || !errors.Is(err, index.ErrNoIndex) {
		if errors.Is(err, index.ErrNoIndex) {
			return nil, fmt.Errorf("no index in %s (create one with 'bitsieve index --index %s PATH')", dir, dir)
		}
		return ix, err
	}
	return openSample(stderr)
}

// openSearcher opens the index and a searcher over it. An index that no
// run has committed to (generation 0: its first run was interrupted) is an
// error that says so, rather than a silent absence of hits.
func openSearcher(dir string, stderr io.Writer) (*query.Searcher, func(), error) {
	ix, err := openIndex(dir, stderr)
	if err != nil {
		return nil, nil, err
	}
	if ix.Generation() == 0 {
		ix.Close()
		return nil, nil, errEmptyIndex(ix.Dir())
	}
	s, err := query.NewSearcher(ix)
	if err != nil {
		ix.Close()
		return nil, nil, err
	}
	return s, func() { ix.Close() }, nil
}

// errEmptyIndex is the error for searching an index that no run has
// committed to.
func errEmptyIndex(dir string) error {
	return fmt.Errorf("the index in %s is empty: no indexing run has finished there yet (a first run that was interrupted leaves it so); index documents with 'bitsieve index --index %s PATH'", dir, dir)
}

// sampleDir is where the embedded sample is indexed on first use.
func sampleDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "bitsieve", fmt.Sprintf("sample-%s.v%d", corpus.SampleVersion(), index.FormatVersion))
}

// openSample opens the index of the embedded sample corpus, building it the
// first time.
func openSample(stderr io.Writer) (*index.Index, error) {
	dir := sampleDir()
	if ix, err := index.Open(dir); err == nil {
		return ix, nil
	}
	fmt.Fprintf(stderr, "bitsieve: no index yet; indexing the embedded sample corpus into %s\n", dir)
	w, err := index.Create(dir, index.WriterOptions{})
	if err != nil {
		return nil, err
	}
	if _, err := corpus.Sample(func(d corpus.Document) error { return w.Add(index.Document(d)) }); err != nil {
		w.Abort()
		return nil, fmt.Errorf("index the embedded sample: %w", err)
	}
	st, err := w.Commit()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "bitsieve: indexed %d sample documents; run 'bitsieve index PATH' to search your own files\n", st.Docs)
	return index.Open(dir)
}
