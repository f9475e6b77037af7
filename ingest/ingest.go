// Package ingest reads sources (directories, JSONL files, single files)
// into an index, and makes the decision of an update: which documents a
// run adds, replaces, leaves alone and deletes. The command line, its
// watcher and a cluster's writer share it.
//
// A run reads each source with package corpus, keys its documents by the
// source (a directory's by the directory's name and their path in it, a
// file's by its name, a JSONL document by its id) and hands them to a
// Sink, which keeps an unchanged document as it is. Then, unless the sink
// was started empty, it deletes the documents of its own sources that it
// did not see: a vanished file's. The documents of other sources are left
// alone (another directory, another JSONL file, those written one by one
// through an API), unless the run prunes, and so is every document under
// a path that could not be read, which is not known to be gone.
package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
)

// Sink receives the documents of a run. *index.Writer is one.
type Sink interface {
	// AddIfChanged adds d unless the sink holds a document of its key
	// with the same content, title, size, modification time and source;
	// it reports whether it added d.
	AddIfChanged(d index.Document) (bool, error)
	// DeleteUnseen deletes the documents the sink held before the run
	// and that the run neither added nor found unchanged, of those
	// inScope accepts (by key and index.SourceTag), and returns how many.
	DeleteUnseen(inScope func(key string, source uint32) bool) (int, error)
}

// Run is one pass over sources.
type Run struct {
	Paths []string           // the sources
	Walk  corpus.WalkOptions // how directories are walked
	// Only, with one directory among Paths, re-reads just these paths
	// under it (slash-separated, relative to it), and deletes just the
	// documents under them that are gone: a watcher's update of what
	// changed.
	Only []string
	// Prune deletes every document the run did not see, whatever its
	// source: the sink then holds exactly the documents of Paths.
	Prune bool
	// Fresh says the sink started empty (a rebuild): nothing is deleted.
	Fresh bool
}

// SourceError is a source that could not be read to its end.
type SourceError struct {
	Path string
	Err  error
}

func (e *SourceError) Error() string { return fmt.Sprintf("reading %s: %v", e.Path, e.Err) }
func (e *SourceError) Unwrap() error { return e.Err }

// Into reads the run's sources into sink and deletes the documents the
// update must delete. It returns what the sources held and skipped. An
// error leaves the sink half written: the caller aborts it (an
// index.Writer's Abort leaves the index as it was).
func (r Run) Into(sink Sink) (corpus.Stats, error) {
	var total corpus.Stats
	walk := r.Walk
	walk.Only = r.Only
	// Keys met on an earlier path, which the later ones may not reuse; one
	// path checks its own (corpus.ReadJSONL), so a run over one keeps none.
	var seen map[string]bool
	if len(r.Paths) > 1 {
		seen = map[string]bool{}
	}
	var unread []string          // keys (or key prefixes) that could not be read: kept as they are
	var onlyKeys []string        // the keys of the Only paths
	sources := map[uint32]bool{} // the SourceTags of the run's sources
	for _, p := range r.Paths {
		src := SourceOf(p)
		sources[index.SourceTag(src.Name)] = true
		for _, o := range r.Only {
			onlyKeys = append(onlyKeys, src.Prefix+o)
		}
		var dups []corpus.Skip
		st, err := corpus.Read(p, walk, func(d corpus.Document) error {
			d.Key = src.Prefix + d.Key
			d.Source = src.Name
			if seen != nil {
				if seen[d.Key] {
					dups = append(dups, corpus.Skip{Path: d.Key, Reason: corpus.SkipDuplicateID, Detail: "key already indexed"})
					return nil
				}
				seen[d.Key] = true
			}
			_, err := sink.AddIfChanged(index.Document(d))
			return err
		})
		for _, s := range st.Skipped {
			if s.Reason == corpus.SkipUnreadable {
				unread = append(unread, src.Prefix+s.Path)
			}
		}
		total.Add(st)
		total.Add(corpus.Stats{Skipped: dups, Counts: map[corpus.SkipReason]int{corpus.SkipDuplicateID: len(dups)}})
		total.Docs -= len(dups)
		if err != nil {
			return total, &SourceError{Path: p, Err: err}
		}
	}
	if r.Fresh {
		return total, nil
	}
	_, err := sink.DeleteUnseen(func(key string, source uint32) bool {
		return (r.Prune || sources[source]) && (r.Only == nil || Under(key, onlyKeys)) && !Under(key, unread)
	})
	return total, err
}

// Source is where a run's documents come from: one path given to it.
type Source struct {
	Name   string // index.Document.Source: the base name of the directory or file
	Prefix string // what the documents' keys start with
}

// SourceOf names the source at path. A directory's documents are keyed by
// the directory's base name, a slash and their path inside it, so that
// several directories share an index without sharing keys; a file's
// document by its name, and a JSONL file's by their ids.
func SourceOf(path string) Source {
	name := filepath.Base(filepath.Clean(path))
	if abs, err := filepath.Abs(path); err == nil {
		name = filepath.Base(abs)
	}
	if name == string(filepath.Separator) || name == "." || name == "" {
		name = "root"
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return Source{Name: name, Prefix: name + "/"}
	}
	return Source{Name: name}
}

// Under reports whether key is one of paths or lies under one of them.
func Under(key string, paths []string) bool {
	for _, p := range paths {
		if key == p || strings.HasPrefix(key, p+"/") {
			return true
		}
	}
	return false
}
