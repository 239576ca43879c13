package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/testenv/s3test"
)

// agedPlan is one TPC-C cell, run as each "version" of a comparison.
const agedPlan = `name = "aged"
[dataset]
workload = "tpcc"
options = { warehouses = 1 }
[[step]]
threads = [4]
time = "2s"
%s
`

// TestPlanResetAgedTPCC: a plan run as two "versions", the second on a
// dataset aged by ten TPC-C runs. Without a reset, report compare warns,
// naming orders and the difference; with reset = "reload" it does not, and
// both versions' cells start on the dataset as loaded.
func TestPlanResetAgedTPCC(t *testing.T) {
	needServer(t)
	for _, c := range []struct{ name, reset string }{{"no reset", ""}, {"reload", `reset = "reload"`}} {
		t.Run(c.name, func(t *testing.T) {
			db := "tpcc_aged"
			freshDB(t, db)
			p := writePlan(t, fmt.Sprintf(agedPlan, c.reset))
			v1, v2 := t.TempDir(), t.TempDir()
			mustOK(t, ob(t, nil, planArgs(p, v1, db)...), "version 1")
			// Ten runs of 800 transactions: about 3,500 New-Orders, 12% more
			// orders whatever the machine's speed (timed runs made 9% on a
			// busy machine, under the warning's 10%). Before a reload one
			// run is enough: v2 would start on 30000 orders and more.
			aging := 10
			if c.reset != "" {
				aging = 1
			}
			for i := 0; i < aging; i++ {
				mustOK(t, tp(t, db, "run", "--warehouses=1", "--threads=4", "--txns-per-terminal=200"), "an aging run")
			}
			mustOK(t, ob(t, nil, planArgs(p, v2, db)...), "version 2")
			a, b := onlyResult(t, v1), onlyResult(t, v2)
			r := inProcess("report", "compare", v1, v2, "--names=v1,v2")
			warned := regexp.MustCompile(`v2's cell started on a dataset with .*\d+% more rows in orders \(\d+ against 30000\)`).MatchString(r.stdout + r.stderr)
			show := inProcess("report", "show", filepath.Join(v2, "tpcc-4threads-r1.json")).stdout
			if a.DatasetState == nil || b.DatasetState == nil {
				t.Fatalf("no dataset state: %+v, %+v", a.DatasetState, b.DatasetState)
			}
			if start, exact := tableRows(a.DatasetState.Start, "orders"); start != 30000 || !exact {
				t.Errorf("v1 started with %d orders (exact %v), want 30000", start, exact)
			}
			// New-Orders that rolled back (1% each, drawn apart: at most the
			// mean and 4 standard deviations) made no order.
			n := float64(a.Ops[0].Count)
			rolledBack := int64(math.Ceil(0.01*n + 4*math.Sqrt(0.01*0.99*n)))
			if end, exact := tableRows(a.DatasetState.End, "orders"); !exact || end > 30000+a.Ops[0].Count || end < 30000+a.Ops[0].Count-rolledBack {
				t.Errorf("orders at v1's end %d (exact %v), want 30000 + its %d New-Orders less at most %d rolled back; state %+v, missing %v",
					end, exact, a.Ops[0].Count, rolledBack, a.DatasetState, a.Evidence)
			}
			if c.reset == "" {
				if a.DatasetState.Runs != 0 || b.DatasetState.Runs != 11 || b.DatasetState.Events <= a.Totals["events"] || b.Reset != nil {
					t.Errorf("dataset states %+v, %+v; reset %+v", a.DatasetState, b.DatasetState, b.Reset)
				}
				if !warned || !strings.Contains(show, "dataset state: 11 runs and ") {
					t.Errorf("no warning of the aged dataset:\n%s%s\nreport show:\n%s", r.stdout, r.stderr, show)
				}
				return
			}
			for _, tb := range []string{"orders", "new_order", "order_line", "district"} {
				na, ea := tableRows(a.DatasetState.Start, tb)
				nb, eb := tableRows(b.DatasetState.Start, tb)
				if na != nb || ea != eb || (tb != "district" && !ea) {
					t.Errorf("%s at the start: v1 %d (exact %v), v2 %d (exact %v)", tb, na, ea, nb, eb)
				}
			}
			if b.DatasetState.Runs != 0 || b.Reset == nil || b.Reset.Kind != "reload" || b.Reset.Skipped != "" ||
				!strings.Contains(b.Reset.Verified, "orders 30000, new_order 9000") {
				t.Errorf("v2: runs %d, reset %+v", b.DatasetState.Runs, b.Reset)
			}
			if warned || strings.Contains(r.stdout+r.stderr, "started on a dataset") {
				t.Errorf("a warning after a reset:\n%s%s", r.stdout, r.stderr)
			}
			if !regexp.MustCompile(`reset: reload before cell 1 \(every cell\), done in [\d.]+ s, not measured; verified: record complete`).MatchString(show) {
				t.Errorf("report show:\n%s", show)
			}
		})
	}
}

// onlyResult reads the one result of a plan's folder.
func onlyResult(t *testing.T, dir string) *result.Result {
	t.Helper()
	fs := resultFiles(t, dir)
	if len(fs) != 1 {
		t.Fatalf("%s holds %v, want one result", dir, fs)
	}
	r, err := result.Read(filepath.Join(dir, fs[0]))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func tableRows(ts []result.TableState, name string) (int64, bool) {
	for _, x := range ts {
		if x.Name == name {
			return x.Rows, x.Exact
		}
	}
	return -1, false
}

// resetPlan is two cells of sysbench's oltp_insert, which grows its
// tables: a cell that starts on 1000 rows a table was reset.
const resetPlan = `[dataset]
workload = "sysbench"
options = { tables = 2, table-size = 1000 }
[[step]]
test = "oltp_insert"
threads = [2]
time = "1s"
repeats = 2
%s
`

// testdataPath is a file of testdata, absolute (plans run in their folder).
func testdataPath(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// csvBackup writes the reset plan's dataset as CSV files, the "backup" a
// reset command restores.
func csvBackup(t *testing.T, db string) string {
	t.Helper()
	dir := t.TempDir()
	mustOK(t, ob(t, nil, "csv", "sysbench", "oltp_insert", "--tables=2", "--table-size=1000", "--dir="+dir, "--mysql-db="+db), "csv")
	return dir
}

// TestPlanResetKinds: each kind of reset, before every cell and before a
// step; the cells start on the dataset as loaded, its reset recorded.
func TestPlanResetKinds(t *testing.T) {
	needServer(t)
	db := "plan_reset"
	for _, c := range []struct {
		name, keys string
		every      string
		s3         bool
	}{
		{"reload", `reset = "reload"`, "cell", false},
		{"reimport", `reset = "reimport"` + "\nreset_from = \"csv\"", "cell", false},
		{"reimport from s3", `reset = "reimport"` + "\nreset_from = \"%s\"\nreset_every = \"step\"", "step", true},
		{"command", `reset = "command"` + "\nreset_command = \"sh %s %s\"", "cell", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			freshDB(t, db)
			keys := c.keys
			var env []string
			switch {
			case c.s3:
				srv := s3test.Need(t)
				keys = fmt.Sprintf(keys, "s3://"+srv.Bucket(t)+"/reset?endpoint="+srv.Endpoint) // the keys from the environment
				env = []string{"AWS_ACCESS_KEY_ID=" + srv.AccessKey, "AWS_SECRET_ACCESS_KEY=" + srv.SecretKey}
			case strings.Contains(keys, "command"):
				keys = fmt.Sprintf(keys, testdataPath(t, "reset-from-csv.sh"), csvBackup(t, db))
			}
			p := writePlan(t, fmt.Sprintf(resetPlan, keys))
			dir := t.TempDir()
			r := ob(t, env, planArgs(p, dir, db)...)
			mustOK(t, r, "plan run")
			if !strings.Contains(r.stdout, "Dataset: made by the reset before cell 1/2") {
				t.Errorf("the plan's dataset step was not left to the reset:\n%s", r.stdout)
			}
			one, two := readCell(t, dir, 1), readCell(t, dir, 2)
			kind := strings.Fields(c.name)[0]
			for i, res := range []*result.Result{one, two} {
				rs := res.Reset
				if rs == nil || rs.Kind != kind || rs.Every != c.every || rs.Skipped != "" || rs.Seconds <= 0 ||
					!strings.Contains(rs.Verified, "exact rows as loaded: sbtest1 1000, sbtest2 1000") {
					t.Fatalf("cell %d's reset: %+v", i+1, rs)
				}
			}
			if n, exact := tableRows(one.DatasetState.Start, "sbtest1"); n != 1000 || !exact || one.DatasetState.Runs != 0 {
				t.Errorf("cell 1 started on %d rows (exact %v) after %d runs", n, exact, one.DatasetState.Runs)
			}
			n, _ := tableRows(two.DatasetState.Start, "sbtest1")
			if c.every == "cell" && (n != 1000 || two.Reset.Cell != 2 || two.DatasetState.Runs != 0) {
				t.Errorf("cell 2 started on %d rows after %d runs, reset %+v: want a reset before it", n, two.DatasetState.Runs, two.Reset)
			}
			if c.every == "step" && (n <= 1000 || two.Reset.Cell != 1 || two.DatasetState.Runs != 1) {
				t.Errorf("cell 2 started on %d rows after %d runs, reset %+v: want the step's reset, before cell 1", n, two.DatasetState.Runs, two.Reset)
			}
			log := mustRead(t, filepath.Join(dir, "oltp_insert-2threads-r2.log"))
			if reset := strings.Contains(log, "Reset ("+kind+") done in"); reset != (c.every == "cell") {
				t.Errorf("cell 2's log (a reset in it: %v):\n%s", reset, log)
			}
			if kind == "reimport" && !c.s3 {
				first := mustRead(t, filepath.Join(dir, "oltp_insert-2threads-r1.log"))
				if !strings.Contains(first, "CSV files: writing this dataset's to") || !strings.Contains(log, "CSV files: "+filepath.Dir(p)+"/csv holds this dataset's") {
					t.Errorf("the CSV files were not written once:\n%s\n%s", first, log)
				}
			}
		})
	}
}

// readCell reads the result of the reset plan's cell i.
func readCell(t *testing.T, dir string, i int) *result.Result {
	t.Helper()
	r, err := result.Read(filepath.Join(dir, fmt.Sprintf("oltp_insert-2threads-r%d.json", i)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPlanResetFails: a reset that fails fails its cell, with one line
// naming the reset, the command's output in the cell's log and no result;
// the same plan run command, once the cause is gone, runs every cell.
func TestPlanResetFails(t *testing.T) {
	needServer(t)
	db := "plan_reset_fail"
	freshDB(t, db)
	restore := fmt.Sprintf("sh %s %s", testdataPath(t, "reset-from-csv.sh"), csvBackup(t, db))
	for _, c := range []struct {
		name, keys, want, log string
	}{
		{"command fails", `reset_command = "test -f ok || { echo no backup yet; exit 3; }; ` + restore + `"`,
			"reset (command) before it: reset_command failed (exit status 3): its output is in the cell's log", "no backup yet"},
		{"command too slow", "reset_command = \"sleep 60\"\nreset_timeout = \"1s\"",
			`reset (command) before it: it took longer than reset_timeout = 1s: raise reset_timeout in step "oltp_insert"`, "Reset (command) before cell 1/2"},
		{"dataset not restored", `reset_command = "true"`,
			"reset (command) before it: the dataset is not as loaded after it: the dataset in plan_reset_fail was run on since its load", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "dataset not restored" { // a dataset aged by a run
				mustOK(t, sb(t, db, "oltp_insert", "run", "--tables=2", "--table-size=1000", "--time=1"), "an aging run")
			}
			p := writePlan(t, fmt.Sprintf(resetPlan, "reset = \"command\"\n"+c.keys))
			dir := t.TempDir()
			start := time.Now()
			r := ob(t, nil, planArgs(p, dir, db)...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			want := "oltpbench: cell 1/2 (oltp_insert, 2 threads, repeat 1/2) failed: " + c.want
			if r.code == 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], want) || !strings.HasSuffix(lines[0], "; the same plan run command redoes it and the rest") {
				t.Fatalf("exit %d, stderr:\n%s\nwant %s", r.code, r.stderr, want)
			}
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("the failed reset took %s", took) // a 60 s command not ended by its 1 s timeout
			}
			if log := mustRead(t, filepath.Join(dir, "oltp_insert-2threads-r1.log")); !strings.Contains(log, c.log) || !strings.Contains(log, c.want) {
				t.Errorf("the cell's log:\n%s", log)
			}
			if fs := resultFiles(t, dir); len(fs) != 0 {
				t.Errorf("a failed reset left results %v", fs)
			}
			if c.name != "command fails" {
				return
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(p), "ok"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			r = ob(t, nil, planArgs(p, dir, db)...)
			mustOK(t, r, "plan run once the backup is there")
			if fs := resultFiles(t, dir); len(fs) != 2 || readCell(t, dir, 1).Reset == nil {
				t.Errorf("after the rerun the folder holds %v", fs)
			}
		})
	}
}

// TestPlanResetKilled: a plan killed (SIGKILL) during a reset, its command's
// or its reload's, resumes: the cell done before it is kept, the reset and
// its cell are done again (a reload's cut load finished), and the killed
// command does not outlive the plan.
func TestPlanResetKilled(t *testing.T) {
	needServer(t)
	t.Run("command", func(t *testing.T) {
		db := "plan_reset_kill"
		freshDB(t, db)
		slow := fmt.Sprintf(`reset = "command"
reset_command = "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; if [ $n = 2 ]; then echo $$ > pid; echo restoring slowly; exec sleep 60; fi; sh %s %s"`,
			testdataPath(t, "reset-from-csv.sh"), csvBackup(t, db))
		p := writePlan(t, fmt.Sprintf(resetPlan, slow))
		dir := t.TempDir()
		killAt(t, planArgs(p, dir, db), "restoring slowly")
		b, err := os.ReadFile(filepath.Join(filepath.Dir(p), "pid"))
		if err != nil {
			t.Fatal(err)
		}
		gone(t, "/proc/"+strings.TrimSpace(string(b)))
		resumed(t, p, dir, db, "Reset (command) done in")
	})
	t.Run("reload", func(t *testing.T) {
		db := "plan_reset_kill_tpcc"
		freshDB(t, db)
		p := writePlan(t, strings.Replace(fmt.Sprintf(agedPlan, `reset = "reload"`+"\nrepeats = 2"), "warehouses = 1", `warehouses = 1, load-mode = "insert"`, 1))
		dir := t.TempDir()
		cmd, sc, _ := startBinary(t, planArgs(p, dir, db)...)
		for sc.Scan() && sc.Text() != "Reset (reload) before cell 2/2" {
		}
		// Killed once the reload's load is under way (units in).
		t.Cleanup(func() { cmd.Process.Kill() })
		d := openDB(t, "")
		eventually(t, 60*time.Second, "the reload loading a unit", func() bool {
			var n int
			d.QueryRow("SELECT COUNT(*) FROM " + db + ".oltpbench_progress p JOIN " + db + ".oltpbench_dataset d ON d.k = 'state' AND d.v = 'loading'").Scan(&n)
			return n >= 2
		})
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		kept := mustRead(t, filepath.Join(dir, "tpcc-4threads-r1.json"))
		r := ob(t, nil, planArgs(p, dir, db)...)
		mustOK(t, r, "plan run after the kill")
		if !strings.Contains(r.stdout, "Resuming: 1 of 2 cells are done") || !strings.Contains(r.stdout, "a load into "+db+" was interrupted: resuming it") {
			t.Errorf("the rerun:\n%s", r.stdout)
		}
		if mustRead(t, filepath.Join(dir, "tpcc-4threads-r1.json")) != kept {
			t.Error("cell 1's result changed")
		}
		res, err := result.Read(filepath.Join(dir, "tpcc-4threads-r2.json"))
		if err != nil || res.Reset == nil || res.Reset.Cell != 2 || !strings.Contains(res.Reset.Verified, "orders 30000, new_order 9000") {
			t.Fatalf("cell 2: %v, reset %+v", err, res.Reset)
		}
		checksPass(t, tp(t, db, "check", "--warehouses=1"), 11)
	})
}

// killAt runs the plan and SIGKILLs it once it prints line.
func killAt(t *testing.T, args []string, line string) {
	t.Helper()
	cmd, sc, stderr := startBinary(t, args...)
	var seen []string
	for sc.Scan() && sc.Text() != line {
		seen = append(seen, sc.Text())
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !slices.ContainsFunc(seen, func(l string) bool { return strings.HasPrefix(l, "== cell 2/2: ") }) {
		t.Fatalf("killed before cell 2:\n%s\n%s", strings.Join(seen, "\n"), stderr)
	}
}

// gone waits for a process to end (or be a zombie: ended, waiting for its
// reaper).
func gone(t *testing.T, proc string) {
	t.Helper()
	eventually(t, 10*time.Second, "the killed plan's reset command "+proc+" ending", func() bool {
		b, err := os.ReadFile(proc + "/stat")
		return os.IsNotExist(err) || strings.Contains(string(b), ") Z ")
	})
}

// resumed runs the killed reset plan again: cell 1 is kept, cell 2 is
// reset and measured.
func resumed(t *testing.T, p, dir, db, reset string) {
	t.Helper()
	kept := mustRead(t, filepath.Join(dir, "oltp_insert-2threads-r1.json"))
	r := ob(t, nil, planArgs(p, dir, db)...)
	mustOK(t, r, "plan run after the kill")
	if !strings.Contains(r.stdout, "Resuming: 1 of 2 cells are done") || !strings.Contains(r.stdout, reset) {
		t.Errorf("the rerun:\n%s", r.stdout)
	}
	if mustRead(t, filepath.Join(dir, "oltp_insert-2threads-r1.json")) != kept {
		t.Error("cell 1's result changed")
	}
	two := readCell(t, dir, 2)
	if n, _ := tableRows(two.DatasetState.Start, "sbtest1"); n != 1000 || two.Reset == nil || two.Reset.Cell != 2 {
		t.Errorf("cell 2 started on %d rows, reset %+v", n, two.Reset)
	}
}
