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
			[]string{"SELECT c FROM t WHERE k = ?: server latency 0.101 -> 5.05 ms an execution (50x), 0% of the event's time; no index used in 100% of executions (0% before)"},
			[]string{"Handler_read_rnd_next per event: 0.0101 -> 1.01e+04 (1e+06x)"}},
		{"a small pool", base(0.01, 0.5, 0.1, 0), base(0.01, 4, 0.1, 0), nil, []string{"Innodb_buffer_pool_reads per event: 0.505 -> 4.04 (8x)"}},
		{"overlapping repeats", base(0.01, 0.5, 0.1, 0), append(base(0.01, 0.5, 0.1, 0)[:2], base(0.01, 4, 0.1, 0)[0]), nil, nil},
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
	row := Row{Threads: 4, Runs: [][]*result.Result{{{Totals: map[string]int64{"events": 1}}}, base(0.01, 0.5, 0.1, 0)}}
	if m := missingEvidence([]string{"old", "new"}, row, 0, 1); len(m) != 1 || !strings.HasPrefix(m[0], "old: no server evidence") {
		t.Errorf("missing: %v", m)
	}
}
