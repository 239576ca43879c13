package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Drop is a cell whose figure got worse from the first version that ran it
// to the last: where in the release history that happened, or why the
// repeats cannot tell.
type Drop struct {
	Figure   string // the metric's name, or "p95 ms"
	Threads  int
	From, To int  // the first and the last version with the cell
	Span     Stat // To against From
	// Steps are the adjacent pairs significantly worse on their own, most
	// worse first; none when no single pair was. One pair's repeats can
	// test significant by chance (at 5% one time in twenty), so the
	// largest step, not the first, says where the drop is.
	Steps []Step
	// Few are the versions between From and To whose runs are too few for
	// the test (set when they are why it cannot be told).
	Few, FewRuns []int
	Need         int
}

// Step is one adjacent pair's comparison.
type Step struct {
	Prev, At int
	Stat     Stat
}

// steeper reports whether a is a larger change than b (either way).
func steeper(a, b Stat) bool {
	return math.Abs(math.Log(a.Ratio)) > math.Abs(math.Log(b.Ratio))
}

// metricOf is one thing a release can make worse.
type metricOf struct {
	name   string
	of     func(*result.Result) float64
	higher bool // a higher value is worse (latency)
}

func (f metricOf) worse(s Stat) bool {
	if f.higher {
		return s.Ratio > 1
	}
	return s.Ratio < 1
}

// Drops finds, with more than two versions, the cells whose throughput or
// p95 got significantly worse from the first version to the last, and
// names the adjacent pairs that got significantly worse on their own, the
// largest step first;
// a cell that looks worse but has too few repeats for the test says so.
func (t *Table) Drops(versions int) []Drop {
	if versions <= 2 {
		return nil // the cell verdicts are the one pair's
	}
	figs := []metricOf{{t.Unit, tput, false}, {"p95 ms", func(r *result.Result) float64 { return r.Latency("95") }, true}}
	need := minRepeats()
	var out []Drop
	for _, row := range t.Rows {
		from, to := row.first(), row.last()
		if from < 0 || from == to {
			continue
		}
		for _, f := range figs {
			span := cellStat(values(row.Runs[from], f.of), values(row.Runs[to], f.of))
			if !f.worse(span) || (!span.Significant && span.Need == 0) {
				continue // better, or as good as the repeats can tell
			}
			d := Drop{Figure: f.name, Threads: row.Threads, From: from, To: to, Span: span, Need: need}
			if span.Significant {
				for v := from + 1; v <= to; v++ {
					p := row.Prev[v]
					if p < 0 {
						continue
					}
					if s := cellStat(values(row.Runs[p], f.of), values(row.Runs[v], f.of)); s.Significant && f.worse(s) {
						d.Steps = append(d.Steps, Step{p, v, s})
					}
				}
				sort.SliceStable(d.Steps, func(i, j int) bool { return steeper(d.Steps[i].Stat, d.Steps[j].Stat) })
			}
			if len(d.Steps) == 0 {
				for v := from; v <= to; v++ {
					if n := len(row.Runs[v]); n > 0 && n < need {
						d.Few, d.FewRuns = append(d.Few, v), append(d.FewRuns, n)
					}
				}
			}
			out = append(out, d)
		}
	}
	return out
}

// String words the drop: "150 threads: QPS -25% from v1 to v4 (p=0.008,
// n=5+5); worse between v2 and v3: QPS -24% (95% CI ...)", and ", and less
// between v1 and v2: ..." for each other pair significantly worse.
func (d Drop) String(labels []string) string {
	s := fmt.Sprintf("%d threads: %s %+.0f%% from %s to %s", d.Threads, d.Figure, (d.Span.Ratio-1)*100, labels[d.From], labels[d.To])
	few := func() string {
		var vs []string
		for i, v := range d.Few {
			vs = append(vs, fmt.Sprintf("%s %d", labels[v], d.FewRuns[i]))
		}
		return fmt.Sprintf("runs: %s; the test needs %d per version, --repeat=%d", strings.Join(vs, ", "), d.Need, max(d.Need, 5))
	}
	switch {
	case !d.Span.Significant:
		return s + fmt.Sprintf(" (n=%d+%d): too few repeats to tell whether it got worse, or where (%s)", d.Span.N1, d.Span.N2, few())
	case len(d.Steps) > 0:
		s += fmt.Sprintf(" (p=%.3f, n=%d+%d); ", d.Span.P, d.Span.N1, d.Span.N2)
		for i, st := range d.Steps {
			switch {
			case i == 0:
				s += "worse"
			case i == len(d.Steps)-1:
				s += ", and less"
			default:
				s += ", less"
			}
			s += fmt.Sprintf(" between %s and %s: %s", labels[st.Prev], labels[st.At], st.Stat.String(d.Figure))
		}
		return s
	case len(d.Few) > 0:
		return s + fmt.Sprintf(" (p=%.3f, n=%d+%d); no adjacent pair got significantly worse on its own, and some have too few repeats to tell (%s)", d.Span.P, d.Span.N1, d.Span.N2, few())
	default:
		return s + fmt.Sprintf(" (p=%.3f, n=%d+%d); no adjacent pair got significantly worse on its own: a gradual decline", d.Span.P, d.Span.N1, d.Span.N2)
	}
}

// Where words the table's drops, one line each.
func (t *Table) Where(labels []string) []string {
	var out []string
	for _, d := range t.Drops(len(labels)) {
		out = append(out, d.String(labels))
	}
	return out
}
