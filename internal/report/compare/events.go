package compare

import (
	"fmt"

	"strings"

	"github.com/oltpbench/oltpbench/internal/result"
)

// eventsHead heads the impacts in reports.
const eventsHead = "Events during the runs (impact on events per second: the deepest interval against before, the time below 90% of before, the recovery after the event's end)"

// impact is one version's impact of an event over a cell's repeats.
type impact struct {
	depth, below, recovery []float64 // per repeat that gave one
	unrecovered            int
}

func (im impact) words() string {
	if len(im.depth) == 0 {
		return "no impact measured"
	}
	s := fmt.Sprintf("%+.0f%% for %.1f s", 100*median(im.depth), median(im.below))
	switch {
	case im.unrecovered == len(im.depth):
		return s + ", did not recover"
	case im.unrecovered > 0:
		s += fmt.Sprintf(", %d of %d runs did not recover", im.unrecovered, len(im.depth))
	}
	if r := median(im.recovery); r == 0 {
		return s + ", recovered at once"
	} else {
		return s + fmt.Sprintf(", recovered in %.1f s", r)
	}
}

// impactsOf gathers each version's impacts of the event named name.
func impactsOf(runs []*result.Result, name string) impact {
	var im impact
	for _, r := range runs {
		for _, e := range r.Events {
			if e.Name != name || e.Impact == nil {
				continue
			}
			im.depth = append(im.depth, e.Impact.Depth)
			im.below = append(im.below, e.Impact.BelowSeconds)
			if e.Impact.Recovered {
				im.recovery = append(im.recovery, e.Impact.RecoverySeconds)
			} else {
				im.unrecovered++
			}
		}
	}
	return im
}

// EventImpacts are, per cell and event, the versions' impacts side by side
// ("4 threads, add c_1: v1 -38% for 41.0 s, recovered in 12.0 s; v2 -12%
// for 19.0 s, recovered at once"), each version after the first with a
// verdict against the previous one that ran it: deeper, shallower or the
// same within the repeats (their depths' ranges apart), and, on the time
// below 90%, longer or shorter when the ranges are apart.
func (t *Table) EventImpacts(labels []string) []string {
	var out []string
	for _, row := range t.Rows {
		for _, name := range eventNames(row) {
			per := make([]impact, len(labels))
			var parts, verdicts []string
			for v, runs := range row.Runs {
				if len(runs) == 0 {
					continue
				}
				per[v] = impactsOf(runs, name)
				parts = append(parts, labels[v]+" "+per[v].words())
				if p := row.Prev[v]; p >= 0 {
					verdicts = append(verdicts, impactVerdict(labels[p], labels[v], per[p], per[v])...)
				}
			}
			line := fmt.Sprintf("%d threads, %s: %s", row.Threads, name, strings.Join(parts, "; "))
			if len(verdicts) > 0 {
				line += " (" + strings.Join(verdicts, "; ") + ")"
			}
			out = append(out, line)
		}
	}
	return out
}

// impactVerdict compares two versions' impacts by their repeats: a change
// counts when the ranges do not overlap.
func impactVerdict(from, to string, a, b impact) []string {
	if len(a.depth) == 0 || len(b.depth) == 0 {
		return nil
	}
	var out []string
	switch {
	case slicesMax(b.depth) < slicesMin(a.depth):
		out = append(out, fmt.Sprintf("%s deeper than %s", to, from))
	case slicesMin(b.depth) > slicesMax(a.depth):
		out = append(out, fmt.Sprintf("%s shallower than %s", to, from))
	default:
		out = append(out, fmt.Sprintf("%s as deep as %s within the repeats", to, from))
	}
	switch {
	case slicesMin(b.below) > slicesMax(a.below):
		out = append(out, fmt.Sprintf("longer below 90%% (%.1f -> %.1f s)", median(a.below), median(b.below)))
	case slicesMax(b.below) < slicesMin(a.below):
		out = append(out, fmt.Sprintf("shorter below 90%% (%.1f -> %.1f s)", median(a.below), median(b.below)))
	}
	return out
}

// eventNames are the events of a cell's runs, in the order first met.
func eventNames(row Row) []string {
	var out []string
	seen := map[string]bool{}
	for _, runs := range row.Runs {
		for _, r := range runs {
			for _, e := range r.Events {
				if !seen[e.Name] {
					seen[e.Name] = true
					out = append(out, e.Name)
				}
			}
		}
	}
	return out
}
