package bench

import (
	"fmt"
	"html/template"
	"io"
	"strings"
)

// WriteHTML writes the report as one self-contained page: inline CSS and
// inline SVG charts, no script, nothing fetched.
func (r *Report) WriteHTML(w io.Writer) error {
	if r.Sweep != nil {
		return pageTemplate.Execute(w, r.sweepHTMLData())
	}
	return pageTemplate.Execute(w, r.htmlData())
}

type htmlRow struct {
	Cells []string
	Class string // CSS class of the row
}

type htmlTable struct {
	Title string
	Note  string
	Head  []string
	Rows  []htmlRow
}

type htmlData struct {
	R       *Report
	Title   string
	Summary []string
	Verdict string
	OK      bool
	Diffs   []Difference
	More    int
	Charts  []template.HTML
	Tables  []htmlTable
	Method  []string
}

func (r *Report) classesWithData() []string {
	var out []string
	for _, c := range r.classes() {
		if r.LatencyOf(ModeMatch, 1, c, Signature).N > 0 {
			out = append(out, c)
		}
	}
	return out
}

func (r *Report) htmlData() htmlData {
	d := htmlData{R: r, Title: "bitsieve bench: " + r.Index.Dir, OK: r.Equality.OK()}
	d.Summary = append([]string{
		fmt.Sprintf("%s documents in %d segments, %s postings.", commas(int64(r.Index.Documents)), r.Index.Segments, commas(r.Index.Postings)),
	}, r.Machine.summary()...)
	var src []string
	for _, s := range r.Queries.Sources {
		t := fmt.Sprintf("%s (%s", s.Name, commas(int64(s.Queries)))
		if s.Refused > 0 {
			t += fmt.Sprintf(", %d refused", s.Refused)
		}
		src = append(src, t+")")
	}
	d.Summary = append(d.Summary, fmt.Sprintf("Queries: %s run: %s.", commas(int64(r.Queries.Total)), strings.Join(src, ", ")))
	if r.Command != "" {
		d.Summary = append(d.Summary, "Command: "+r.Command)
	}
	d.Summary = append(d.Summary, fmt.Sprintf("Run started %s and took %.0f s; load average at its end %s (1, 5, 15 min).", r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Seconds, r.LoadAverage))
	e := r.Equality
	d.Verdict = fmt.Sprintf("%s of %s queries have identical match sets in both engines (%.2f%%); %s have identical first pages (keys, order, scores).",
		commas(int64(e.Identical)), commas(int64(e.Queries)), e.Share(), commas(int64(e.PagesIdentical)))
	d.Diffs = e.Differences
	d.More = e.Different - len(e.Differences)

	classes := r.classesWithData()
	for _, mode := range []string{ModeMatch, ModeTop10} {
		what := "Match (exact set, counted)"
		if mode == ModeTop10 {
			what = fmt.Sprintf("Top-%d (BM25 with snippets)", r.Limit)
		}
		var ss []series
		for _, eng := range []string{Signature, Inverted} {
			s := series{name: eng + " p50 (whisker: p95)", color: colSignature}
			if eng == Inverted {
				s.color = colInverted
			}
			for _, c := range classes {
				l := r.LatencyOf(mode, 1, c, eng)
				s.vals = append(s.vals, l.P50)
				s.high = append(s.high, l.P95)
			}
			ss = append(ss, s)
		}
		d.Charts = append(d.Charts, template.HTML(barChart(what+" latency by query class, 1 thread", "µs (log scale)", classes, ss, true, fmtMicros)))
	}
	fp := series{name: "false positives / candidates (signature)", color: colSignature}
	for _, c := range classes {
		fp.vals = append(fp.vals, 100*r.QualityOf(c).FPRate)
	}
	d.Charts = append(d.Charts, template.HTML(barChart("Signature false-positive rate by query class", "% of candidates rejected by verification", classes, []series{fp}, false,
		func(v float64) string { return fmt.Sprintf("%.3g%%", v) })))

	palette := map[string]string{
		CompRows: colSignature, CompRowStats: "#7fa8d9", CompLists: "#1d4477", CompPostings: colInverted, CompOffsets: "#f0b27a",
		CompDictionary: "#4c9a5b", CompForward: "#8a63a8", CompDocTable: "#b0a030", CompDocStore: "#9a9a9a", CompOther: "#c7c7c7",
	}
	var parts, search []stackPart
	for _, c := range r.Size.Components {
		p := stackPart{name: c.Name, color: palette[c.Name], vals: []float64{0, 0}}
		switch c.Engine {
		case Signature:
			p.vals[0] = float64(c.Bytes)
		case Inverted:
			p.vals[1] = float64(c.Bytes)
		default:
			p.vals = []float64{float64(c.Bytes), float64(c.Bytes)}
		}
		parts = append(parts, p)
		if c.Name != CompDocStore && c.Name != CompDocTable {
			search = append(search, p)
		}
	}
	bytesFmt := func(v float64) string { return HumanBytes(int64(v)) }
	d.Charts = append(d.Charts, template.HTML(stackedBars("Index size by component", []string{Signature, Inverted}, parts, bytesFmt)))
	d.Charts = append(d.Charts, template.HTML(stackedBars("Search structures only (document table and store left out)", []string{Signature, Inverted}, search, bytesFmt)))

	bw := r.Bandwidth
	d.Charts = append(d.Charts, template.HTML(barChart("Memory bandwidth: streaming AND probe and the signature matcher, 1 thread", "GB/s",
		[]string{"probe, " + HumanBytes(bw.ProbeBytes) + " (> LLC)", "probe, 256 KiB (L2)", "signature match stage"},
		[]series{{name: "GB/s", color: colSignature, vals: []float64{bw.ColdGBps, bw.HotGBps, bw.AchievedGBps}}}, false,
		func(v float64) string { return fmt.Sprintf("%.3g", v) })))

	var qg []string
	qs := [2]series{{name: Signature, color: colSignature}, {name: Inverted, color: colInverted}}
	for _, q := range r.QPS {
		if q.Engine != Signature {
			continue
		}
		qg = append(qg, fmt.Sprintf("%s, %d client(s)", q.Mode, q.Threads))
		qs[0].vals = append(qs[0].vals, q.QPS)
		qs[1].vals = append(qs[1].vals, r.qpsOf(q.Mode, q.Threads, Inverted))
	}
	if len(qg) > 0 {
		d.Charts = append(d.Charts, template.HTML(barChart("Throughput", "queries per second", qg, qs[:], false, func(v float64) string { return fmt.Sprintf("%.0f", v) })))
	}

	d.Tables = append(d.Tables, r.buildTable(), r.sizeTable())
	for _, mode := range []string{ModeMatch, ModeTop10} {
		for _, th := range r.Threads {
			d.Tables = append(d.Tables, r.latencyTable(mode, th, classes))
		}
	}
	d.Tables = append(d.Tables, r.qpsTable(), r.qualityTable(classes))
	d.Method = []string{
		fmt.Sprintf("Both engines run in one process over the same segments and document ids. After an untimed equality pass and a warm-up pass, every query runs through the signature engine, then the inverted engine, %d times; its latency is the median of its runs, so noise from other processes falls on both engines alike. Percentiles are nearest-rank over queries.", r.Reps),
		"Match mode counts the exact, verified set (Request.CountOnly). Top-10 mode ranks with BM25 and builds snippets for the page. The signature engine ANDs rows of 512-document blocks and verifies candidates on the forward index; the inverted engine intersects roaring bitmaps (FastAnd, smallest first) and needs no verification. Everything else (parsing, BM25, top-k, snippets) is shared code.",
		"Throughput: each pass runs every query once per engine with 1 or 2 client goroutines, each Search on one worker; the engines take turns every 200 queries, and the median of the passes is reported.",
		"Classes: by the number of distinct positive terms, and by the document frequency (over the whole index) of the rarest term. df 0 means a term is in no document: both engines answer at once.",
		"Rows are counted per segment plan; row blocks are the 64-byte cache lines the matcher loads (the live row's included); bytes touched = row blocks × 64. Achieved GB/s divides them by the match stage's time (planning included) in ranked searches, which list every candidate (a count may take a shortcut: a popcount of an exact plan, a term's document frequency) — beside a plain streaming AND over buffers larger than the last-level cache, measured in the same run.",
		"Build: the whole signature index is timed when the run built it (bench --build). Each engine's own structure is also rebuilt in memory from the forward index with the same number of goroutines, rows and postings alternately, a few times (medians), and the inverted engine's whole build is estimated as index − rows + postings. The postings files the run reads are built and written once more, timed apart. Peak memory is the process's peak RSS (VmHWM), mapped index pages included; machines shared with other work make build times noisy (see the load average above).",
	}
	return d
}

func fmtMicros(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gs", v/1e6)
	case v >= 10000:
		return fmt.Sprintf("%.0fms", v/1000)
	case v >= 1000:
		return fmt.Sprintf("%.1fms", v/1000)
	case v >= 10:
		return fmt.Sprintf("%.0fµs", v)
	}
	return fmt.Sprintf("%.2gµs", v)
}

func (r *Report) buildTable() htmlTable {
	b := r.Build
	t := htmlTable{Title: "Build", Head: []string{"", Signature, Inverted}}
	if b.Measured && len(b.Engines) == 2 {
		s, i := b.Engines[0], b.Engines[1]
		t.Rows = append(t.Rows, htmlRow{Cells: []string{"whole index, " + HumanBytes(b.TextBytes) + " of text",
			fmt.Sprintf("%.1f s, %.2f MB/s", s.Seconds, s.MBps), fmt.Sprintf("%.1f s, %.2f MB/s (estimated)", i.Seconds, i.MBps)}})
		t.Rows = append(t.Rows, htmlRow{Cells: []string{"peak memory of the index build (RSS)", HumanBytes(b.IndexPeakRSS), ""}})
	} else {
		t.Note = "The index was not built by this run; bench --build PATH builds and times it."
	}
	t.Rows = append(t.Rows, htmlRow{Cells: []string{fmt.Sprintf("own structure from the forward index, in memory (median of %d)", b.Rounds), fmt.Sprintf("%.2f s (rows)", b.RowsSeconds), fmt.Sprintf("%.2f s (postings)", b.PostingsSeconds)}})
	t.Rows = append(t.Rows, htmlRow{Cells: []string{"postings files for this run (built, written)", "", fmt.Sprintf("%.2f s, peak RSS %s", b.PostingsWriteSeconds, HumanBytes(b.PostingsPeakRSS))}})
	return t
}

func (r *Report) sizeTable() htmlTable {
	sz := r.Size
	t := htmlTable{Title: "Size by component", Head: []string{"component", Signature, Inverted}}
	for _, c := range sz.Components {
		sv, iv := HumanBytes(c.Bytes), HumanBytes(c.Bytes)
		switch c.Engine {
		case Signature:
			iv = "—"
		case Inverted:
			sv = "—"
		}
		t.Rows = append(t.Rows, htmlRow{Cells: []string{c.Name, sv, iv}})
	}
	t.Rows = append(t.Rows, htmlRow{Cells: []string{"total", HumanBytes(sz.SignatureBytes), HumanBytes(sz.InvertedBytes)}, Class: "total"})
	t.Rows = append(t.Rows, htmlRow{Cells: []string{"bits per posting (own structure)", fmt.Sprintf("%.2f", sz.SignatureBitsPerPosting), fmt.Sprintf("%.2f", sz.InvertedBitsPerPosting)}})
	return t
}

func (r *Report) latencyTable(mode string, th int, classes []string) htmlTable {
	what := "match (exact set, counted)"
	if mode == ModeTop10 {
		what = fmt.Sprintf("top-%d (BM25, snippets)", r.Limit)
	}
	t := htmlTable{Title: fmt.Sprintf("Latency µs, %s, %s", what, threadsLabel(th)),
		Head: []string{"class", "queries", "sig p50", "p95", "p99", "mean", "inv p50", "p95", "p99", "mean", "p50 sig/inv"}}
	for _, c := range classes {
		s, i := r.LatencyOf(mode, th, c, Signature), r.LatencyOf(mode, th, c, Inverted)
		row := htmlRow{Cells: []string{c, fmt.Sprint(s.N), us(s.P50), us(s.P95), us(s.P99), us(s.Mean), us(i.P50), us(i.P95), us(i.P99), us(i.Mean), ratio(s.P50, i.P50)}}
		if i.P50 > 0 && s.P50 < i.P50 {
			row.Class = "sigwins"
		} else if s.P50 > i.P50 {
			row.Class = "invwins"
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func (r *Report) qpsTable() htmlTable {
	t := htmlTable{Title: "Throughput, queries per second (each Search on one goroutine)", Head: []string{"mode", "clients", Signature, Inverted}}
	for _, q := range r.QPS {
		if q.Engine == Signature {
			t.Rows = append(t.Rows, htmlRow{Cells: []string{q.Mode, fmt.Sprint(q.Threads), fmt.Sprintf("%.0f", q.QPS), fmt.Sprintf("%.0f", r.qpsOf(q.Mode, q.Threads, Inverted))}})
		}
	}
	return t
}

func (r *Report) qualityTable(classes []string) htmlTable {
	t := htmlTable{Title: "Signature quality (means per query; match stage of ranked searches, single-threaded)",
		Head: []string{"class", "queries", "candidates", "hits", "false pos.", "FP share", "FP per doc", "rows", "row blocks", "bytes touched", "match µs", "GB/s", "inverted: postings bytes"}}
	for _, c := range classes {
		q := r.QualityOf(c)
		t.Rows = append(t.Rows, htmlRow{Cells: []string{c, fmt.Sprint(q.Queries), fmt.Sprintf("%.1f", q.Candidates), fmt.Sprintf("%.1f", q.Hits),
			fmt.Sprintf("%.1f", q.FalsePositives), fmt.Sprintf("%.2f%%", 100*q.FPRate), fmt.Sprintf("%.2g", q.FPPerDoc), fmt.Sprintf("%.1f", q.Rows),
			fmt.Sprintf("%.0f", q.RowBlocks), HumanBytes(int64(q.RowBytes)), fmt.Sprintf("%.1f", q.MatchMicros), fmt.Sprintf("%.2f", q.GBps), HumanBytes(int64(q.PostingsBytes))}})
	}
	return t
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1150px; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
p.meta { margin: .15em 0; color: #444; }
.verdict { padding: .7em 1em; border-radius: 6px; margin: 1.2em 0; font-weight: 600; }
.ok { background: #e6f4ea; border: 1px solid #8ccf9d; }
.bad { background: #fde8e8; border: 1px solid #e59a9a; }
figure { margin: 1.5em 0; }
table { border-collapse: collapse; margin: .6em 0 1.4em; font-size: .9em; }
th, td { padding: .25em .6em; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { background: #f5f5f5; }
tr.total td { font-weight: 600; border-top: 1px solid #bbb; }
tr.default td { font-weight: 600; background: #fbeeee; }
tr.sigwins td:last-child { color: #2f6db5; font-weight: 600; }
tr.invwins td:last-child { color: #c0601a; font-weight: 600; }
.note { color: #555; font-size: .9em; }
code { background: #f3f3f3; padding: 0 .25em; }
ul.method li { margin: .4em 0; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Summary}}<p class="meta">{{.}}</p>
{{end}}
<div class="verdict {{if .OK}}ok{{else}}bad{{end}}">Equality {{if .OK}}OK{{else}}FAILED{{end}}: {{.Verdict}}</div>
{{if .Diffs}}<ul>{{range .Diffs}}<li><code>{{.Query}}</code> ({{.Source}}): {{.Detail}}</li>{{end}}</ul>{{if .More}}<p>… and {{.More}} more.</p>{{end}}{{end}}
<h2>Charts</h2>
{{range .Charts}}<figure>{{.}}</figure>
{{end}}
<h2>Tables</h2>
{{range .Tables}}<h3>{{.Title}}</h3>
{{if .Note}}<p class="note">{{.Note}}</p>{{end}}
<table>
<tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr{{if .Class}} class="{{.Class}}"{{end}}>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
{{if not .R.Sweep}}<p class="note">Bandwidth: streaming AND probe {{printf "%.1f" .R.Bandwidth.ColdGBps}} GB/s over buffers larger than the last-level cache, {{printf "%.1f" .R.Bandwidth.HotGBps}} GB/s in L2; the signature match stage achieved {{printf "%.2f" .R.Bandwidth.AchievedGBps}} GB/s.</p>{{end}}
<h2>Method</h2>
<ul class="method">{{range .Method}}<li>{{.}}</li>{{end}}</ul>
</body>
</html>
`))

// summary is the machine and build lines of a report's page.
func (m Machine) summary() []string {
	s := []string{fmt.Sprintf("Machine: %s, %d cores (GOMAXPROCS %d), %s RAM, L2 %s, LLC %s; %s %s; kernel %s.",
		orUnknown(m.CPU), m.Cores, m.GOMAXPROCS, HumanBytes(m.MemoryBytes), HumanBytes(m.L2Bytes), HumanBytes(m.LLCBytes), m.Go, m.OS, m.Kernel)}
	if m.Revision != "" {
		s = append(s, "bitsieve built from revision "+m.Revision+".")
	}
	return s
}
