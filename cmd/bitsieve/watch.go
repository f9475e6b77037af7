package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/bitsieve/bitsieve/index"
	"github.com/fsnotify/fsnotify"
)

// follower keeps an index following one directory. It watches every
// directory of the tree with inotify (fsnotify), gathers the paths that
// change, and once they have been quiet for a moment (or changing for too
// long) re-reads just those paths with an incremental run: new files are
// added, changed ones replaced, vanished ones deleted. When the kernel drops
// events (queue overflow) or too many paths changed, it re-reads the whole
// tree, which costs reading and hashing the files but analyzes only the
// changed ones.
type follower struct {
	job      *indexJob
	out      io.Writer // summaries of the changes
	log      io.Writer // problems
	verbose  bool
	quiet    time.Duration          // debounce: wait for this much silence; default 300ms
	maxWait  time.Duration          // but never longer than this after the first change; default 3s
	onCommit func(index.WriteStats) // called after every run that changed the index

	root     string // the directory, as given
	indexAbs string // the index directory, whose own changes are ignored
	w        *fsnotify.Watcher
}

// startFollower indexes the directory src into the index dir with the
// default options and returns a follower ready to loop.
func startFollower(src, dir string, stdout, stderr io.Writer) (*follower, error) {
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--watch needs a directory: %s is not one", src)
	}
	job := &indexJob{dir: dir, paths: []string{src}, stderr: stderr}
	if rel, ok := within(dir, src); ok {
		job.walk.Exclude = []string{globEscape(rel)}
	}
	f := &follower{job: job, out: stdout, log: stderr}
	if _, err := f.start(); err != nil {
		return nil, err
	}
	return f, nil
}

// maxTargets is the most changed paths re-read one by one; past it the
// whole tree is re-read.
const maxTargets = 1000

// start watches the tree, then brings the index up to date with a full
// run, whose result it returns. Watching first means no change made during
// that run is missed.
func (f *follower) start() (index.WriteStats, error) {
	f.root = f.job.paths[0]
	if f.quiet <= 0 {
		f.quiet = 300 * time.Millisecond
	}
	if f.maxWait <= 0 {
		f.maxWait = 3 * time.Second
	}
	if abs, err := filepath.Abs(f.job.dir); err == nil {
		f.indexAbs = abs
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return index.WriteStats{}, fmt.Errorf("watch %s: %w", f.root, err)
	}
	f.w = w
	f.watchTree(f.root)
	ws, total, err := f.job.run(nil)
	if err != nil {
		w.Close()
		return ws, err
	}
	printIndexSummary(f.out, f.job.dir, ws, total, f.verbose)
	return ws, nil
}

// watchTree adds a watch on dir and every directory under it that a walk
// would enter.
func (f *follower) watchTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && f.skipDir(p, d.Name()) {
			return filepath.SkipDir
		}
		if f.ignored(p) {
			return filepath.SkipDir
		}
		if err := f.w.Add(p); err != nil {
			fmt.Fprintf(f.log, "bitsieve: watch: cannot watch %s: %v\n", p, err)
			if errors.Is(err, syscall.ENOSPC) { // fs.inotify.max_user_watches reached
				return filepath.SkipAll
			}
		}
		return nil
	})
}

func (f *follower) skipDir(path, name string) bool {
	if name == ".git" || name == ".hg" || name == ".svn" || name == ".bzr" || name == ".jj" {
		return true
	}
	return strings.HasPrefix(name, ".") && !f.job.walk.IncludeHidden
}

// ignored reports whether path is the index directory or lies in it.
func (f *follower) ignored(path string) bool {
	if f.indexAbs == "" {
		return false
	}
	abs, err := filepath.Abs(path)
	return err == nil && (abs == f.indexAbs || strings.HasPrefix(abs, f.indexAbs+string(filepath.Separator)))
}

// loop follows the changes until ctx ends.
func (f *follower) loop(ctx context.Context) error {
	defer f.w.Close()
	pending := map[string]bool{}
	all := false
	var first time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	arm := func(d time.Duration) {
		if first.IsZero() {
			first = time.Now()
		}
		timer.Reset(max(0, min(d, time.Until(first.Add(f.maxWait)))))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-f.w.Events:
			if !ok {
				return nil
			}
			if f.ignored(ev.Name) {
				continue
			}
			rel, err := filepath.Rel(f.root, ev.Name)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			switch {
			case rel == "." || rel == ".gitignore":
				all = true
			case filepath.Base(rel) == ".gitignore":
				// What it ignores may have changed anywhere below it.
				pending[filepath.ToSlash(filepath.Dir(rel))] = true
			default:
				pending[filepath.ToSlash(rel)] = true
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && !f.skipDir(ev.Name, fi.Name()) {
					f.watchTree(ev.Name)
				}
			}
			arm(f.quiet)
		case err, ok := <-f.w.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				all = true
				arm(f.quiet)
				continue
			}
			fmt.Fprintf(f.log, "bitsieve: watch: %v\n", err)
		case <-timer.C:
			targets := collapse(pending)
			if all || len(targets) > maxTargets {
				targets = nil
			}
			first = time.Time{}
			if err := f.update(targets); err != nil {
				// Keep the paths for the next try (another writer may hold
				// the lock, the disk may be full for a while).
				fmt.Fprintf(f.log, "bitsieve: watch: %v; trying again\n", err)
				arm(2 * time.Second)
				continue
			}
			clear(pending)
			all = false
		}
	}
}

// update re-reads the paths (nil: the whole tree) and reports what changed.
func (f *follower) update(only []string) error {
	ws, total, err := f.job.run(only)
	if err != nil {
		return err
	}
	if ws.CompactErr != nil {
		fmt.Fprintf(f.log, "bitsieve: watch: the update is committed, but compacting the index failed: %v\n", ws.CompactErr)
	}
	if ws.Docs+ws.Deleted == 0 && !f.verbose {
		return nil
	}
	fmt.Fprintf(f.out, "%s added %d, replaced %d, deleted %d (generation %d; %d files read, %d skipped)\n",
		time.Now().Format("15:04:05"), ws.Added, ws.Replaced, ws.Deleted, ws.Generation, total.Docs, len(total.Skipped))
	if f.onCommit != nil && ws.Docs+ws.Deleted > 0 {
		f.onCommit(ws)
	}
	return nil
}

// collapse returns the changed paths, sorted, without those under another.
func collapse(paths map[string]bool) []string {
	out := make([]string, 0, len(paths))
	for p := range paths {
		out = append(out, p)
	}
	slices.Sort(out)
	keep := out[:0]
	for _, p := range out {
		if n := len(keep); n > 0 && strings.HasPrefix(p, keep[n-1]+"/") {
			continue
		}
		keep = append(keep, p)
	}
	return keep
}
