package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bitsieve/bitsieve/cluster"
	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/ingest"
)

// clusterJob is a run of index --nats: the sources read into a cluster's
// stream, as a scoped update (ingest.Run), then a wait until the shards
// hold the writes.
type clusterJob struct {
	nats     *natsFlags
	paths    []string
	walk     corpus.WalkOptions
	prune    bool
	shards   int
	replicas int
	lang     string
	wait     time.Duration
}

func (j *clusterJob) run(stdout, stderr io.Writer, asJSON, verbose bool) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	octx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	cfg := cluster.Config{Shards: j.shards, Replicas: j.replicas, Analyzer: j.lang}
	c, done, err := j.nats.create(octx, cfg, quietLogger())
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer done()
	start := time.Now()
	opt := cluster.WriterOptions{AllSources: j.prune}
	for _, p := range j.paths {
		opt.Sources = append(opt.Sources, ingest.SourceOf(p).Name)
	}
	w := c.NewWriter(ctx, opt)
	total, err := ingest.Run{Paths: j.paths, Walk: j.walk, Prune: j.prune}.Into(w)
	acked, ferr := w.Flush()
	if err != nil {
		if se, ok := errors.AsType[*ingest.SourceError](err); ok {
			return fail(stderr, "indexing %s failed: %v; the documents written before it are stored in the cluster", se.Path, se.Err)
		}
		return fail(stderr, "%v", err)
	}
	if ferr != nil {
		return fail(stderr, "%v; the writes acknowledged before it are stored in the cluster", ferr)
	}
	stored := time.Since(start)
	waited := false
	if j.wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, j.wait)
		defer cancel()
		if err := c.Wait(wctx, acked); err != nil {
			return fail(stderr, "%v", err)
		}
		waited = true
	}
	ws := w.Stats()
	secs := time.Since(start).Seconds()
	if asJSON {
		json.NewEncoder(stdout).Encode(map[string]any{
			"cluster": c.Config().Name, "shards": c.Config().Shards, "documents": total.Docs, "added": ws.Added,
			"replaced": ws.Replaced, "deleted": ws.Deleted, "unchanged": ws.Unchanged, "bytes": total.Bytes,
			"messages": ws.Messages, "stored_seconds": stored.Seconds(), "seconds": secs, "indexed": waited,
			"skipped": skipCounts(total.Counts),
		})
		return exitOK
	}
	fmt.Fprintf(stdout, "wrote %d documents, %s in %.2fs (%.1f MB/s) into cluster %s (%d shards)\n",
		total.Docs, humanBytes(total.Bytes), secs, float64(total.Bytes)/1e6/secs, c.Config().Name, c.Config().Shards)
	fmt.Fprintf(stdout, "changes: added %d, replaced %d, deleted %d, unchanged %d\n", ws.Added, ws.Replaced, ws.Deleted, ws.Unchanged)
	if waited {
		fmt.Fprintf(stdout, "stored in %.2fs, indexed by the shards in %.2fs\n", stored.Seconds(), secs)
	} else {
		fmt.Fprintf(stdout, "stored in %.2fs; the shards index them as they can (bitsieve cluster status shows the lag)\n", stored.Seconds())
	}
	printSkipped(stdout, total, verbose)
	return exitOK
}
