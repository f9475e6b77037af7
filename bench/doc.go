// Package bench measures the signature engine against the inverted baseline
// (index/inverted) on one index: the same segments, documents, analyzer,
// queries and process.
//
// A run (Run) classifies every query by its number of terms and by the
// document frequency of its rarest term, then:
//
//  1. checks equality: each query's full match set, segment by segment, and
//     its first page of ranked hits (keys and scores) must be identical in
//     both engines; every difference is reported;
//  2. records the signature's quality from the same pass: candidates, exact
//     hits, false positives, rows and 64-byte row blocks read;
//  3. warms both engines with one pass, then times every query through both
//     engines interleaved, signature then inverted, Reps times, single-threaded
//     and with all cores, for "match" (the exact set, counted) and "top10"
//     (BM25 with snippets): a query's latency is the median of its runs, so a
//     burst of noise from other processes hits both engines alike;
//  4. measures queries per second with 1 and 2 client goroutines, the
//     engines taking turns every 200 queries;
//  5. probes memory bandwidth with a plain streaming AND over buffers larger
//     than the last-level cache, to put the matcher's achieved GB/s beside
//     what the machine can do.
//
// Build times and sizes by component complete the Report: IndexCorpus times
// the whole index as `bitsieve index` builds it, BuildPostings the inverted
// postings, and TimeParts each engine's own structure rebuilt from the
// forward index, all into a Build; Sizes measures the sections of both. The
// Report renders as a text table (WriteText), JSON, or a self-contained HTML
// page with inline SVG charts (WriteHTML).
//
// A sweep (RunSweep) measures the signature parameters instead: for each
// parameter set (ParseSweep), the index is resealed with it into a
// temporary directory (index.Reseal) and the workload runs as in steps 1
// and 3, single-threaded; each set's size (bits per posting of rows and
// lists), false-positive share and p50 latencies beside the inverted
// engine's make one point of the report's size-against-speed chart.
//
// Files: run.go runs a workload through both engines (Run); compare.go
// checks that they answer a query alike; report.go holds the Report and
// sums its measurements up by class. workload.go classifies queries,
// sample.go and phrases.go draw them from an index and a corpus, stats.go
// summarizes latencies; build.go times builds, size.go measures sizes,
// probe.go the memory bandwidth and machine.go the machine; sweep.go runs
// a sweep; text.go, html.go and svg.go render a report.
package bench
