package mmap

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestFileHugeAfterDropWritten writes files around the huge page size,
// drops them from the page cache as a writer does, and maps them with and
// without huge pages: every mapping holds the bytes written.
func TestFileHugeAfterDropWritten(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 4096, hugeFrom - 1, hugeFrom, hugeFrom + 12345, 3 * hugeFrom} {
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(rng.Uint32())
		}
		path := filepath.Join(dir, "f")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(want); err != nil {
			t.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		DropWritten(f, int64(size))
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		for _, mapper := range []func(string) ([]byte, error){FileHuge, File} {
			got, err := mapper(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("a mapping of %d bytes differs from what was written", size)
			}
			if err := Unmap(got); err != nil {
				t.Fatal(err)
			}
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := FileHuge(empty); err != nil || got != nil {
		t.Fatalf("FileHuge of an empty file = %d bytes, %v; want nil, nil", len(got), err)
	}
	if _, err := FileHuge(filepath.Join(dir, "absent")); !os.IsNotExist(err) {
		t.Fatalf("FileHuge of an absent file: %v, want a not-exist error", err)
	}
}

func TestFitsMemory(t *testing.T) {
	if FitsMemory(1 << 62) {
		t.Fatal("FitsMemory(4 EiB) = true")
	}
	if got, want := FitsMemory(1<<20), runtime.GOOS == "linux"; got != want {
		t.Fatalf("FitsMemory(1 MiB) = %v on %s, want %v", got, runtime.GOOS, want)
	}
}
