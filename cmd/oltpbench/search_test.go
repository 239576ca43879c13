package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// searchTable reads a search's table of probes: level -> PASS or FAIL.
func searchTable(t *testing.T, out string) (map[int]string, []int) {
	t.Helper()
	got := map[int]string{}
	var order []int
	for _, m := range regexp.MustCompile(`(?m)^(\d+)\s+(\S+)\s+(PASS|FAIL)  (.+)$`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		got[n] = m[3]
		order = append(order, n)
	}
	return got, order
}

// TestTPCCSearch: tpcc search over 10 loaded warehouses at a five-hundredth
// of the spec's waits ends with a maximum, every pass below every failure,
// within the probe bound; killed mid-probe, the same command resumes at
// that probe and keeps the earlier ones; --baseline-max at the maximum
// holds (exit 0) and above it fails (exit 1, naming where it fell); bad
// input is one line each.
func TestTPCCSearch(t *testing.T) {
	needServer(t)
	db := "tpcc_search"
	freshDB(t, db)
	mustOK(t, tp(t, db, "prepare", "--warehouses=10", "--threads=4"), "prepare")
	dir := t.TempDir()
	// Bad input, beside the shards: each refused in one line before a probe.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--warehouses=10", "--wait=0.002", "--baseline-max=11", "--result-dir=" + dir}, "invalid --baseline-max=11: above the loaded 10"},
		{[]string{"search", "--warehouses=10", "--wait=0.002", "--estimate=0", "--result-dir=" + dir}, "invalid --estimate=0"},
		{[]string{"search", "--warehouses=10", "--result-dir=" + dir}, "tpcc search probes at the spec's keying and think times: add --wait"},
		{[]string{"search", "--warehouses=10", "--wait=-1", "--result-dir=" + dir}, "is not on, off or a multiplier"},
		{[]string{"run", "--warehouses=10", "--estimate=3"}, "--estimate goes with the search command"},
		{[]string{"search", "--warehouses=10", "--wait"}, "search needs --result-dir DIR"},
		{[]string{"search", "--warehouses=10", "--wait", "--result-dir=" + t.TempDir(), "--restart=exit 3"}, "the --restart command failed (exit status 3)"},
		{[]string{"search", "--warehouses=10", "--wait", "--result-dir=" + t.TempDir(), "--restart=sleep 30", "--restart-timeout=1s"}, "the --restart command took longer than --restart-timeout=1s"},
	} {
		r := tp(t, db, tc.args...)
		if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	alone(t) // its probes' efficiency is the machine's: 74% at 1 warehouse beside five shards
	args := []string{"search", "--warehouses=10", "--wait=0.002", "--time=2", "--report-interval=0", "--result-dir=" + dir}

	// Killed during its second probe, then resumed.
	cmd, sc, _ := startBinary(t, append(append([]string{"tpcc"}, args...), connArgs(db)...)...)
	probes := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "== probe at ") {
			probes++
		}
		if probes == 2 && strings.HasPrefix(sc.Text(), "Threads started!") || probes == 2 && strings.Contains(sc.Text(), "tpcc:") {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if probes < 2 {
		t.Fatal("the search never reached its second probe")
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "tpcc-*warehouses.json"))
	if len(kept) != 1 {
		t.Fatalf("after a kill in the second probe the folder holds %v, want the first probe's result", kept)
	}
	r := tp(t, db, args...)
	mustOK(t, r, "search")
	if !strings.Contains(r.stdout, "Probe at 5 warehouses: done before") || strings.Contains(r.stdout, "== probe at 5 warehouses") {
		t.Errorf("the resumed search ran the first probe again:\n%s", r.stdout)
	}
	table, order := searchTable(t, r.stdout)
	m := regexp.MustCompile(`(?m)^MAX WAREHOUSES = (\d+)`).FindStringSubmatch(r.stdout)
	if m == nil || len(order) == 0 || len(order) > 9 {
		t.Fatalf("no maximum, or %d probes (bound 9):\n%s", len(order), r.stdout)
	}
	best, _ := strconv.Atoi(m[1])
	for n, v := range table {
		if (v == "PASS") != (n <= best) {
			t.Errorf("probe %d %s against the maximum %d:\n%s", n, v, best, r.stdout)
		}
	}
	if best == 10 && !strings.Contains(r.stdout, "the dataset is too small to find the limit: load more") {
		t.Errorf("passed at all 10 without saying so:\n%s", r.stdout)
	}

	// The gate: half the maximum holds (with --restart before its probe,
	// which a probe done before does not need); all ten, well above the
	// maximum, do not. The maximum itself is the boundary: a probe there
	// again may fall either way.
	if best >= 2 {
		hold := strconv.Itoa(best / 2)
		g := gateAt(t, db, best/2, append(args, "--baseline-max="+hold, "--restart=echo restart of $OLTPBENCH_MYSQL_PORT"))
		if g.code != 0 || !strings.Contains(g.stdout, "BASELINE HELD: still sustains "+hold+" warehouses") ||
			strings.Count(g.stdout, "restart of "+testPort) != 1 {
			t.Errorf("--baseline-max=%s: exit %d\n%s%s", hold, g.code, g.stdout, g.stderr)
		}
	}
	if best >= 2 && best < 10 {
		// --above: the baseline holds, and the search goes on upward from it.
		hold := best / 2
		g := gateAt(t, db, hold, append(args, "--baseline-max="+strconv.Itoa(hold), "--above"))
		_, order := searchTable(t, g.stdout)
		m := regexp.MustCompile(`(?m)^MAX WAREHOUSES = (\d+)`).FindStringSubmatch(g.stdout)
		if g.code != 0 || strings.Contains(g.stdout, "BASELINE HELD") || m == nil || len(order) < 2 || order[0] != hold {
			t.Errorf("--baseline-max=%d --above: exit %d, probes %v\n%s%s", hold, g.code, order, g.stdout, g.stderr)
		} else if above, _ := strconv.Atoi(m[1]); above < hold || order[1] <= hold {
			t.Errorf("--baseline-max=%d --above probed %v and ended at %d: not upward from the baseline:\n%s", hold, order, above, g.stdout)
		}
	}
	if best <= 7 {
		g := tp(t, db, append(args, "--baseline-max=10", "--result-dir="+t.TempDir())...)
		if g.code != 1 || !strings.Contains(g.stderr, "the baseline of 10 warehouses fails: capacity fell to ") {
			t.Errorf("--baseline-max=10 with a maximum of %d: exit %d\n%s", best, g.code, g.stderr)
		}
	}
}

// gateAt runs a search gated at a level an earlier search passed, in a
// fresh result folder. A probe's efficiency is a count of transactions
// over 2 s: at 1 warehouse about 400, so the mix alone moves it by about
// 5%, and a level that passed at 90% can fall under the 85% bound (84.4%
// in one run). One such failure is accepted, and only worded as the
// product words it: the baseline probe failing on efficiency alone; the
// gate then runs again, and a second failure is the test's.
func gateAt(t *testing.T, db string, level int, args []string) res {
	t.Helper()
	g := tp(t, db, append(args, "--result-dir="+t.TempDir())...)
	noise := regexp.MustCompile(`(?m)^` + strconv.Itoa(level) + `\s+\S+ FAIL   efficiency \d+\.\d% < 85%$`)
	if g.code == 1 && noise.MatchString(g.stdout) &&
		strings.Contains(g.stderr, "the baseline of "+strconv.Itoa(level)+" warehouses fails") {
		t.Logf("the gate at %d warehouses failed on efficiency alone; once more:\n%s", level, g.stdout)
		g = tp(t, db, append(args, "--result-dir="+t.TempDir())...)
	}
	return g
}

// TestTPCCSearchConstraint: a probe whose run breaks a response-time
// constraint (the district's rows held for 7 s by another session, so
// that New-Orders and Payments, which both lock them, wait behind them) is
// a failed probe, the constraint named in the table, its result marked as
// a failed probe; --repeat runs the boundary's level again. Which of the
// two breaks its limit first is the run's timing (once only Payment's).
func TestTPCCSearchConstraint(t *testing.T) {
	needServer(t)
	db := "tpcc_constraint"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	dir := t.TempDir()
	hold := `at=1s;command=mariadb -h$OLTPBENCH_MYSQL_HOST -P$OLTPBENCH_MYSQL_PORT -u$OLTPBENCH_MYSQL_USER $OLTPBENCH_MYSQL_DB -e "BEGIN; SELECT * FROM district WHERE d_w_id = 1 FOR UPDATE; DO SLEEP(7); COMMIT"`
	r := tp(t, db, "search", "--warehouses=1", "--wait=0.05", "--time=10", "--report-interval=0", "--repeat=2", "--event="+hold, "--result-dir="+dir)
	mustOK(t, r, "search")
	row := regexp.MustCompile(`(?m)^1 +[\d.]+ FAIL +.*p90 (new_order|payment) (\d+\.\d+) s > 5 s`).FindStringSubmatch(r.stdout)
	if row == nil || !strings.Contains(r.stdout, "MAX WAREHOUSES = 0: even 1 fails") || !strings.Contains(r.stdout, "  1 warehouses: passed 0 of 2") {
		t.Fatalf("a probe past the New-Order limit is not a failure named in the table:\n%s", r.stdout)
	}
	for _, f := range []string{"tpcc-1warehouses.json", "tpcc-1warehouses-r2.json"} {
		res, err := result.Read(filepath.Join(dir, f))
		if err != nil || res.Probe == nil || res.Probe.Pass || res.Probe.Failed || !regexp.MustCompile(`p90 (new_order|payment) [\d.]+ s > 5 s`).MatchString(res.Probe.Why) {
			t.Errorf("%s: %v, probe %+v", f, err, res.Probe)
		}
	}
}

// TestPlanSearchStep: a plan step `search = "warehouses"` runs tpcc search
// as one cell, its probes in STEP-search/, done once; a headroom step after
// it runs at half the maximum, then the consistency checks; a search step
// without --wait, or with threads, and a headroom without a search before
// it are refused before anything runs.
func TestPlanSearchStep(t *testing.T) {
	needServer(t)
	freshDB(t, "plan_search")
	// The plan's dataset loaded beside the shards: the plan finds it.
	prepared(t, "plan_search", "tpcc", "prepare", "--warehouses=4")
	// Its probes' efficiency is the machine's: 73% at 1 warehouse beside
	// four shards; alone, at a 500th of the spec's waits, 83.5% (under the
	// 85% bound) once, so it runs at a 250th.
	alone(t)
	step := `[dataset]
workload = "tpcc"
options = { warehouses = 4 }
[[step]]
name = "capacity"
search = "warehouses"
time = "2s"
options = { wait = 0.004, report-interval = 0%s }
%s`
	p := writePlan(t, fmt.Sprintf(step, "", "")+`[[step]]
name = "long"
headroom = 0.5
time = "2s"
options = { wait = 0.004, report-interval = 0 }
`)
	dir := t.TempDir()
	r := ob(t, nil, planArgs(p, dir, "plan_search")...)
	if !strings.Contains(r.stdout, "Dataset: verified against its record in plan_search") {
		t.Errorf("the plan did not take the dataset loaded before it:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "MAX WAREHOUSES = 0: even 1 fails") {
		// A machine too slow for a 250th of the spec's waits:
		// the headroom has nothing to take a share of and says so.
		if r.code == 0 || !strings.Contains(r.stderr, "headroom: the search in capacity-search passed at no level") {
			t.Errorf("a headroom after a search that passed nowhere: exit %d, stderr %q", r.code, r.stderr)
		}
		t.Fatalf("the search passed at no level, so the headroom could not be tested:\n%s", r.stdout)
	}
	mustOK(t, r, "plan run")
	if !regexp.MustCompile(`(?m)^MAX WAREHOUSES = [1-9]`).MatchString(r.stdout) {
		t.Errorf("no maximum:\n%s", r.stdout)
	}
	probes, _ := filepath.Glob(filepath.Join(dir, "capacity-search", "tpcc-*warehouses.json"))
	if _, err := os.Stat(filepath.Join(dir, "capacity-search", ".done")); err != nil || len(probes) == 0 {
		t.Errorf("the step's folder: %v, probes %v", err, probes)
	}
	best, _ := strconv.Atoi(regexp.MustCompile(`(?m)^MAX WAREHOUSES = (\d+)`).FindStringSubmatch(r.stdout)[1])
	head, err := result.Read(filepath.Join(dir, "long-headroom.json"))
	if want := max(1, best/2); err != nil || head.Options["active-warehouses"] != strconv.Itoa(want) || head.Threads != 10*want ||
		!strings.Contains(r.stdout, "condition 12 C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)") {
		t.Errorf("headroom at half of %d: %v, result %v threads %d\n%s", best, err, head.Options["active-warehouses"], head.Threads, r.stdout)
	}
	again := ob(t, nil, planArgs(p, dir, "plan_search")...)
	mustOK(t, again, "plan run again")
	if !strings.Contains(again.stdout, "All 2 cells of the plan are done") {
		t.Errorf("the search step ran again:\n%s", again.stdout)
	}
	for _, tc := range []struct{ wait, extra, want string }{
		{"", "", `p.toml:8: step "capacity" with the dataset's options: tpcc search probes at the spec's keying and think times: add --wait`},
		{", wait = 0.004", "threads = [4]", `p.toml:6: step "capacity": a search sets each probe's threads: remove threads and p95_limit`},
		{", wait = 0.004, baseline-max = 9", "", `step "capacity" with the dataset's options: invalid --baseline-max=9: above the loaded 4`},
	} {
		src := strings.Replace(fmt.Sprintf(step, "", tc.extra), "wait = 0.004, ", strings.TrimPrefix(tc.wait+", ", ", "), 1)
		r := ob(t, nil, planArgs(writePlan(t, src), t.TempDir(), "plan_search")...)
		if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q %q: exit %d, stderr %q, want %q", tc.wait, tc.extra, r.code, r.stderr, tc.want)
		}
	}
	for _, tc := range []struct{ headroom, want string }{
		{"0.5", `p.toml:6: step "long": headroom = 0.5 is a share of a search's result: put a step with search = ... before it, or give a number of units`},
		{"2.5", `p.toml:6: step "long": headroom = 2.5: a share of the last search's result (0.7) or a whole number of units (24)`},
	} {
		src := "[dataset]\nworkload = \"tpcc\"\noptions = { warehouses = 4 }\n[[step]]\nname = \"long\"\nheadroom = " + tc.headroom + "\ntime = \"2s\"\noptions = { wait = 0.004 }\n"
		r := ob(t, nil, planArgs(writePlan(t, src), t.TempDir(), "plan_search")...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("headroom = %s: exit %d, stderr %q, want %q", tc.headroom, r.code, r.stderr, tc.want)
		}
	}
}
