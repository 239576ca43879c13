package main

import (
	"database/sql"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// psServer starts a MariaDB of the test's own with performance_schema on
// (and the consumer that times prepared statements), a buffer pool of pool;
// it returns the server's folder and connection options.
func psServer(t *testing.T, dir, pool string) []string {
	t.Helper()
	scripts := os.Getenv("OLTPBENCH_TEST_SCRIPTS")
	if scripts == "" {
		t.Skip("needs scripts/test.sh's scripts")
	}
	c := exec.Command(filepath.Join(scripts, "mariadb-start.sh"), dir)
	c.Env = append(os.Environ(), "MARIADB_BUFFER_POOL="+pool,
		"MARIADB_EXTRA_ARGS=--performance-schema=ON --performance-schema-consumer-events-statements-current=ON")
	if o, err := c.CombinedOutput(); err != nil {
		t.Fatalf("starting the performance_schema server: %v %s", err, o)
	}
	port, err := os.ReadFile(filepath.Join(dir, "port"))
	if err != nil {
		t.Fatal(err)
	}
	return []string{"--mysql-host=127.0.0.1", "--mysql-port=" + strings.TrimSpace(string(port)), "--mysql-user=root"}
}

func stopServer(t *testing.T, dir string, wipe bool) {
	args := []string{dir}
	if wipe {
		args = append(args, "--wipe")
	}
	exec.Command(filepath.Join(os.Getenv("OLTPBENCH_TEST_SCRIPTS"), "mariadb-stop.sh"), args...).Run()
}

// whyPlan is two read-only steps on the index k, four repeats each; its
// dataset is loaded and settled before the first version (settled).
const whyPlan = `[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 10000 }
[warmup]
analyze = true
[[step]]
test = "select_random_points"
threads = [4]
time = "1s"
repeats = 4
[[step]]
test = "select_random_ranges"
threads = [4]
time = "1s"
repeats = 4
`

// TestWhyEvidence (issue 33's acceptance, its server parts): three
// versions of a plan reading by the secondary index k, A and B alike, C
// after DROP INDEX k_1. report compare names, between B and C and only
// there, both statements slower on the server and using no index, and
// Handler_read_rnd_next per event up by more than 10x; A -> B names no
// cause. Results without evidence still compare, saying so.
func TestWhyEvidence(t *testing.T) {
	needServer(t)
	srv := t.TempDir()
	conn := append(psServer(t, srv, "256M"), "--mysql-db=why", "--statement-latency")
	t.Cleanup(func() { stopServer(t, srv, true) })
	// MariaDB turns index condition pushdown on and off between runs of
	// one dataset (its Handler_icp_* counters then differ between A and B,
	// which are one server: once in a CI-like run after settling): off.
	execOn(t, conn, "", "SET GLOBAL optimizer_switch = 'index_condition_pushdown=off'")
	settled(t, conn)
	alone(t) // a verdict between versions from repeats: other tests' load drifts it
	p := writePlan(t, whyPlan)
	dirs := planVersions(t, p, conn, "why", "C", "A", "B", "C")
	r := inProcess("report", "compare", dirs["A"], dirs["B"], dirs["C"], "--names=A,B,C")
	out := r.stdout
	for _, want := range []string{
		// A -> B may come first where noise moved the QPS: it then names
		// no cause (below).
		"Why (the evidence):\n  4 threads, ",
		"  4 threads, B -> C:\n    statement SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?): server latency ",
		"    statement SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ?",
		"; no index used in 100% of executions (0% before)",
		"    plan of SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?",
		": sbtest1 range k_1 (covering) -> sbtest1 ALL\n",
		": sbtest1 range k_1 -> sbtest1 ALL\n",
		// The client sees it too: the statement's own latency, nearly all
		// of the event's time.
		"    client statement select_random_points.random_points: client latency ",
		"    client statement select_random_ranges.random_ranges: client latency ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report compare lacks %q:\n%s", want, out)
		}
	}
	// A and B are one server: where noise makes A -> B look worse, the
	// evidence names no cause for it.
	if n, clean := strings.Count(out, "A -> B:"), strings.Count(out, "A -> B:\n    no statement, plan or server counter moved beyond the repeats' spread\n"); n != clean {
		t.Errorf("a cause named between A and B:\n%s", out)
	}
	m := regexp.MustCompile(`counter Handler_read_rnd_next per event: ([\d.e+-]+) -> ([\d.e+-]+)`).FindAllStringSubmatch(out, -1)
	if len(m) != 2 {
		t.Fatalf("Handler_read_rnd_next named %d times, want once a step:\n%s", len(m), out)
	}
	for _, x := range m {
		a, _ := strconv.ParseFloat(x[1], 64)
		b, _ := strconv.ParseFloat(x[2], 64)
		if b < 10*a || b < 1000 {
			t.Errorf("Handler_read_rnd_next per event %v -> %v: want up by 10x and more", a, b)
		}
	}
	all := inProcess("report", "compare", dirs["A"], dirs["B"], dirs["C"], "--names=A,B,C", "--why").stdout
	if n := strings.Count(all, "  4 threads, A -> B:\n    no statement, plan or server counter moved beyond the repeats' spread\n"); n != 2 {
		t.Errorf("--why named a cause between A and B (%d clean of 2):\n%s", n, all)
	}
	if m := regexp.MustCompile(`client statement select_random_ranges.random_ranges: client latency [\d.]+ -> [\d.]+ ms an execution \(([\d.]+)x\), (\d+)% of select_random_ranges's time`).FindStringSubmatch(out); m == nil {
		t.Errorf("no client latency of random_ranges:\n%s", out)
	} else if x, _ := strconv.ParseFloat(m[1], 64); x < 10 || atoi(m[2]) < 90 {
		t.Errorf("random_ranges on the client %vx slower, %s%% of the event: want 10x and more, nearly all of it", x, m[2])
	}
	for _, c := range []struct{ format, want string }{{"markdown", "- 4 threads, B -> C:\n  - statement SELECT"},
		{"html", `<div class="why"><p>why, 4 threads, B -&gt; C:</p><ul><li>statement SELECT`},
		{"html", `<svg class="bars" `}, {"html", `select_random_ranges.random_ranges</text>`}} {
		format, want := c.format, c.want
		if got := inProcess("report", "compare", dirs["A"], dirs["B"], dirs["C"], "--names=A,B,C", "--format="+format).stdout; !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", format, want, got)
		}
	}
	whyWithoutEvidence(t, dirs["C"])
	if show := inProcess("report", "show", filepath.Join(dirs["C"], "select_random_ranges-4threads-r1.json")).stdout; !regexp.MustCompile(
		`(?m)^\s+\d+\s+[\d.]+\s+[\d.]+\s+100%  SELECT count\(k\) FROM sbtest1 WHERE k BETWEEN`).MatchString(show) {
		t.Errorf("report show has no statement line:\n%s", show)
	}
}

// settled loads whyPlan's dataset on the server conn names and reads it
// until the server has settled: for its first seconds after a load,
// MariaDB answers select_random_ranges' queries through index condition
// pushdown (Handler_icp_attempts), then no longer, whatever the table's
// statistics say. A version measured in those seconds runs otherwise than
// one after, a real difference that the test's A and B must not have.
func settled(t *testing.T, conn []string) {
	t.Helper()
	mustOK(t, ob(t, nil, append([]string{"sysbench", "select_random_ranges", "--tables=1", "--table-size=10000", "prepare"}, conn...)...), "prepare")
	port := strings.TrimPrefix(conn[1], "--mysql-port=")
	d, err := sql.Open("mysql", "root@tcp(127.0.0.1:"+port+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	icp := func() int64 {
		var name string
		var n int64
		if err := d.QueryRow("SHOW GLOBAL STATUS LIKE 'Handler_icp_attempts'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := 0; ; i++ {
		before := icp()
		mustOK(t, ob(t, nil, append([]string{"sysbench", "select_random_ranges", "--tables=1", "--table-size=10000", "--threads=4", "--time=1", "run"}, conn...)...), "settling run")
		if icp() == before {
			return
		}
		if i == 30 {
			t.Fatal("the server still pushes index conditions down after 30 runs of select_random_ranges")
		}
	}
}

// planVersions runs plan p once per version, each into a folder of its
// own, on the server conn names: before the version drop, sbtest1 of db
// loses its index k_1.
func planVersions(t *testing.T, p string, conn []string, db, drop string, versions ...string) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	for _, v := range versions {
		if v == drop {
			execOn(t, conn, db, "ALTER TABLE sbtest1 DROP INDEX k_1")
		}
		dirs[v] = t.TempDir()
		mustOK(t, ob(t, nil, append([]string{"plan", "run", p, "--result-dir", dirs[v], "--"}, conn...)...), "version "+v)
	}
	return dirs
}

// execOn runs stmt in db on the server of conn (psServer's options: host,
// then port).
func execOn(t *testing.T, conn []string, db, stmt string) {
	t.Helper()
	d, err := sql.Open("mysql", "root@tcp(127.0.0.1:"+strings.TrimPrefix(conn[1], "--mysql-port=")+")/"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

// whyAcross runs plan p as version A, then stmt on the server (in db),
// then p again as version B, and returns report compare --why of A and B.
func whyAcross(t *testing.T, p string, conn []string, db, stmt string) string {
	t.Helper()
	a, b := t.TempDir(), t.TempDir()
	mustOK(t, ob(t, nil, append([]string{"plan", "run", p, "--result-dir", a, "--"}, conn...)...), "version A")
	execOn(t, conn, db, stmt)
	mustOK(t, ob(t, nil, append([]string{"plan", "run", p, "--result-dir", b, "--"}, conn...)...), "version B")
	out := inProcess("report", "compare", a, b, "--names=A,B", "--why").stdout
	if i := strings.Index(out, "Why ("); i >= 0 {
		t.Logf("%s", out[i:])
	}
	return out
}

// whyWithoutEvidence: a version whose results have no evidence (older
// files) compares, and the report says what is missing.
func whyWithoutEvidence(t *testing.T, with string) {
	t.Helper()
	old := t.TempDir()
	for _, f := range resultFiles(t, with) {
		r, err := result.Read(filepath.Join(with, f))
		if err != nil {
			t.Fatal(err)
		}
		r.Evidence = nil
		b, _ := json.Marshal(r)
		if err := os.WriteFile(filepath.Join(old, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := inProcess("report", "compare", old, with, "--names=old,new", "--why")
	if r.code != 0 || !strings.Contains(r.stdout, "missing: old: no server evidence in its results (written before oltpbench read it, or a dry run)") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestEvidenceBufferPool: the same reads on a buffer pool of 6 MB (MariaDB's
// least; the 5 MB is below it), smaller
// than the dataset, name Innodb_buffer_pool_reads per event. A count of
// reads, not a speed: it holds on a busy machine.
func TestEvidenceBufferPool(t *testing.T) {
	needServer(t)
	srv := t.TempDir()
	conn := append(psServer(t, srv, "256M"), "--mysql-db=pool")
	t.Cleanup(func() { stopServer(t, srv, true) })
	p := writePlan(t, strings.Replace(strings.Split(whyPlan, "[[step]]\ntest = \"select_random_ranges\"")[0], "10000", "200000", 1))
	big, small := t.TempDir(), t.TempDir()
	mustOK(t, ob(t, nil, append([]string{"plan", "run", p, "--result-dir", big, "--"}, conn...)...), "256 MB")
	stopServer(t, srv, false)
	psServer(t, srv, "6M") // MariaDB's least for 16 KiB pages
	mustOK(t, ob(t, nil, append([]string{"plan", "run", p, "--result-dir", small, "--"}, conn...)...), "6 MB")
	out := inProcess("report", "compare", big, small, "--names=256MB,6MB", "--why").stdout
	if !regexp.MustCompile(`counter Innodb_buffer_pool_reads per event: [\d.e+-]+ -> [\d.e+-]+ \(`).MatchString(out) {
		t.Errorf("no Innodb_buffer_pool_reads:\n%s", out)
	}
}

// TestEvidenceWithoutPerformanceSchema: the test server runs without
// performance_schema: a run keeps the counters and says once what is
// missing.
func TestEvidenceWithoutPerformanceSchema(t *testing.T) {
	needServer(t)
	db := "evidence_off"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_point_select", "--tables=1", "--table-size=1000", "prepare"), "prepare")
	f := filepath.Join(t.TempDir(), "r.json")
	mustOK(t, sb(t, db, "oltp_point_select", "--tables=1", "--table-size=1000", "--time=1", "--result-file="+f, "run"), "run")
	r, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	ev := r.Evidence
	if ev == nil {
		t.Fatal("no evidence")
	}
	// One execution an event; the start and the end are read as the window
	// opens and closes, reads that a busy machine delays by a fraction of
	// the 1 s window.
	execs, events := ev.Counters["Com_stmt_execute"], float64(r.Totals["events"])
	if ev == nil || len(ev.Counters) < 100 || math.Abs(execs-events) > 0.15*events || len(ev.Statements) != 0 ||
		len(ev.Missing) != 1 || !strings.Contains(ev.Missing[0], "performance_schema is off (start the server with performance_schema=ON)") {
		t.Fatalf("evidence %+v", ev)
	}
	if show := inProcess("report", "show", f).stdout; !strings.Contains(show, "server evidence missing: statement figures: performance_schema is off") {
		t.Errorf("report show:\n%s", show)
	}
}

// TestWhyTPCC: TPC-C's statements are prepared, and their figures come
// from performance_schema's prepared statements: with customer's secondary
// index (by last name) dropped, report compare names the by-name lookup
// slower and its plan changed. (order_line has no secondary index in this
// layout to drop; customer's is the one Payment and Order-Status read by.)
func TestWhyTPCC(t *testing.T) {
	needServer(t)
	srv := t.TempDir()
	server := append(psServer(t, srv, "256M"), "--mysql-db=whytpcc")
	conn := append(slices.Clip(server), "--statement-latency")
	t.Cleanup(func() { stopServer(t, srv, true) })
	// The plan's dataset loaded beside the shards: the plan finds it.
	preparedOn(t, server[:3], "whytpcc", "tpcc", "prepare", "--warehouses=1")
	alone(t) // a verdict between versions from repeats: other tests' load drifts it
	// No reset between the repeats: a reload would make the index again.
	p := writePlan(t, "[dataset]\nworkload = \"tpcc\"\noptions = { warehouses = 1 }\n[[step]]\nthreads = [4]\ntime = \"1s\"\nrepeats = 4\n")
	// Version B: the same dataset without the index. --why: the cause is
	// named whether or not 4 noisy repeats of 1 s make the drop
	// significant (the index's cost is 10-20% of tpmC here).
	out := whyAcross(t, p, conn, "whytpcc", "ALTER TABLE customer DROP INDEX idx_customer")
	for _, want := range []string{"Why (the evidence):\n  4 threads, A -> B:\n", "    statement SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first: server latency ",
		"    client statement payment.customer_by_name: client latency ",
		"    plan of SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first: "} {
		if !strings.Contains(out, want) {
			t.Errorf("report compare lacks %q:\n%s", want, out)
		}
	}
}

// TestIntervalCounters: with --interval-counters every report interval
// carries the server's counters that changed in it, read as the interval is
// cut: point select's prepared executions in the intervals are their events
// (one each); without the option no interval has them.
func TestIntervalCounters(t *testing.T) {
	needServer(t)
	db := "interval_counters"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_point_select", "--tables=1", "--table-size=1000", "prepare"), "prepare")
	for _, on := range []bool{true, false} {
		f := filepath.Join(t.TempDir(), "r.json")
		args := []string{"oltp_point_select", "--tables=1", "--table-size=1000", "--threads=2", "--time=3", "--report-interval=1", "--result-file=" + f, "run"}
		if on {
			args = append(args, "--interval-counters")
		}
		mustOK(t, sb(t, db, args...), "run")
		r, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Intervals) != 3 {
			t.Fatalf("%d intervals", len(r.Intervals))
		}
		// The server's counters are read as each interval is cut, a read that
		// a busy machine delays by a fraction of a second: the executions
		// it counts late are the next interval's. Each interval holds its
		// events within that, and the intervals together all of them.
		var allExecs, allEvents float64
		for i, iv := range r.Intervals {
			if !on {
				if iv.ServerCounters != nil {
					t.Errorf("interval %d has server counters without the option", i)
				}
				continue
			}
			execs, events := iv.ServerCounters["Com_stmt_execute"], float64(iv.Counts["events"])
			allExecs, allEvents = allExecs+execs, allEvents+events
			if events < 100 || math.Abs(execs-events) > 0.35*events+10 {
				t.Errorf("interval %d: %v prepared executions on the server, %v events", i, execs, events)
			}
		}
		if on && math.Abs(allExecs-allEvents) > 0.15*allEvents+10 {
			t.Errorf("%v prepared executions on the server in the intervals, %v events", allExecs, allEvents)
		}
	}
}

// TestWhyFewRepeats: a 3+3 comparison cannot be significant (the U test's
// least p at 3 and 3 is 0.1), so the verdict says too few repeats; the
// evidence of a drop beyond the repeats' spread (an index dropped) is shown
// all the same, marked as not significant. Without the index the reads are
// twenty times slower: every run of B below every run of A holds on a busy
// machine too.
func TestWhyFewRepeats(t *testing.T) {
	needServer(t)
	srv := t.TempDir()
	conn := append(psServer(t, srv, "256M"), "--mysql-db=whyfew")
	t.Cleanup(func() { stopServer(t, srv, true) })
	p := writePlan(t, strings.Split(whyPlan, "[[step]]\ntest = \"select_random_points\"")[0]+
		"[[step]]\ntest = \"select_random_ranges\"\nthreads = [4]\ntime = \"1s\"\nrepeats = 3\n")
	dirs := planVersions(t, p, conn, "whyfew", "B", "A", "B")
	out := inProcess("report", "compare", dirs["A"], dirs["B"], "--names=A,B").stdout
	for _, want := range []string{
		"4 threads: ~ no significant change (p=0.10, n=3+3; the test needs 4 repeats per side to tell anything)\n",
		"Why (the evidence):\n  4 threads, A -> B (throughput -",
		"%, not significant: p=0.100, n=3+3; every run of B is below every run of A):\n",
		": sbtest1 range k_1 (covering) -> sbtest1 ALL\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report compare lacks %q:\n%s", want, out)
		}
	}
}
