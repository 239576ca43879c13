package compare

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/oltpbench/oltpbench/internal/result"
)

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
			if r.Med[last].Op(op.Name) == nil || !ran(r.Med, op.Name) {
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

func warnings(w io.Writer, t Table) {
	for _, x := range t.Warnings {
		fmt.Fprintf(w, "> warning: %s\n", x)
	}
	if len(t.Warnings) > 0 {
		fmt.Fprintln(w)
	}
}

// Whys are the table's whys as the report words them (rep.Why: all pairs).
func (rep *Report) Whys(t Table) []Why { return t.Whys(rep.Labels, rep.Why) }

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
	return append(bad, rep.capacityRegressions(limit)...)
}

// ran: the operation ran in the run of some version (a workload that
// lists operations a run may leave out, as TPC-H's queries, has them at
// zero: no line of zeros).
func ran(med []*result.Result, name string) bool {
	for _, m := range med {
		if m == nil {
			continue
		}
		if o := m.Op(name); o != nil && o.Count > 0 {
			return true
		}
	}
	return false
}
