package bench

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// Charts are drawn as inline SVG by this file alone: the report must open
// anywhere, with no script and no network.

// series is one set of bars in a grouped bar chart.
type series struct {
	name  string
	color string
	vals  []float64 // one per group; ≤ 0 draws nothing (or nothing on a log scale)
	high  []float64 // optional whisker tops (e.g. p95), one per group
}

const (
	colSignature = "#2f6db5"
	colInverted  = "#e07b24"
	colGrid      = "#dddddd"
	colText      = "#222222"
	colMuted     = "#666666"
)

func esc(s string) string { return html.EscapeString(s) }

// barChart draws groups of vertical bars, one per series, with optional
// whiskers, on a linear or log10 axis.
func barChart(title, yLabel string, groups []string, ss []series, logScale bool, format func(float64) string) string {
	const (
		width, height = 1100.0, 400.0
		left, right   = 78.0, 20.0
		top, bottom   = 56.0, 96.0
	)
	plotW, plotH := width-left-right, height-top-bottom
	lo, hi := math.Inf(1), 0.0
	for _, s := range ss {
		for i, v := range s.vals {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if s.high != nil && s.high[i] > 0 {
				hi = math.Max(hi, s.high[i])
			}
		}
	}
	if hi == 0 {
		lo, hi = 0.1, 1
	}
	var ticks []float64
	var y func(v float64) float64
	if logScale {
		a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		if b <= a {
			b = a + 1
		}
		y = func(v float64) float64 {
			v = math.Max(v, math.Pow(10, a))
			return top + plotH - (math.Log10(v)-a)/(b-a)*plotH
		}
		for e := a; e <= b; e++ {
			ticks = append(ticks, math.Pow(10, e))
		}
	} else {
		step := niceStep(hi / 5)
		b := math.Ceil(hi/step) * step
		y = func(v float64) float64 { return top + plotH - v/b*plotH }
		for v := 0.0; v <= b+step/2; v += step {
			ticks = append(ticks, v)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="100%%" role="img" aria-label="%s" font-family="sans-serif">`, width, height, esc(title))
	fmt.Fprintf(&sb, `<text x="%g" y="22" font-size="17" font-weight="bold" fill="%s">%s</text>`, left, colText, esc(title))
	for _, t := range ticks {
		fmt.Fprintf(&sb, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s"/>`, left, left+plotW, y(t), y(t), colGrid)
		fmt.Fprintf(&sb, `<text x="%g" y="%.1f" font-size="12" text-anchor="end" fill="%s">%s</text>`, left-6, y(t)+4, colMuted, esc(format(t)))
	}
	fmt.Fprintf(&sb, `<text transform="translate(16 %g) rotate(-90)" font-size="13" text-anchor="middle" fill="%s">%s</text>`, top+plotH/2, colMuted, esc(yLabel))
	gw := plotW / float64(max(1, len(groups)))
	bw := gw * 0.78 / float64(max(1, len(ss)))
	for g, name := range groups {
		x0 := left + float64(g)*gw + gw*0.11
		for si, s := range ss {
			v := s.vals[g]
			x := x0 + float64(si)*bw
			if v > 0 {
				yt := y(v)
				fmt.Fprintf(&sb, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s</title></rect>`,
					x, yt, bw-1, top+plotH-yt, s.color, esc(s.name), esc(name), esc(format(v)))
				if len(groups)*len(ss) <= 40 {
					fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="%s">%s</text>`, x+bw/2, yt-3, colText, esc(format(v)))
				}
			}
			if s.high != nil && s.high[g] > v && s.high[g] > 0 {
				cx := x + bw/2
				fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"/>`, cx, cx, y(math.Max(v, 1e-300)), y(s.high[g]), colText)
				fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"><title>%s, %s: %s</title></line>`,
					cx-bw/4, cx+bw/4, y(s.high[g]), y(s.high[g]), colText, esc(s.name), esc(name), esc(format(s.high[g])))
			}
		}
		lx := left + float64(g)*gw + gw/2
		fmt.Fprintf(&sb, `<text transform="translate(%.1f %g) rotate(-35)" font-size="12" text-anchor="end" fill="%s">%s</text>`, lx, top+plotH+16, colText, esc(name))
	}
	fmt.Fprintf(&sb, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s"/>`, left, left+plotW, top+plotH, top+plotH, colMuted)
	lx := left
	for _, s := range ss {
		fmt.Fprintf(&sb, `<rect x="%g" y="32" width="12" height="12" fill="%s"/><text x="%g" y="42" font-size="13" fill="%s">%s</text>`, lx, s.color, lx+16, colText, esc(s.name))
		lx += 24 + 8*float64(len(s.name))
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// niceStep rounds a step up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// stackPart is one component of a stacked bar chart: its value in each row.
type stackPart struct {
	name  string
	color string
	vals  []float64
}

// stackedBars draws one horizontal bar per row, split into parts.
func stackedBars(title string, rows []string, parts []stackPart, format func(float64) string) string {
	const (
		width       = 1100.0
		left, right = 110.0, 130.0
		top, barH   = 40.0, 34.0
	)
	plotW := width - left - right
	total := make([]float64, len(rows))
	for _, p := range parts {
		for i, v := range p.vals {
			total[i] += v
		}
	}
	hi := 0.0
	for _, t := range total {
		hi = math.Max(hi, t)
	}
	if hi == 0 {
		hi = 1
	}
	legendRows := (len(parts) + 3) / 4
	height := top + float64(len(rows))*(barH+14) + 20 + float64(legendRows)*20
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="100%%" role="img" aria-label="%s" font-family="sans-serif">`, width, height, esc(title))
	fmt.Fprintf(&sb, `<text x="%g" y="22" font-size="17" font-weight="bold" fill="%s">%s</text>`, left, colText, esc(title))
	for i, row := range rows {
		y := top + float64(i)*(barH+14)
		fmt.Fprintf(&sb, `<text x="%g" y="%.1f" font-size="13" text-anchor="end" fill="%s">%s</text>`, left-8, y+barH/2+5, colText, esc(row))
		x := left
		for _, p := range parts {
			v := p.vals[i]
			if v <= 0 {
				continue
			}
			w := v / hi * plotW
			fmt.Fprintf(&sb, `<rect x="%.1f" y="%.1f" width="%.1f" height="%g" fill="%s" stroke="#ffffff" stroke-width="0.5"><title>%s, %s: %s</title></rect>`,
				x, y, w, barH, p.color, esc(row), esc(p.name), esc(format(v)))
			if w > 70 {
				fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" fill="#ffffff">%s</text>`, x+w/2, y+barH/2+4, esc(format(v)))
			}
			x += w
		}
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" font-size="13" fill="%s">%s</text>`, x+6, y+barH/2+5, colText, esc(format(total[i])))
	}
	ly := top + float64(len(rows))*(barH+14) + 10
	for i, p := range parts {
		x := left + float64(i%4)*210
		yy := ly + float64(i/4)*20
		fmt.Fprintf(&sb, `<rect x="%g" y="%g" width="12" height="12" fill="%s"/><text x="%g" y="%g" font-size="12" fill="%s">%s</text>`, x, yy, p.color, x+16, yy+10, colText, esc(p.name))
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// scatterPoint is one labelled point of a scatter chart.
type scatterPoint struct {
	x, y   float64
	label  []string // lines drawn beside the point
	detail string   // tooltip
	mark   bool     // the reference point: drawn larger, in another colour
}

// refLine is a dashed reference line across a scatter chart, at x (vertical)
// or y (horizontal).
type refLine struct {
	vertical bool
	at       float64
	label    string
}

// scatterChart draws points on linear axes from zero, with their labels and
// reference lines.
func scatterChart(title, xLabel, yLabel string, pts []scatterPoint, refs []refLine, fx, fy func(float64) string) string {
	const (
		width, height = 1100.0, 560.0
		left, right   = 78.0, 250.0
		top, bottom   = 48.0, 64.0
	)
	plotW, plotH := width-left-right, height-top-bottom
	xhi, yhi := 0.0, 0.0
	for _, p := range pts {
		xhi, yhi = math.Max(xhi, p.x), math.Max(yhi, p.y)
	}
	for _, r := range refs {
		if r.vertical {
			xhi = math.Max(xhi, r.at)
		} else {
			yhi = math.Max(yhi, r.at)
		}
	}
	xstep, ystep := niceStep(math.Max(xhi, 1e-9)/6), niceStep(math.Max(yhi, 1e-9)/5)
	xmax, ymax := math.Ceil(xhi*1.05/xstep)*xstep, math.Ceil(yhi*1.08/ystep)*ystep
	X := func(v float64) float64 { return left + v/xmax*plotW }
	Y := func(v float64) float64 { return top + plotH - v/ymax*plotH }
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="100%%" role="img" aria-label="%s" font-family="sans-serif">`, width, height, esc(title))
	fmt.Fprintf(&sb, `<text x="%g" y="24" font-size="17" font-weight="bold" fill="%s">%s</text>`, left, colText, esc(title))
	for v := 0.0; v <= ymax+ystep/2; v += ystep {
		fmt.Fprintf(&sb, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s"/>`, left, left+plotW, Y(v), Y(v), colGrid)
		fmt.Fprintf(&sb, `<text x="%g" y="%.1f" font-size="12" text-anchor="end" fill="%s">%s</text>`, left-6, Y(v)+4, colMuted, esc(fy(v)))
	}
	for v := 0.0; v <= xmax+xstep/2; v += xstep {
		fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="%s"/>`, X(v), X(v), top, top+plotH, colGrid)
		fmt.Fprintf(&sb, `<text x="%.1f" y="%g" font-size="12" text-anchor="middle" fill="%s">%s</text>`, X(v), top+plotH+18, colMuted, esc(fx(v)))
	}
	fmt.Fprintf(&sb, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s"/>`, left, left+plotW, top+plotH, top+plotH, colMuted)
	fmt.Fprintf(&sb, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s"/>`, left, left, top, top+plotH, colMuted)
	fmt.Fprintf(&sb, `<text x="%g" y="%g" font-size="13" text-anchor="middle" fill="%s">%s</text>`, left+plotW/2, height-14, colMuted, esc(xLabel))
	fmt.Fprintf(&sb, `<text transform="translate(16 %g) rotate(-90)" font-size="13" text-anchor="middle" fill="%s">%s</text>`, top+plotH/2, colMuted, esc(yLabel))
	for _, r := range refs {
		if r.vertical {
			fmt.Fprintf(&sb, `<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="%s" stroke-dasharray="6 4"/>`, X(r.at), X(r.at), top, top+plotH, colInverted)
			fmt.Fprintf(&sb, `<text x="%.1f" y="%g" font-size="12" fill="%s">%s</text>`, X(r.at)+4, top+12, colInverted, esc(r.label))
		} else {
			fmt.Fprintf(&sb, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="6 4"/>`, left, left+plotW, Y(r.at), Y(r.at), colInverted)
			fmt.Fprintf(&sb, `<text x="%g" y="%.1f" font-size="12" text-anchor="end" fill="%s">%s</text>`, left+plotW-4, Y(r.at)-5, colInverted, esc(r.label))
		}
	}
	// Labels stand in a column right of the plot, in the order of their
	// points' heights and at least a label's height apart, each joined to
	// its point by a thin line: points of similar size and speed cluster,
	// and labels beside them would overlap.
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(Y(pts[a].y), Y(pts[b].y)) })
	const lineH = 13.0
	ly := make([]float64, len(pts))
	for k, i := range order {
		ly[i] = Y(pts[i].y) - lineH*float64(len(pts[i].label)-1)/2
		if k > 0 {
			prev := order[k-1]
			ly[i] = math.Max(ly[i], ly[prev]+lineH*float64(len(pts[prev].label))+4)
		}
	}
	for k := len(order) - 1; k >= 0; k-- { // pushed past the bottom: back up
		i := order[k]
		limit := height - 8 - lineH*float64(len(pts[i].label)-1)
		if k < len(order)-1 {
			limit = ly[order[k+1]] - lineH*float64(len(pts[i].label)) - 4
		}
		ly[i] = math.Min(ly[i], limit)
	}
	lx := left + plotW + 14
	for i, p := range pts {
		x, y := X(p.x), Y(p.y)
		color, rad := colSignature, 5.0
		if p.mark {
			color, rad = "#b5302f", 7
		}
		fmt.Fprintf(&sb, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="0.7"/>`, x+rad, y, lx-3, ly[i]-4, "#c4c4c4")
		fmt.Fprintf(&sb, `<circle cx="%.1f" cy="%.1f" r="%g" fill="%s"><title>%s</title></circle>`, x, y, rad, color, esc(p.detail))
		if p.mark {
			fmt.Fprintf(&sb, `<circle cx="%.1f" cy="%.1f" r="%g" fill="none" stroke="%s" stroke-width="1.5"/>`, x, y, rad+4, color)
		}
		// Points are numbered, beside the point and before its label, so a
		// label can be told to its point where points crowd.
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" font-size="10" fill="%s">%d</text>`, x+rad+1, y-rad-1, color, i+1)
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" font-size="11" fill="%s"><title>%s</title>`, lx, ly[i], color, esc(p.detail))
		for j, line := range p.label {
			if j == 0 {
				fmt.Fprintf(&sb, `<tspan x="%.1f" font-weight="bold">%d</tspan><tspan dx="4">%s</tspan>`, lx, i+1, esc(line))
				continue
			}
			fmt.Fprintf(&sb, `<tspan x="%.1f" dy="%g">%s</tspan>`, lx+14, lineH, esc(line))
		}
		sb.WriteString(`</text>`)
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}
