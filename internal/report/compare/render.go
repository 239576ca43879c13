package compare

import (
	"cmp"
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

// column is one column of the table of a workload's rows: a header and
// a cell per row; width is the text format's least width.
type column struct {
	head  string
	width int
	cell  func(Row) string
}

// style is what the formats name differently in that table.
type style struct {
	threads string
	latency func(v int, p string) string // the p95/p99 column of version v
}

// columns are threads, each version's throughput, the ratios to the first
// version and (with more than two) to the previous one, then each version's
// p95 and p99: with two versions, the seeds' layout.
func (rep *Report) columns(t Table, st style) []column {
	n := len(rep.Labels)
	cols := []column{{st.threads, 8, func(r Row) string { return strconv.Itoa(r.Threads) }}}
	for v := range n {
		cols = append(cols, column{rep.Labels[v] + " " + t.Unit, 14, func(r Row) string { return num(tput(r.Med[v]), 2) }})
	}
	for v := 1; v < n; v++ {
		head := "ratio"
		if n > 2 {
			head = rep.Labels[v] + "/" + rep.Labels[0]
		}
		cols = append(cols, column{head, 7, func(r Row) string { return ratio(tput(r.Med[0]), tput(r.Med[v])) }})
	}
	// To the previous version that ran the cell (the one before, unless it
	// skipped it).
	for v := 2; v < n; v++ {
		cols = append(cols, column{rep.Labels[v] + "/" + rep.Labels[v-1], 7, func(r Row) string {
			if r.Prev[v] < 0 {
				return "-"
			}
			return ratio(tput(r.Med[r.Prev[v]]), tput(r.Med[v]))
		}})
	}
	for _, p := range []string{"95", "99"} {
		for v := range n {
			cols = append(cols, column{st.latency(v, p), 12, func(r Row) string { return num(lat(r.Med[v], p), 2) }})
		}
	}
	return cols
}

// textTable writes columns right-aligned, each as wide as its widest cell.
func textTable(w io.Writer, cols []column, rows []Row) {
	widths := make([]int, len(cols))
	cells := make([][]string, len(rows))
	for i, c := range cols {
		widths[i] = max(c.width, len(c.head))
	}
	for j, r := range rows {
		for i, c := range cols {
			cells[j] = append(cells[j], c.cell(r))
			widths[i] = max(widths[i], len(cells[j][i]))
		}
	}
	line := func(get func(i int) string) {
		for i := range cols {
			if i > 0 {
				fmt.Fprint(w, " ")
			}
			fmt.Fprintf(w, "%*s", widths[i], get(i))
		}
		fmt.Fprintln(w)
	}
	line(func(i int) string { return cols[i].head })
	for j := range rows {
		line(func(i int) string { return cells[j][i] })
	}
}

// Text writes aligned tables, after the settings that differ.
func (rep *Report) Text(w io.Writer) {
	labels := rep.Labels
	if len(rep.Settings) > 0 {
		fmt.Fprintf(w, "Server settings that differ (%s):\n", strings.Join(labels, " -> "))
		for _, d := range rep.Settings {
			fmt.Fprintf(w, "  %s: %s\n", d.Name, strings.Join(d.shown(), " -> "))
		}
		fmt.Fprintln(w)
	}
	role := func(v int) string {
		if len(labels) == 2 {
			return [2]string{"base", "cand"}[v]
		}
		return labels[v]
	}
	for i, t := range rep.Tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s)\n", t.Title, t.Workload)
		textTable(w, rep.columns(t, style{"threads", func(v int, p string) string { return role(v) + " p" + p + " ms" }}), t.Rows)
		fmt.Fprintln(w, t.Verdict(labels))
		if h := t.ByVersion(labels); h != "" {
			fmt.Fprintln(w, h)
		}
		for _, v := range t.CellVerdicts(labels) {
			fmt.Fprintf(w, "  %s\n", v)
		}
		if where := t.Where(labels); len(where) > 0 {
			fmt.Fprintln(w, "Where it got worse:")
			for _, x := range where {
				fmt.Fprintf(w, "  %s\n", x)
			}
		}
		if whys := rep.whyLines(t); len(whys) > 0 {
			fmt.Fprintln(w, "Why (the evidence):")
			for _, y := range whys {
				fmt.Fprintf(w, "  %s\n", y[0])
				for _, x := range y[1:] {
					fmt.Fprintf(w, "    %s\n", x)
				}
			}
		}
		if ev := t.EventImpacts(labels); len(ev) > 0 {
			fmt.Fprintln(w, eventsHead+":")
			for _, x := range ev {
				fmt.Fprintf(w, "  %s\n", x)
			}
		}
		rep.details(w, t, false)
		rep.errors(w, t, false)
		rep.client(w, t, false)
		for _, x := range t.Warnings {
			fmt.Fprintf(w, "warning: %s\n", x)
		}
	}
	rep.best(w, false)
}

// shown is the setting's values, "(unknown)" for a version without
// settings.
func (d SettingDiff) shown() []string {
	out := make([]string, len(d.Values))
	for i, v := range d.Values {
		out[i] = cmp.Or(v, "(unknown)")
	}
	return out
}

// best writes seed 003's layout: per version, each searched workload's
// thread count with the highest throughput within the p95 limit.
func (rep *Report) best(w io.Writer, md bool) {
	var searched []Table
	for _, t := range rep.Tables {
		if t.P95Limit > 0 {
			searched = append(searched, t)
		}
	}
	if len(searched) == 0 {
		return
	}
	head := []string{"Transaction model", "Threads", "QPS", "TPS", "Average transaction latency (ms)", "P95 transaction latency (ms)"}
	for v, label := range rep.Labels {
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
			b := t.Best[v]
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
// table per version (threads, throughput, 95% latency), then all side by
// side with ratios, then the verdicts.
func (rep *Report) Markdown(w io.Writer) {
	labels := rep.Labels
	if len(rep.Settings) > 0 {
		fmt.Fprintf(w, "### Server settings that differ\n\n| Setting | %s |\n|---|%s\n", strings.Join(labels, " | "), strings.Repeat("---|", len(labels)))
		for _, d := range rep.Settings {
			cells := []string{mdCell(d.Name)}
			for _, v := range d.shown() {
				cells = append(cells, mdCell(v))
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
		fmt.Fprintln(w)
	}
	for _, t := range rep.Tables {
		if t.Compact {
			fmt.Fprintf(w, "### %s\n\n| Version | Threads | %s |\n|---|---|---|\n", t.Title, t.Unit)
			for v := len(labels) - 1; v >= 0; v-- { // the newest first
				for _, r := range t.Rows {
					fmt.Fprintf(w, "| %s | %d | %s |\n", labels[v], r.Threads, num(tput(r.Med[v]), 2))
				}
			}
		} else {
			fmt.Fprintf(w, "### %s test\n\n", t.Title)
			for v, label := range labels {
				fmt.Fprintf(w, "%s:\n\n| Threads | %s | 95%% latency(ms) |\n|---|---|---|\n", label, t.Unit)
				for _, r := range t.Rows {
					if r.Med[v] != nil {
						fmt.Fprintf(w, "| %d | %s | %s |\n", r.Threads, num(tput(r.Med[v]), 2), num(lat(r.Med[v], "95"), 2))
					}
				}
				fmt.Fprintln(w)
			}
			cols := rep.columns(t, style{"Threads", func(v int, p string) string { return labels[v] + " p" + p + " (ms)" }})
			var head []string
			for _, c := range cols {
				head = append(head, c.head)
			}
			fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(cols)))
			for _, r := range t.Rows {
				var cells []string
				for _, c := range cols {
					cells = append(cells, c.cell(r))
				}
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			}
		}
		fmt.Fprintf(w, "\n%s\n\n", t.Verdict(labels))
		if h := t.ByVersion(labels); h != "" {
			fmt.Fprintf(w, "%s\n\n", h)
		}
		bullets(w, "", t.CellVerdicts(labels))
		bullets(w, "Where it got worse:", t.Where(labels))
		if whys := rep.whyLines(t); len(whys) > 0 {
			fmt.Fprintf(w, "Why (the evidence):\n\n")
			for _, y := range whys {
				fmt.Fprintf(w, "- %s\n", mdCell(y[0]))
				for _, x := range y[1:] {
					fmt.Fprintf(w, "  - %s\n", mdCell(x))
				}
			}
			fmt.Fprintln(w)
		}
		bullets(w, eventsHead+":", t.EventImpacts(labels))
		rep.details(w, t, true)
		rep.errors(w, t, true)
		rep.client(w, t, true)
		warnings(w, t)
	}
	rep.best(w, true)
}

// client shows each version's client CPU per event and the cells a
// version ran client-bound, when the results record the client.
func (rep *Report) client(w io.Writer, t Table, md bool) {
	cpu, ok := t.ClientCPU(len(rep.Labels))
	if !ok {
		return
	}
	cells := make([]string, len(cpu))
	for v, x := range cpu {
		cells[v] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	sep, end := " -> ", "\n"
	if md {
		end = "\n\n"
	}
	fmt.Fprintf(w, "Client CPU per event (us, %s): %s%s", strings.Join(rep.Labels, sep), strings.Join(cells, sep), end)
	for _, x := range t.ClientBound(rep.Labels) {
		if md {
			fmt.Fprintf(w, "- %s\n", x)
		} else {
			fmt.Fprintf(w, "  %s\n", x)
		}
	}
	if md && len(t.ClientBound(rep.Labels)) > 0 {
		fmt.Fprintln(w)
	}
}

// errorRates are, per error code and outcome, each version's errors per
// second over all its runs of the table.
func errorRates(t Table, versions int) (keys []string, rates map[string][]float64) {
	rates = map[string][]float64{}
	seconds := make([]float64, versions)
	for _, r := range t.Rows {
		for v, runs := range r.Runs {
			for _, x := range runs {
				seconds[v] += x.Seconds
				for _, e := range x.ErrorsByCode() {
					k := e.Code + " " + e.Outcome
					if rates[k] == nil {
						rates[k] = make([]float64, versions)
						keys = append(keys, k)
					}
					rates[k][v] += float64(e.Count)
				}
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		for v := range rates[k] {
			rates[k][v] /= max(seconds[v], 1e-9)
		}
	}
	return keys, rates
}

// errors puts the versions' errors per second side by side, by code and
// outcome, when any version had errors.
func (rep *Report) errors(w io.Writer, t Table, md bool) {
	keys, rates := errorRates(t, len(rep.Labels))
	if len(keys) == 0 {
		return
	}
	if md {
		fmt.Fprintf(w, "Errors per second by code:\n\n| Code | %s |\n|---|%s\n", strings.Join(rep.Labels, " | "), strings.Repeat("---|", len(rep.Labels)))
	} else {
		fmt.Fprintf(w, "Errors per second by code (%s):\n", strings.Join(rep.Labels, " -> "))
	}
	for _, k := range keys {
		cells := make([]string, len(rates[k]))
		for v, x := range rates[k] {
			cells[v] = strconv.FormatFloat(x, 'f', 2, 64)
		}
		if md {
			fmt.Fprintf(w, "| %s | %s |\n", k, strings.Join(cells, " | "))
		} else {
			fmt.Fprintf(w, "  %s: %s\n", k, strings.Join(cells, " -> "))
		}
	}
	if md {
		fmt.Fprintln(w)
	}
}

// details compares, per thread level, the figures beside the headline and
// each operation's mean and p95 latency, for workloads that ask for it:
// every version, and the last against the first.
func (rep *Report) details(w io.Writer, t Table, md bool) {
	if !t.Details {
		return
	}
	labels := rep.Labels
	ratioHead := "ratio"
	if len(labels) > 2 {
		ratioHead = labels[len(labels)-1] + "/" + labels[0]
	}
	for _, r := range t.Rows {
		first, last := 0, len(labels)-1
		if r.Med[first] == nil || r.Med[last] == nil {
			continue
		}
		type line struct {
			name string
			vals []float64
		}
		var lines []line
		each := func(f func(*result.Result) float64) []float64 {
			out := make([]float64, len(labels))
			for v, m := range r.Med {
				out[v] = math.NaN()
				if m != nil {
					out[v] = f(m)
				}
			}
			return out
		}
		for _, k := range slices.Sorted(maps.Keys(r.Med[first].Figures)) {
			lines = append(lines, line{k, each(func(m *result.Result) float64 { return figure(m, k) })})
		}
		for _, op := range r.Med[first].Ops {
			if r.Med[last].Op(op.Name) == nil {
				continue
			}
			of := func(f func(*result.Op) float64) func(*result.Result) float64 {
				return func(m *result.Result) float64 {
					if o := m.Op(op.Name); o != nil {
						return f(o)
					}
					return math.NaN()
				}
			}
			lines = append(lines, line{op.Name + " mean ms", each(of(func(o *result.Op) float64 { return o.MeanMs }))},
				line{op.Name + " p95 ms", each(of(func(o *result.Op) float64 { return o.Percentiles["95"] }))})
		}
		if md {
			fmt.Fprintf(w, "Figures and operations at %d threads:\n\n| | %s | %s |\n|---|%s---|\n", r.Threads, strings.Join(labels, " | "), ratioHead, strings.Repeat("---|", len(labels)))
		} else {
			fmt.Fprintf(w, "  figures and operations at %d threads: %s, %s\n", r.Threads, strings.Join(labels, ", "), ratioHead)
		}
		for _, l := range lines {
			cells := []string{l.name}
			for _, v := range l.vals {
				cells = append(cells, num(v, 2))
			}
			cells = append(cells, ratio(l.vals[0], l.vals[len(l.vals)-1]))
			if md {
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
				continue
			}
			fmt.Fprintf(w, "    %-22s", cells[0])
			for _, c := range cells[1 : len(cells)-1] {
				fmt.Fprintf(w, " %14s", c)
			}
			fmt.Fprintf(w, " %7s\n", cells[len(cells)-1])
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

// bullets writes markdown bullets under an optional heading.
func bullets(w io.Writer, heading string, lines []string) {
	if len(lines) == 0 {
		return
	}
	if heading != "" {
		fmt.Fprintf(w, "%s\n\n", heading)
	}
	for _, v := range lines {
		fmt.Fprintf(w, "- %s\n", v)
	}
	fmt.Fprintln(w)
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
	fmt.Fprintf(w, "</body></html>\n")
}

// Whys are the table's whys as the report words them (rep.Why: all pairs).
func (rep *Report) Whys(t Table) []Why { return t.Whys(rep.Labels, rep.Why) }

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

// chartX is chart with the x axis named and its ticks written by tick; at
// most eight ticks are labelled. Series i is drawn in color(i) and named
// labels[i] in the legend (none for an empty name).
func chartX(w io.Writer, title, unit string, labels []string, s [][]pt, xname string, tick func(float64) string) {
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
	showStatements(w, r)
	if h := r.ClientHealth; h != nil {
		fmt.Fprintf(w, "client: %d CPU(s), %.0f%% used (user %.2f s, system %.2f s), GC %.1f%% of it, scheduling latency p99 %.2f ms, peak RSS %.0f MiB\n",
			h.CPUs, 100*h.CPUShare, h.UserSeconds, h.SysSeconds, 100*h.GCShare, h.SchedLatP99Ms, float64(h.PeakRSSBytes)/(1<<20))
		if h.ClientBound {
			fmt.Fprintf(w, "client-bound: %s: these figures measure the client as much as the server\n", h.ClientBoundWhy)
		}
		if h.HostBusy {
			fmt.Fprintf(w, "host busy: %s\n", h.HostBusyWhy)
		}
	}
	if len(r.Errors) > 0 {
		width := len("error in")
		for _, e := range r.Errors {
			width = max(width, len(e.Op))
		}
		fmt.Fprintf(w, "%-*s %-24s %-12s %10s %9s\n", width, "error in", "code", "outcome", "count", "per s")
		for _, e := range r.Errors {
			fmt.Fprintf(w, "%-*s %-24s %-12s %10d %9.2f\n", width, cmp.Or(e.Op, "-"), e.Code, e.Outcome, e.Count, float64(e.Count)/max(r.Seconds, 1e-9))
		}
	}
	if st := r.DatasetState; st != nil {
		end := map[string]result.TableState{}
		for _, t := range st.End {
			end[t.Name] = t
		}
		fmt.Fprintf(w, "dataset state: %d runs and %d events since its load; rows at the start -> end", st.Runs, st.Events)
		for _, t := range st.Start {
			est := ""
			if !t.Exact {
				est = "~"
			}
			fmt.Fprintf(w, ", %s %s%d -> %d", t.Name, est, t.Rows, end[t.Name].Rows)
		}
		fmt.Fprintln(w, " (~ the server's estimate)")
	}
	if rs := r.Reset; rs != nil {
		what := fmt.Sprintf("done in %.1f s", rs.Seconds)
		if rs.Skipped != "" {
			what = "skipped: " + rs.Skipped
		}
		fmt.Fprintf(w, "reset: %s before cell %d (every %s), %s, not measured; verified: %s\n", rs.Kind, rs.Cell, rs.Every, what, rs.Verified)
	}
	for _, l := range r.EventLines() {
		fmt.Fprintln(w, l)
	}
	if c := r.Connections; c != nil {
		p := c.Connect.Percentiles
		fmt.Fprintf(w, "connections: %d made anew on purpose (not faults), %d connects timed: mean %.2f ms, p95 %.2f, p99 %.2f; %d idle held\n",
			c.Refreshes, c.Connect.Count, c.Connect.MeanMs, p["95"], p["99"], c.Idle)
	}
	if ev := r.Evidence; ev != nil {
		showEvidence(w, r, ev)
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
func (rep *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text":
		rep.Text(w)
	case "markdown", "md":
		rep.Markdown(w)
	case "html":
		rep.HTML(w)
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
// significantly by more than limit (a fraction) from the previous version
// to the last.
func (rep *Report) Regressions(limit float64) []string {
	var bad []string
	for _, t := range rep.Tables {
		bad = append(bad, t.Regressions(rep.Labels, limit, rep.FailOnClientBound)...)
	}
	return bad
}

// showStatements prints the client latency of each statement with its
// share of its event's time: the statements of an event add up to nearly
// all of it, and the rest is the client's own.
func showStatements(w io.Writer, r *result.Result) {
	if len(r.Statements) == 0 {
		return
	}
	width := len("statement")
	for _, st := range r.Statements {
		width = max(width, len(st.Key()))
	}
	fmt.Fprintf(w, "%-*s %10s %9s %9s %9s %9s %9s\n", width, "statement", "count", "mean ms", "p50", "p95", "p99", "of event")
	for _, st := range r.Statements {
		p := st.Percentiles
		fmt.Fprintf(w, "%-*s %10d %9.3f %9.3f %9.3f %9.3f %8.1f%%\n", width, st.Key(), st.Count, st.MeanMs, p["50"], p["95"], p["99"], 100*r.StatementShare(st))
	}
}

// showEvidence prints a result's server evidence: the statements taking the
// most server time, and what the server did not give.
func showEvidence(w io.Writer, r *result.Result, ev *result.Evidence) {
	metrics := ""
	if len(ev.ClusterMetrics) > 0 {
		metrics = fmt.Sprintf(" and %d cluster metrics (TiDB's metrics summary)", len(ev.ClusterMetrics))
	}
	fmt.Fprintf(w, "server evidence: %d counters%s over the window (read in %.0f ms, outside it)\n", len(ev.Counters), metrics, 1000*ev.QuerySeconds)
	if len(ev.Statements) > 0 {
		fmt.Fprintf(w, "%10s %10s %12s %12s  %s\n", "execs", "server ms", "examined/ex", "no index", "statement (the most server time first)")
	}
	for i, s := range ev.Statements {
		if i == 5 {
			break
		}
		ex := float64(max(s.Execs, 1))
		fmt.Fprintf(w, "%10d %10.3f %12.1f %11.0f%%  %s\n", s.Execs, s.LatencyMs/ex, float64(s.RowsExamined)/ex, 100*float64(s.NoIndexUsed)/ex, shorten(s.Text, 90))
	}
	for _, p := range ev.Plans {
		fmt.Fprintf(w, "plan: %s  <- %s\n", p.Shape, shorten(p.Query, 80))
	}
	for _, m := range ev.Missing {
		fmt.Fprintf(w, "server evidence missing: %s\n", m)
	}
}
