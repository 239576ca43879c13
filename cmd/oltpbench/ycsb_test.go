package main

import (
	"fmt"
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

func yc(t *testing.T, db string, args ...string) res {
	t.Helper()
	return ob(t, nil, append(append([]string{"ycsb"}, args...), connArgs(db)...)...)
}

// TestYCSB: go-ycsb's command lines: load through the loader, then the
// core workloads' runs, each counting operationcount operations in the
// mix and on the rows its distribution says; inserts grow the table by
// what they acknowledged; bad input is one line each.
func TestYCSB(t *testing.T) {
	needServer(t)
	db := "ycsb_t"
	freshDB(t, db)
	load := yc(t, db, "load", "mysql", "-P", "workloads/workloada", "-p", "recordcount=3000", "-p", "threadcount=4", "-p", "batch.size=500")
	mustOK(t, load, "load")
	// go-ycsb's lines: BATCH_INSERT a batch of 500, 6 of them; the
	// loader's own lines only with --notes.
	if !regexp.MustCompile(`(?m)^Run finished, takes .*\nBATCH_INSERT - Takes\(s\): [\d.]+, Count: 6, .*\nTOTAL  - Takes\(s\): [\d.]+, Count: 6, `).MatchString(load.stdout) ||
		strings.Contains(load.stdout, "Loaded ") {
		t.Errorf("load: not go-ycsb's lines:\n%s", load.stdout)
	}
	// Every interval (go-ycsb's --interval) the figures since the start; with
	// --notes the loader's lines too.
	freshDB(t, "ycsb_iv")
	iv := yc(t, "ycsb_iv", "load", "mysql", "-P", "workloads/workloada", "-p", "recordcount=50000", "--interval=0.2", "--notes")
	mustOK(t, iv, "load --interval")
	if !regexp.MustCompile(`(?m)^INSERT - Takes\(s\): [\d.]+, Count: [1-9]\d*, .*\nTOTAL  - .*\n(?s:.*)^Run finished, takes .*\nINSERT - Takes\(s\): [\d.]+, Count: 50000, `).MatchString(iv.stdout) ||
		!strings.Contains(iv.stdout+iv.stderr, "Loaded 50000 rows") {
		t.Errorf("load --interval=0.2 --notes: no interval lines before the end, or no loader line:\n%s%s", iv.stdout, iv.stderr)
	}
	// go-ycsb's batch.size: the rows of each of the loader's batches.
	var unit string
	if err := openDB(t, db).QueryRow("SELECT v FROM oltpbench_dataset WHERE k = 'unit'").Scan(&unit); err != nil || unit != "chunk:500" {
		t.Errorf("loaded with batch.size=500: unit %q (%v), want chunk:500", unit, err)
	}
	var rows int
	if err := openDB(t, db).QueryRow("SELECT COUNT(*) FROM usertable WHERE YCSB_KEY = 'user6284781860667377211' OR LENGTH(FIELD9) = 100").Scan(&rows); err != nil || rows != 3000 {
		t.Fatalf("usertable after the load: %d rows of 100-byte fields, want 3000 (%v)", rows, err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		file string
		ops  []string // the operations that ran
	}{
		{"workloada", []string{"ycsb_read", "ycsb_update"}},
		{"workloadc", []string{"ycsb_read"}},
		{"workloadd", []string{"ycsb_read", "ycsb_insert"}},
		{"workloade", []string{"ycsb_scan", "ycsb_insert"}},
		{"workloadf", []string{"ycsb_read", "ycsb_read_modify_write"}},
	} {
		f := filepath.Join(dir, tc.file+".json")
		r := yc(t, db, "run", "mysql", "-P", "workloads/"+tc.file, "-p", "recordcount=3000", "-p", "operationcount=2000", "-p", "threadcount=4", "--result-file="+f)
		mustOK(t, r, tc.file)
		res, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for _, op := range res.Ops {
			total += op.Count
			if op.Count > 0 != slices.Contains(tc.ops, op.Name) {
				t.Errorf("%s: %s ran %d times; want only %v", tc.file, op.Name, op.Count, tc.ops)
			}
		}
		if total != 2000 || res.Threads != 4 || res.Metric.Name != "ops/s" {
			t.Errorf("%s: %d operations on %d threads (%s), want 2000 on 4", tc.file, total, res.Threads, res.Metric.Name)
		}
		if tc.file == "workloadf" {
			// go-ycsb's lines count a read-modify-write's read under READ
			// and its update under UPDATE, and TOTAL the database calls.
			count := func(name string) int64 {
				m := regexp.MustCompile(`(?m)^`+name+` +- Takes\(s\): [0-9.]+, Count: (\d+),`).FindAllStringSubmatch(r.stdout, -1)
				if len(m) == 0 {
					return -1
				}
				n, _ := strconv.ParseInt(m[len(m)-1][1], 10, 64)
				return n
			}
			ops := map[string]int64{}
			for _, op := range res.Ops {
				ops[op.Name] = op.Count
			}
			rmw := ops["ycsb_read_modify_write"]
			if count("READ") != ops["ycsb_read"]+rmw || count("UPDATE") != rmw || count("READ_MODIFY_WRITE") != rmw ||
				count("TOTAL") != ops["ycsb_read"]+2*rmw {
				t.Errorf("workloadf's go-ycsb lines: READ %d, UPDATE %d, READ_MODIFY_WRITE %d, TOTAL %d; the run: %v\n%s",
					count("READ"), count("UPDATE"), count("READ_MODIFY_WRITE"), count("TOTAL"), ops, r.stdout)
			}
		}
	}
	// workloadd and workloade inserted 5% of 2000 operations each.
	if err := openDB(t, db).QueryRow("SELECT COUNT(*) FROM usertable").Scan(&rows); err != nil || rows < 3000+100 || rows > 3000+300 {
		t.Errorf("usertable after two runs with 5%% inserts: %d rows", rows)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "mysql", "-P", "workloads/workloada", "-p", "recordcont=5"}, "unknown property: recordcont (-p)"},
		{[]string{"run", "mysql", "-P", "nowhere/workload"}, "no workload file nowhere/workload"},
		{[]string{"load", "mysql", "-P", "workloads/workloada", "-p", "batch.size=0"}, "batch.size=0: out of range"},
		{[]string{"run", "mysql", "-p", "requestdistribution=gauss"}, "requestdistribution=gauss: uniform, zipfian, latest, hotspot, sequential or exponential"},
		{[]string{"run", "postgres", "-P", "workloads/workloada"}, `unexpected argument(s) "postgres": the database binding, mysql`},
		{[]string{"run", "mysql", "-P", "workloads/workloada", "-p", "recordcount=5000"}, "usertable has no record 4999 (user"},
	} {
		r := yc(t, db, tc.args...)
		if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestYCSBPlan: a plan with a YCSB step runs, resumes and compares as the
// other workloads' do; its time bounds the runs (no operationcount).
func TestYCSBPlan(t *testing.T) {
	needServer(t)
	freshDB(t, "ycsb_plan")
	p := writePlan(t, `[dataset]
workload = "ycsb"
options = { property-file = "workloads/workloadb", prop = "recordcount=2000" }
[[step]]
name = "b"
test = "mysql"
threads = [2, 4]
time = "2s"
`)
	dir := t.TempDir()
	r := ob(t, nil, planArgs(p, dir, "ycsb_plan")...)
	mustOK(t, r, "plan run")
	files := resultFiles(t, dir)
	if len(files) != 2 {
		t.Fatalf("the plan's results: %v\n%s", files, r.stdout)
	}
	for _, f := range files {
		res, err := result.Read(filepath.Join(dir, f))
		if err != nil || res.Seconds < 1.5 {
			t.Errorf("%s: %v, %.1f s: a step's time bounds it, not the file's operationcount", f, err, res.Seconds)
		}
	}
	again := ob(t, nil, planArgs(p, dir, "ycsb_plan")...)
	if !strings.Contains(again.stdout, "All 2 cells of the plan are done") {
		t.Errorf("resumed:\n%s", again.stdout)
	}
	cmp := ob(t, nil, "report", "compare", dir, dir)
	if cmp.code != 0 || !regexp.MustCompile(`(?m)^YCSB \(ycsb\)$`).MatchString(cmp.stdout) {
		t.Errorf("report compare of the plan's folder: exit %d\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
}

// TestYCSBSideBySide runs go-ycsb's command lines under go-ycsb and under
// oltpbench ycsb against the test server and compares every line both
// print, numbers masked (the properties, which go-ycsb prints in a random
// order, as a set). Opt-in: OLTPBENCH_GO_YCSB=/path/to/go-ycsb (its v1.0.3
// does not go install: build it from its own module).
func TestYCSBSideBySide(t *testing.T) {
	peer := os.Getenv("OLTPBENCH_GO_YCSB")
	if peer == "" {
		t.Skip("set OLTPBENCH_GO_YCSB to a go-ycsb binary")
	}
	needServer(t)
	mask := regexp.MustCompile(`[0-9]+(\.[0-9]+)?(ms|s|µs)?`)
	shape := func(out string) (props []string, rest []string) {
		in := false
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			switch {
			case strings.HasPrefix(l, "***************** properties"):
				in = true
			case in && strings.HasPrefix(l, "****"):
				in = false
				slices.Sort(props)
				rest = append(rest, "(properties)")
			case in:
				props = append(props, strings.Replace(l, `"mysql.db"="gy_ours"`, `"mysql.db"="gy_peer"`, 1)) // a database each
				continue
			}
			rest = append(rest, mask.ReplaceAllString(l, "N"))
		}
		return props, rest
	}
	for _, db := range []string{"gy_peer", "gy_ours"} {
		freshDB(t, db)
		openDB(t, "").Exec("CREATE DATABASE " + db)
	}
	conn := func(db string) []string {
		return []string{"-p", "mysql.host=" + testHost, "-p", "mysql.port=" + testPort, "-p", "mysql.user=root", "-p", "mysql.db=" + db}
	}
	// go-ycsb reads the workload files where it runs: the ones oltpbench ships.
	peerDir := t.TempDir()
	os.MkdirAll(filepath.Join(peerDir, "workloads"), 0o755)
	for _, w := range []string{"a", "b", "c", "d", "e", "f"} {
		src, _ := os.ReadFile(filepath.Join("..", "..", "ycsb", "workloads", "workload"+w))
		os.WriteFile(filepath.Join(peerDir, "workloads", "workload"+w), src, 0o644)
	}
	// Each tool loads its database, in batches of 100 rows (go-ycsb's
	// BATCH_INSERT), then again a row a statement (INSERT: oltpbench's
	// loader still writes units of many rows, each row's time its share of
	// its unit's), every line compared as the runs' below.
	compare := func(what, po, oo string) {
		t.Helper()
		pp, pr := shape(po)
		op, or := shape(oo)
		if !slices.Equal(pp, op) {
			t.Errorf("%s: the properties differ:\ngo-ycsb:   %q\noltpbench: %q", what, pp, op)
		}
		if !slices.Equal(pr, or) {
			t.Errorf("%s: the lines differ (numbers masked):\ngo-ycsb:\n%s\noltpbench:\n%s", what, strings.Join(pr, "\n"), strings.Join(or, "\n"))
		}
	}
	dir := t.TempDir()
	// both runs one command line under each tool, each on its database.
	both := func(args []string) (po []byte, perr error, oo []byte, oerr error) {
		pc := exec.Command(peer, append(args, conn("gy_peer")...)...)
		pc.Dir = peerDir
		po, perr = pc.CombinedOutput()
		oc := exec.Command(binPath, append(append([]string{"ycsb"}, args...), conn("gy_ours")...)...)
		oc.Dir = dir
		oo, oerr = oc.CombinedOutput()
		return po, perr, oo, oerr
	}
	for _, batch := range [][]string{{"-p", "batch.size=100"}, nil} {
		for _, db := range []string{"gy_peer", "gy_ours"} {
			openDB(t, "").Exec("DROP DATABASE " + db)
			openDB(t, "").Exec("CREATE DATABASE " + db)
		}
		po, perr, oo, oerr := both(append([]string{"load", "mysql", "-P", "workloads/workloada", "-p", "recordcount=2000", "-p", "threadcount=4"}, batch...))
		if perr != nil || oerr != nil {
			t.Fatalf("load %v: go-ycsb %v, oltpbench %v\n%s\n%s", batch, perr, oerr, po, oo)
		}
		compare(fmt.Sprintf("load %v", batch), string(po), string(oo))
	}
	for _, w := range []string{"workloada", "workloadb", "workloadc", "workloadd", "workloade", "workloadf"} {
		po, perr, oo, oerr := both([]string{"run", "mysql", "-P", "workloads/" + w, "-p", "recordcount=2000", "-p", "operationcount=4000", "-p", "threadcount=4"})
		if (perr == nil) != (oerr == nil) {
			t.Errorf("%s: go-ycsb %v, oltpbench %v", w, perr, oerr)
		}
		compare(w, string(po), string(oo))
	}
}

// TestYCSBClients: a release-gate plan of a YCSB step and a TPC-H step on
// two client machines (processes here): each client runs its share of the
// YCSB cell's threads, and the cell's result merges both parts'
// operations; the TPC-H cell, one whole (the power test first), runs on
// client 0 with all its streams while client 1 sits it out, and a TPC-H
// throughput test is split: client 0 runs streams 1 and 2 and the refresh
// stream's three pairs, client 1 stream 3, and the merged result holds
// every stream's queries and Throughput@Size over the common Ts.
func TestYCSBClients(t *testing.T) {
	needServer(t)
	freshDB(t, "ycsb_fleet")
	freshDB(t, "tpch_fleet")
	p := writePlan(t, `[dataset]
workload = "ycsb"
options = { property-file = "workloads/workloadb", prop = "recordcount=2000", mysql-db = "ycsb_fleet" }
[[datasets]]
workload = "tpch"
options = { sf = "0.01", mysql-db = "tpch_fleet" }
[[step]]
name = "b"
test = "mysql"
threads = [4]
time = "2s"
[[step]]
workload = "tpch"
threads = [2]
time = "60s"
[[step]]
name = "tp"
workload = "tpch"
options = { test = "throughput" }
threads = [3]
time = "60s"
`)
	dir, port := t.TempDir(), freePort(t)
	conn := slices.DeleteFunc(connArgs(""), func(a string) bool { return strings.HasPrefix(a, "--mysql-db=") })
	args := func(index int) []string {
		return append([]string{"plan", "run", p, "--result-dir", dir, "--clients=2", "--client-index=" + strconv.Itoa(index),
			"--leader=127.0.0.1:" + port, "--join-timeout=20s", "--"}, conn...)
	}
	f1 := startClient(t, args(1)...)
	r := ob(t, nil, args(0)...)
	mustOK(t, r, "the leader")
	if err := f1.cmd.Wait(); err != nil {
		t.Fatalf("the follower: %v\n%s%s", err, f1.out.String(), f1.err.String())
	}
	m, err := result.Read(filepath.Join(dir, "b-4threads-r1.json"))
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := filepath.Glob(filepath.Join(dir, ".parts", "*b-4threads-r1-4-client*.json"))
	var sum, merged int64
	for _, pf := range parts {
		pr, err := result.Read(pf)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range pr.Ops {
			sum += op.Count
		}
		if pr.Threads != 2 {
			t.Errorf("%s: %d threads, want 2 (half of 4)", pf, pr.Threads)
		}
	}
	for _, op := range m.Ops {
		merged += op.Count
	}
	if len(m.Parts) != 2 || len(parts) != 2 || m.Threads != 4 || merged == 0 || merged != sum {
		t.Errorf("merged: %d threads, %d parts (%d files), %d operations, the parts' %d", m.Threads, len(m.Parts), len(parts), merged, sum)
	}
	h, err := result.Read(filepath.Join(dir, "tpch-2threads-r1.json"))
	if err != nil || h.Figures["QphH"] <= 0 || h.Threads != 2 || len(h.Parts) != 0 {
		t.Errorf("the TPC-H cell: %v, QphH %v, %d threads, parts %+v", err, h.Figures["QphH"], h.Threads, h.Parts)
	}
	if !strings.Contains(r.stdout, "Clients: a tpch run is one whole: client 0 runs all 2 threads, the others sit this cell out") {
		t.Errorf("the leader did not say the TPC-H cell is its own:\n%s", r.stdout)
	}
	if strings.Contains(f1.out.String(), "tpch") || !strings.Contains(f1.out.String(), "b-4threads") {
		t.Errorf("the follower ran the TPC-H cell, or not the YCSB one:\n%s", f1.out.String())
	}
	if tp, _ := filepath.Glob(filepath.Join(dir, ".parts", "*tpch*")); len(tp) != 0 {
		t.Errorf("parts of the TPC-H cell: %v", tp)
	}
	tp, err := result.Read(filepath.Join(dir, "tp-3threads-r1.json"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, op := range tp.Ops {
		counts[op.Name] = op.Count
	}
	if tp.Threads != 3 || len(tp.Parts) != 2 || counts["q1"] != 3 || counts["q22"] != 3 || counts["rf1"] != 3 || counts["rf2"] != 3 {
		t.Errorf("the split throughput test: %d threads, %d parts, counts %v; want 3 threads, 2 parts, each query 3 times, each refresh function 3 times", tp.Threads, len(tp.Parts), counts)
	}
	if tp.Figures["Throughput"] <= 0 || tp.Figures["Ts"] <= 0 || tp.Options["first-stream"] != "" || tp.Options["all-streams"] != "" {
		t.Errorf("the split throughput test: figures %v, options %v", tp.Figures, tp.Options)
	}
	tparts, _ := filepath.Glob(filepath.Join(dir, ".parts", "*tp-3threads-r1*client*.json"))
	var ts float64
	for _, pf := range tparts {
		pr, err := result.Read(pf)
		if err != nil {
			t.Fatal(err)
		}
		ts = max(ts, pr.Figures["Ts"])
		want := map[int]string{0: "1", 1: "3"}[pr.Share.Index]
		if pr.Options["first-stream"] != want || pr.Options["all-streams"] != "3" {
			t.Errorf("%s: first-stream %q all-streams %q, want %s and 3", pf, pr.Options["first-stream"], pr.Options["all-streams"], want)
		}
	}
	if len(tparts) != 2 || tp.Figures["Ts"] < ts {
		t.Errorf("the throughput test's parts %v: merged Ts %v below a part's %v", tparts, tp.Figures["Ts"], ts)
	}
	if !strings.Contains(f1.out.String(), "3 to 3 of 3") {
		t.Errorf("client 1 did not say it runs stream 3 of 3:\n%s", f1.out.String())
	}
}
