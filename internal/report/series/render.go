package series

import (
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/oltpbench/oltpbench/internal/report/compare"
)

// around is a change's builds: the last run before it and the first after.
type around struct{ before, after Point }

func (s *Series) around(c Change) around {
	return around{s.Points[c.At-1], s.Points[c.At]}
}

func (p Point) words() string {
	return fmt.Sprintf("%s, %s, %s", p.Build, p.Time.Format("2006-01-02 15:04"), p.File)
}

// changeText is a change in words: its size, the levels, its p-value.
func (m Metric) changeText(c Change) string {
	word := "better"
	if c.Worse {
		word = "worse"
	}
	return fmt.Sprintf("%+.1f%% (%s -> %s %s), %s, p = %s", 100*c.Delta(), num(c.Before), num(c.After), m.Name, word, pval(c.P))
}

// pval is a p-value to the shuffles' resolution: three decimals, four
// under 0.001 (at --confidence=0.999 the test draws 9,999 shuffles).
func pval(p float64) string {
	if p < 0.001 {
		return strconv.FormatFloat(p, 'f', 4, 64)
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func num(v float64) string {
	switch {
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func (rep *Report) head(w io.Writer) {
	fmt.Fprintf(w, "%d series from %d results, in the order of the runs' %s; a change needs %d runs on each side and p <= %.2g\n",
		len(rep.Series), rep.Results, map[string]string{"time": "start", "version": "builds"}[rep.Order], rep.MinSize, rep.Alpha)
}

// leftOut are the lines on what the history did not use.
func (rep *Report) leftOut() []string {
	var out []string
	for _, f := range rep.Failed {
		out = append(out, "left out, a failed run: "+f)
	}
	for _, f := range rep.Unreadable {
		out = append(out, "skipped, unreadable: "+f)
	}
	for _, f := range rep.Unlisted {
		out = append(out, "left out, a build not in the list: "+f)
	}
	if rep.Probes > 0 {
		out = append(out, fmt.Sprintf("left out, %d probes of capacity searches (report compare puts searches side by side)", rep.Probes))
	}
	return out
}

// Text writes each series with its changes and the builds around each.
func (rep *Report) Text(w io.Writer) {
	rep.head(w)
	for _, s := range rep.Series {
		first, last := s.Points[0], s.Points[len(s.Points)-1]
		fmt.Fprintf(w, "\n%s: %d runs, %s (%s) .. %s (%s)\n", s.Title, len(s.Points), first.Build, first.Time.Format("2006-01-02"), last.Build, last.Time.Format("2006-01-02"))
		if s.Short {
			fmt.Fprintf(w, "  too short to judge: %d runs, a change needs %d on each side\n", len(s.Points), rep.MinSize)
			continue
		}
		if n := s.clientBound(); n > 0 {
			fmt.Fprintf(w, "  %d runs client-bound (marked *; left out of the gate unless --fail-on-client-bound)\n", n)
		}
		for _, m := range s.Metrics {
			if len(m.Changes) == 0 {
				fmt.Fprintf(w, "  %s: no change\n", m.Name)
				continue
			}
			for _, c := range m.Changes {
				a := s.around(c)
				fmt.Fprintf(w, "  %s: a change at run %d: %s\n", m.Name, c.At+1, m.changeText(c))
				fmt.Fprintf(w, "    last before: %s%s\n    first after: %s%s\n", a.before.words(), star(a.before), a.after.words(), star(a.after))
			}
		}
	}
	if lo := rep.leftOut(); len(lo) > 0 {
		fmt.Fprintln(w)
		for _, x := range lo {
			fmt.Fprintln(w, x)
		}
	}
}

func star(p Point) string {
	if p.ClientBound {
		return " *"
	}
	return ""
}

func (s *Series) clientBound() int {
	n := 0
	for _, p := range s.Points {
		if p.ClientBound {
			n++
		}
	}
	return n
}

// Markdown writes the changes as the table of a regression issue: last
// success, first regression.
func (rep *Report) Markdown(w io.Writer) {
	rep.head(w)
	fmt.Fprintf(w, "\n| Series | Metric | Change | p | Last success | First regression |\n|---|---|---|---|---|---|\n")
	rows := 0
	for _, s := range rep.Series {
		for _, m := range s.Metrics {
			for _, c := range m.Changes {
				a := s.around(c)
				fmt.Fprintf(w, "| %s | %s | %+.1f%% (%s -> %s), %s | %s | %s | %s |\n", md(s.Title), md(m.Name), 100*c.Delta(), num(c.Before), num(c.After),
					map[bool]string{true: "worse", false: "better"}[c.Worse], pval(c.P), md(a.before.Build+" ("+a.before.Time.Format("2006-01-02 15:04")+")"),
					md(a.after.Build+" ("+a.after.Time.Format("2006-01-02 15:04")+")"))
				rows++
			}
		}
	}
	if rows == 0 {
		fmt.Fprintf(w, "| (no change in any series) | | | | | |\n")
	}
	var short []string
	for _, s := range rep.Series {
		if s.Short {
			short = append(short, fmt.Sprintf("- %s: too short to judge (%d runs)", md(s.Title), len(s.Points)))
		}
	}
	for _, x := range rep.leftOut() {
		short = append(short, "- "+md(x))
	}
	if len(short) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(short, "\n"))
	}
}

func md(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// HTML writes one page: each series' headline drawn run by run, its
// changes marked, and the changes' table.
func (rep *Report) HTML(w io.Writer) {
	e := html.EscapeString
	fmt.Fprintf(w, `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>oltpbench: series of runs</title>
<style>
body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f3f3f3}.warn{color:#a40}
</style></head><body>
<h1>Series of runs and their changes</h1>
`)
	var b strings.Builder
	rep.head(&b)
	fmt.Fprintf(w, "<p>%s</p>\n", e(b.String()))
	for _, s := range rep.Series {
		fmt.Fprintf(w, "<h2>%s</h2>\n", e(s.Title))
		if s.Short {
			fmt.Fprintf(w, "<p class=\"warn\">too short to judge: %d runs</p>\n", len(s.Points))
		}
		m := s.Metrics[0]
		xs := make([]float64, len(s.Points))
		for i := range xs {
			xs[i] = float64(i + 1)
		}
		var marks []float64
		for _, c := range m.Changes {
			marks = append(marks, float64(c.At)+0.5)
		}
		builds := s.Points
		compare.SeriesChart(w, m.Name+" run by run (dashed: a change)", m.Name, "run (build)", xs, m.Values, marks, func(x float64) string {
			i := int(x) - 1
			if i < 0 || i >= len(builds) {
				return ""
			}
			return builds[i].Build
		})
		var rows []string
		for _, m := range s.Metrics {
			for _, c := range m.Changes {
				a := s.around(c)
				rows = append(rows, fmt.Sprintf("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", e(m.Name), e(m.changeText(c)), e(a.before.words()), e(a.after.words())))
			}
		}
		if len(rows) == 0 {
			if !s.Short {
				fmt.Fprintf(w, "<p>no change</p>\n")
			}
			continue
		}
		fmt.Fprintf(w, "<table><tr><th>metric</th><th>change</th><th>last before</th><th>first after</th></tr>\n%s</table>\n", strings.Join(rows, ""))
	}
	for _, x := range rep.leftOut() {
		fmt.Fprintf(w, "<p class=\"warn\">%s</p>\n", e(x))
	}
	fmt.Fprintf(w, "</body></html>\n")
}

// Write writes the history in a format: text, markdown or html.
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
