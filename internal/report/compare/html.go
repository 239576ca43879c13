package compare

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/oltpbench/oltpbench/internal/result"
)

// HTML writes one self-contained page: tables and inline SVG charts of
// throughput and p95 against threads, one line per version, and with more
// than two versions throughput by version per thread level (the release
// history). No external assets.
func (rep *Report) HTML(w io.Writer) {
	e := html.EscapeString
	labels := rep.Labels
	n := len(labels)
	title := labels[n-1] + " vs " + labels[0]
	if n > 2 {
		title = strings.Join(labels, " -> ")
	}
	fmt.Fprintf(w, `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>oltpbench: %s</title>
<style>
body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}
.charts{display:flex;gap:24px;flex-wrap:wrap}.warn{color:#a40}.verdict{font-weight:bold}
</style></head><body>
<h1>%s</h1>
`, e(title), e(title))
	if len(rep.Settings) > 0 {
		fmt.Fprintf(w, "<h2>Server settings that differ</h2>\n<table><tr><th>setting</th>")
		for _, l := range labels {
			fmt.Fprintf(w, "<th>%s</th>", e(l))
		}
		fmt.Fprintf(w, "</tr>\n")
		for _, d := range rep.Settings {
			fmt.Fprintf(w, "<tr><td style=\"text-align:left\">%s</td>", e(d.Name))
			for _, v := range d.shown() {
				fmt.Fprintf(w, "<td>%s</td>", e(v))
			}
			fmt.Fprintf(w, "</tr>\n")
		}
		fmt.Fprintf(w, "</table>\n")
	}
	for _, t := range rep.Tables {
		cols := rep.columns(t, style{"threads", func(v int, p string) string { return labels[v] + " p" + p + " ms" }})
		fmt.Fprintf(w, "<h2>%s</h2>\n<table><tr>", e(t.Title))
		for _, c := range cols {
			fmt.Fprintf(w, "<th>%s</th>", e(c.head))
		}
		fmt.Fprintf(w, "</tr>\n")
		for _, r := range t.Rows {
			fmt.Fprintf(w, "<tr>")
			for _, c := range cols {
				fmt.Fprintf(w, "<td>%s</td>", c.cell(r))
			}
			fmt.Fprintf(w, "</tr>\n")
		}
		fmt.Fprintf(w, "</table>\n<p class=\"verdict\">%s</p>\n", e(t.Verdict(labels)))
		if h := t.ByVersion(labels); h != "" {
			fmt.Fprintf(w, "<p class=\"verdict\">%s</p>\n", e(h))
		}
		for _, v := range t.CellVerdicts(labels) {
			fmt.Fprintf(w, "<p>%s</p>\n", e(v))
		}
		for _, v := range t.Where(labels) {
			fmt.Fprintf(w, "<p class=\"where\">where it got worse: %s</p>\n", e(v))
		}
		for _, y := range rep.whyLines(t) {
			fmt.Fprintf(w, "<div class=\"why\"><p>why, %s</p><ul>", e(y[0]))
			for _, x := range y[1:] {
				fmt.Fprintf(w, "<li>%s</li>", e(x))
			}
			fmt.Fprintf(w, "</ul></div>\n")
		}
		for _, x := range t.EventImpacts(labels) {
			fmt.Fprintf(w, "<p class=\"event\">event: %s</p>\n", e(x))
		}
		for _, x := range t.Warnings {
			fmt.Fprintf(w, "<p class=\"warn\">warning: %s</p>\n", e(x))
		}
		fmt.Fprintf(w, "<div class=\"charts\">\n")
		series := func(pick func(*result.Result) float64) [][]pt {
			s := make([][]pt, n)
			for _, r := range t.Rows {
				for v := range n {
					s[v] = append(s[v], pt{x: float64(r.Threads), y: pick(r.Med[v])})
				}
			}
			return s
		}
		// Throughput: the median run, with a bar from the lowest to the
		// highest repeat.
		tp := series(tput)
		for i, r := range t.Rows {
			for v, runs := range r.Runs {
				tp[v][i].lo, tp[v][i].hi = spread(runs)
			}
		}
		bars := ""
		if t.Repeated() {
			bars = " (bars: lowest to highest repeat)"
		}
		chart(w, t.Unit+" by threads"+bars, t.Unit, labels, tp)
		chart(w, "p95 latency (ms) by threads", "ms", labels, series(func(r *result.Result) float64 { return lat(r, "95") }))
		if n > 2 {
			releaseChart(w, t, labels, bars)
		}
		behaviour(w, t, labels)
		statementBars(w, t, labels, rep.Whys(t))
		fmt.Fprintf(w, "</div>\n")
	}
	rep.capacityHTML(w)
	fmt.Fprintf(w, "</body></html>\n")
}

// statementBars draws, for each cell a why explains (else the cell of the
// most threads), each statement's client latency per execution of its event
// by version: bars side by side, one colour a version, from the median run.
func statementBars(w io.Writer, t Table, labels []string, whys []Why) {
	var rows []Row
	for _, r := range t.Rows {
		for _, y := range whys {
			if y.Threads == r.Threads {
				rows = append(rows, r)
				break
			}
		}
	}
	if len(rows) == 0 && len(t.Rows) > 0 {
		rows = t.Rows[len(t.Rows)-1:]
	}
	for _, r := range rows {
		var keys []string
		ms := map[string][]float64{} // per key, per version
		for v, res := range r.Med {
			if res == nil {
				continue
			}
			for _, st := range res.Statements {
				if ms[st.Key()] == nil {
					keys = append(keys, st.Key())
					ms[st.Key()] = make([]float64, len(labels))
				}
				ms[st.Key()][v] = res.StatementMs(st)
			}
		}
		if len(keys) > 0 {
			bars(w, fmt.Sprintf("Client latency per statement, ms per event, %d threads", r.Threads), labels, keys, ms)
		}
	}
}

// bars is a horizontal bar chart: a group of bars per key, one per version.
func bars(w io.Writer, title string, labels []string, keys []string, v map[string][]float64) {
	const L, R, T, bar, gap = 230.0, 60.0, 30.0, 7.0, 8.0
	n := len(labels)
	W := 460.0
	legendRows := (n + 3) / 4
	H := T + float64(len(keys))*(float64(n)*bar+gap) + 16 + 14*float64(legendRows)
	top := 0.0
	for _, k := range keys {
		top = math.Max(top, slices.Max(v[k]))
	}
	if top == 0 {
		top = 1
	}
	e := html.EscapeString
	fmt.Fprintf(w, `<svg class="bars" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" xmlns="http://www.w3.org/2000/svg">`, W, H, W, H)
	fmt.Fprintf(w, `<text x="%.0f" y="18" font-size="13" font-weight="bold">%s</text>`, L/8, e(title))
	y := T
	for _, k := range keys {
		fmt.Fprintf(w, `<text x="%.0f" y="%.1f" font-size="10" text-anchor="end">%s</text>`, L-6, y+float64(n)*bar/2+3, e(k))
		for i, x := range v[k] {
			wd := (W - L - R) * x / top
			fmt.Fprintf(w, `<rect x="%.0f" y="%.1f" width="%.1f" height="%.0f" fill="%s"><title>%s: %.3f ms</title></rect>`, L, y, wd, bar-1, color(i), e(labels[i]), x)
			fmt.Fprintf(w, `<text x="%.1f" y="%.1f" font-size="8">%.3g</text>`, L+wd+3, y+bar-1, x)
			y += bar
		}
		y += gap
	}
	for i, l := range labels {
		x := L/8 + float64(i%4)*110
		yy := H - 14*float64(legendRows-i/4)
		fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f" font-size="11">%s</text>`, x, yy, color(i), x+14, yy+9, e(l))
	}
	fmt.Fprintf(w, "</svg>\n")
}

// spread is the lowest and highest throughput of repeats (0, 0 for fewer
// than two: no bar).
func spread(runs []*result.Result) (lo, hi float64) {
	if len(runs) < 2 {
		return 0, 0
	}
	v := throughputs(runs)
	return slices.Min(v), slices.Max(v)
}

// releaseChart draws the release history: throughput by version, one line per
// thread level (in colours after the versions'), bars from the repeats.
func releaseChart(w io.Writer, t Table, labels []string, bars string) {
	n := len(labels)
	s := make([][]pt, n+len(t.Rows))
	names := make([]string, len(s))
	for j, r := range t.Rows {
		names[n+j] = fmt.Sprintf("%d threads", r.Threads)
		for v := range n {
			p := pt{x: float64(v), y: tput(r.Med[v])}
			p.lo, p.hi = spread(r.Runs[v])
			s[n+j] = append(s[n+j], p)
		}
	}
	chartX(w, t.Unit+" by version"+bars, t.Unit, names, s, "version", func(x float64) string {
		if i := int(x); i >= 0 && i < n && float64(i) == x {
			return labels[i]
		}
		return ""
	})
}

// spectrumQ are the percentiles of the latency spectrum.
var spectrumQ = []float64{50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// behaviour draws how the runs behaved: throughput over time of each
// cell's median run, with its coefficient of variation (a stall or a decay
// shows there, not in the mean), and the latency spectrum of every repeat
// of the largest cell merged, p50 to p99.99 on a log scale.
func behaviour(w io.Writer, t Table, labels []string) {
	n := len(labels)
	for _, r := range t.Rows {
		s := make([][]pt, n)
		cv := make([]string, n)
		unit, points := t.Unit, 0
		for v, res := range r.Med {
			cv[v] = "-"
			if res == nil {
				continue
			}
			u, ts, vs := res.Series()
			unit = u
			for j := range ts {
				s[v] = append(s[v], pt{x: ts[j], y: vs[j]})
			}
			points += len(ts)
			if c := coefVar(vs); !math.IsNaN(c) {
				cv[v] = fmt.Sprintf("%.1f%%", c*100)
			}
		}
		if points > 1 {
			chartX(w, fmt.Sprintf("%s over time, %d threads (CV %s)", unit, r.Threads, strings.Join(cv, ", ")), unit, labels, s,
				"seconds", func(x float64) string { return fmt.Sprintf("%g", x) })
		}
	}
	if len(t.Rows) == 0 {
		return
	}
	last := t.Rows[len(t.Rows)-1]
	s := make([][]pt, n)
	points := 0
	for v, runs := range last.Runs {
		ms, err := result.Spectrum(runs, spectrumQ)
		if err != nil || ms == nil {
			continue
		}
		for j, q := range spectrumQ {
			// x: the number of nines, so p50 .. p99.99 spread evenly.
			s[v] = append(s[v], pt{x: -math.Log10(1 - q/100), y: ms[j]})
		}
		points += len(spectrumQ)
	}
	if points > 0 {
		chartX(w, fmt.Sprintf("latency spectrum (ms), %d threads", last.Threads), "ms", labels, s,
			"percentile (log scale of nines)", func(x float64) string {
				return "p" + strconv.FormatFloat(math.Round(1e4*(1-math.Pow(10, -x)))/100, 'f', -1, 64)
			})
	}
}

// coefVar is the standard deviation over the mean (NaN for fewer than 2).
func coefVar(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	var sum, sq float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	if mean == 0 {
		return math.NaN()
	}
	return math.Sqrt(sq/float64(len(v)-1)) / mean
}

// pt is a point; lo < hi draws an error bar from lo to hi.
type pt struct{ x, y, lo, hi float64 }

// color is line i's colour: the first two are the two-version report's,
// then the rest of the Tableau 10 palette, then hues spread by the golden
// angle.
func color(i int) string {
	palette := [...]string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}
	if i < len(palette) {
		return palette[i]
	}
	return fmt.Sprintf("hsl(%d,70%%,40%%)", (i*137)%360)
}

// chart draws one line chart as inline SVG.
func chart(w io.Writer, title, unit string, labels []string, s [][]pt) {
	chartX(w, title, unit, labels, s, "threads", func(x float64) string { return fmt.Sprintf("%g", x) })
}

// MarkColor is the colour of SeriesChart's marks.
const MarkColor = "#d62728"

// SeriesChart draws one series (ys at xs) as compare's charts are drawn,
// with a dashed vertical mark at each of marks (a history's change points),
// for the reports beside compare's.
func SeriesChart(w io.Writer, title, unit, xname string, xs, ys, marks []float64, tick func(float64) string) {
	line := make([]pt, len(xs))
	for i := range xs {
		line[i] = pt{x: xs[i], y: ys[i]}
	}
	chartMarked(w, title, unit, []string{""}, [][]pt{line}, xname, tick, marks)
}

// chartX is chart with the x axis named and its ticks written by tick; at
// most eight ticks are labelled. Series i is drawn in color(i) and named
// labels[i] in the legend (none for an empty name).
func chartX(w io.Writer, title, unit string, labels []string, s [][]pt, xname string, tick func(float64) string) {
	chartMarked(w, title, unit, labels, s, xname, tick, nil)
}

// chartMarked is chartX with a dashed vertical line in MarkColor at each
// of marks.
func chartMarked(w io.Writer, title, unit string, labels []string, s [][]pt, xname string, tick func(float64) string, marks []float64) {
	const W, H, L, R, T, B = 460.0, 300.0, 70.0, 20.0, 30.0, 50.0
	minX, maxX, maxY := math.Inf(1), math.Inf(-1), 0.0
	for _, line := range s {
		for _, p := range line {
			if math.IsNaN(p.y) {
				continue
			}
			minX, maxX, maxY = math.Min(minX, p.x), math.Max(maxX, p.x), math.Max(maxY, math.Max(p.y, p.hi))
		}
	}
	if math.IsInf(minX, 0) {
		return
	}
	if maxX == minX {
		maxX = minX + 1
	}
	if maxY == 0 {
		maxY = 1
	}
	maxY *= 1.1
	// The legend: two names to a row at 170 px (the two-version layout), or
	// three at 130; the picture grows by a row's height per extra row.
	named := 0
	for _, l := range labels {
		if l != "" {
			named++
		}
	}
	perRow, gap := 2, 170.0
	if named > 2 {
		perRow, gap = 3, 130.0
	}
	height := H + float64((max(named, 1)-1)/perRow)*14
	sx := func(x float64) float64 { return L + (x-minX)/(maxX-minX)*(W-L-R) }
	sy := func(y float64) float64 { return H - B - y/maxY*(H-T-B) }
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img"><title>%s</title>`, W, height, W, height, html.EscapeString(title))
	fmt.Fprintf(w, `<text x="%.0f" y="18" font-size="14" text-anchor="middle">%s</text>`, W/2, html.EscapeString(title))
	fmt.Fprintf(w, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#444"/><line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#444"/>`,
		L, H-B, W-R, H-B, L, T, L, H-B)
	for i := 0; i <= 4; i++ {
		y := maxY * float64(i) / 4
		fmt.Fprintf(w, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#eee"/><text x="%.0f" y="%.1f" font-size="10" text-anchor="end">%s</text>`,
			L, sy(y), W-R, sy(y), L-4, sy(y)+3, short(y))
	}
	seen := map[float64]bool{}
	var xs []float64
	for _, line := range s {
		for _, p := range line {
			if !seen[p.x] {
				seen[p.x] = true
				xs = append(xs, p.x)
			}
		}
	}
	sort.Float64s(xs)
	step := (len(xs) + 7) / 8
	for i, x := range xs {
		if i%step == 0 {
			fmt.Fprintf(w, `<text x="%.1f" y="%.0f" font-size="10" text-anchor="middle">%s</text>`, sx(x), H-B+14, html.EscapeString(tick(x)))
		}
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f" font-size="11" text-anchor="middle">%s</text>`, (L+W-R)/2, H-B+30, html.EscapeString(xname))
	for _, m := range marks {
		fmt.Fprintf(w, `<line class="mark" x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="%s" stroke-width="3" stroke-dasharray="6 3"/>`, sx(m), T, sx(m), H-B, MarkColor)
	}
	lines, drawn, legend := 0, 0, 0
	for _, line := range s {
		if len(line) > 0 {
			lines++
		}
	}
	for i, line := range s {
		if len(line) > 0 {
			drawn++
		}
		var pts []string
		for _, p := range line {
			if !math.IsNaN(p.y) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(p.x), sy(p.y)))
				fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, sx(p.x), sy(p.y), color(i))
				if p.lo < p.hi {
					// The lines' bars side by side, 6 px apart.
					x := sx(p.x) + float64(2*(drawn-1)-(lines-1))*3
					fmt.Fprintf(w, `<path class="errbar" d="M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8" stroke="%s" fill="none"/>`,
						x, sy(p.lo), sy(p.hi), x-4, sy(p.lo), x-4, sy(p.hi), color(i))
				}
			}
		}
		if len(pts) > 0 {
			// With more than two lines, versions that did the same would hide
			// each other: older lines are wider and every other one dashed,
			// so lines drawn on top leave them showing.
			look := `stroke-width="2"`
			if lines > 2 {
				look = fmt.Sprintf(`stroke-width="%.1f"`, 2+4*float64(lines-drawn)/float64(lines-1))
				if drawn%2 == 0 {
					look += ` stroke-dasharray="8 5"`
				}
			}
			fmt.Fprintf(w, `<polyline fill="none" stroke="%s" %s points="%s"/>`, color(i), look, strings.Join(pts, " "))
		}
		if i < len(labels) && labels[i] != "" {
			x, y := L+10+float64(legend%perRow)*gap, H-12+float64(legend/perRow)*14
			fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f" font-size="11">%s</text>`,
				x, y, color(i), x+14, y+9, html.EscapeString(labels[i]))
			legend++
		}
	}
	fmt.Fprintf(w, "</svg>\n")
}

func short(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.2g", v)
	}
}
