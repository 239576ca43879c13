package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/tpch"
)

func th(t *testing.T, db string, args ...string) res {
	t.Helper()
	return ob(t, nil, append(append([]string{"tpch"}, args...), connArgs(db)...)...)
}

// TestTPCH: prepare at SF 0.01, check dbgen's rows, the power and
// throughput tests with the refresh functions and QphH@Size in the result,
// a second run on the orders put back, random parameters, and bad input
// one line each.
func TestTPCH(t *testing.T) {
	needServer(t)
	db := "tpch_t"
	freshDB(t, db)
	mustOK(t, th(t, db, "prepare", "--sf=0.01"), "prepare")
	dir := t.TempDir()
	for i, extra := range [][]string{nil, {"--params=random", "--threads=3"}} {
		f := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
		r := th(t, db, append([]string{"run", "--sf=0.01", "--result-file=" + f}, extra...)...)
		mustOK(t, r, "run")
		res, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		streams := 2
		if extra != nil {
			streams = 3
		}
		counts := map[string]int64{}
		for _, op := range res.Ops {
			counts[op.Name] = op.Count
		}
		// Each query once in the power test and once in each stream;
		// a refresh pair in the power test and one per stream.
		for _, q := range tpch.Queries {
			if counts[q.Name] != int64(1+streams) {
				t.Errorf("run %d: %s ran %d times, want %d", i, q.Name, counts[q.Name], 1+streams)
			}
		}
		if counts["rf1"] != int64(1+streams) || counts["rf2"] != int64(1+streams) {
			t.Errorf("run %d: rf1 %d, rf2 %d times, want %d", i, counts["rf1"], counts["rf2"], 1+streams)
		}
		for _, k := range []string{"QphH", "Power", "Throughput", "GeoMeanPower"} {
			if res.Figures[k] <= 0 {
				t.Errorf("run %d: figure %s = %v", i, k, res.Figures[k])
			}
		}
		if !strings.Contains(r.stdout, "QphH@0.01: ") || strings.Contains(r.stdout, "not the specification's") {
			t.Errorf("run %d: no QphH@0.01 line:\n%s", i, r.stdout)
		}
	}
	// The refresh functions' orders are put back before a check.
	chk := th(t, db, "check", "--sf=0.01")
	mustOK(t, chk, "check")
	if n := strings.Count(chk.stdout, "PASS"); n != 8 || strings.Contains(chk.stdout, "FAIL") {
		t.Errorf("check: %d PASS, want 8:\n%s", n, chk.stdout)
	}
	// One test alone, a subset of the queries: QphH is not a figure, and says why.
	f := filepath.Join(dir, "power.json")
	mustOK(t, th(t, db, "run", "--sf=0.01", "--test=power", "--queries=q1,q6", "--refresh=false", "--result-file="+f), "power")
	res, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Threads != 1 || res.Figures["Power"] <= 0 || res.Figures["QphH"] != 0 || !strings.Contains(res.NotApplicable["QphH"], "one test ran") {
		t.Errorf("--test=power: %d threads, figures %v, not applicable %v", res.Threads, res.Figures, res.NotApplicable)
	}
	for _, op := range res.Ops {
		if want := map[string]int64{"q1": 1, "q6": 1}[op.Name]; op.Count != want {
			t.Errorf("--test=power --queries=q1,q6 --refresh=false: %s ran %d times, want %d", op.Name, op.Count, want)
		}
	}
	// Six streams of one quick query each end before the refresh stream's
	// six pairs could: the run waits for them all.
	f = filepath.Join(dir, "q6.json")
	mustOK(t, th(t, db, "run", "--sf=0.01", "--queries=q6", "--threads=6", "--result-file="+f), "q6")
	if res, err = result.Read(f); err != nil {
		t.Fatal(err)
	}
	for _, op := range res.Ops {
		if (op.Name == "rf1" || op.Name == "rf2" || op.Name == "q6") && op.Count != 7 {
			t.Errorf("six streams of q6: %s ran %d times, want 7 (the power test and six)", op.Name, op.Count)
		}
	}
	// cleanup drops the tables; a run then names prepare.
	defer func() {
		mustOK(t, th(t, db, "cleanup", "--sf=0.01"), "cleanup")
		r := th(t, db, "run", "--sf=0.01")
		if r.code == 0 || !strings.Contains(r.stderr, "run oltpbench tpch prepare --sf=0.01 first") {
			t.Errorf("a run after cleanup: exit %d, %s", r.code, r.stderr)
		}
	}()
	// --query-timeout has the server stop a query: Q1 at SF 0.01 takes
	// tens of milliseconds.
	f = filepath.Join(dir, "timeout.json")
	to := th(t, db, "run", "--sf=0.01", "--test=power", "--queries=q1", "--refresh=false", "--query-timeout=1ms", "--result-file="+f)
	mustOK(t, to, "timeout")
	if res, err = result.Read(f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(to.stdout, "1 error(s)") || res.Figures["Power"] != 0 || !strings.Contains(res.NotApplicable["Power"], "did not end") {
		t.Errorf("--query-timeout=1ms: Q1 not stopped:\n%s\n%v", to.stdout, res.NotApplicable)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--sf=0"}, "invalid --sf=0: a scale factor above 0"},
		{[]string{"run", "--sf=1.5"}, "invalid --sf=1.5: from 1 up a scale factor is a whole number"},
		{[]string{"run", "--sf=0.01", "--queries=q1,q23"}, `unknown query "q23" in --queries: TPC-H's queries are q1 to q22`},
		{[]string{"run", "--sf=0.01", "--params=fixed"}, "invalid --params=fixed: default or random"},
		{[]string{"run", "--sf=0.01", "--check"}, "--check compares with the specification's answers, made at --sf=1"},
		{[]string{"run", "--sf=1", "--check"}, "--check compares with the answers of the data as loaded, and RF1 adds orders before the queries: add --refresh=false"},
		{[]string{"run", "--sf=0.1"}, "hold 100 suppliers, and --sf=0.1 has 1000"},
		{[]string{"run", "--sf=0.01", "--test=power", "--threads=4"}, "--test=power runs one stream"},
	} {
		r := th(t, db, tc.args...)
		if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestTPCHTiFlashOnMariaDB: TiFlash replicas are TiDB's: asked of
// MariaDB, prepare says so in one line.
func TestTPCHTiFlashOnMariaDB(t *testing.T) {
	needServer(t)
	freshDB(t, "tpch_tf")
	r := th(t, "tpch_tf", "prepare", "--sf=0.001", "--tiflash-replica=1")
	if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "--tiflash-replica is TiDB's") {
		t.Errorf("prepare --tiflash-replica=1 on MariaDB: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestTPCHAnswersMatchPostgres: the 22 queries with the validation
// parameters give on MariaDB what PostgreSQL gives over the CSV files
// `csv tpch` writes, at SF 0.01 (OLTPBENCH_TPCH_SF for another; at 1, run
// --check's answers against the specification's answer set too).
func TestTPCHAnswersMatchPostgres(t *testing.T) {
	needServer(t)
	sf := "0.01"
	if v := os.Getenv("OLTPBENCH_TPCH_SF"); v != "" {
		sf = v
	}
	db := "tpch_answers"
	freshDB(t, db)
	dir := t.TempDir()
	mustOK(t, ob(t, nil, "csv", "tpch", "--sf="+sf, "--dir="+dir, "--mysql-db="+db), "csv")
	mustOK(t, th(t, db, "prepare", "--sf="+sf), "prepare")
	psql := pgLoad(t, db, dir, "testdata/tpch-postgres.sql")
	maria := openDB(t, db)
	params := tpch.DefaultParams(1)
	if sf != "1" {
		var f float64
		fmt.Sscan(sf, &f)
		params = tpch.DefaultParams(f)
	}
	empty := 0
	for _, q := range tpch.Queries {
		stmts := q.Statements(params[q.N], 0)
		var mine, theirs [][]string
		for _, s := range stmts {
			if !strings.HasPrefix(s, "select") {
				if _, err := maria.Exec(s); err != nil {
					t.Fatal(err)
				}
				continue
			}
			mine = mariaRows(t, maria, s)
		}
		for _, l := range strings.Split(strings.TrimSuffix(psql(db, "-c", strings.Join(stmts, ";\n")+";"), "\n"), "\n") {
			if l != "" {
				theirs = append(theirs, strings.Split(l, "\x1f"))
			}
		}
		if len(mine) == 0 {
			empty++
		}
		if diff := compareRows(mine, theirs); diff != "" {
			t.Errorf("%s: MariaDB and PostgreSQL differ: %s", q.Name, diff)
		}
	}
	if empty > 4 {
		t.Errorf("%d of the 22 queries return no rows at SF %s: the comparison shows little", empty, sf)
	}
	if sf != "1" {
		return
	}
	// At SF 1, run --check compares each answer with the specification's
	// answer set while running: all 22 match; the rows under Q6 changed
	// (their prices doubled) make Q6's answer differ, and the run says so.
	r := th(t, db, "run", "--sf=1", "--test=power", "--refresh=false", "--check")
	if r.code != 0 || !strings.Contains(r.stdout, "Answers: 22 of 22 match the specification's answer set") {
		t.Errorf("run --check at SF 1: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := maria.Exec("UPDATE lineitem SET l_extendedprice = 2 * l_extendedprice WHERE l_shipdate >= '1994-01-01' AND l_shipdate < '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"); err != nil {
		t.Fatal(err)
	}
	r = th(t, db, "run", "--sf=1", "--test=power", "--refresh=false", "--check", "--queries=q6")
	if !strings.Contains(r.stdout, "Answers: q6 differ from the specification's answer set") {
		t.Errorf("run --check with Q6's answer changed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestTPCHPlan: a plan's TPC-H step runs its repeats, resumes with nothing
// to do, and report compare reads its results.
func TestTPCHPlan(t *testing.T) {
	needServer(t)
	freshDB(t, "tpch_plan")
	p := writePlan(t, `[dataset]
workload = "tpch"
options = { sf = "0.01" }
[[step]]
name = "qphh"
threads = [2]
repeats = 2
time = "60s" # the tests end sooner at SF 0.01
`)
	dir := t.TempDir()
	r := ob(t, nil, planArgs(p, dir, "tpch_plan")...)
	mustOK(t, r, "plan run")
	files := resultFiles(t, dir)
	if len(files) != 2 {
		t.Fatalf("the plan's results: %v\n%s", files, r.stdout)
	}
	for _, f := range files {
		res, err := result.Read(filepath.Join(dir, f))
		if err != nil || res.Figures["QphH"] <= 0 {
			t.Errorf("%s: %v, QphH %v", f, err, res.Figures["QphH"])
		}
	}
	again := ob(t, nil, planArgs(p, dir, "tpch_plan")...)
	if !strings.Contains(again.stdout, "All 2 cells of the plan are done") {
		t.Errorf("resumed:\n%s", again.stdout)
	}
	cmp := ob(t, nil, "report", "compare", dir, dir)
	if cmp.code != 0 || !strings.Contains(cmp.stdout, "TPC-H") || !strings.Contains(cmp.stdout, "QphH") {
		t.Errorf("report compare of the plan's folder: exit %d\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
	hist := ob(t, nil, "report", "history", dir)
	if hist.code != 0 || !strings.Contains(hist.stdout, "TPC-H") || !strings.Contains(hist.stdout, "2 runs") {
		t.Errorf("report history of the plan's folder: exit %d\n%s%s", hist.code, hist.stdout, hist.stderr)
	}
}

// TestReleaseGatePlan: one plan covers YCSB and TPC-H, each dataset in a
// database of its own, on two deployed "versions" (B commits synced): both
// datasets are made, both steps run on each version, the report at the end
// compares both workloads, and the plan run again measures nothing.
func TestReleaseGatePlan(t *testing.T) {
	srv, conn := versionServer(t)
	conn = slices.DeleteFunc(conn, func(a string) bool { return strings.HasPrefix(a, "--mysql-db=") })
	p := versionsPlanOf(t, srv, `workload = "ycsb"
options = { property-file = "workloads/workloadb", prop = "recordcount=2000", mysql-db = "gate_ycsb" }
[[datasets]]
workload = "tpch"
options = { sf = "0.01", mysql-db = "gate_tpch" }`, `list = ["A", "B"]`, `[[step]]
name = "ycsb-b"
test = "mysql"
threads = [2]
time = "2s"
[[step]]
workload = "tpch"
threads = [2]
time = "60s"
`)
	dir := t.TempDir()
	args := append([]string{"plan", "run", p, "--result-dir", dir, "--"}, conn...)
	r := ob(t, nil, args...)
	mustOK(t, r, "plan run")
	for _, v := range []string{"A", "B"} {
		files := resultFiles(t, filepath.Join(dir, v))
		if !slices.Equal(files, []string{"tpch-2threads-r1.json", "ycsb-b-2threads-r1.json"}) {
			t.Errorf("%s holds %v", v, files)
		}
		res, err := result.Read(filepath.Join(dir, v, "tpch-2threads-r1.json"))
		if err != nil || res.Figures["QphH"] <= 0 || res.Version == nil || res.Version.Name != v {
			t.Errorf("%s's TPC-H result: %v, QphH %v, version %+v", v, err, res.Figures["QphH"], res.Version)
		}
	}
	for _, title := range []string{"YCSB", "TPC-H"} {
		if !strings.Contains(r.stdout, title) {
			t.Errorf("the report at the end has no %s:\n%s", title, r.stdout)
		}
	}
	again := ob(t, nil, args...)
	mustOK(t, again, "plan run again")
	if strings.Contains(again.stdout, "== cell") {
		t.Errorf("the plan run again measured a cell:\n%s", again.stdout)
	}
	bad := ob(t, nil, append([]string{"plan", "run", p, "--result-dir", t.TempDir(), "--", "--mysql-db=x"}, conn...)...)
	if bad.code == 0 || !strings.Contains(bad.stderr, "the plan's datasets name their databases") {
		t.Errorf("--mysql-db after -- with two datasets: exit %d, %s", bad.code, bad.stderr)
	}
}

// TestTPCHBeside: what runs beside any run works for TPC-H's: live metrics
// (its figures at the end, per client) and an event (a statement at the
// run's start, recorded with its outcome).
func TestTPCHBeside(t *testing.T) {
	needServer(t)
	db := "tpch_beside"
	freshDB(t, db)
	mustOK(t, th(t, db, "prepare", "--sf=0.01"), "prepare")
	f := filepath.Join(t.TempDir(), "r.json")
	body := scrapeDuring(t, append([]string{"tpch", "run", "--sf=0.01", "--client-id=tpchm", "--event=at=0s;sql=SELECT 1",
		"--result-file=" + f}, connArgs(db)...)...)
	for _, want := range []string{`figure="QphH"`, `figure="Power"`, `oltpbench_latency_seconds_bucket{client="tpchm"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the last scrape lacks %s:\n%.3000s", want, body)
		}
	}
	res, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 1 || res.Events[0].Outcome != "ok" || res.Events[0].Text != "SELECT 1" {
		t.Errorf("the run's events: %+v", res.Events)
	}
}

// TestTPCHKilledRun: a run killed (SIGKILL) once its refresh functions
// changed the orders leaves nothing the next check does not put back:
// every table holds dbgen's rows again, none lost or doubled; the first
// time, a run puts them back behind a lock held longer than the checks'
// bound.
func TestTPCHKilledRun(t *testing.T) {
	needServer(t)
	db := "tpch_kill"
	freshDB(t, db)
	mustOK(t, th(t, db, "prepare", "--sf=0.01"), "prepare")
	conn := openDB(t, db)
	for i := 0; i < 3; i++ {
		cmd, _, _ := startBinary(t, append([]string{"tpch", "run", "--sf=0.01", "--threads=4", "--report-interval=0"}, connArgs(db)...)...)
		deadline := time.Now().Add(30 * time.Second)
		for {
			var n int
			if err := conn.QueryRow("SELECT COUNT(*) FROM orders WHERE o_orderkey & 24 = 8").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(2 * time.Millisecond) // polling the server for RF1's first orders
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if i == 0 {
			restoreBehindLock(t, db, conn)
		}
		chk := th(t, db, "check", "--sf=0.01")
		mustOK(t, chk, "check")
		if n := strings.Count(chk.stdout, "PASS"); n != 8 {
			t.Fatalf("check after a killed run: %d PASS, want 8:\n%s", n, chk.stdout)
		}
	}
}

// restoreBehindLock: with one of RF1's orders locked by another session
// for longer than the checks before a run may take (10 s), a run puts the
// orders back once the lock is let go, and runs: putting them back is as
// long as the dataset's changes, not one of the checks' reads.
func restoreBehindLock(t *testing.T, db string, conn *sql.DB) {
	t.Helper()
	tx, err := conn.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var key int64
	if err := tx.QueryRow("SELECT o_orderkey FROM orders WHERE o_orderkey & 24 = 8 LIMIT 1 FOR UPDATE").Scan(&key); err != nil {
		t.Fatal(err)
	}
	const hold = 12 * time.Second
	start := time.Now()
	release := time.AfterFunc(hold, func() { tx.Rollback() }) // the lock outlasts the checks' 10 s
	defer release.Stop()
	r := th(t, db, "run", "--sf=0.01", "--test=power", "--queries=q6", "--refresh=false", "--report-interval=0")
	took := time.Since(start)
	tx.Rollback()
	if r.code != 0 || took < hold {
		t.Errorf("a run with order %d locked for %s: exit %d after %s, want 0 after the lock\n%s%s", key, hold, r.code, took.Round(time.Millisecond), r.stdout, r.stderr)
	}
}

// TestWhyTPCH: report compare's evidence names the cause of a TPC-H
// slowdown: version B is the same dataset without lineitem's index on
// l_partkey, which Q17 and its subquery read by; --why names Q17's
// statement slower on the server and on the client, its plan from the
// index to a scan, and the rows the scan read; no line of the queries
// that did not run.
func TestWhyTPCH(t *testing.T) {
	needServer(t)
	srv := t.TempDir()
	conn := append(psServer(t, srv, "256M"), "--mysql-db=whytpch", "--statement-latency")
	t.Cleanup(func() { stopServer(t, srv, true) })
	p := writePlan(t, `[dataset]
workload = "tpch"
options = { sf = "0.01" }
[[step]]
name = "q17"
threads = [2]
repeats = 2
time = "60s"
options = { queries = "q17", refresh = "false" }
`)
	out := whyAcross(t, p, conn, "whytpch", "ALTER TABLE lineitem DROP INDEX idx_l_partkey_suppkey")
	for _, want := range []string{"Why (the evidence):\n  2 threads, A -> B",
		"    statement SELECT SUM ( `l_extendedprice` ) / ? AS `avg_yearly` FROM `lineitem` , `part` WHERE `p_partkey` = `l...: server latency ",
		"    client statement q17.q17: client latency ",
		"    plan of select sum(l_extendedprice) / 7.0 as avg_yearly from lineitem, part where p_partkey = l_partkey and ...: ",
		"lineitem ref idx_l_partkey_suppkey -> lineitem ALL",
		"    counter Handler_read_rnd_next per event: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report compare lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "q1 mean ms") || !strings.Contains(out, "q17 mean ms") {
		t.Errorf("the figures list queries that did not run, or not Q17:\n%s", out)
	}
}
