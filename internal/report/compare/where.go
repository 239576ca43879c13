package compare

import (
	"fmt"
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
	// At is the later version of the first adjacent pair that got
	// significantly worse (Step compares them, Prev is the earlier one); -1
	// when no single pair did.
	At, Prev int
	Step     Stat
	// Few are the versions between From and To whose runs are too few for
	// the test (set when they are why it cannot be told).
	Few, FewRuns []int
	Need         int
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
// names the first adjacent pair that got significantly worse on its own;
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
			d := Drop{Figure: f.name, Threads: row.Threads, From: from, To: to, Span: span, At: -1, Prev: -1, Need: need}
			if span.Significant {
				for v := from + 1; v <= to; v++ {
					p := row.Prev[v]
					if p < 0 {
						continue
					}
					if s := cellStat(values(row.Runs[p], f.of), values(row.Runs[v], f.of)); s.Significant && f.worse(s) {
						d.At, d.Prev, d.Step = v, p, s
						break
					}
				}
			}
			if d.At < 0 {
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
// n=5+5); first between v2 and v3: QPS -24% (95% CI ...)".
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
	case d.At >= 0:
		return s + fmt.Sprintf(" (p=%.3f, n=%d+%d); first between %s and %s: %s", d.Span.P, d.Span.N1, d.Span.N2, labels[d.Prev], labels[d.At], d.Step.String(d.Figure))
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
