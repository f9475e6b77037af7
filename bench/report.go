package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is everything a run measured.
type Report struct {
	Version int       `json:"version"`
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	Command string    `json:"command,omitempty"`
	Machine Machine   `json:"machine"`
	// LoadAverage is the machine's load average (1, 5 and 15 minutes) when
	// the run ended: what else ran beside it.
	LoadAverage string     `json:"load_average"`
	Index       IndexInfo  `json:"index"`
	Build       Build      `json:"build"`
	Size        Size       `json:"size"`
	Queries     QueryStats `json:"queries"`
	Reps        int        `json:"reps"`
	Limit       int        `json:"limit"`
	Threads     []int      `json:"threads"` // Searcher workers of the latency runs: 1 and all cores
	Latency     []Latency  `json:"latency"`
	QPS         []QPS      `json:"qps"`
	Quality     []Quality  `json:"quality"`
	// QualityBySource is the signature's quality per query source (the
	// query file, or "sample"); Class holds the source's name.
	QualityBySource []Quality `json:"quality_by_source,omitempty"`
	Bandwidth       Bandwidth `json:"bandwidth"`
	Equality        Equality  `json:"equality"`

	// Sweep is set by RunSweep, whose report holds the machine, the
	// benchmark index and the workload beside it, and no other measurement.
	Sweep *Sweep `json:"sweep,omitempty"`
}

// IndexInfo describes the benchmarked index.
type IndexInfo struct {
	Dir       string `json:"dir"`
	Documents int    `json:"documents"`
	Segments  int    `json:"segments"`
	Terms     int64  `json:"segment_terms"` // Σ over segments of dictionary sizes
	Postings  int64  `json:"postings"`
}

// QueryStats counts the workload.
type QueryStats struct {
	Total   int           `json:"total"` // queries run
	Sources []SourceCount `json:"sources"`
	Refused []Refused     `json:"refused,omitempty"` // queries bitsieve rejects (the first few)
}

// SourceCount is one query source.
type SourceCount struct {
	Name    string `json:"name"`
	Queries int    `json:"queries"`
	Refused int    `json:"refused"`
}

// Refused is a query the parser (or both engines alike) rejected.
type Refused struct {
	Query  string `json:"query"`
	Source string `json:"source"`
	Error  string `json:"error"`
}

// Latency summarizes one engine on one class of queries.
type Latency struct {
	Mode    string `json:"mode"`
	Threads int    `json:"threads"`
	Class   string `json:"class"`
	Engine  string `json:"engine"`
	Summary
}

// QPS is one engine's throughput.
type QPS struct {
	Mode    string  `json:"mode"`
	Threads int     `json:"threads"`
	Engine  string  `json:"engine"`
	QPS     float64 `json:"qps"`
}

// Quality describes the signature filter (and what the inverted engine
// read) on one class of queries; counts are means per query.
type Quality struct {
	Class          string  `json:"class"`
	Queries        int     `json:"queries"`
	Candidates     float64 `json:"candidates"`
	Hits           float64 `json:"hits"`
	FalsePositives float64 `json:"false_positives"`
	// FPRate is the share of candidates that verification rejected: Σ false
	// positives / Σ candidates.
	FPRate float64 `json:"fp_rate"`
	// FPPerDoc is the filter's false-positive probability per non-matching
	// document: Σ false positives / Σ (documents − hits).
	FPPerDoc      float64 `json:"fp_per_doc"`
	Rows          float64 `json:"rows"`       // rows the plans AND, over all segments
	RowBlocks     float64 `json:"row_blocks"` // 64-byte row blocks loaded, live row included
	RowBytes      float64 `json:"row_bytes"`  // RowBlocks × 64: bytes touched by the match stage
	PostingsBytes float64 `json:"postings_bytes"`
	MatchMicros   float64 `json:"match_us"` // signature match stage of ranked searches (planning, listing candidates), 1 thread
	GBps          float64 `json:"gb_s"`     // Σ RowBytes / Σ match stage time
}

// Equality is the check that both engines answer every query alike.
type Equality struct {
	Queries int `json:"queries"`
	// Identical counts queries whose full match sets are equal, segment by
	// segment; PagesIdentical those whose first pages (keys, order and
	// scores) are equal too.
	Identical      int          `json:"identical"`
	PagesIdentical int          `json:"pages_identical"`
	Differences    []Difference `json:"differences,omitempty"` // the first MaxDiffs
	Different      int          `json:"different"`
}

// OK reports whether every query had identical answers.
func (e Equality) OK() bool { return e.Identical == e.Queries && e.PagesIdentical == e.Queries }

// Share is the percentage of queries with identical match sets.
func (e Equality) Share() float64 {
	if e.Queries == 0 {
		return 100
	}
	return 100 * float64(e.Identical) / float64(e.Queries)
}

// Difference is one query the engines answered differently.
type Difference struct {
	Query  string `json:"query"`
	Source string `json:"source"`
	Detail string `json:"detail"`
}

// summarize aggregates per-query measurements by class.
func (r *Report) summarize(qs []*perQuery, modes []string) {
	for _, q := range qs {
		r.addSource(q.q.Source)
	}
	classes := r.classes()
	in := func(p *perQuery, class string) bool {
		if src, ok := strings.CutPrefix(class, SourceClass); ok {
			return p.q.Source == src
		}
		return class == Overall || p.q.TermsClass() == class || p.q.DFClass() == class
	}
	for mi, mode := range modes {
		for ti, threads := range r.Threads {
			for _, class := range classes {
				for ei, eng := range []string{Signature, Inverted} {
					var xs []float64
					for _, p := range qs {
						if in(p, class) {
							xs = append(xs, p.lat[mi][ti][ei])
						}
					}
					if len(xs) > 0 {
						r.Latency = append(r.Latency, Latency{Mode: mode, Threads: threads, Class: class, Engine: eng, Summary: Summarize(xs)})
					}
				}
			}
		}
	}
	var totBytes, totUs float64
	for _, class := range classes {
		q, bytes, us := r.quality(qs, func(p *perQuery) bool { return in(p, class) })
		if q.Queries == 0 {
			continue
		}
		if class == Overall {
			totBytes, totUs = bytes, us
		}
		q.Class = class
		r.Quality = append(r.Quality, q)
	}
	for _, src := range r.Queries.Sources {
		q, _, _ := r.quality(qs, func(p *perQuery) bool { return p.q.Source == src.Name })
		if q.Queries > 0 {
			q.Class = src.Name
			r.QualityBySource = append(r.QualityBySource, q)
		}
	}
	if totUs > 0 {
		r.Bandwidth.AchievedGBps = totBytes / (totUs * 1e3)
	}
}

// quality is the signature's quality over the queries that in selects, with
// the row bytes they touched and their match stages' time (µs).
func (r *Report) quality(qs []*perQuery, in func(*perQuery) bool) (q Quality, bytes, us float64) {
	docs := float64(r.Index.Documents)
	var fp, cands, neg float64
	for _, p := range qs {
		if !in(p) {
			continue
		}
		q.Queries++
		q.Candidates += float64(p.cands)
		q.Hits += float64(p.hits)
		q.Rows += float64(p.rows)
		q.RowBlocks += float64(p.blocks)
		q.PostingsBytes += float64(p.postB)
		q.MatchMicros += p.matchUs
		fp += float64(p.cands - p.hits)
		cands += float64(p.cands)
		neg += docs - float64(p.hits)
		bytes += float64(p.blocks * 64)
		us += p.matchUs
	}
	if q.Queries == 0 {
		return q, 0, 0
	}
	n := float64(q.Queries)
	q.FalsePositives = fp / n
	q.Candidates /= n
	q.Hits /= n
	q.Rows /= n
	q.RowBlocks /= n
	q.RowBytes = q.RowBlocks * 64
	q.PostingsBytes /= n
	q.MatchMicros /= n
	if cands > 0 {
		q.FPRate = fp / cands
	}
	if neg > 0 {
		q.FPPerDoc = fp / neg
	}
	if us > 0 {
		q.GBps = bytes / (us * 1e3)
	}
	return q, bytes, us
}

func (r *Report) addSource(name string) {
	for i := range r.Queries.Sources {
		if r.Queries.Sources[i].Name == name {
			r.Queries.Sources[i].Queries++
			return
		}
	}
	r.Queries.Sources = append(r.Queries.Sources, SourceCount{Name: name, Queries: 1})
}

// SourceClass prefixes the class of the queries of one query file, which a
// report has when its queries came from more than one.
const SourceClass = "file "

// classes are the report's query classes, in order: all, by terms, by df,
// and by query file when there are several.
func (r *Report) classes() []string {
	classes := append(append([]string{Overall}, TermsClasses...), DFClasses...)
	if len(r.Queries.Sources) > 1 {
		for _, src := range r.Queries.Sources {
			classes = append(classes, SourceClass+src.Name)
		}
	}
	return classes
}

// LatencyOf finds a latency summary (zero when absent).
func (r *Report) LatencyOf(mode string, threads int, class, engine string) Summary {
	for _, l := range r.Latency {
		if l.Mode == mode && l.Threads == threads && l.Class == class && l.Engine == engine {
			return l.Summary
		}
	}
	return Summary{}
}

// QualityOf finds a class's quality (zero when absent).
func (r *Report) QualityOf(class string) Quality {
	for _, q := range r.Quality {
		if q.Class == class {
			return q
		}
	}
	return Quality{}
}

// ReadReport decodes a report written with --json, to render it again.
func ReadReport(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("bench: not a bench report: %w", err)
	}
	if rep.Version != 1 {
		return nil, fmt.Errorf("bench: report version %d is not supported", rep.Version)
	}
	return &rep, nil
}
