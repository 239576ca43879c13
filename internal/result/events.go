package result

import (
	"fmt"
	"math"
	"strings"
)

// EventLines word the run's events and windows for a person: each event,
// how it ended and its impact, then the windows' throughput, latency and
// errors (the run's report and report show alike).
func (r *Result) EventLines() []string {
	evs, wins := r.Events, r.Windows
	if len(evs) == 0 && len(wins) == 0 {
		return nil
	}
	out := []string{"Windows:"}
	if len(evs) > 0 {
		out[0] = "Events:"
	}
	for _, e := range evs {
		line := fmt.Sprintf("    %s (%s, at %.1f s): %s", e.Name, e.Kind, e.At, e.Outcome)
		if e.Outcome != "not started" {
			line += fmt.Sprintf(", %.1f-%.1f s, took %.2f s", e.Start, e.End, e.Seconds)
		}
		if e.Error != "" {
			line += ": " + e.Error
		}
		out = append(out, line)
		if im := e.Impact; im != nil {
			out = append(out, "        impact: "+ImpactWords(im))
		}
	}
	if len(wins) == 0 {
		return out
	}
	width := len("window")
	for _, w := range wins {
		width = max(width, len(w.Name))
	}
	out = append(out, fmt.Sprintf("    %-*s %7s %7s %12s %9s %9s  %s", width, "window", "from s", "to s", "events/s", "p95 ms", "p99 ms", "errors"))
	for _, w := range wins {
		var errs []string
		for _, e := range w.Errors {
			errs = append(errs, fmt.Sprintf("%s %s %d", e.Code, e.Outcome, e.Count))
		}
		out = append(out, strings.TrimRight(fmt.Sprintf("    %-*s %7.1f %7.1f %12.2f %9.2f %9.2f  %s", width, w.Name, math.Max(w.From, 0), w.To, w.PerS, w.P95Ms, w.P99Ms, strings.Join(errs, ", ")), " "))
	}
	return out
}

// ImpactWords says an impact in a line: "-38% at the deepest, 41.0 s below
// 90% of before (1234.5 events/s), recovered 12.0 s after its end".
func ImpactWords(im *Impact) string {
	s := fmt.Sprintf("%+.0f%% at the deepest, %.1f s below 90%% of before (%.1f events/s), ", 100*im.Depth, im.BelowSeconds, im.BeforePerS)
	switch {
	case !im.Recovered:
		return s + "did not recover by the run's end"
	case im.RecoverySeconds == 0:
		return s + "recovered at once"
	}
	return s + fmt.Sprintf("recovered %.1f s after its end", im.RecoverySeconds)
}
