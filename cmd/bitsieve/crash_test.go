package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bitsieve/bitsieve/corpus"
	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/ingest"
	"github.com/bitsieve/bitsieve/query"
	"github.com/cespare/xxhash/v2"
)

// TestMain lets the test binary stand in for the bitsieve command: with
// BITSIEVE_TEST_MAIN=1 it runs the CLI on its arguments, so tests can run
// real indexer processes (and kill them).
func TestMain(m *testing.M) {
	if os.Getenv("BITSIEVE_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// docSet is what a reader sees: key → xxhash64 of the stored text.
type docSet map[string]uint64

// sourceDocs returns the documents the CLI makes of a directory.
func sourceDocs(t *testing.T, dir string) docSet {
	t.Helper()
	set := docSet{}
	for _, d := range cliDocs(t, dir) {
		set[d.Key] = xxhash.Sum64(d.Text)
	}
	return set
}

// cliDocs returns the documents the CLI makes of a directory: keyed by the
// directory's name and their path in it, with the directory as source.
func cliDocs(t *testing.T, dir string) []corpus.Document {
	t.Helper()
	var docs []corpus.Document
	src := ingest.SourceOf(dir)
	if _, err := corpus.Walk(dir, corpus.WalkOptions{}, func(d corpus.Document) error {
		d.Key, d.Source = src.Prefix+d.Key, src.Name
		docs = append(docs, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return docs
}

// crashTree writes n files; each holds "common", a word of its own
// ("uniqN") and filler, so that searches can find every one of them.
func crashTree(t *testing.T, dir string, n int, rng *rand.Rand, skip func(i int) bool, variant func(i int) string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	for i := 0; i < n; i++ {
		if skip != nil && skip(i) {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "common uniq%d %s\n", i, variant(i))
		for j := 0; j < 300+rng.IntN(300); j++ {
			fmt.Fprintf(&b, "w%dq ", rng.IntN(3000))
		}
		sub := fmt.Sprintf("d%d", i%7)
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		if err := os.WriteFile(filepath.Join(dir, sub, fmt.Sprintf("f%04d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	os.MkdirAll(to, 0o755)
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == index.LockName {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// crashOp is one operation the harness interrupts.
type crashOp struct {
	name    string
	args    func(ix string) []string
	base    string // index directory copied before each trial ("" for none)
	baseGen uint64 // its generation
	before  docSet
	after   docSet
}

// TestCrashSafety kills indexer processes with SIGKILL at random moments
// of index, rebuild, update and compact runs, and checks after every kill
// that the index opens, check finds no problem, no leftover file remains
// once it is opened, and the searchable documents are exactly those before
// or those after the interrupted operation. BITSIEVE_CRASH_TRIALS sets the
// number of trials (default 120; 16 with -short), BITSIEVE_CRASH_SEED the
// random seed.
func TestCrashSafety(t *testing.T) {
	trials := 120
	if testing.Short() {
		trials = 16
	}
	if n, err := strconv.Atoi(os.Getenv("BITSIEVE_CRASH_TRIALS")); err == nil {
		trials = n
	}
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("BITSIEVE_CRASH_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (BITSIEVE_CRASH_SEED reproduces it)", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	isolate(t)
	work := t.TempDir()

	// Two versions of a tree: B is A with 25 files changed, 25 deleted and
	// 25 added; the others are the same files (same mtime).
	const n = 220
	// The two trees have one name, as one directory before and after.
	srcA, srcB := filepath.Join(work, "a", "tree"), filepath.Join(work, "b", "tree")
	os.MkdirAll(filepath.Dir(srcB), 0o755)
	crashTree(t, srcA, n, rand.New(rand.NewPCG(1, 1)), func(i int) bool { return i >= n-25 }, func(int) string { return "" })
	if err := exec.Command("cp", "-a", srcA, srcB).Run(); err != nil {
		t.Fatal(err)
	}
	crashTree(t, srcB, n, rand.New(rand.NewPCG(2, 2)), func(i int) bool { return i%8 != 3 && i < n-25 }, func(i int) string { return "changed" })
	for i := 0; i < 25; i++ {
		os.Remove(filepath.Join(srcB, fmt.Sprintf("d%d", (i*8)%7), fmt.Sprintf("f%04d.txt", i*8)))
	}
	docsA, docsB := sourceDocs(t, srcA), sourceDocs(t, srcB)

	// Index A in several commits, replacing some documents by themselves
	// along the way: its segments carry tombstones, and compaction has
	// small segments to merge.
	ixA := filepath.Join(work, "ix-a")
	all := cliDocs(t, srcA)
	for c := 0; c < 7; c++ {
		w, err := index.OpenWriter(ixA, index.WriterOptions{Compact: index.CompactPolicy{Disabled: true}})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range all {
			if i%7 == c || (c > 0 && i%23 == c) {
				w.Add(index.Document(d))
			}
		}
		if _, err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if got := indexedSet(t, ixA); !maps.Equal(got, docsA) {
		t.Fatalf("base index holds %d documents, want %d", len(got), len(docsA))
	}

	ops := []*crashOp{
		{name: "index", args: func(ix string) []string { return []string{"index", "--index", ix, srcA} }, before: docSet{}, after: docsA},
		{name: "rebuild", args: func(ix string) []string { return []string{"index", "--rebuild", "--index", ix, srcB} }, base: ixA, before: docsA, after: docsB},
		{name: "update", args: func(ix string) []string { return []string{"index", "--index", ix, srcB} }, base: ixA, before: docsA, after: docsB},
		{name: "compact", args: func(ix string) []string { return []string{"compact", "--index", ix} }, base: ixA, before: docsA, after: docsA},
	}
	if m, err := index.Open(ixA); err == nil {
		for _, op := range ops {
			if op.base != "" {
				op.baseGen = m.Generation()
			}
		}
		m.Close()
	}
	env := append(os.Environ(), "BITSIEVE_TEST_MAIN=1", "BITSIEVE_TEST_SLOW_IO=4ms", "GOMAXPROCS=2")
	runOp := func(op *crashOp, ix string, kill time.Duration, extraEnv ...string) (killed bool, took time.Duration) {
		cmd := exec.Command(exe, op.args(ix)...)
		cmd.Env = append(env, extraEnv...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var timer *time.Timer
		if kill > 0 {
			timer = time.AfterFunc(kill, func() { cmd.Process.Signal(syscall.SIGKILL) })
		}
		err := cmd.Wait()
		took = time.Since(start)
		if timer != nil {
			timer.Stop()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
			return true, took
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", op.name, err, out.String())
		}
		return false, took
	}
	prepare := func(op *crashOp, ix string) {
		os.RemoveAll(ix)
		if op.base != "" {
			copyDir(t, op.base, ix)
		}
	}

	// Calibrate: how long each operation takes when left alone.
	durations := map[string]time.Duration{}
	for _, op := range ops {
		ix := filepath.Join(work, "calibrate-"+op.name)
		var took []time.Duration
		for range 3 {
			prepare(op, ix)
			_, d := runOp(op, ix, 0)
			took = append(took, d)
			verifyCrash(t, op, ix, "calibration")
		}
		durations[op.name] = slices.Min(took)
	}
	t.Logf("uninterrupted: %v", durations)

	type tally struct{ trials, before, after, completed int }
	counts := map[string]*tally{}
	for i := 0; i < trials; i++ {
		op := ops[i%len(ops)]
		tl := counts[op.name]
		if tl == nil {
			tl = &tally{}
			counts[op.name] = tl
		}
		ix := filepath.Join(work, fmt.Sprintf("trial-%03d", i))
		prepare(op, ix)
		// Kill anywhere from the start to the end of the fastest run.
		delay := time.Duration(rng.Int64N(int64(durations[op.name])))
		killed, _ := runOp(op, ix, max(delay, time.Millisecond))
		state := verifyCrash(t, op, ix, fmt.Sprintf("trial %d (%s killed after %v)", i, op.name, delay))
		tl.trials++
		switch {
		case !killed:
			tl.completed++
		case state == "before":
			tl.before++
		default:
			tl.after++
		}
		if i%5 == 0 {
			// The next writer finishes the job from whatever the crash left.
			runOp(op, ix, 0)
			if got := verifyCrash(t, op, ix, fmt.Sprintf("trial %d, rerun", i)); got != "after" && !maps.Equal(op.before, op.after) {
				t.Fatalf("trial %d: rerun of %s left the state %s", i, op.name, got)
			}
		}
		os.RemoveAll(ix)
		if t.Failed() {
			break
		}
	}

	report := func(kind string, counts map[string]*tally) tally {
		total := tally{}
		for _, name := range slices.Sorted(maps.Keys(counts)) {
			c := counts[name]
			t.Logf("%s %-8s %3d trials: killed with the state before %3d, after %3d; finished before the kill %3d", kind, name, c.trials, c.before, c.after, c.completed)
			total.trials += c.trials
			total.before += c.before
			total.after += c.after
			total.completed += c.completed
		}
		return total
	}
	random := report("random", counts)

	// Then every step of the commit protocol in turn: each fsync, rename
	// and directory sync of every operation.
	counts = map[string]*tally{}
	for _, op := range ops {
		tl := &tally{}
		counts[op.name] = tl
		for step := 1; ; step++ {
			ix := filepath.Join(work, fmt.Sprintf("%s-step-%02d", op.name, step))
			prepare(op, ix)
			killed, _ := runOp(op, ix, 0, fmt.Sprintf("BITSIEVE_TEST_CRASH_AT=%d", step), "BITSIEVE_TEST_SLOW_IO=0")
			state := verifyCrash(t, op, ix, fmt.Sprintf("%s killed at step %d", op.name, step))
			os.RemoveAll(ix)
			if !killed {
				t.Logf("%s: %d steps", op.name, step-1)
				break
			}
			tl.trials++
			if state == "before" {
				tl.before++
			} else {
				tl.after++
			}
			if t.Failed() || step > 200 {
				break
			}
		}
	}

	steps := report("stepped", counts)
	t.Logf("crash trials: %d, all consistent: %d at random moments (%d killed with the state before, %d after, %d finished first), %d at every durability step (%d before, %d after)",
		random.trials+steps.trials, random.trials, random.before, random.after, random.completed, steps.trials, steps.before, steps.after)
}

// verifyCrash checks an index directory after an interrupted operation and
// returns whether it holds the state before or after it.
func verifyCrash(t *testing.T, op *crashOp, ix, what string) string {
	t.Helper()
	got := docSet{}
	gen := uint64(0)
	if _, err := os.Stat(filepath.Join(ix, index.ManifestName)); err == nil || op.base != "" {
		got = indexedSet(t, ix)
		if code, out, errs := runCLI(t, "check", "--index", ix); code != exitOK {
			t.Fatalf("%s: check: exit %d\n%s%s", what, code, out, errs)
		}
		// Opening cleaned every leftover: only the manifest's files remain.
		m, err := index.Open(ix)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		named := map[string]bool{index.ManifestName: true, index.LockName: true, m.Manifest().Lexicon: true}
		for _, s := range m.Manifest().Segments {
			named[s.File], named[s.Deletes] = true, true
		}
		searchable(t, m, got, what)
		gen = m.Generation()
		m.Close()
		if gen == 0 {
			// A first run cut short: search says the index is empty, and why.
			if code, _, errs := runCLI(t, "search", "--index", ix, "common"); code != exitError || !strings.Contains(errs, "is empty: no indexing run has finished there yet") {
				t.Fatalf("%s: search of the empty index: exit %d, %q", what, code, errs)
			}
		}
		ents, _ := os.ReadDir(ix)
		for _, e := range ents {
			if !named[e.Name()] {
				t.Errorf("%s: leftover file %s", what, e.Name())
			}
		}
	} else if ents, _ := os.ReadDir(ix); len(ents) > 0 {
		// No index yet: whatever the crash left must not be mistaken for one.
		if _, err := index.Open(ix); !errors.Is(err, index.ErrNoIndex) {
			t.Fatalf("%s: no MANIFEST, but Open says %v", what, err)
		}
	}
	switch {
	case maps.Equal(got, op.after) && (gen > op.baseGen || !maps.Equal(op.before, op.after)):
		return "after"
	case maps.Equal(got, op.before):
		return "before"
	}
	missing, extra := 0, 0
	for k, h := range op.after {
		if got[k] != h {
			missing++
		}
	}
	for k := range got {
		if _, ok := op.after[k]; !ok {
			extra++
		}
	}
	t.Fatalf("%s: the index holds %d documents, neither the %d before nor the %d after (%d missing, %d extra against after)",
		what, len(got), len(op.before), len(op.after), missing, extra)
	return ""
}

func indexedSet(t *testing.T, dir string) docSet {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer ix.Close()
	set := docSet{}
	for _, s := range ix.Segments() {
		for d := 0; d < s.NumDocs(); d++ {
			if s.IsLive(d) {
				k := s.DocKey(d)
				if _, dup := set[k]; dup {
					t.Fatalf("%s: key %s is live twice", dir, k)
				}
				set[k] = s.Doc(d).Hash
			}
		}
	}
	return set
}

// searchable checks that searches see exactly the documents: all of them
// for the common word, and each of a sample by its own word.
func searchable(t *testing.T, ix *index.Index, want docSet, what string) {
	t.Helper()
	s, err := query.NewSearcher(ix)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(context.Background(), query.Request{Query: "common", CountOnly: true})
	if err != nil || res.Total != len(want) {
		t.Fatalf("%s: search common: %d hits, %v; want %d", what, res.Total, err, len(want))
	}
	n := 0
	for key := range want {
		if n++; n > 10 {
			break
		}
		i, _ := strconv.Atoi(strings.TrimSuffix(key[strings.LastIndexByte(key, 'f')+1:], ".txt"))
		res, err := s.Search(context.Background(), query.Request{Query: fmt.Sprintf("uniq%d", i), Limit: 2})
		if err != nil || len(res.Hits) != 1 || res.Hits[0].Key != key {
			t.Fatalf("%s: search uniq%d: %+v, %v", what, i, res, err)
		}
	}
}
