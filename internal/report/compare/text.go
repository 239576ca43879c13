package compare

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
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
	rep.capacityTables(w, false)
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
