package compare

import (
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// evRun is a run of events with counters and one statement's figures.
func evRun(events int64, counters map[string]float64, stmtMs float64, noIndex int64) *result.Result {
	return &result.Result{Totals: map[string]int64{"events": events},
		Evidence: &result.Evidence{Counters: counters, Statements: []result.StatementFigures{
			{Text: "SELECT c FROM t WHERE k = ?", Execs: events, LatencyMs: stmtMs * float64(events), NoIndexUsed: noIndex}}}}
}

// TestWhyNamesWhatMoved: a counter per event or a statement's latency is
// named when the repeats do not overlap and the medians are 1.5x apart;
// levels (gauges) and trivia never are; runs without evidence say so.
func TestWhyNamesWhatMoved(t *testing.T) {
	base := func(scan, reads float64, ms float64, noIdx int64) []*result.Result {
		var rs []*result.Result
		for i := 0; i < 3; i++ {
			j := float64(i) * 0.01 // a little spread
			rs = append(rs, evRun(1000, map[string]float64{"Handler_read_rnd_next": scan * 1000 * (1 + j), "Innodb_buffer_pool_reads": reads * 1000 * (1 + j),
				"Uptime": 10, "Com_show_status": 2, "Innodb_buffer_pool_pages_free": 1000 * (1 + 5*j)}, ms*(1+j), noIdx))
		}
		return rs
	}
	for _, c := range []struct {
		name       string
		a, b       []*result.Result
		stmts, cnt []string
	}{
		{"the same", base(0.01, 0.5, 0.1, 0), base(0.01, 0.52, 0.1, 0), nil, nil},
		{"a full scan", base(0.01, 0.5, 0.1, 0), base(10000, 0.5, 5, 1000),
			[]string{"SELECT c FROM t WHERE k = ?: server latency 0.101 -> 5.05 ms an execution (50x); no index used in 100% of executions (0% before)"},
			[]string{"Handler_read_rnd_next per event: 0.0101 -> 1.01e+04 (1e+06x)"}},
		{"a small pool", base(0.01, 0.5, 0.1, 0), base(0.01, 4, 0.1, 0), nil, []string{"Innodb_buffer_pool_reads per event: 0.505 -> 4.04 (8x)"}},
		{"overlapping repeats", base(0.01, 0.5, 0.1, 0), append(base(0.01, 0.5, 0.1, 0)[:2], base(0.01, 4, 0.1, 0)[0]), nil, nil},
		// One server, two "versions": a counter that some repeats count
		// plenty of and others little (MariaDB's Handler_icp_attempts under
		// sysbench's select_random_ranges: 2.0, 0.16, 0.92 per event) is
		// chance, though every repeat of the other counted none.
		{"a counter of chance", bursty(0.06, 2.0, 0.16, 0.92), bursty(0, 0, 0, 0), nil, nil},
		{"a steady counter to none", bursty(1.7, 2.0, 1.8, 1.9), bursty(0, 0, 0, 0), nil, []string{"Handler_icp_attempts per event: 1.85 -> 0 (to none)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := statementChanges(c.a, c.b); strings.Join(got, "\n") != strings.Join(c.stmts, "\n") {
				t.Errorf("statements:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.stmts, "\n"))
			}
			if got := counterChanges(c.a, c.b); strings.Join(got, "\n") != strings.Join(c.cnt, "\n") {
				t.Errorf("counters:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.cnt, "\n"))
			}
		})
	}
	row := Row{Threads: 4, Runs: [][]*result.Result{{{Totals: map[string]int64{"events": 1}}}, timedRuns(base(0.01, 0.5, 0.1, 0), 0.1, 0.2)}}
	if m := missingEvidence([]string{"old", "new"}, row, 0, 1); len(m) != 2 || !strings.HasPrefix(m[0], "old: no client latency per statement") ||
		!strings.HasPrefix(m[1], "old: no server evidence") {
		t.Errorf("missing: %v", m)
	}
}

// bursty is runs of 1000 events whose Handler_icp_attempts per event are
// those given.
func bursty(perEvent ...float64) []*result.Result {
	var rs []*result.Result
	for _, x := range perEvent {
		rs = append(rs, evRun(1000, map[string]float64{"Handler_icp_attempts": x * 1000}, 0.1, 0))
	}
	return rs
}

// timedRuns gives runs an event of 1 ms a run made of two statements of the
// latencies given (ms an execution), with a little spread across repeats.
func timedRuns(rs []*result.Result, sel, upd float64) []*result.Result {
	for i, r := range rs {
		j := 1 + float64(i)*0.01
		n := r.Totals["events"]
		r.Ops = []result.Op{{Name: "ev", Count: n, MeanMs: (sel + upd) * j * 1.02}}
		r.Statements = []result.Statement{{Event: "ev", Op: result.Op{Name: "select", Count: n, MeanMs: sel * j}},
			{Event: "ev", Op: result.Op{Name: "update", Count: n, MeanMs: upd * j}}}
	}
	return rs
}

// TestWhyNamesClientStatements: a statement whose client latency moved
// beyond the repeats (1.5x, no overlap) is named with its share of the
// event's time, the one that moved most per event first; one that did not
// move, or moved within the repeats' spread, is not.
func TestWhyNamesClientStatements(t *testing.T) {
	runs := func(sel, upd float64) []*result.Result {
		var rs []*result.Result
		for range 3 {
			rs = append(rs, &result.Result{Totals: map[string]int64{"events": 1000}})
		}
		return timedRuns(rs, sel, upd)
	}
	for _, c := range []struct {
		name string
		a, b []*result.Result
		want []string
	}{
		{"the same", runs(0.2, 0.3), runs(0.2, 0.31), nil},
		{"the select slower", runs(0.2, 0.3), runs(2, 0.3), []string{"ev.select: client latency 0.202 -> 2.02 ms an execution (10x), 85% of ev's time"}},
		{"both, most per event first", runs(0.2, 0.3), runs(0.4, 3), []string{
			"ev.update: client latency 0.303 -> 3.03 ms an execution (10x), 87% of ev's time",
			"ev.select: client latency 0.202 -> 0.404 ms an execution (2x), 12% of ev's time"}},
		{"within the spread", runs(0.2, 0.3), append(runs(0.2, 0.3)[:2], runs(2, 0.3)[0]), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := clientChanges(c.a, c.b); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestWhyNamesClusterMetrics: TiDB's cluster metrics whose averages moved
// beyond the repeats are named, the farthest first; a metric a run lacks,
// or one within the spread, is not.
func TestWhyNamesClusterMetrics(t *testing.T) {
	runs := func(cop, raft float64, extra bool) []*result.Result {
		var rs []*result.Result
		for i := range 3 {
			j := 1 + float64(i)*0.01
			m := map[string]float64{"tikv_cop_request_duration p99": cop * j, "tikv_raftstore_propose_wait_duration": raft * j}
			if extra && i > 0 {
				m["tidb_gc_duration"] = 5
			}
			rs = append(rs, &result.Result{Totals: map[string]int64{"events": 1}, Evidence: &result.Evidence{ClusterMetrics: m}})
		}
		return rs
	}
	got := metricChanges(runs(0.01, 0.002, false), runs(0.05, 0.0021, true))
	want := []string{"tikv_cop_request_duration p99: 0.0101 -> 0.0505 (5x)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
}
