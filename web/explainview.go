package web

import (
	"fmt"
	"math"
	"slices"
	"strings"

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

func newExplainView(ex *query.Explanation) *explainView {
	ev := &explainView{Explanation: ex, HasOr: strings.Contains(ex.Parsed, " OR ") || strings.Contains(ex.Parsed, "*")}

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
		ev.Segments = append(ev.Segments, drawSegment(sg, final(sg)))
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

// drawSegment draws the segment's AND steps from Explain's counts of the
// bits each row, and each step's running AND, has in each stretch of
// documents.
func drawSegment(sg query.SegmentSteps, survivors int) segmentSVG {
	n, nb := sg.Docs, sg.Buckets
	out := segmentSVG{Name: sg.Segment, Class: sg.Class, Docs: sg.Docs, Survivors: survivors, Buckets: nb,
		StripX: svgStripX, StripW: svgStripW, W: svgStripX + svgStripW + svgRightW}
	per := float64(n) / float64(max(nb, 1))
	if per >= 10 {
		out.PerBucket = formatInt(int(math.Round(per)))
	} else {
		out.PerBucket = fmt.Sprintf("%.1f", per)
	}
	y := 4
	// add places a strip below the previous one and shades it from counts.
	add := func(s strip, counts []int, survivors bool) {
		if s.GapBefore {
			y += 6
		}
		s.Y, s.TextY = y, y+9
		if counts != nil {
			s.Paths = shade(counts, n, y, survivors)
		}
		out.Strips = append(out.Strips, s)
		y += svgPitch
	}
	live := 0
	for _, c := range sg.Live {
		live += c
	}
	add(strip{Row: "live", Right: formatInt(live) + " docs", Class: "live"}, sg.Live, false)
	for _, st := range sg.Steps {
		if len(st.Rows) == 0 {
			add(strip{Label: shorten(st.Term, 12), Row: "absent", Right: "0 left", Class: "absent", GapBefore: true}, nil, false)
			continue
		}
		for i, r := range st.Rows {
			s := strip{Row: fmt.Sprintf("r%d", r.Row), Right: fmt.Sprintf("%.1f%% set", 100*r.Density), Class: "shared", GapBefore: i == 0}
			if r.Rank > 0 {
				s.Row = fmt.Sprintf("r%d rank %d", r.Row, r.Rank)
			}
			if i == 0 {
				s.Label = shorten(st.Term, 12)
			}
			switch {
			case r.List:
				s.Class, s.Row = "private", "list"
			case r.Private:
				s.Class, s.Row = "private", fmt.Sprintf("r%d exact", r.Row)
			}
			add(s, r.Bits, false)
		}
		add(strip{Row: "AND", Right: formatInt(st.Survivors) + " left", Class: "and"}, st.Bits, true)
	}
	out.AxisY = y + 4
	out.H = y + 18
	return out
}

// shade groups the buckets of a row by shade (the square root of the share
// of bits set, so sparse rows stay visible) into one path per shade. A
// surviving candidate always shows, however alone in its bucket.
func shade(counts []int, n, y int, survivors bool) []levelPath {
	nb := len(counts)
	if n == 0 || nb == 0 {
		return nil
	}
	level := make([]int, nb)
	for b := range nb {
		lo, hi := b*n/nb, (b+1)*n/nb
		if hi <= lo {
			continue
		}
		set := counts[b]
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
