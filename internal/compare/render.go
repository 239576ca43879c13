package compare

import (
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Text writes aligned tables, after the settings that differ.
func Text(w io.Writer, base, cand string, tables []Table, settings []SettingDiff) {
	if len(settings) > 0 {
		fmt.Fprintf(w, "Server settings that differ (%s -> %s):\n", base, cand)
		for _, d := range settings {
			fmt.Fprintf(w, "  %s: %s -> %s\n", d.Name, d.Base, d.Cand)
		}
		fmt.Fprintln(w)
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s)\n", t.Title, t.Workload)
		fmt.Fprintf(w, "%8s %14s %14s %7s %12s %12s %12s %12s\n", "threads", base+" "+t.Unit, cand+" "+t.Unit, "ratio", "base p95 ms", "cand p95 ms", "base p99 ms", "cand p99 ms")
		for _, r := range t.Rows {
			b, c := tput(r.Base), tput(r.Cand)
			fmt.Fprintf(w, "%8d %14s %14s %7s %12s %12s %12s %12s\n", r.Threads, num(b, 2), num(c, 2), ratio(b, c),
				num(lat(r.Base, "95"), 2), num(lat(r.Cand, "95"), 2), num(lat(r.Base, "99"), 2), num(lat(r.Cand, "99"), 2))
		}
		fmt.Fprintln(w, t.Verdict(base, cand))
		for _, v := range t.CellVerdicts() {
			fmt.Fprintf(w, "  %s\n", v)
		}
		details(w, base, cand, t, false)
		for _, x := range t.Warnings {
			fmt.Fprintf(w, "warning: %s\n", x)
		}
	}
	best(w, base, cand, tables, false)
}

// best writes seed 003's layout: per version, each searched workload's
// thread count with the highest throughput within the p95 limit.
func best(w io.Writer, base, cand string, tables []Table, md bool) {
	var searched []Table
	for _, t := range tables {
		if t.P95Limit > 0 {
			searched = append(searched, t)
		}
	}
	if len(searched) == 0 {
		return
	}
	head := []string{"Transaction model", "Threads", "QPS", "TPS", "Average transaction latency (ms)", "P95 transaction latency (ms)"}
	for side, label := range []string{base, cand} {
		limits := map[string]bool{}
		for _, t := range searched {
			limits[strconv.FormatFloat(t.P95Limit, 'f', -1, 64)] = true
		}
		lim := strings.Join(slices.Sorted(maps.Keys(limits)), "/")
		if md {
			fmt.Fprintf(w, "### %s: the most throughput with P95 within %s ms\n\n| %s |\n|%s\n", label, lim, strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		} else {
			fmt.Fprintf(w, "\n%s: the most throughput with P95 within %s ms\n%-28s %8s %12s %10s %12s %12s\n", label, lim, head[0], head[1], head[2], head[3], "avg ms", "p95 ms")
		}
		for _, t := range searched {
			b := t.Best[side]
			cells := []string{t.Title, "-", "-", "-", "-", "-"}
			if b != nil {
				q, _ := b.Throughput()
				cells = []string{t.Title, strconv.Itoa(b.Threads), num(q, 2), num(b.TPS(), 2), num(b.MeanLatency(), 2), num(b.Latency("95"), 2)}
			}
			if md {
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			} else {
				fmt.Fprintf(w, "%-28s %8s %12s %10s %12s %12s\n", cells[0], cells[1], cells[2], cells[3], cells[4], cells[5])
			}
		}
		if md {
			fmt.Fprintln(w)
		}
	}
}

// Markdown writes the layout of the TiDB benchmark reports: per workload a
// table per version (threads, throughput, 95% latency), then both side by
// side with ratios, then the verdict.
func Markdown(w io.Writer, base, cand string, tables []Table, settings []SettingDiff) {
	if len(settings) > 0 {
		fmt.Fprintf(w, "### Server settings that differ\n\n| Setting | %s | %s |\n|---|---|---|\n", base, cand)
		for _, d := range settings {
			fmt.Fprintf(w, "| %s | %s | %s |\n", mdCell(d.Name), mdCell(d.Base), mdCell(d.Cand))
		}
		fmt.Fprintln(w)
	}
	for _, t := range tables {
		if t.Compact {
			fmt.Fprintf(w, "### %s\n\n| Version | Threads | %s |\n|---|---|---|\n", t.Title, t.Unit)
			for _, v := range []struct {
				label string
				pick  func(Row) float64
			}{{cand, func(r Row) float64 { return tput(r.Cand) }}, {base, func(r Row) float64 { return tput(r.Base) }}} {
				for _, r := range t.Rows {
					fmt.Fprintf(w, "| %s | %d | %s |\n", v.label, r.Threads, num(v.pick(r), 2))
				}
			}
			fmt.Fprintf(w, "\n%s\n\n", t.Verdict(base, cand))
			cellVerdicts(w, t)
			details(w, base, cand, t, true)
			warnings(w, t)
			continue
		}
		fmt.Fprintf(w, "### %s test\n\n", t.Title)
		for _, v := range []struct {
			label string
			side  func(Row) Row
		}{{base, func(r Row) Row { return Row{Threads: r.Threads, Base: r.Base} }}, {cand, func(r Row) Row { return Row{Threads: r.Threads, Base: r.Cand} }}} {
			fmt.Fprintf(w, "%s:\n\n| Threads | %s | 95%% latency(ms) |\n|---|---|---|\n", v.label, t.Unit)
			for _, r := range t.Rows {
				s := v.side(r)
				if s.Base == nil {
					continue
				}
				fmt.Fprintf(w, "| %d | %s | %s |\n", r.Threads, num(tput(s.Base), 2), num(lat(s.Base, "95"), 2))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "| Threads | %s %s | %s %s | ratio | %s p95 (ms) | %s p95 (ms) | %s p99 (ms) | %s p99 (ms) |\n|---|---|---|---|---|---|---|---|\n",
			base, t.Unit, cand, t.Unit, base, cand, base, cand)
		for _, r := range t.Rows {
			b, c := tput(r.Base), tput(r.Cand)
			fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Threads, num(b, 2), num(c, 2), ratio(b, c),
				num(lat(r.Base, "95"), 2), num(lat(r.Cand, "95"), 2), num(lat(r.Base, "99"), 2), num(lat(r.Cand, "99"), 2))
		}
		fmt.Fprintf(w, "\n%s\n\n", t.Verdict(base, cand))
		cellVerdicts(w, t)
		details(w, base, cand, t, true)
		warnings(w, t)
	}
	best(w, base, cand, tables, true)
}

// details compares, per thread level, the figures beside the headline and
// each operation's mean and p95 latency, for workloads that ask for it.
func details(w io.Writer, base, cand string, t Table, md bool) {
	if !t.Details {
		return
	}
	for _, r := range t.Rows {
		if r.Base == nil || r.Cand == nil {
			continue
		}
		type line struct {
			name string
			b, c float64
		}
		var lines []line
		var names []string
		for k := range r.Base.Figures {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			lines = append(lines, line{k, r.Base.Figures[k], figure(r.Cand, k)})
		}
		for _, op := range r.Base.Ops {
			c := r.Cand.Op(op.Name)
			if c == nil {
				continue
			}
			lines = append(lines, line{op.Name + " mean ms", op.MeanMs, c.MeanMs}, line{op.Name + " p95 ms", op.Percentiles["95"], c.Percentiles["95"]})
		}
		if md {
			fmt.Fprintf(w, "Figures and operations at %d threads:\n\n| | %s | %s | ratio |\n|---|---|---|---|\n", r.Threads, base, cand)
		} else {
			fmt.Fprintf(w, "  figures and operations at %d threads: %s, %s, ratio\n", r.Threads, base, cand)
		}
		for _, l := range lines {
			if md {
				fmt.Fprintf(w, "| %s | %s | %s | %s |\n", l.name, num(l.b, 2), num(l.c, 2), ratio(l.b, l.c))
			} else {
				fmt.Fprintf(w, "    %-22s %14s %14s %7s\n", l.name, num(l.b, 2), num(l.c, 2), ratio(l.b, l.c))
			}
		}
		if md {
			fmt.Fprintln(w)
		}
	}
}

func figure(r *result.Result, name string) float64 {
	if v, ok := r.Figures[name]; ok {
		return v
	}
	return math.NaN()
}

func cellVerdicts(w io.Writer, t Table) {
	vs := t.CellVerdicts()
	for _, v := range vs {
		fmt.Fprintf(w, "- %s\n", v)
	}
	if len(vs) > 0 {
		fmt.Fprintln(w)
	}
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func warnings(w io.Writer, t Table) {
	for _, x := range t.Warnings {
		fmt.Fprintf(w, "> warning: %s\n", x)
	}
	if len(t.Warnings) > 0 {
		fmt.Fprintln(w)
	}
}

// HTML writes one self-contained page: tables and inline SVG charts of
// throughput and p95 against threads, one line per version. No external assets.
func HTML(w io.Writer, base, cand string, tables []Table, settings []SettingDiff) {
	e := html.EscapeString
	fmt.Fprintf(w, `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>oltpbench: %s vs %s</title>
<style>
body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}
.charts{display:flex;gap:24px;flex-wrap:wrap}.warn{color:#a40}.verdict{font-weight:bold}
</style></head><body>
<h1>%s vs %s</h1>
`, e(cand), e(base), e(cand), e(base))
	if len(settings) > 0 {
		fmt.Fprintf(w, "<h2>Server settings that differ</h2>\n<table><tr><th>setting</th><th>%s</th><th>%s</th></tr>\n", e(base), e(cand))
		for _, d := range settings {
			fmt.Fprintf(w, "<tr><td style=\"text-align:left\">%s</td><td>%s</td><td>%s</td></tr>\n", e(d.Name), e(d.Base), e(d.Cand))
		}
		fmt.Fprintf(w, "</table>\n")
	}
	for _, t := range tables {
		fmt.Fprintf(w, "<h2>%s</h2>\n<table><tr><th>threads</th><th>%s %s</th><th>%s %s</th><th>ratio</th><th>%s p95 ms</th><th>%s p95 ms</th><th>%s p99 ms</th><th>%s p99 ms</th></tr>\n",
			e(t.Title), e(base), t.Unit, e(cand), t.Unit, e(base), e(cand), e(base), e(cand))
		for _, r := range t.Rows {
			b, c := tput(r.Base), tput(r.Cand)
			fmt.Fprintf(w, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", r.Threads,
				num(b, 2), num(c, 2), ratio(b, c), num(lat(r.Base, "95"), 2), num(lat(r.Cand, "95"), 2), num(lat(r.Base, "99"), 2), num(lat(r.Cand, "99"), 2))
		}
		fmt.Fprintf(w, "</table>\n<p class=\"verdict\">%s</p>\n", e(t.Verdict(base, cand)))
		for _, v := range t.CellVerdicts() {
			fmt.Fprintf(w, "<p>%s</p>\n", e(v))
		}
		for _, x := range t.Warnings {
			fmt.Fprintf(w, "<p class=\"warn\">warning: %s</p>\n", e(x))
		}
		fmt.Fprintf(w, "<div class=\"charts\">\n")
		series := func(pick func(Row) float64) [2][]pt {
			var s [2][]pt
			for _, r := range t.Rows {
				s[0] = append(s[0], pt{x: float64(r.Threads), y: pick(Row{Base: r.Base})})
				s[1] = append(s[1], pt{x: float64(r.Threads), y: pick(Row{Base: r.Cand})})
			}
			return s
		}
		// Throughput: the median run, with a bar from the lowest to the
		// highest repeat.
		tp := series(func(r Row) float64 { return tput(r.Base) })
		for i, r := range t.Rows {
			for side, runs := range [][]*result.Result{r.BaseRuns, r.CandRuns} {
				if len(runs) > 1 {
					v := throughputs(runs)
					tp[side][i].lo, tp[side][i].hi = slices.Min(v), slices.Max(v)
				}
			}
		}
		title := t.Unit + " by threads"
		if t.Repeated() {
			title += " (bars: lowest to highest repeat)"
		}
		chart(w, title, t.Unit, [2]string{base, cand}, tp)
		chart(w, "p95 latency (ms) by threads", "ms", [2]string{base, cand}, series(func(r Row) float64 { return lat(r.Base, "95") }))
		behaviour(w, t, [2]string{base, cand})
		fmt.Fprintf(w, "</div>\n")
	}
	fmt.Fprintf(w, "</body></html>\n")
}

// spectrumQ are the percentiles of the latency spectrum.
var spectrumQ = []float64{50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// behaviour draws how the runs behaved: throughput over time of each
// cell's median run, with its coefficient of variation (a stall or a decay
// shows there, not in the mean), and the latency spectrum of every repeat
// of the largest cell merged, p50 to p99.99 on a log scale.
func behaviour(w io.Writer, t Table, labels [2]string) {
	for _, r := range t.Rows {
		var s [2][]pt
		cv := [2]string{"-", "-"}
		unit := t.Unit
		for i, res := range []*result.Result{r.Base, r.Cand} {
			if res == nil {
				continue
			}
			u, ts, vs := res.Series()
			unit = u
			for j := range ts {
				s[i] = append(s[i], pt{x: ts[j], y: vs[j]})
			}
			if c := coefVar(vs); !math.IsNaN(c) {
				cv[i] = fmt.Sprintf("%.1f%%", c*100)
			}
		}
		if len(s[0])+len(s[1]) > 1 {
			chartX(w, fmt.Sprintf("%s over time, %d threads (CV %s, %s)", unit, r.Threads, cv[0], cv[1]), unit, labels, s,
				"seconds", func(x float64) string { return fmt.Sprintf("%g", x) })
		}
	}
	if len(t.Rows) == 0 {
		return
	}
	last := t.Rows[len(t.Rows)-1]
	var s [2][]pt
	for i, runs := range [][]*result.Result{last.BaseRuns, last.CandRuns} {
		ms, err := result.Spectrum(runs, spectrumQ)
		if err != nil || ms == nil {
			continue
		}
		for j, q := range spectrumQ {
			// x: the number of nines, so p50 .. p99.99 spread evenly.
			s[i] = append(s[i], pt{x: -math.Log10(1 - q/100), y: ms[j]})
		}
	}
	if len(s[0])+len(s[1]) > 0 {
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

var colors = [2]string{"#1f77b4", "#d62728"}

// chart draws one line chart as inline SVG.
func chart(w io.Writer, title, unit string, labels [2]string, s [2][]pt) {
	chartX(w, title, unit, labels, s, "threads", func(x float64) string { return fmt.Sprintf("%g", x) })
}

// chartX is chart with the x axis named and its ticks written by tick; at
// most eight ticks are labelled.
func chartX(w io.Writer, title, unit string, labels [2]string, s [2][]pt, xname string, tick func(float64) string) {
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
	sx := func(x float64) float64 { return L + (x-minX)/(maxX-minX)*(W-L-R) }
	sy := func(y float64) float64 { return H - B - y/maxY*(H-T-B) }
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img"><title>%s</title>`, W, H, W, H, html.EscapeString(title))
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
	for i, line := range s {
		var pts []string
		for _, p := range line {
			if !math.IsNaN(p.y) {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(p.x), sy(p.y)))
				fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, sx(p.x), sy(p.y), colors[i])
				if p.lo < p.hi {
					x := sx(p.x) + float64(2*i-1)*3 // the two versions' bars side by side
					fmt.Fprintf(w, `<path class="errbar" d="M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8" stroke="%s" fill="none"/>`,
						x, sy(p.lo), sy(p.hi), x-4, sy(p.lo), x-4, sy(p.hi), colors[i])
				}
			}
		}
		if len(pts) > 0 {
			fmt.Fprintf(w, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, colors[i], strings.Join(pts, " "))
		}
		fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f" font-size="11">%s</text>`,
			L+10+float64(i)*170, H-12, colors[i], L+24+float64(i)*170, H-3, html.EscapeString(labels[i]))
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

// Show prints one result.
func Show(w io.Writer, r *result.Result) error {
	tp, unit := r.Throughput()
	fmt.Fprintf(w, "%s on %s (%s), %d threads, %.1f s from %s, client %s\n", r.Workload, r.Server.Version, strings.Join(r.Server.Endpoints, ","),
		r.Threads, r.Seconds, r.Start.Format("2006-01-02 15:04:05"), r.Client)
	fmt.Fprintf(w, "%s %.2f, TPS %.2f, errors %d, reconnects %d\n", unit, tp, r.TPS(), r.Totals["errors"], r.Totals["reconnects"])
	fmt.Fprintf(w, "%-14s %10s %9s %9s %9s %9s %9s %9s\n", "operation", "count", "mean ms", "p50", "p95", "p99", "p99.9", "max")
	for _, op := range r.Ops {
		p := op.Percentiles
		fmt.Fprintf(w, "%-14s %10d %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", op.Name, op.Count, op.MeanMs, p["50"], p["95"], p["99"], p["99.9"], op.MaxMs)
	}
	if len(r.Dataset) > 0 {
		fmt.Fprintf(w, "dataset:")
		for _, k := range sortedKeys(r.Dataset) {
			fmt.Fprintf(w, " %s=%s", k, r.Dataset[k])
		}
		fmt.Fprintln(w)
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}

// Write renders the report in format: text, markdown (md) or html.
func Write(w io.Writer, format, base, cand string, tables []Table, settings []SettingDiff) error {
	switch format {
	case "text":
		Text(w, base, cand, tables, settings)
	case "markdown", "md":
		Markdown(w, base, cand, tables, settings)
	case "html":
		HTML(w, base, cand, tables, settings)
	default:
		return fmt.Errorf("invalid --format=%s: use text, markdown or html", format)
	}
	return nil
}

// ParseFailOn reads --fail-on=regression:5% as the fraction 0.05.
func ParseFailOn(s string) (float64, error) {
	v, ok := strings.CutPrefix(s, "regression:")
	pct, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if !ok || err != nil || pct < 0 || pct >= 100 {
		return 0, fmt.Errorf("invalid --fail-on=%s: use regression:N%%, e.g. regression:5%%", s)
	}
	return pct / 100, nil
}

// Regressions lists the cells of all tables whose throughput fell
// significantly by more than limit (a fraction).
func Regressions(tables []Table, limit float64) []string {
	var bad []string
	for _, t := range tables {
		bad = append(bad, t.Regressions(limit)...)
	}
	return bad
}
