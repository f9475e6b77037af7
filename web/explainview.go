package web

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/bitsieve/bitsieve/internal/bitrow"
	"github.com/bitsieve/bitsieve/internal/segment"

	"github.com/bitsieve/bitsieve/index"
	"github.com/bitsieve/bitsieve/query"
)

// explainView is query.Explain drawn for the page: a funnel of how many
// documents survive each AND step over the whole index, and per segment the
// actual rows as strips of bits, shaded by how many bits each stretch of
// documents has set, with the running AND under each term's rows.
type explainView struct {
	*query.Explanation
	HasOr     bool
	Funnel    funnelSVG
	Segments  []segmentSVG
	Omitted   int // segments not drawn
	SearchURL string
}

// funnelSVG is the whole-index summary: one bar per step, on a log scale.
type funnelSVG struct {
	W, H int
	Bars []funnelBar
}

type funnelBar struct {
	Y, W       int
	Label      string
	Count      string
	Note       string
	Class      string
	TextY, NoX int
}

// segmentSVG draws one segment's AND steps.
type segmentSVG struct {
	Name        string
	Class, Docs int
	Survivors   int
	W, H        int
	Strips      []strip
	Buckets     int
	PerBucket   string // documents per bucket
	StripX      int
	StripW      int
	AxisY       int
}

// strip is one row of bits (or the running AND), drawn as shaded buckets.
type strip struct {
	Y, TextY  int
	Label     string // the term, on the first row of a step
	Row       string // "r812", "AND", "live"
	Right     string
	Class     string // live, shared, private, and, absent
	Paths     []levelPath
	GapBefore bool
}

// levelPath is every bucket of one shade in a strip, as one SVG path.
type levelPath struct {
	D       string
	Opacity string
}

// Geometry of the drawings, in SVG user units (the SVG scales to the page).
const (
	svgLabelW  = 150 // left column: term and row
	svgStripX  = 160
	svgStripW  = 480
	svgRightW  = 120
	svgStripH  = 11
	svgPitch   = 16
	svgBuckets = 120
	svgLevels  = 8
	maxDrawn   = 6 // segments drawn; the rest are summarised
)

func newExplainView(ix *index.Index, ex *query.Explanation) *explainView {
	ev := &explainView{Explanation: ex, HasOr: strings.Contains(ex.Parsed, " OR ") || strings.Contains(ex.Parsed, "*")}
	segs := map[string]*segment.Segment{}
	for _, s := range ix.Segments() {
		segs[s.Name()] = s
	}

	// The funnel sums survivors per step over segments: every segment ANDs
	// the same positive terms in the same (global, rarest first) order.
	var steps []string
	var survivors []int
	for _, sg := range ex.Segments {
		for i, st := range sg.Steps {
			if i == len(steps) {
				steps = append(steps, st.Term)
				survivors = append(survivors, 0)
			}
			survivors[i] += st.Survivors
		}
	}
	ev.Funnel = makeFunnel(ex, steps, survivors)

	// Draw the segments where most survive (ties: the largest), in index order.
	order := make([]int, len(ex.Segments))
	for i := range order {
		order[i] = i
	}
	final := func(sg query.SegmentSteps) int {
		if len(sg.Steps) == 0 {
			return sg.Docs
		}
		return sg.Steps[len(sg.Steps)-1].Survivors
	}
	slices.SortStableFunc(order, func(a, b int) int {
		fa, fb := final(ex.Segments[a]), final(ex.Segments[b])
		if fa != fb {
			return fb - fa
		}
		return ex.Segments[b].Docs - ex.Segments[a].Docs
	})
	if len(order) > maxDrawn {
		ev.Omitted = len(order) - maxDrawn
		order = order[:maxDrawn]
	}
	slices.Sort(order)
	for _, i := range order {
		sg := ex.Segments[i]
		if seg := segs[sg.Segment]; seg != nil {
			ev.Segments = append(ev.Segments, drawSegment(ix, seg, sg, final(sg)))
		}
	}
	return ev
}

func makeFunnel(ex *query.Explanation, steps []string, survivors []int) funnelSVG {
	const barX, barW, pitch = svgLabelW + 10, 480, 26
	f := funnelSVG{W: barX + barW + 190}
	scale := func(n int) int {
		if n <= 0 {
			return 0
		}
		w := int(math.Round(float64(barW) * math.Log10(1+float64(n)) / math.Log10(1+float64(max(ex.Docs, 1)))))
		return max(2, w)
	}
	add := func(label string, n int, note, class string) {
		y := 8 + len(f.Bars)*pitch
		w := scale(n)
		f.Bars = append(f.Bars, funnelBar{Y: y, W: w, Label: label, Count: formatInt(n), Note: note, Class: class,
			TextY: y + 13, NoX: barX + w + 8})
	}
	add("documents", ex.Docs, "", "live")
	for i, t := range steps {
		add("AND "+shorten(t, 14), survivors[i], "", "and")
	}
	add("candidates", ex.Candidates, "", "cand")
	fp := "false positives"
	if ex.FalsePositives == 1 {
		fp = "false positive"
	}
	add("verified hits", ex.Hits, formatInt(ex.FalsePositives)+" "+fp, "hits")
	f.H = 8 + len(f.Bars)*pitch
	return f
}

// listDocs is the list of term in seg as a bit per document (all zero where
// seg keeps no list of it).
func listDocs(ix *index.Index, seg *segment.Segment, term string) []uint64 {
	es, _ := ix.Lookup(term, nil)
	for _, e := range es {
		if ix.Segments()[e.Seg] == seg && e.Treatment().List {
			return seg.ListDocs(e)
		}
	}
	return make([]uint64, seg.RowWords())
}

// drawSegment redoes the segment's AND on its rows to shade each stretch of
// documents: Explain gives the counts, the rows give where the bits are.
func drawSegment(ix *index.Index, seg *segment.Segment, sg query.SegmentSteps, survivors int) segmentSVG {
	n := seg.NumDocs()
	nb := min(svgBuckets, max(n, 1))
	out := segmentSVG{Name: sg.Segment, Class: sg.Class, Docs: sg.Docs, Survivors: survivors, Buckets: nb,
		StripX: svgStripX, StripW: svgStripW, W: svgStripX + svgStripW + svgRightW}
	per := float64(n) / float64(nb)
	if per >= 10 {
		out.PerBucket = formatInt(int(math.Round(per)))
	} else {
		out.PerBucket = fmt.Sprintf("%.1f", per)
	}
	y := 4
	// add places a strip below the previous one and shades it from words.
	add := func(s strip, words []uint64, survivors bool) {
		if s.GapBefore {
			y += 6
		}
		s.Y, s.TextY = y, y+9
		if words != nil {
			s.Paths = shade(words, n, nb, y, survivors)
		}
		out.Strips = append(out.Strips, s)
		y += svgPitch
	}
	acc := slices.Clone(seg.Live())
	add(strip{Row: "live", Right: formatInt(bitrow.Count(acc)) + " docs", Class: "live"}, acc, false)
	for _, st := range sg.Steps {
		if len(st.Rows) == 0 {
			clear(acc)
			add(strip{Label: shorten(st.Term, 12), Row: "absent", Right: "0 left", Class: "absent", GapBefore: true}, nil, false)
			continue
		}
		for i, r := range st.Rows {
			var row []uint64
			s := strip{Row: fmt.Sprintf("r%d", r.Row), Right: fmt.Sprintf("%.1f%% set", 100*r.Density), Class: "shared", GapBefore: i == 0}
			if r.Rank > 0 {
				s.Row = fmt.Sprintf("r%d rank %d", r.Row, r.Rank)
			}
			if i == 0 {
				s.Label = shorten(st.Term, 12)
			}
			switch {
			case r.List:
				row = listDocs(ix, seg, st.Term)
				s.Class, s.Row = "private", "list"
			case r.Private:
				row = seg.Row(r.Row)
				s.Class, s.Row = "private", fmt.Sprintf("r%d exact", r.Row)
			default:
				row = seg.RowDocs(r.Row)
			}
			add(s, row, false)
			for w := range acc {
				acc[w] &= row[w]
			}
		}
		add(strip{Row: "AND", Right: formatInt(st.Survivors) + " left", Class: "and"}, acc, true)
	}
	out.AxisY = y + 4
	out.H = y + 18
	return out
}

// shade groups the buckets of a row by shade (the square root of the share
// of bits set, so sparse rows stay visible) into one path per shade. A
// surviving candidate always shows, however alone in its bucket.
func shade(words []uint64, n, nb, y int, survivors bool) []levelPath {
	if n == 0 {
		return nil
	}
	level := make([]int, nb)
	for b := range nb {
		lo, hi := b*n/nb, (b+1)*n/nb
		if hi <= lo {
			continue
		}
		set := countRange(words, lo, hi)
		if set == 0 {
			continue
		}
		l := 1 + int(math.Sqrt(float64(set)/float64(hi-lo))*float64(svgLevels-1))
		if survivors {
			l = max(l, svgLevels/2)
		}
		level[b] = min(l, svgLevels)
	}
	bw := float64(svgStripW) / float64(nb)
	paths := make([]strings.Builder, svgLevels+1)
	for b := 0; b < nb; {
		l := level[b]
		e := b + 1
		for e < nb && level[e] == l {
			e++
		}
		if l > 0 {
			x0 := svgStripX + float64(b)*bw
			fmt.Fprintf(&paths[l], "M%.1f %dh%.1fv%dh-%.1fz", x0, y, float64(e-b)*bw, svgStripH, float64(e-b)*bw)
		}
		b = e
	}
	var out []levelPath
	for l := 1; l <= svgLevels; l++ {
		if paths[l].Len() > 0 {
			out = append(out, levelPath{D: paths[l].String(), Opacity: fmt.Sprintf("%.2f", 0.12+0.88*float64(l)/svgLevels)})
		}
	}
	return out
}

// shorten cuts s to at most n characters, marking the cut, so labels fit
// their column.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// countRange counts the bits set for documents [lo, hi).
func countRange(words []uint64, lo, hi int) int {
	n := 0
	for d := lo; d < hi; {
		w := d / 64
		if w >= len(words) {
			break
		}
		end := min(hi, (w+1)*64)
		mask := ^uint64(0) << (d % 64)
		if end-w*64 < 64 {
			mask &= (uint64(1) << (end - w*64)) - 1
		}
		n += bits.OnesCount64(words[w] & mask)
		d = end
	}
	return n
}
