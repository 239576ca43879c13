package main

import (
	"bytes"
	"syscall"
	"time"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Lua scripts run under the real sysbench 1.0.20 and under oltpbench with
// the same command lines, each on a database of its own; outputs are
// compared line by line with numbers masked, nothing left out, then the
// statement counts and the tables.

// luaDBs makes two empty databases, one per tool.
func luaDBs(t *testing.T, name string) (theirs, mine string) {
	t.Helper()
	theirs, mine = name+"_sb", name+"_ob"
	for _, db := range []string{theirs, mine} {
		freshDB(t, db)
		if _, err := openDB(t, "").Exec("CREATE DATABASE " + db); err != nil {
			t.Fatal(err)
		}
	}
	return theirs, mine
}

// luaConn are the connection options of the test server for db.
func luaConn(db string) []string {
	return []string{"--mysql-host=" + testHost, "--mysql-port=" + testPort, "--mysql-user=root", "--mysql-db=" + db}
}

// bothTools runs one command line under both, each on its database, and
// compares their output; it returns both outputs.
func bothTools(t *testing.T, what, sbDB, obDB string, args ...string) (string, string) {
	t.Helper()
	a, ca := realSysbench(t, append(args, luaConn(sbDB)...)...)
	b, cb := ours(t, append(args, luaConn(obDB)...)...)
	if ca != cb {
		t.Fatalf("%s: exit %d, sysbench %d\n--- sysbench\n%s\n--- oltpbench\n%s", what, cb, ca, a, b)
	}
	sameLines(t, what, masked(a), masked(b))
	return a, b
}

var countRE = regexp.MustCompile(`(?m)^\s+(read|write|other|total|transactions|ignored errors|reconnects):\s+(\d+)`)

// counts are the statement counts of a final report.
func counts(s string) map[string]string {
	m := map[string]string{}
	for _, c := range countRE.FindAllStringSubmatch(s, -1) {
		m[c[1]] = c[2]
	}
	return m
}

// sameTables checks that both databases hold the same tables, made the same
// way, with the same row counts.
func sameTables(t *testing.T, what, sbDB, obDB string) {
	t.Helper()
	describe := func(db string) string {
		d := openDB(t, db)
		names := tableNames(t, db, "")
		var b strings.Builder
		for _, n := range names {
			var tn, ddl string
			var c int64
			d.QueryRow("SHOW CREATE TABLE "+n).Scan(&tn, &ddl)
			d.QueryRow("SELECT COUNT(*) FROM " + n).Scan(&c)
			ddl = regexp.MustCompile(` AUTO_INCREMENT=\d+`).ReplaceAllString(ddl, "")
			b.WriteString(ddl + "\nrows: " + strconv.FormatInt(c, 10) + "\n")
		}
		return b.String()
	}
	if a, b := describe(sbDB), describe(obDB); a != b {
		t.Errorf("%s: the tables differ\n--- sysbench\n%s\n--- oltpbench\n%s", what, a, b)
	}
}

// The eleven stock scripts, copied under other names so that they run in
// Lua: prepare, run --events and cleanup print what sysbench prints, count
// what it counts and leave the same tables.
func TestLuaStockScriptsSideBySide(t *testing.T) {
	needSysbench(t)
	dir := t.TempDir()
	for _, name := range []string{"oltp_common", "oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only",
		"oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp_delete", "select_random_points",
		"select_random_ranges", "bulk_insert"} {
		b, err := os.ReadFile(filepath.Join("/usr/share/sysbench", name+".lua"))
		if err != nil {
			t.Skip("sysbench's scripts are not installed")
		}
		if err := os.WriteFile(filepath.Join(dir, name+".lua"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if name != "oltp_common" {
			os.WriteFile(filepath.Join(dir, "copy_"+name+".lua"), b, 0o644)
		}
	}
	for _, name := range []string{"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only",
		"oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp_delete", "select_random_points",
		"select_random_ranges", "bulk_insert"} {
		t.Run(name, func(t *testing.T) {
			sbDB, obDB := luaDBs(t, "lua_"+strings.TrimPrefix(name, "oltp_"))
			path := filepath.Join(dir, "copy_"+name+".lua")
			size := []string{"--tables=1", "--table-size=300"}
			prep := append([]string{path}, size...)
			bothTools(t, name+" prepare", sbDB, obDB, append(prep, "--threads=1", "prepare")...)
			sameTables(t, name+" prepare", sbDB, obDB)
			a, b := bothTools(t, name+" run", sbDB, obDB, append(prep, "--threads=1", "--events=150", "--time=0", "run")...)
			ca, cb := counts(a), counts(b)
			// Reads and the total are exact; a DELETE or UPDATE that found
			// no row counts as other, and which rows those are is random.
			for _, k := range []string{"read", "total", "transactions"} {
				if ca[k] != cb[k] {
					t.Errorf("%s run: %s %s, sysbench %s", name, k, cb[k], ca[k])
				}
			}
			if name != "oltp_delete" && name != "oltp_insert" && name != "oltp_write_only" && name != "oltp_read_write" && ca["write"] != cb["write"] {
				t.Errorf("%s run: write %s, sysbench %s", name, cb["write"], ca["write"])
			}
			bothTools(t, name+" cleanup", sbDB, obDB, append(prep, "cleanup")...)
			sameTables(t, name+" cleanup", sbDB, obDB)
		})
	}
}

// A copy of a stock script that was edited runs as edited: here its event
// sends a second query, so it counts two reads per event (the native test
// would count one).
func TestLuaEditedScriptRunsAsEdited(t *testing.T) {
	needSysbench(t)
	sbDB, obDB := luaDBs(t, "lua_edit")
	dir := t.TempDir()
	for _, name := range []string{"oltp_common", "oltp_point_select"} {
		b, err := os.ReadFile(filepath.Join("/usr/share/sysbench", name+".lua"))
		if err != nil {
			t.Skip("sysbench's scripts are not installed")
		}
		if name == "oltp_point_select" {
			b = []byte(strings.Replace(string(b), "execute_point_selects()", "execute_point_selects()\n   con:query(\"SELECT 1\")", 1))
		}
		os.WriteFile(filepath.Join(dir, name+".lua"), b, 0o644)
	}
	path := filepath.Join(dir, "oltp_point_select.lua")
	args := []string{path, "--tables=1", "--table-size=100"}
	bothTools(t, "edited prepare", sbDB, obDB, append(args, "prepare")...)
	a, b := bothTools(t, "edited run", sbDB, obDB, append(args, "--events=100", "--time=0", "run")...)
	if ca, cb := counts(a), counts(b); cb["read"] != "200" || ca["read"] != cb["read"] {
		t.Errorf("edited point select: %s reads, sysbench %s, want 200 (two per event)", cb["read"], ca["read"])
	}
}

// runIn runs a command in dir; stdout then stderr, and the exit code.
func runIn(t *testing.T, dir, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	code := exitCode(t, cmd.Run()) // before the buffers are read
	return so.String() + se.String(), code
}

// exitCode is a finished command's exit code; a command that could not
// run at all fails the test.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// A script of our own calls every API function (testdata/lua/api.lua):
// options of each type given and defaulted, commands (one per thread with
// PARALLEL_COMMAND), hooks, random numbers, every SQL call, an ignorable and
// a fatal error caught with pcall, require of a module beside it, and ffi.
// Both tools run it from its folder, as sysbench finds modules there.
func TestLuaAPISideBySide(t *testing.T) {
	needSysbench(t)
	sbDB, obDB := luaDBs(t, "lua_api")
	dir, err := filepath.Abs("testdata/lua")
	if err != nil {
		t.Fatal(err)
	}
	opts := []string{"--mysql-ignore-errors=1146", "--events=1", "--time=0", "--rows=5", "--flag=on", "--items=a,b"}
	for _, c := range []struct {
		command string
		threads int
	}{{"prepare", 1}, {"hello", 1}, {"each", 2}, {"run", 1}, {"cleanup", 1}} {
		args := append(append([]string{"api.lua"}, opts...), fmt.Sprintf("--threads=%d", c.threads), c.command)
		a, ca := runIn(t, dir, "sysbench", append(args, luaConn(sbDB)...)...)
		b, cb := runIn(t, dir, binPath, append([]string{"sysbench"}, append(args, luaConn(obDB)...)...)...)
		if ca != cb {
			t.Fatalf("%s: exit %d, sysbench %d\n--- sysbench\n%s\n--- oltpbench\n%s", c.command, cb, ca, a, b)
		}
		a = strings.ReplaceAll(a, sbDB, "DB")
		b = strings.ReplaceAll(b, obDB, "DB")
		ma, mb := masked(a), masked(b)
		if c.threads > 1 { // the threads' lines come in any order, their texts and newlines apart
			// Every newline counts, the last ones too: two threads'
			// texts on the last line leave their newlines after it.
			ma, mb = anyInterleaving(maskedAll(a, dir)), anyInterleaving(maskedAll(b, dir))
		}
		sameLines(t, "api.lua "+c.command, ma, mb)
		if c.command == "run" {
			if ca, cb := counts(a), counts(b); fmt.Sprint(ca) != fmt.Sprint(cb) {
				t.Errorf("api.lua run counts %v, sysbench %v", cb, ca)
			}
		}
	}
}

// The 0.5-era db_* and sb_rand* API runs as in sysbench 1.0.20
// (testdata/lua/legacy.lua): output, counts and the table it leaves.
func TestLuaLegacyAPI(t *testing.T) {
	needSysbench(t)
	sbDB, obDB := luaDBs(t, "lua_legacy")
	dir, _ := filepath.Abs("testdata/lua")
	for _, command := range []string{"prepare", "run", "cleanup"} {
		args := []string{"legacy.lua", "--events=1", "--time=0", command}
		a, ca := runIn(t, dir, "sysbench", append(args, luaConn(sbDB)...)...)
		b, cb := runIn(t, dir, binPath, append([]string{"sysbench"}, append(args, luaConn(obDB)...)...)...)
		if ca != 0 || cb != 0 {
			t.Fatalf("%s: exit %d, sysbench %d\n%s", command, cb, ca, b)
		}
		sameLines(t, "legacy.lua "+command, masked(a), masked(b))
		if command == "run" {
			if ca, cb := counts(a), counts(b); fmt.Sprint(ca) != fmt.Sprint(cb) {
				t.Errorf("legacy.lua counts %v, sysbench %v", cb, ca)
			}
			sameTables(t, "legacy.lua run", sbDB, obDB)
		}
	}
}

// An event whose statement fails with an error in --mysql-ignore-errors is
// restarted after sysbench.hooks.before_restart_event, and counted, as
// sysbench does (testdata/lua/restart.lua).
func TestLuaRestartEvent(t *testing.T) {
	needSysbench(t)
	sbDB, obDB := luaDBs(t, "lua_restart")
	dir, _ := filepath.Abs("testdata/lua")
	for _, command := range []string{"prepare", "run", "cleanup"} {
		args := []string{"restart.lua", "--events=20", "--time=0", "--mysql-ignore-errors=1054", command}
		a, ca := runIn(t, dir, "sysbench", append(args, luaConn(sbDB)...)...)
		b, cb := runIn(t, dir, binPath, append([]string{"sysbench"}, append(args, luaConn(obDB)...)...)...)
		if ca != 0 || cb != 0 {
			t.Fatalf("%s: exit %d, sysbench %d\n%s", command, cb, ca, b)
		}
		if command != "run" {
			continue
		}
		if !strings.Contains(b, "restart\ttrue\t1054\t42S22") || !strings.Contains(b, "events tried\t29\trestarts\t9") {
			t.Errorf("the hook did not see the restarts:\n%s", b)
		}
		if ca, cb := counts(a), counts(b); fmt.Sprint(ca) != fmt.Sprint(cb) || cb["ignored errors"] != "9" {
			t.Errorf("counts %v, sysbench %v", cb, ca)
		}
	}
}

// Bad scripts get sysbench's FATAL line and a non-zero exit: a syntax error
// and a runtime error with file and line, run without event, an unknown
// command, a script that is not there.
func TestLuaBadInput(t *testing.T) {
	needSysbench(t)
	dir := t.TempDir()
	files := map[string]string{
		"syntax.lua":  "function event(\n  x = = 1\nend\n",
		"runtime.lua": "function event()\n  local t = nil\n  return t.x\nend\n",
		"noevent.lua": "function prepare()\n  print(\"p\")\nend\n",
	}
	for n, src := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644)
	}
	db := "lua_bad"
	freshDB(t, db)
	openDB(t, "").Exec("CREATE DATABASE " + db)
	for _, c := range []struct {
		args []string
		want string // the FATAL line both print, or its start
	}{
		{[]string{"syntax.lua", "run"}, "FATAL: syntax.lua:2: "},
		{[]string{"runtime.lua", "--events=1", "run"}, "FATAL: `thread_run' function failed: runtime.lua:3: "},
		{[]string{"noevent.lua", "run"}, "FATAL: cannot find the event() function in noevent.lua"},
		{[]string{"noevent.lua", "frobnicate"}, "Unknown command: frobnicate"},
		{[]string{"missing.lua", "run"}, "FATAL: Cannot find benchmark 'missing.lua': no such built-in test, file or module"},
	} {
		a, ca := runIn(t, dir, "sysbench", append(c.args, luaConn(db)...)...)
		b, cb := runIn(t, dir, binPath, append([]string{"sysbench"}, append(c.args, luaConn(db)...)...)...)
		if ca == 0 || cb == 0 || !strings.Contains(a, c.want) || !strings.Contains(b, c.want) {
			t.Errorf("%v: exit %d (sysbench %d), want %q in both\n--- sysbench\n%s\n--- oltpbench\n%s", c.args, cb, ca, c.want, a, b)
		}
	}
}

// Report hooks replace the interval lines and the final report, and
// sysbench.report_csv, report_json and report_default print as sysbench's
// (testdata/lua/report.lua). How many intervals a run prints depends on
// timing, so the distinct lines are compared.
func TestLuaReportHooks(t *testing.T) {
	needSysbench(t)
	dir, _ := filepath.Abs("testdata/lua")
	db := "lua_report"
	freshDB(t, db)
	openDB(t, "").Exec("CREATE DATABASE " + db)
	// 3 s at 1 s intervals: at least two intermediate reports from both,
	// so both print report_json's "," between reports (with 2 s, the
	// report at the end raced the end of the run and one side lost it).
	args := append([]string{"report.lua", "--time=3", "--report-interval=1", "run"}, luaConn(db)...)
	a, ca := runIn(t, dir, "sysbench", args...)
	b, cb := runIn(t, dir, binPath, append([]string{"sysbench"}, args...)...)
	if ca != 0 || cb != 0 {
		t.Fatalf("exit %d, sysbench %d\n%s", cb, ca, b)
	}
	distinct := func(s string) []string {
		seen := map[string]bool{}
		var out []string
		for _, l := range masked(s) {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
		sort.Strings(out)
		return out
	}
	sameLines(t, "report hooks", distinct(a), distinct(b))
	if strings.Contains(b, "SQL statistics:") {
		t.Errorf("report_cumulative did not replace the final report:\n%s", b)
	}
}

// A script takes the run modes of the native tests: a thread list into a
// result folder (each result names the script by path and SHA-256), a dry
// run without a server, and report compare over the results.
func TestLuaRunModes(t *testing.T) {
	needServer(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "select.lua")
	os.WriteFile(path, []byte("function event()\n  sysbench.sql.driver():connect():query(\"SELECT 1\")\nend\n"), 0o644)
	res := filepath.Join(dir, "res")
	r := ob(t, nil, append([]string{"sysbench", path, "--threads=1,2", "--time=1", "--result-dir=" + res, "run"}, luaConn("mysql")...)...)
	mustOK(t, r, "thread list")
	files, _ := filepath.Glob(filepath.Join(res, "*.json"))
	if len(files) != 2 {
		t.Fatalf("result files %v", files)
	}
	for _, f := range files {
		rr, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		if rr.Workload != "sysbench/select" || rr.Dataset["script"] != path || len(rr.Dataset["script_sha256"]) != 64 || rr.Totals["reads"] == 0 {
			t.Errorf("%s: workload %s, dataset %v, totals %v", f, rr.Workload, rr.Dataset, rr.Totals)
		}
	}
	r = ob(t, nil, "report", "compare", "--baseline", res, "--candidate", res)
	mustOK(t, r, "report compare")
	if !strings.Contains(r.stdout, "sysbench/select") {
		t.Errorf("compare does not show the script's results:\n%s", r.stdout)
	}
	// --mysql-dry-run: no server at all (the port is closed), every statement a no-op.
	r = ob(t, nil, "sysbench", path, "--mysql-dry-run", "--events=100", "--time=0", "--mysql-port=1", "run")
	mustOK(t, r, "dry run")
	if m := counts(r.stdout); m["transactions"] != "100" {
		t.Errorf("dry run: %v\n%s", m, r.stdout)
	}
}

// scriptPlan makes an empty database db and, in a folder of its own, a plan
// whose dataset has rows rows and whose step runs scripts/myps.lua (a copy of
// the stock point select script beside the plan), threads 1 and 2.
func scriptPlan(t *testing.T, db string, rows int) (dir, planFile string) {
	t.Helper()
	needServer(t)
	freshDB(t, db)
	if _, err := openDB(t, "").Exec("CREATE DATABASE " + db); err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	os.Mkdir(filepath.Join(dir, "scripts"), 0o755)
	for _, name := range []string{"oltp_common", "oltp_point_select"} {
		b, err := os.ReadFile(filepath.Join("/usr/share/sysbench", name+".lua"))
		if err != nil {
			t.Skip("sysbench's scripts are not installed")
		}
		os.WriteFile(filepath.Join(dir, "scripts", strings.Replace(name, "oltp_point_select", "myps", 1)+".lua"), b, 0o644)
	}
	planFile = filepath.Join(dir, "p.toml")
	os.WriteFile(planFile, []byte(fmt.Sprintf(`[dataset]
workload = "sysbench"
options = { tables = 1, table-size = %d }
[warmup]
prewarm = true
analyze = true
[[step]]
test = "scripts/myps.lua"
threads = [1, 2]
time = "1s"
`, rows)), 0o644)
	return dir, planFile
}

// A plan whose steps run a script: the script's path is relative to the
// plan file (the test runs from another folder), the script's own prepare
// makes the dataset and the plan records it, so a second plan verifies it,
// a prepare that was cut is cleaned up and redone, and tables the plan did
// not record are refused; the script's cleanup drops the record too.
func TestLuaPlan(t *testing.T) {
	dir, planFile := scriptPlan(t, "lua_plan", 200)
	state := func() (st string) {
		openDB(t, "lua_plan").QueryRow("SELECT v FROM oltpbench_dataset WHERE k = 'state'").Scan(&st)
		return st
	}
	rows := func() (n int) {
		openDB(t, "lua_plan").QueryRow("SELECT COUNT(*) FROM sbtest1").Scan(&n)
		return n
	}
	script := filepath.Join(dir, "scripts", "myps.lua")

	res1 := t.TempDir()
	r := ob(t, nil, planArgs(planFile, res1, "lua_plan")...)
	mustOK(t, r, "script plan")
	if !strings.Contains(r.stdout, "Creating table 'sbtest1'") || !strings.Contains(r.stdout, "Prewarming table sbtest1") ||
		strings.Count(r.stdout, "Running the test with following options:") != 2 || !strings.Contains(r.stdout, "Warm-up: ANALYZE TABLE on 1 tables") {
		t.Errorf("the plan did not prepare, prewarm, analyze and run the script:\n%s", r.stdout)
	}
	if got := resultFiles(t, res1); !slices.Equal(got, []string{"myps-1threads-r1.json", "myps-2threads-r1.json"}) {
		t.Fatalf("results %v", got)
	}
	res, err := result.Read(filepath.Join(res1, "myps-2threads-r1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Dataset["script"] != script || res.Dataset["script_sha256"] == "" || res.Dataset["table_size"] != "200" {
		t.Errorf("the result's dataset %v does not name the script and its dataset", res.Dataset)
	}
	if state() != "complete" || rows() != 200 {
		t.Errorf("after the plan: record %q, %d rows", state(), rows())
	}

	r = ob(t, nil, planArgs(planFile, t.TempDir(), "lua_plan")...)
	mustOK(t, r, "second plan")
	if !strings.Contains(r.stdout, "Dataset: verified against its record in lua_plan (made by the prepare of sysbench myps.lua)") || strings.Contains(r.stdout, "Creating table") {
		t.Errorf("the second plan did not verify the dataset:\n%s", r.stdout)
	}
	other := filepath.Join(dir, "other.toml")
	os.WriteFile(other, []byte(strings.Replace(mustRead(t, planFile), "table-size = 200", "table-size = 300", 1)), 0o644)
	if r = ob(t, nil, planArgs(other, t.TempDir(), "lua_plan")...); r.code == 0 || !strings.Contains(r.stderr, "table_size=200 (the plan: 300)") {
		t.Errorf("a plan for another size: exit %d, stderr %q", r.code, r.stderr)
	}

	openDB(t, "lua_plan").Exec("UPDATE oltpbench_dataset SET v = 'preparing' WHERE k = 'state'")
	r = ob(t, nil, planArgs(planFile, t.TempDir(), "lua_plan")...)
	mustOK(t, r, "plan after a cut prepare")
	if !strings.Contains(r.stdout, "its prepare into lua_plan was cut: running cleanup, then prepare again") || !strings.Contains(r.stdout, "Dropping table 'sbtest1'") ||
		state() != "complete" || rows() != 200 {
		t.Errorf("the cut prepare was not redone (record %q, %d rows):\n%s", state(), rows(), r.stdout)
	}

	mustOK(t, sb(t, "lua_plan", script, "cleanup"), "script cleanup")
	if names := tableNames(t, "lua_plan", ""); len(names) != 0 {
		t.Errorf("after the script's cleanup: tables %v", names)
	}
	mustOK(t, sb(t, "lua_plan", script, "--tables=1", "--table-size=10", "prepare"), "script prepare")
	if r = ob(t, nil, planArgs(planFile, t.TempDir(), "lua_plan")...); r.code == 0 ||
		!strings.Contains(r.stderr, "lua_plan holds tables that no prepare of the plan recorded (sbtest1): run cleanup") {
		t.Errorf("tables the plan did not record: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Scripts whose output is deterministic print exactly what sysbench
// prints, apart from the banner and the times: sysbench.histogram value for
// value and star for star, LuaJIT's bit library; a script that never used
// sysbench.sql has no SQL statistics in its report, as in sysbench.
func TestLuaExactOutput(t *testing.T) {
	needSysbench(t)
	timed := regexp.MustCompile(`^(sysbench 1\.0\.20 |\s+(total time|min|avg|max|95th percentile|sum|execution time \(avg/stddev\)):)`)
	for _, name := range []string{"histogram", "bit"} {
		t.Run(name, func(t *testing.T) {
			args := []string{"testdata/lua/" + name + ".lua", "--mysql-dry-run", "--events=2", "--time=0", "run"}
			a, ca := realSysbench(t, args...)
			b, cb := ours(t, args...)
			keep := func(s string) (out []string) {
				for _, l := range strings.Split(s, "\n") {
					if !timed.MatchString(l) {
						out = append(out, l)
					}
				}
				return out
			}
			la, lb := keep(a), keep(b)
			if ca != 0 || cb != 0 || len(la) < 40 || strings.Contains(a, "SQL statistics") {
				t.Fatalf("exit %d, sysbench %d, %d lines:\n%s", cb, ca, len(la), a)
			}
			sameLines(t, name, la, lb)
		})
	}
}

// A plan killed (SIGKILL) while its script prepares the dataset: the next
// run finds the record "preparing", runs the script's cleanup and prepares
// again, so the table holds its rows once, and the plan completes.
func TestLuaPlanKilledPrepare(t *testing.T) {
	const rows = 400000
	_, planFile := scriptPlan(t, "lua_plan_kill", rows)
	cmd, sc, _ := startBinary(t, planArgs(planFile, t.TempDir(), "lua_plan_kill")...)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.HasPrefix(sc.Text(), "Inserting ") {
			break
		}
	}
	// Part of the rows, not all: the kill lands inside the insert.
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		var n int
		if openDB(t, "lua_plan_kill").QueryRow("SELECT COUNT(*) FROM sbtest1").Scan(&n) == nil && n > 0 {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	var n int
	var st string
	openDB(t, "lua_plan_kill").QueryRow("SELECT COUNT(*) FROM sbtest1").Scan(&n)
	openDB(t, "lua_plan_kill").QueryRow("SELECT v FROM oltpbench_dataset WHERE k = 'state'").Scan(&st)
	if n >= rows || st != "preparing" {
		t.Fatalf("killed after %d of %d rows, record %q (want a cut prepare):\n%s", n, rows, st, strings.Join(seen, "\n"))
	}
	r := ob(t, nil, planArgs(planFile, t.TempDir(), "lua_plan_kill")...)
	mustOK(t, r, "plan after the kill")
	openDB(t, "lua_plan_kill").QueryRow("SELECT COUNT(*) FROM sbtest1").Scan(&n)
	openDB(t, "lua_plan_kill").QueryRow("SELECT v FROM oltpbench_dataset WHERE k = 'state'").Scan(&st)
	if !strings.Contains(r.stdout, "its prepare into lua_plan_kill was cut: running cleanup, then prepare again") || n != rows || st != "complete" ||
		!strings.Contains(r.stdout, "Plan done: 2 cells") {
		t.Errorf("after the kill: %d rows (want %d), record %q:\n%s", n, rows, st, r.stdout)
	}
}

// anyInterleaving is output of threads printing at once, as every
// interleaving of it compares: Lua's print writes its text and its newline
// in two writes, so sysbench's threads can put two texts on one line and
// both newlines after ("each thread 0each thread 1", then an empty line).
// It is the lines sorted and joined, and how many there are.
func anyInterleaving(lines []string) []string {
	s := slices.Clone(lines)
	sort.Strings(s)
	return []string{fmt.Sprintf("%d lines", len(s)), strings.Join(s, "")}
}

// TestAnyInterleaving: two threads' texts on one line and their newlines
// after compare as the same output; a text missing or extra does not.
func TestAnyInterleaving(t *testing.T) {
	ours := []string{"Initializing worker threads...", "each thread N", "each thread N", "sysbench N.N (VERSION)"}
	for _, c := range []struct {
		theirs []string
		same   bool
	}{
		{[]string{"Initializing worker threads...", "each thread Neach thread N", "", "sysbench N.N (VERSION)"}, true},
		{[]string{"Initializing worker threads...", "each thread N", "each thread N", "sysbench N.N (VERSION)"}, true},
		{[]string{"Initializing worker threads...", "each thread N", "", "sysbench N.N (VERSION)"}, false},
		{[]string{"Initializing worker threads...", "each thread Neach thread N", "sysbench N.N (VERSION)"}, false},
	} {
		if got := slices.Equal(anyInterleaving(c.theirs), anyInterleaving(ours)); got != c.same {
			t.Errorf("%q: same %v, want %v", c.theirs, got, c.same)
		}
	}
	// As maskedAll splits a whole output: the threads' lines last, their
	// newlines after both texts are lines too.
	mine := maskedAll("Initializing worker threads...\neach thread 1\neach thread 2\n", "/dir")
	for theirs, same := range map[string]bool{
		"Initializing worker threads...\neach thread 2each thread 1\n\n": true,
		"Initializing worker threads...\neach thread 2\neach thread 1\n": true,
		"Initializing worker threads...\neach thread 2each thread 1\n":   false,
		"Initializing worker threads...\neach thread 2\n\n":              false,
	} {
		if got := slices.Equal(anyInterleaving(maskedAll(theirs, "/dir")), anyInterleaving(mine)); got != same {
			t.Errorf("%q: same %v, want %v", theirs, got, same)
		}
	}
}
