package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// stmtShares are, per event, its statements' time over the event's: what
// of a transaction's latency its statements account for.
func stmtShares(r *result.Result) map[string]float64 {
	out := map[string]float64{}
	for _, st := range r.Statements {
		out[st.Event] += r.StatementShare(st)
	}
	return out
}

// TestStatementLatencyTPCC (issue 33's acceptance): each TPC-C statement
// is timed by name, and per transaction the statements' latencies sum to
// within 5% of the transaction's (the rest is the client's own work);
// report show lists them; without --statement-latency none is timed.
func TestStatementLatencyTPCC(t *testing.T) {
	needServer(t)
	db := "tpcc_stmts"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	f := filepath.Join(t.TempDir(), "r.json")
	mustOK(t, tp(t, db, "run", "--warehouses=1", "--threads=4", "--time=3", "--statement-latency", "--result-file="+f), "run")
	r, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, st := range r.Statements {
		names[st.Key()] = true
	}
	for _, want := range []string{"new_order.begin", "new_order.stock_select", "new_order.order_line_insert", "new_order.commit",
		"payment.customer_by_name", "order_status.order_line_select", "delivery.new_order_delete", "stock_level.stock_count"} {
		if !names[want] {
			t.Errorf("no statement %s in %v", want, names)
		}
	}
	shares := stmtShares(r)
	for _, op := range r.Ops {
		if s := shares[op.Name]; op.Count > 0 && (s < 0.95 || s > 1.001) {
			t.Errorf("%s: its statements are %.1f%% of its latency, want 95-100%%", op.Name, 100*s)
		} else {
			t.Logf("%s: statements %.1f%% of its latency", op.Name, 100*s)
		}
	}
	show := inProcess("report", "show", f).stdout
	if !regexp.MustCompile(`(?m)^stock_level\.stock_count\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+%$`).MatchString(show) {
		t.Errorf("report show has no statement line:\n%s", show)
	}
	// Off by default (its cost), and when asked off.
	for _, off := range []string{"--statement-latency=false", "--threads=2"} {
		mustOK(t, tp(t, db, "run", "--warehouses=1", "--threads=2", "--time=1", off, "--result-file="+f), "run without")
		if r, err := result.Read(f); err != nil || len(r.Statements) != 0 {
			t.Errorf("%s: %d statements timed (%v)", off, len(r.Statements), err)
		}
	}
}

// TestStatementLatencySysbench: sysbench's statements under the names of
// oltp_common.lua's stmt_defs, each once per event as the test has it, sum
// to within 5% of the event's latency; sysbench's report is unchanged by
// them (the side-by-side tests compare every line).
func TestStatementLatencySysbench(t *testing.T) {
	needServer(t)
	db := "sb_stmts"
	freshDB(t, db)
	size := []string{"--tables=2", "--table-size=1000"}
	mustOK(t, sb(t, db, append([]string{"oltp_common", "prepare"}, size...)...), "prepare")
	for _, c := range []struct {
		test string
		per  map[string]int64 // executions per event
	}{
		{"oltp_read_write", map[string]int64{"begin": 1, "point_selects": 10, "simple_ranges": 1, "sum_ranges": 1, "order_ranges": 1,
			"distinct_ranges": 1, "index_updates": 1, "non_index_updates": 1, "deletes": 1, "inserts": 1, "commit": 1}},
		{"oltp_insert", map[string]int64{"inserts": 1}},
	} {
		f := filepath.Join(t.TempDir(), c.test+".json")
		mustOK(t, sb(t, db, append([]string{c.test, "--threads=2", "--time=2", "--statement-latency", "--result-file=" + f, "run"}, size...)...), c.test)
		r, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		events := r.Ops[0].Count
		got := map[string]int64{}
		for _, st := range r.Statements {
			if st.Event != c.test {
				t.Errorf("%s: statement %s in event %s", c.test, st.Name, st.Event)
			}
			got[st.Name] = st.Count
		}
		for name, per := range c.per {
			// The window's ends cut an event in flight per thread, and an
			// event rolled back on a deadlock ran some of its statements
			// once more.
			if n := got[name]; n < per*(events-2) || n > per*(events+2+r.Totals["errors"]) {
				t.Errorf("%s.%s: %d executions timed for %d events, want %d each", c.test, name, n, events, per)
			}
		}
		if len(got) != len(c.per) {
			t.Errorf("%s: statements %v", c.test, got)
		}
		if s := stmtShares(r)[c.test]; s < 0.95 || s > 1.001 {
			t.Errorf("%s: its statements are %.1f%% of its latency, want 95-100%%", c.test, 100*s)
		}
	}
	luaStatements(t, db, size)
}

// luaStatements: a Lua script's prepared statements are timed under their
// text (sysbench's own oltp_read_write.lua prepares one per table): ten
// point selects an event over the two tables, and the statements nearly
// all of the event (the rest is the script's own Lua); the first thread's
// are explained.
func luaStatements(t *testing.T, db string, size []string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "lua.json")
	mustOK(t, sb(t, db, append([]string{"/usr/share/sysbench/oltp_read_write.lua", "--threads=2", "--time=2", "--statement-latency", "--result-file=" + f, "run"}, size...)...), "lua")
	r, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	events := r.Ops[0].Count
	var points int64
	for _, st := range r.Statements {
		if st.Event != "oltp_read_write" {
			t.Errorf("statement %q in event %s", st.Name, st.Event)
		}
		if regexp.MustCompile(`^SELECT c FROM sbtest\d WHERE id=\?$`).MatchString(st.Name) {
			points += st.Count
		}
	}
	// An event redone after a deadlock ran its statements once more.
	if points < 10*(events-2) || points > 10*(events+2+r.Totals["errors"]) || len(r.Statements) != 2+9*2 {
		t.Errorf("%d point selects timed for %d events, %d statements", points, events, len(r.Statements))
	}
	if s := stmtShares(r)["oltp_read_write"]; s < 0.9 || s > 1.001 {
		t.Errorf("the script's statements are %.1f%% of its event's latency, want 90-100%%", 100*s)
	}
	if r.Evidence == nil || len(r.Evidence.Plans) == 0 {
		t.Errorf("no plan of the script's statements: %+v", r.Evidence)
	}
}
