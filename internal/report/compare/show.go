package compare

import (
	"cmp"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/oltpbench/oltpbench/internal/result"
)

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
