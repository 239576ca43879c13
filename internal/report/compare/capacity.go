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

// Capacity is one workload's capacity searches side by side: every probe
// of each version by level, each version's maximum and lowest failure.
type Capacity struct {
	Workload string
	Title    string
	Unit     string // what a level counts: warehouses
	Metric   string // the runs' headline: tpmC
	// Levels are, per version, every run at each level probed (a level of
	// the boundary has as many runs as the search's repeats).
	Levels []map[int][]*result.Result
	// Max is, per version, the highest level most of whose runs passed
	// below every level that most runs failed (0: none passed, -1: the
	// version has no search); Failed the lowest such failure (0: none).
	Max, Failed []int
	Warnings    []string
}

// capacities gathers the versions' probes by workload.
func capacities(vs []Version, describe Describe) []Capacity {
	byName := map[string]*Capacity{}
	var names []string
	for vi, v := range vs {
		for _, r := range v.Results {
			if r.Probe == nil {
				continue
			}
			c := byName[r.Workload]
			if c == nil {
				c = &Capacity{Workload: r.Workload, Title: describe(r.Workload).Title, Unit: r.Probe.Unit, Levels: make([]map[int][]*result.Result, len(vs))}
				byName[r.Workload] = c
				names = append(names, r.Workload)
			}
			if c.Levels[vi] == nil {
				c.Levels[vi] = map[int][]*result.Result{}
			}
			c.Levels[vi][r.Probe.Level] = append(c.Levels[vi][r.Probe.Level], r)
			if c.Metric == "" {
				_, c.Metric = r.Throughput()
			}
		}
	}
	sort.Strings(names)
	var out []Capacity
	for _, name := range names {
		c := byName[name]
		c.Max, c.Failed = make([]int, len(vs)), make([]int, len(vs))
		for v, levels := range c.Levels {
			c.Max[v], c.Failed[v] = boundaryOf(levels)
		}
		c.Warnings = probeWarnings(c, vs)
		out = append(out, *c)
	}
	return out
}

// boundaryOf is a search's maximum and lowest failure from its probes
// (result.Boundary; -1, 0 without probes).
func boundaryOf(levels map[int][]*result.Result) (best, failed int) {
	if levels == nil {
		return -1, 0
	}
	return result.Boundary(runsByLevel(levels))
}

func runsByLevel(levels map[int][]*result.Result) map[int]result.LevelRuns {
	out := map[int]result.LevelRuns{}
	for n, runs := range levels {
		out[n] = tally(runs)
	}
	return out
}

func tally(runs []*result.Result) result.LevelRuns {
	var l result.LevelRuns
	for _, r := range runs {
		l.Runs++
		if r.Probe.Pass {
			l.Passed++
		}
	}
	return l
}

// probeWarnings: searches whose probes ran under other conditions (pace,
// time, loaded size) do not compare.
func probeWarnings(c *Capacity, vs []Version) []string {
	var out []string
	ref, refV := "", -1
	for v, levels := range c.Levels {
		under := ""
		for _, runs := range levels {
			under = runs[0].Probe.Under
			break
		}
		switch {
		case levels == nil:
		case refV < 0:
			ref, refV = under, v
		case under != ref:
			out = append(out, fmt.Sprintf("%s's search ran under %s, %s's under %s: their capacities do not compare", vs[refV].Label, ref, vs[v].Label, under))
		}
	}
	return out
}

// Near are the levels near each version's boundary: every version's
// maximum and lowest failure, ascending.
func (c Capacity) Near() []int {
	seen := map[int]bool{}
	var out []int
	for v := range c.Max {
		for _, n := range []int{c.Max[v], c.Failed[v]} {
			if n > 0 && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		for n, runs := range c.Levels[v] {
			if len(runs) > 1 && !seen[n] { // a repeated boundary level
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Ints(out)
	return out
}

// Cell is version v's runs at level n in words: PASS 3/3 412.0, FAIL 0/3,
// or "-" when it did not probe n.
func (c Capacity) Cell(v, n int) string {
	runs := c.Levels[v][n]
	if len(runs) == 0 {
		return "-"
	}
	l := tally(runs)
	k, pass := l.Runs, l.Passed
	word := "FAIL"
	if l.Passes() {
		word = "PASS"
	}
	vals := make([]float64, 0, len(runs))
	for _, r := range runs {
		if !r.Probe.Failed {
			x, _ := r.Throughput()
			vals = append(vals, x)
		}
	}
	if len(vals) == 0 {
		return fmt.Sprintf("%s %d/%d (run failed)", word, pass, k)
	}
	sort.Float64s(vals)
	return fmt.Sprintf("%s %d/%d %s", word, pass, k, num(vals[(len(vals)-1)/2], 1))
}

// Verdicts are one line per adjacent pair of versions that both searched:
// the change of capacity, and whether the repeated boundary probes
// confirm it (the newer version failed, in every run, a level the older
// sustained in every run, or the other way round).
func (c Capacity) Verdicts(labels []string) []string {
	var out []string
	prev := -1
	for v := range c.Max {
		if c.Max[v] < 0 {
			continue
		}
		if prev >= 0 {
			line, _, _ := c.pair(labels, prev, v)
			out = append(out, line)
		}
		prev = v
	}
	return out
}

// pair judges version b's capacity against a's: the line, the change (a
// share, negative when it fell) and whether the repeats confirm it.
func (c Capacity) pair(labels []string, a, b int) (string, float64, bool) {
	head := pairPrefix(labels, a, b)
	ma, mb := c.Max[a], c.Max[b]
	if ma == mb {
		return fmt.Sprintf("%sthe same capacity: %d %s", head, ma, c.Unit), 0, false
	}
	change := math.Inf(1)
	if ma > 0 {
		change = float64(mb-ma) / float64(ma)
	}
	word := "rose"
	hi, lo := a, b // hi sustained what lo failed
	if mb < ma {
		word, hi, lo = "fell", a, b
	} else {
		hi, lo = b, a
	}
	line := fmt.Sprintf("%scapacity %s %s (%d -> %d %s)", head, word, pctText(change), ma, mb, c.Unit)
	f := c.Failed[lo]
	switch {
	case f == 0:
		return line + fmt.Sprintf(": %s never failed (its dataset is too small to find the limit), not confirmed", labels[lo]), change, false
	case f > c.Max[hi]:
		return line + fmt.Sprintf(": within the gap of %s's search (%d..%d), not confirmed", labels[lo], c.Max[lo], f), change, false
	}
	// The evidence: a level the lower version failed in every run (at
	// least two) at or below one the higher sustained in every run; a
	// search passes a level when it passes any higher one.
	low, high := runsByLevel(c.Levels[lo]), runsByLevel(c.Levels[hi])
	lf, lp := 0, 0
	for _, n := range slices.Sorted(maps.Keys(low)) {
		if low[n].Unanimous(false) && n <= c.Max[hi] {
			lf = n
			break
		}
	}
	for n, l := range high {
		if l.Unanimous(true) && n >= lf && n > lp {
			lp = n
		}
	}
	if lf > 0 && lp > 0 {
		return line + fmt.Sprintf(": %s failed at %d in %d of %d runs, %s sustained %d in %d of %d: confirmed",
			labels[lo], lf, low[lf].Runs, low[lf].Runs, labels[hi], lp, high[lp].Passed, high[lp].Runs), change, true
	}
	fl, hl := low[f], high[c.Max[hi]]
	evidence := fmt.Sprintf("%s failed at %d in %d of %d runs, %s sustained %d in %d of %d", labels[lo], f, fl.Runs-fl.Passed, fl.Runs, labels[hi], c.Max[hi], hl.Passed, hl.Runs)
	if fl.Runs < 2 || hl.Runs < 2 {
		return line + ": " + evidence + "; one run at a boundary is not a verdict (repeats = 3 on the search step runs each boundary level three times)", change, false
	}
	return line + ": " + evidence + ": the repeats disagree, not confirmed", change, false
}

func pctText(change float64) string {
	if math.IsInf(change, 0) {
		return "from none"
	}
	return fmt.Sprintf("%+.0f%%", change*100)
}

// capacityRegressions are the confirmed falls of the newest version's
// capacity by more than limit.
func (rep *Report) capacityRegressions(limit float64) []string {
	var out []string
	last := len(rep.Labels) - 1
	for _, c := range rep.Capacities {
		if c.Max[last] < 0 {
			continue
		}
		for a := last - 1; a >= 0; a-- {
			if c.Max[a] < 0 {
				continue
			}
			line, change, ok := c.pair(rep.Labels, a, last)
			if ok && change < -limit {
				out = append(out, c.Title+": "+line)
			}
			break
		}
	}
	return out
}

// capacityTables writes each workload's capacities: the levels near the
// boundaries by version, each version's maximum, and the verdicts.
func (rep *Report) capacityTables(w io.Writer, md bool) {
	for _, c := range rep.Capacities {
		head := []string{strings.ToUpper(c.Unit[:1]) + c.Unit[1:]}
		for _, l := range rep.Labels {
			head = append(head, l+" "+c.Metric)
		}
		rows := [][]string{}
		maxRow := []string{"MAX"}
		for v := range rep.Labels {
			maxRow = append(maxRow, maxText(c.Max[v]))
		}
		rows = append(rows, maxRow)
		for _, n := range c.Near() {
			row := []string{strconv.Itoa(n)}
			for v := range rep.Labels {
				row = append(row, c.Cell(v, n))
			}
			rows = append(rows, row)
		}
		title := fmt.Sprintf("%s: the most %s sustained (the levels near each boundary: passed/runs, median %s)", c.Title, c.Unit, c.Metric)
		if md {
			fmt.Fprintf(w, "### %s\n\n| %s |\n|%s\n", title, strings.Join(head, " | "), strings.Repeat("---|", len(head)))
			for _, r := range rows {
				fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
			}
			fmt.Fprintln(w)
			bullets(w, "", c.Verdicts(rep.Labels))
			for _, x := range c.Warnings {
				fmt.Fprintf(w, "warning: %s\n\n", mdCell(x))
			}
			continue
		}
		fmt.Fprintf(w, "\n%s\n", title)
		widths := make([]int, len(head))
		for i, h := range head {
			widths[i] = max(8, len(h))
		}
		for _, r := range rows {
			for i, x := range r {
				widths[i] = max(widths[i], len(x))
			}
		}
		for _, r := range append([][]string{head}, rows...) {
			for i, x := range r {
				if i > 0 {
					fmt.Fprint(w, " ")
				}
				fmt.Fprintf(w, "%*s", widths[i], x)
			}
			fmt.Fprintln(w)
		}
		for _, x := range c.Verdicts(rep.Labels) {
			fmt.Fprintf(w, "  %s\n", x)
		}
		for _, x := range c.Warnings {
			fmt.Fprintf(w, "warning: %s\n", x)
		}
	}
}

func maxText(n int) string {
	if n < 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// capacityHTML is capacityTables as HTML, with each version's probes drawn:
// the median run at every level probed.
func (rep *Report) capacityHTML(w io.Writer) {
	e := html.EscapeString
	for _, c := range rep.Capacities {
		fmt.Fprintf(w, "<h2>%s: the most %s sustained</h2>\n<table><tr><th>%s</th>", e(c.Title), e(c.Unit), e(c.Unit))
		for _, l := range rep.Labels {
			fmt.Fprintf(w, "<th>%s %s</th>", e(l), e(c.Metric))
		}
		fmt.Fprintf(w, "</tr>\n<tr><th>MAX</th>")
		for v := range rep.Labels {
			fmt.Fprintf(w, "<td>%s</td>", maxText(c.Max[v]))
		}
		fmt.Fprintf(w, "</tr>\n")
		for _, n := range c.Near() {
			fmt.Fprintf(w, "<tr><td>%d</td>", n)
			for v := range rep.Labels {
				fmt.Fprintf(w, "<td>%s</td>", e(c.Cell(v, n)))
			}
			fmt.Fprintf(w, "</tr>\n")
		}
		fmt.Fprintf(w, "</table>\n")
		for _, x := range c.Verdicts(rep.Labels) {
			fmt.Fprintf(w, "<p class=\"verdict\">%s</p>\n", e(x))
		}
		for _, x := range c.Warnings {
			fmt.Fprintf(w, "<p class=\"warn\">warning: %s</p>\n", e(x))
		}
		s := make([][]pt, len(rep.Labels))
		for v, levels := range c.Levels {
			for _, n := range slices.Sorted(maps.Keys(levels)) {
				vals := make([]float64, 0, len(levels[n]))
				for _, r := range levels[n] {
					if !r.Probe.Failed {
						x, _ := r.Throughput()
						vals = append(vals, x)
					}
				}
				if len(vals) == 0 {
					continue
				}
				sort.Float64s(vals)
				s[v] = append(s[v], pt{x: float64(n), y: vals[(len(vals)-1)/2], lo: vals[0], hi: vals[len(vals)-1]})
			}
		}
		fmt.Fprintf(w, "<div class=\"charts\">\n")
		chartX(w, c.Metric+" by "+c.Unit+" probed (bars: lowest to highest run)", c.Metric, rep.Labels, s, c.Unit, func(x float64) string { return fmt.Sprintf("%g", x) })
		fmt.Fprintf(w, "</div>\n")
	}
}
