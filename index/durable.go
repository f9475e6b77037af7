package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/bitsieve/bitsieve/internal/durable"
	"github.com/bitsieve/bitsieve/internal/mmap"

	"github.com/gofrs/flock"
)

// Every file of an index is written the same way: to NAME.tmp, fsynced,
// closed and renamed to NAME, and the directory is fsynced before a MANIFEST
// names the file. Files are never modified once renamed; a change is a new
// file and a new MANIFEST. A crash at any moment therefore leaves the old
// MANIFEST with all its files intact, plus perhaps some *.tmp files and
// complete files no MANIFEST names; the next writer, or the next Open when no
// writer holds the lock, removes both.

// tmpSuffix marks files being written.
const tmpSuffix = ".tmp"

// tempFile is a file being written under a temporary name.
type tempFile struct {
	f     *os.File
	tmp   string
	final string
	n     int64
}

func createTemp(dir, name string) (*tempFile, error) {
	final := filepath.Join(dir, name)
	tmp := final + tmpSuffix
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &tempFile{f: f, tmp: tmp, final: final}, nil
}

func (t *tempFile) Write(b []byte) (int, error) {
	if err := injectedWriteError(t.tmp, len(b)); err != nil {
		return 0, err
	}
	n, err := t.f.Write(b)
	t.n += int64(n)
	return n, err
}

// commit makes the file durable under its final name. The directory entry
// is made durable by the caller's syncDir.
func (t *tempFile) commit() error {
	slowIO()
	if err := t.f.Sync(); err != nil {
		t.abort()
		return fmt.Errorf("sync %s: %w", t.tmp, err)
	}
	// Its first reader reads it again, into huge pages (internal/mmap).
	mmap.DropWritten(t.f, t.n)
	if err := t.f.Close(); err != nil {
		os.Remove(t.tmp)
		return fmt.Errorf("close %s: %w", t.tmp, err)
	}
	slowIO()
	if err := os.Rename(t.tmp, t.final); err != nil {
		os.Remove(t.tmp)
		return err
	}
	return nil
}

// abort closes and removes the temporary file.
func (t *tempFile) abort() {
	t.f.Close()
	os.Remove(t.tmp)
}

// writeFileSynced writes name in dir through a temporary file, fsync and
// rename; the caller fsyncs the directory.
func writeFileSynced(dir, name string, b []byte) error {
	t, err := createTemp(dir, name)
	if err != nil {
		return err
	}
	for len(b) > 0 { // in pieces, so a slowed or failing disk shows between them
		n := min(len(b), 1<<16)
		if _, err := t.Write(b[:n]); err != nil {
			t.abort()
			return fmt.Errorf("write %s: %w", t.tmp, err)
		}
		b = b[n:]
	}
	return t.commit()
}

func syncDir(dir string) error {
	slowIO()
	return durable.SyncDir(dir)
}

// removeTemps deletes the temporary files an interrupted writer left: its
// own kinds only (MANIFEST, segments, tombstones, lexicons, spilled
// dictionaries and texts), so that tools writing other files into the directory are
// not disturbed.
func removeTemps(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n, ok := strings.CutSuffix(e.Name(), tmpSuffix)
		n = strings.TrimSuffix(n, ".dict")
		if ok && (n == ManifestName || strings.HasSuffix(n, ".seg") || strings.HasSuffix(n, ".del") || strings.HasSuffix(n, ".lex") || strings.HasSuffix(n, ".text")) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// removeUnlisted deletes segment, tombstone and lexicon files that the manifest does
// not name. Snapshots that still use them keep their mappings (segments) or
// copies (tombstones): unlinking does not disturb them.
func removeUnlisted(dir string, m *Manifest) {
	live := map[string]bool{m.Lexicon: true}
	for _, s := range m.Segments {
		live[s.File] = true
		live[s.Deletes] = true
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if (strings.HasSuffix(n, ".seg") || strings.HasSuffix(n, ".del") || strings.HasSuffix(n, ".lex")) && !live[n] {
			if _, ok := fileSeq(n); ok {
				os.Remove(filepath.Join(dir, n))
			}
		}
	}
}

// cleanLeftovers removes what an interrupted writer left in dir, when no
// writer is at work (the lock is free) and the directory is writable.
func cleanLeftovers(dir string) {
	lock := flock.New(filepath.Join(dir, LockName), flock.SetFlag(os.O_RDWR))
	if ok, err := lock.TryLock(); !ok || err != nil {
		return
	}
	defer lock.Close()
	removeTemps(dir)
	if m, err := readManifest(dir); err == nil && lostTombstone(dir, m) == nil {
		removeUnlisted(dir, m)
	}
}

// lockWait is how long a writer waits for the lock before giving up: long
// enough to outlast a reader's cleanup (cleanLeftovers), far shorter than
// any real writer holds it.
var lockWait = 2 * time.Second

// lockDir takes the index's writer lock: an exclusive lock on LOCK, which
// it creates if need be (flock on Unix, LockFileEx on Windows). It fails
// with ErrLocked if another writer holds it.
func lockDir(dir string) (*flock.Flock, error) {
	lock := flock.New(filepath.Join(dir, LockName), flock.SetFlag(os.O_RDWR|os.O_CREATE), flock.SetPermissions(0o644))
	deadline := time.Now().Add(lockWait)
	for {
		ok, err := lock.TryLock()
		if ok {
			return lock, nil
		}
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			return nil, err // LOCK could not be opened or created
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w", dir, ErrLocked)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Fault injection for tests.
//
// failWritesAfter, when not negative, is the number of bytes index files may
// still receive before every write fails with ENOSPC, as on a full disk.
var failWritesAfter atomic.Int64

func init() { failWritesAfter.Store(-1) }

func injectedWriteError(path string, n int) error {
	left := failWritesAfter.Load()
	if left < 0 {
		return nil
	}
	if failWritesAfter.Add(-int64(n)) < 0 {
		failWritesAfter.Store(0)
		return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
	}
	return nil
}

// Two testing aids, not settings, for tests that kill writers: every fsync
// and rename of the commit protocol is a step. $BITSIEVE_TEST_SLOW_IO (a Go
// duration) is slept before every step, so that a kill at a random moment
// lands in any of them; with $BITSIEVE_TEST_CRASH_AT=N the process kills
// itself (SIGKILL) at its Nth step, so a test can interrupt every step in
// turn.
var (
	slowIODelay = func() time.Duration {
		d, _ := time.ParseDuration(os.Getenv("BITSIEVE_TEST_SLOW_IO"))
		return d
	}()
	crashAt = func() int64 {
		n, _ := strconv.ParseInt(os.Getenv("BITSIEVE_TEST_CRASH_AT"), 10, 64)
		return n
	}()
	ioSteps atomic.Int64
)

func slowIO() {
	if slowIODelay > 0 {
		time.Sleep(slowIODelay)
	}
	if crashAt > 0 && ioSteps.Add(1) == crashAt {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill() // SIGKILL on Unix, TerminateProcess on Windows
		}
		select {} // the kill is on its way
	}
}

// isNotExist reports whether err says a file is missing.
func isNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }
