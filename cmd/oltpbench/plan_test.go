package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

// TestPlanShowGolden: the shipped example plans, scaled down as the README
// runs them, expand to the cells and command lines in testdata.
func TestPlanShowGolden(t *testing.T) {
	for _, c := range []struct{ plan, scale string }{
		{"sysbench-versions", "0.001"},
		{"tpcc-versions", "0.002"},
		{"sysbench-p95", "0.001"},
		{"sysbench-release", "0.001"},
	} {
		t.Run(c.plan, func(t *testing.T) {
			r := inProcess("plan", "show", "../../deploy/plans/"+c.plan+".toml", "--scale="+c.scale)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			golden(t, "plan-"+c.plan+".txt", r.stdout)
		})
	}
}

func writePlan(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanBad: plans and command lines that cannot run get one line on
// stderr, naming the line and the fix, before anything runs.
func TestPlanBad(t *testing.T) {
	head := "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1 }\n[[step]]\ntest = \"oltp_point_select\"\nthreads = [1]\ntime = \"1s\"\n"
	for _, c := range []struct {
		name, src string
		args      []string
		want      string
	}{
		{"unknown key", head + "treads = [2]\n", nil, `p.toml:8: unknown key "step.treads"`},
		{"unknown option", head + "options = { tabels = 3 }\n", nil, `p.toml:8: step "oltp_point_select": unknown option: --tabels (see oltpbench sysbench --help)`},
		{"bad option value", head + "options = { rand-type = \"zipf\" }\n", nil, `p.toml:8: step "oltp_point_select": `},
		{"unknown test", strings.Replace(head, "oltp_point_select", "oltp_pointselect", 1), nil, `p.toml:4: step "oltp_pointselect": `},
		{"bad dataset option", strings.Replace(head, "tables = 1", "tables = \"many\"", 1), nil, `p.toml:3: [dataset]: `},
		{"prewarm without one", "[dataset]\nworkload = \"tpcc\"\n[warmup]\nprewarm = true\n[[step]]\nthreads = [1]\ntime = \"1s\"\n", nil, `p.toml:4: tpcc has no prewarm: remove prewarm`},
		{"a script not found", strings.Replace(head, "test = \"oltp_point_select\"", "name = \"lg\"\ntest = \"lua/nosuch.lua\"", 1), nil, `step "lg": cannot find script "lua/nosuch.lua"`},
		{"unknown reset", head + "reset = \"restore\"\n", nil, `p.toml:8: step "oltp_point_select": reset = "restore": use "reload", "reimport" or "command"`},
		{"reset key without reset", head + "reset_every = \"step\"\n", nil, `p.toml:8: step "oltp_point_select": reset_every applies to a reset: add reset = "reload", "reimport" or "command"`},
		{"bad reset_every", head + "reset = \"reload\"\nreset_every = \"run\"\n", nil, `p.toml:9: step "oltp_point_select": reset_every = "run": use "cell" (before every run) or "step"`},
		{"command without one", head + "reset = \"command\"\n", nil, `p.toml:8: step "oltp_point_select": reset = "command" needs reset_command = the command that restores the dataset`},
		{"reimport without files", head + "reset = \"reimport\"\n", nil, `p.toml:8: step "oltp_point_select": reset = "reimport" needs reset_from = the folder (or s3:// URL) for the dataset's CSV files`},
		{"reset_from of a reload", head + "reset = \"reload\"\nreset_from = \"csv\"\n", nil, `p.toml:9: step "oltp_point_select": reset_from applies to reset = "reimport"`},
		{"bad reset_timeout", head + "reset = \"reload\"\nreset_timeout = \"soon\"\n", nil, `p.toml:9: step "oltp_point_select": reset_timeout = "soon": a duration like 30m`},
		{"a password in reset_command", head + "reset = \"command\"\nreset_command = \"mysql --password=x < dump.sql\"\n", nil, `p.toml:9: step "oltp_point_select": keep secrets out of plans`},
		{"keys in reset_from", head + "reset = \"reimport\"\nreset_from = \"s3://b/p?access-key=a&secret-access-key=b\"\n", nil, `p.toml:9: step "oltp_point_select": keep secrets out of plans (results keep a copy): leave the keys out of reset_from`},
		{"reimport of a script's dataset", "[dataset]\nworkload = \"sysbench\"\n[[step]]\nname = \"lg\"\ntest = \"" + luaTestdata("restart.lua") + "\"\nthreads = [1]\ntime = \"1s\"\nreset = \"reimport\"\nreset_from = \"csv\"\n", nil,
			`p.toml:8: step "lg": reset = "reimport" loads the CSV files of a dataset the loader makes, and this one is made by its workload's own prepare: use reset = "reload" or "command"`},
		{"no result dir", head, []string{}, `plan run needs --result-dir DIR`},
		{"options without --", head, []string{"--result-dir=" + os.TempDir(), "--mysql-port=1"}, `unknown option: --mysql-port`},
		{"the plan's option after --", head, []string{"--result-dir=" + os.TempDir(), "--", "--threads=8"}, `--threads=8 after -- is the plan's to set`},
		{"stray argument", head, []string{"--result-dir=" + os.TempDir(), "more"}, `unexpected "more": options for every command go after --`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writePlan(t, c.src)
			args := []string{"plan", "show", p}
			if c.args != nil {
				args = append([]string{"plan", "run", p}, c.args...)
			}
			r := inProcess(args...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code == 0 || len(lines) != 1 || !strings.Contains(lines[0], c.want) || r.stdout != "" {
				t.Errorf("exit %d\nstderr %q\nwant   %q\nstdout %q", r.code, r.stderr, c.want, r.stdout)
			}
		})
	}
}

// luaTestdata is a script of testdata/lua, absolute.
func luaTestdata(name string) string {
	p, _ := filepath.Abs(filepath.Join("testdata", "lua", name))
	return p
}

// TestPlanLock: two plan runs into one folder would run cells twice.
func TestPlanLock(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, ".lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	r := inProcess("plan", "run", writePlan(t, killPlan), "--result-dir", dir, "--", "--mysql-port=1")
	if r.code == 0 || !strings.Contains(r.stderr, "another plan run is using "+dir) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// planArgs runs plan run on the test server.
func planArgs(planFile, dir, db string) []string {
	return append([]string{"plan", "run", planFile, "--result-dir", dir, "--"}, connArgs(db)...)
}

const killPlan = `name = "kill test"
[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 1000 }
[warmup]
prewarm = true
analyze = true
[[step]]
test = "oltp_point_select"
threads = [1, 2]
time = "1s"
repeats = 2
[[step]]
test = "oltp_read_only"
threads = [1, 2]
time = "1s"
repeats = 2
`

// TestPlanResumeAfterKill: 2 steps x 2 levels x 2 repeats, SIGKILL during
// the third cell, then the same command: only cells 3-8 run, cells 1-2 are
// kept as they were, and the files are those of a run never interrupted,
// cell for cell.
func TestPlanResumeAfterKill(t *testing.T) {
	needServer(t)
	freshDB(t, "plan_kill")
	p := writePlan(t, killPlan)
	dir := t.TempDir()

	kept := killInThirdCell(t, p, dir)
	resumeKeeps(t, p, dir, kept)
	sameAsUninterrupted(t, p, dir)
	// Everything done: a third run runs nothing.
	r := ob(t, nil, planArgs(p, dir, "plan_kill")...)
	mustOK(t, r, "plan run a third time")
	if !strings.Contains(r.stdout, "All 8 cells of the plan are done") || strings.Contains(r.stdout, "== cell") {
		t.Errorf("third run:\n%s", r.stdout)
	}
	// An edited step: its cells' results hold another command line, so
	// they run again; the other step's stay.
	edited := strings.Replace(killPlan, "test = \"oltp_read_only\"", "test = \"oltp_read_only\"\noptions = { range-size = 50 }", 1)
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r = ob(t, nil, planArgs(p, dir, "plan_kill")...)
	mustOK(t, r, "plan run after an edit")
	if n := strings.Count(r.stdout, "holds another command's result (the plan changed): running it again"); n != 4 ||
		!strings.Contains(r.stdout, "Resuming: 4 of 8 cells are done") || strings.Contains(r.stdout, "== cell 4/8") || !strings.Contains(r.stdout, "== cell 5/8") {
		t.Errorf("after editing step 2 (%d cells said changed):\n%s", n, r.stdout)
	}
	if res, err := result.Read(filepath.Join(dir, "oltp_read_only-2threads-r2.json")); err != nil || res.Options["range-size"] != "50" {
		t.Errorf("the edited cell's result: %v %v", err, res.Options["range-size"])
	}
}

// killInThirdCell runs the plan and SIGKILLs it while its third cell
// measures; it returns the results the folder kept.
func killInThirdCell(t *testing.T, p, dir string) map[string][]byte {
	t.Helper()
	cmd, sc, _ := startBinary(t, planArgs(p, dir, "plan_kill")...)
	third := false
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.HasPrefix(sc.Text(), "== cell 3/8:") {
			third = true
		}
		if third && sc.Text() == "Threads started!" {
			break // the third cell is measuring
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !third {
		t.Fatalf("the plan never reached its third cell:\n%s", strings.Join(seen, "\n"))
	}
	for _, want := range []string{"Dataset: no database plan_kill yet: preparing it", "Prewarming table sbtest1", "Warm-up: ANALYZE TABLE on 1 tables"} {
		if !strings.Contains(strings.Join(seen, "\n"), want) {
			t.Errorf("the first run did not say %q:\n%s", want, strings.Join(seen, "\n"))
		}
	}
	kept := map[string][]byte{}
	for _, f := range resultFiles(t, dir) {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		kept[f] = b
	}
	if want := []string{"oltp_point_select-1threads-r1.json", "oltp_point_select-2threads-r1.json"}; !slices.Equal(sortedKeysOf(kept), want) {
		t.Fatalf("after the kill the folder holds %v, want %v", sortedKeysOf(kept), want)
	}

	return kept
}

// resumeKeeps runs the plan again: only the cells not done run, and the
// results done before the kill are kept as they were.
func resumeKeeps(t *testing.T, p, dir string, kept map[string][]byte) {
	t.Helper()
	r := ob(t, nil, planArgs(p, dir, "plan_kill")...)
	mustOK(t, r, "plan run again")
	for _, want := range []string{"Resuming: 2 of 8 cells are done in " + dir + " (cells 1-2); running the other 6",
		"Dataset: verified against its record in plan_kill (1000 rows)", "== cell 3/8:", "== cell 8/8:", "Plan done: 8 cells"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the resumed run does not say %q:\n%s", want, r.stdout)
		}
	}
	if !regexp.MustCompile(`(?m)^== cell 3/8: oltp_point_select, 1 threads, repeat 2/2; ETA \d+s \(6 to run\)$`).MatchString(r.stdout) {
		t.Errorf("no progress line with the cell, its repeat and an ETA:\n%s", r.stdout)
	}
	for _, not := range []string{"== cell 1/8", "== cell 2/8", "preparing"} {
		if strings.Contains(r.stdout, not) {
			t.Errorf("the resumed run redid %q", not)
		}
	}
	for f, b := range kept {
		now, _ := os.ReadFile(filepath.Join(dir, f))
		if string(now) != string(b) {
			t.Errorf("%s, done before the kill, was rewritten", f)
		}
	}

}

// sameAsUninterrupted: the resumed folder holds the results of the same
// plan never interrupted, cell for cell.
func sameAsUninterrupted(t *testing.T, p, dir string) {
	t.Helper()
	clean := t.TempDir()
	mustOK(t, ob(t, nil, planArgs(p, clean, "plan_kill")...), "plan run uninterrupted")
	got, want := resultFiles(t, dir), resultFiles(t, clean)
	if !slices.Equal(got, want) || len(got) != 8 {
		t.Fatalf("resumed folder %v, uninterrupted %v", got, want)
	}
	for _, f := range got {
		a, err := result.Read(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := result.Read(filepath.Join(clean, f))
		if err != nil {
			t.Fatal(err)
		}
		if a.Workload != b.Workload || a.Threads != b.Threads || !reflect.DeepEqual(a.Cell, b.Cell) || !reflect.DeepEqual(a.Dataset, b.Dataset) ||
			!reflect.DeepEqual(withoutPaths(a.Options), withoutPaths(b.Options)) || a.Interrupted || b.Interrupted {
			t.Errorf("%s differs: %s %d %+v vs %s %d %+v", f, a.Workload, a.Threads, a.Cell, b.Workload, b.Threads, b.Cell)
		}
		if a.Seconds < 0.9 || a.Totals["events"] == 0 {
			t.Errorf("%s: %.2f s, %d events: not a whole run", f, a.Seconds, a.Totals["events"])
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".part") {
			t.Errorf("%s left behind", e.Name())
		}
	}
}

// withoutPaths drops the options naming the run's own files.
func withoutPaths(o map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range o {
		if k != "result-file" && k != "result-dir" {
			m[k] = v
		}
	}
	return m
}

// startBinary starts the built oltpbench with args, its stdout to scan line
// by line as it comes, its stderr kept.
func startBinary(t *testing.T, args ...string) (*exec.Cmd, *bufio.Scanner, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out), stderr
}

func resultFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []string
	for _, f := range m {
		out = append(out, filepath.Base(f))
	}
	slices.Sort(out)
	return out
}

func sortedKeysOf[V any](m map[string]V) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	slices.Sort(k)
	return k
}

// TestPlanDatasetAndSearch: a plan refuses a database holding another
// dataset, naming the difference; a p95 search resumed takes the levels
// it measured before and runs only the missing one.
func TestPlanDatasetAndSearch(t *testing.T) {
	needServer(t)
	freshDB(t, "plan_search")
	mustOK(t, sb(t, "plan_search", "oltp_point_select", "--tables=1", "--table-size=500", "prepare"), "prepare")
	other := writePlan(t, strings.Replace(killPlan, "table-size = 1000", "table-size = 600", 1))
	r := ob(t, nil, planArgs(other, t.TempDir(), "plan_search")...)
	if r.code == 0 || !strings.Contains(r.stderr, "the dataset in plan_search is not the plan's: table_size=500 (the plan: 600); run cleanup") {
		t.Fatalf("a plan on another dataset: exit %d, stderr %q", r.code, r.stderr)
	}

	// A load cut short (its record says so) is resumed, not refused or redone.
	if _, err := openDB(t, "plan_search").Exec("UPDATE oltpbench_dataset SET v = 'loading' WHERE k = 'state'"); err != nil {
		t.Fatal(err)
	}
	searchSrc := `[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 500 }
[[step]]
name = "ps"
test = "oltp_point_select"
threads = [1, 64]
time = "1s"
p95_limit = "10s"
search_steps = 3
`
	search := writePlan(t, searchSrc)
	dir := t.TempDir()
	r = ob(t, nil, planArgs(search, dir, "plan_search")...)
	mustOK(t, r, "search plan")
	if !strings.Contains(r.stdout, "Dataset: a load into plan_search was interrupted: resuming it") {
		t.Errorf("the cut load was not resumed:\n%s", r.stdout)
	}
	var rows int
	if err := openDB(t, "plan_search").QueryRow("SELECT COUNT(*) FROM sbtest1").Scan(&rows); err != nil || rows != 500 {
		t.Errorf("sbtest1 holds %d rows after the resumed load (%v), want 500", rows, err)
	}
	// search_steps = 3 ends the doubling at 4 of the 64 threads allowed.
	runs := resultFiles(t, filepath.Join(dir, "ps-p95search"))
	if want := []string{"ps-1threads.json", "ps-2threads.json", "ps-4threads.json"}; !slices.Equal(runs, want) {
		t.Fatalf("search runs %v, want %v", runs, want)
	}
	// As if killed while measuring 4 threads.
	os.Remove(filepath.Join(dir, "ps-p95search", ".done"))
	os.Remove(filepath.Join(dir, "ps-p95search", runs[2]))
	before, _ := os.Stat(filepath.Join(dir, "ps-p95search", runs[0]))
	r = ob(t, nil, planArgs(search, dir, "plan_search")...)
	mustOK(t, r, "search plan resumed")
	if strings.Count(r.stdout, "measured before:") != 2 || strings.Count(r.stdout, "Threads started!") != 1 {
		t.Errorf("the resumed search did not reuse two levels and run one:\n%s", r.stdout)
	}
	if after, _ := os.Stat(filepath.Join(dir, "ps-p95search", runs[0])); !after.ModTime().Equal(before.ModTime()) {
		t.Error("a reused level's file was rewritten")
	}
	if !strings.Contains(r.stdout, "Best within p95 <= 10s") {
		t.Errorf("no search verdict:\n%s", r.stdout)
	}

	// An edited search step measures every level again: none of the levels
	// measured under the old options is reused, and every result records
	// the new option.
	edited := writePlan(t, strings.Replace(searchSrc, `time = "1s"`, "time = \"1s\"\noptions = { rand-type = \"uniform\" }", 1))
	r = ob(t, nil, planArgs(edited, dir, "plan_search")...)
	mustOK(t, r, "edited search plan")
	if !strings.Contains(r.stdout, "the plan changed since its search ran") || strings.Contains(r.stdout, "measured before:") ||
		strings.Count(r.stdout, "Threads started!") != 3 {
		t.Errorf("the edited search reused levels measured under the old options:\n%s", r.stdout)
	}
	for _, f := range runs {
		res, err := result.Read(filepath.Join(dir, "ps-p95search", f))
		if err != nil {
			t.Fatal(err)
		}
		if res.Options["rand-type"] != "uniform" || res.Cell == nil || !slices.Contains(res.Cell.Args, "--rand-type=uniform") {
			t.Errorf("%s: rand-type %q, cell %+v: measured under the old options", f, res.Options["rand-type"], res.Cell)
		}
	}
}

// TestPlanInterruptAndSecret: Ctrl-C during a cell ends the plan with a
// non-zero exit naming the cell and leaves no result for it; a password
// given after -- is in no output and no file of the result folder.
func TestPlanInterruptAndSecret(t *testing.T) {
	needServer(t)
	freshDB(t, "plan_int")
	p := writePlan(t, `[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 500 }
[[step]]
test = "oltp_point_select"
threads = [1, 2]
time = "30s"
cooldown = "30s"
`)
	dir := t.TempDir()
	const secret = "sbtest-secret"
	args := []string{"plan", "run", p, "--result-dir", dir, "--", "--mysql-host=" + testHost, "--mysql-port=" + testPort,
		"--mysql-user=sbtest", "--mysql-password=" + secret, "--mysql-db=plan_int"}
	cmd, sc, stderr := startBinary(t, args...)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if sc.Text() == "Threads started!" {
			cmd.Process.Signal(os.Interrupt)
		}
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Fatalf("Ctrl-C during a cell: %v, want a non-zero exit", err)
	}
	if !strings.Contains(stderr.String(), "interrupted during cell 1/2 (oltp_point_select, 1 threads, repeat 1/1): run the same plan run command again") {
		t.Errorf("stderr %q", stderr.String())
	}
	if strings.Contains(strings.Join(seen, "\n"), "== cell 2/2") {
		t.Error("the plan went on after Ctrl-C")
	}
	if f := resultFiles(t, dir); len(f) != 0 {
		t.Errorf("an interrupted cell left results %v", f)
	}
	// Again, at 1 s a cell (nothing was done, so the other time changes nothing else).
	r := ob(t, nil, append(args[:3:3], append([]string{"--scale=0.034", "--result-dir", dir, "--"}, args[6:]...)...)...)
	mustOK(t, r, "plan run after Ctrl-C")
	if !strings.Contains(r.stdout, "== cell 1/2") || len(resultFiles(t, dir)) != 2 {
		t.Errorf("the interrupted cell was not run again:\n%s", r.stdout)
	}
	if strings.Count(r.stdout, "Cooldown 1s") != 1 {
		t.Errorf("want one cooldown (30s at scale 0.034) between the two cells:\n%s", r.stdout)
	}
	for _, s := range []string{strings.Join(seen, "\n"), stderr.String(), r.stdout, r.stderr} {
		if strings.Contains(s, secret) {
			t.Errorf("the password is in the output:\n%s", s)
		}
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), secret) {
				t.Errorf("the password is in %s", path)
			}
		}
		return nil
	})
}

// TestPlanServerDown: the server stops during cell 2 and stays down. Cell
// 2 runs out its time reconnecting (the runner's policy, made for restarts:
// its intervals show the outage); the next cell that cannot connect fails
// the plan, which names it and how to go on and keeps only the cells
// before it. With the server back, the same command runs from that cell.
func TestPlanServerDown(t *testing.T) {
	needServer(t)
	scripts, sdir := os.Getenv("OLTPBENCH_TEST_SCRIPTS"), os.Getenv("OLTPBENCH_TEST_DIR")
	if scripts == "" || sdir == "" {
		t.Skip("needs scripts/test.sh's server")
	}
	freshDB(t, "plan_down")
	p := writePlan(t, `[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 500 }
[[step]]
test = "oltp_point_select"
threads = [1, 2, 3]
time = "4s"
`)
	dir := t.TempDir()
	cmd, sc, stderr := startBinary(t, planArgs(p, dir, "plan_down")...)
	second, stopped := false, false
	for sc.Scan() {
		second = second || strings.HasPrefix(sc.Text(), "== cell 2/3:")
		if second && !stopped && sc.Text() == "Threads started!" {
			if o, err := exec.Command(filepath.Join(scripts, "mariadb-stop.sh"), sdir).CombinedOutput(); err != nil {
				t.Fatalf("stop: %v %s", err, o)
			}
			stopped = true
		}
	}
	err := cmd.Wait()
	if o, err := exec.Command(filepath.Join(scripts, "mariadb-start.sh"), sdir).CombinedOutput(); err != nil {
		t.Fatalf("start: %v %s", err, o)
	}
	if !stopped {
		t.Fatal("the plan never reached cell 2")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Fatalf("a plan whose server went away: %v, want a non-zero exit", err)
	}
	m := regexp.MustCompile(`cell ([23])/3 \(oltp_point_select, ([23]) threads, repeat 1/1\) failed: .*; the same plan run command redoes it and the rest`).FindStringSubmatch(stderr.String())
	if m == nil || m[1] != m[2] {
		t.Fatalf("stderr %q: want cell 2 or 3 named as failed", stderr.String())
	}
	failed := int(m[1][0] - '0')
	var want []string
	for c := 1; c < failed; c++ {
		want = append(want, fmt.Sprintf("oltp_point_select-%dthreads-r1.json", c))
	}
	if f := resultFiles(t, dir); !slices.Equal(f, want) {
		t.Errorf("after cell %d failed the folder holds %v, want %v", failed, f, want)
	}
	r := ob(t, nil, planArgs(p, dir, "plan_down")...)
	mustOK(t, r, "plan run with the server back")
	if !strings.Contains(r.stdout, fmt.Sprintf("Resuming: %d of 3 cells are done", failed-1)) || strings.Contains(r.stdout, "== cell 1/3") ||
		!strings.Contains(r.stdout, fmt.Sprintf("== cell %d/3", failed)) || len(resultFiles(t, dir)) != 3 {
		t.Errorf("with the server back:\n%s", r.stdout)
	}
}

// Ctrl-C during a search's cooldown ends the command at once, not when the
// cooldown is over.
func TestSearchCooldownEndsOnCtrlC(t *testing.T) {
	needServer(t)
	freshDB(t, "search_cool")
	mustOK(t, sb(t, "search_cool", "oltp_point_select", "--tables=1", "--table-size=100", "prepare"), "prepare")
	args := append([]string{"sysbench", "oltp_point_select", "--tables=1", "--table-size=100", "--threads=1-8",
		"--p95-slo=10s", "--time=1", "--cooldown=600"}, connArgs("search_cool")...)
	cmd, sc, stderr := startBinary(t, append(args, "run")...)
	var interrupted time.Time
	for sc.Scan() {
		// The first level has reported: the cooldown before the second starts.
		if interrupted.IsZero() && strings.HasPrefix(sc.Text(), "Threads fairness:") {
			interrupted = time.Now()
			cmd.Process.Signal(os.Interrupt)
		}
	}
	err := cmd.Wait()
	if interrupted.IsZero() {
		t.Fatalf("the first level never reported (%v): %s", err, stderr.String())
	}
	if took := time.Since(interrupted); took > 5*time.Second {
		t.Errorf("Ctrl-C in a 600 s cooldown ended the search after %s", took)
	}
}

// TestPlanResumesFolderOf3f32ac3: a plan folder written by the binary of
// 3f32ac3 (before cells had typed keys: its results and its search's
// .done hold command lines) resumes with nothing measured again, also
// when the plan re-spells its options; a changed value measures again.
func TestPlanResumesFolderOf3f32ac3(t *testing.T) {
	needServer(t)
	freshDB(t, "plan_legacy")
	src, err := os.ReadFile("testdata/plan-3f32ac3/plan.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, plan string
		again      int // runs measured again
	}{
		{"as written", string(src), 0},
		{"re-spelled", strings.NewReplacer("table-size", "table_size", "rand-type", "rand_type", "skip-trx = \"on\"", "skip_trx = \"on\"").Replace(string(src)), 0},
		{"another value", strings.Replace(string(src), `rand-type = "uniform"`, `rand-type = "special"`, 1), 2},
	} {
		dir := filepath.Join(t.TempDir(), "results")
		if err := os.CopyFS(dir, os.DirFS("testdata/plan-3f32ac3/results")); err != nil {
			t.Fatal(err)
		}
		r := ob(t, nil, planArgs(writePlan(t, c.plan), dir, "plan_legacy")...)
		mustOK(t, r, c.name)
		if got := strings.Count(r.stdout, "Threads started!"); got != c.again {
			t.Errorf("%s: %d runs measured again, want %d:\n%s", c.name, got, c.again, r.stdout)
		}
		if c.again == 0 && !strings.Contains(r.stdout, "All 3 cells of the plan are done") {
			t.Errorf("%s: the folder of 3f32ac3 did not resume:\n%s", c.name, r.stdout)
		}
	}
	// Its results read and compare as they are.
	legacy := "testdata/plan-3f32ac3/results"
	if r := inProcess("report", "show", legacy+"/ps-1threads-r1.json"); r.code != 0 || !strings.Contains(r.stdout, "sysbench/oltp_point_select") {
		t.Errorf("report show of a 3f32ac3 result: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := inProcess("report", "compare", legacy, legacy, "--names=a,b"); r.code != 0 || !strings.Contains(r.stdout, "Point Select") {
		t.Errorf("report compare of 3f32ac3's folder: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
