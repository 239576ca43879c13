package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/oltpbench/oltpbench/internal/result"
)

// A frozen server (SIGSTOP: the kernel still accepts connections for it,
// and nothing answers) at each phase of a command: the command ends within
// the bound of the read it was in (5 s for evidence and pings, 10 s for the
// checks and the dataset's state, the connect timeout for a connect) plus
// freezeMargin, names in one line what it could not read, and keeps or
// refuses its result as a run that lost its server does. Woken, the server
// has lost nothing: a cut load resumes to exact counts, a check passes.
const freezeMargin = 3 * time.Second

// frozenServer is a MariaDB of the test's own (SIGSTOP on the shared one
// would stop the other packages' tests): its connection options, and its
// process to freeze.
type frozenServer struct {
	t    *testing.T
	dir  string
	args []string
	pid  int
}

func startFrozenServer(t *testing.T) *frozenServer {
	t.Helper()
	needServer(t)
	scripts := os.Getenv("OLTPBENCH_TEST_SCRIPTS")
	if scripts == "" {
		t.Skip("needs scripts/test.sh's scripts")
	}
	dir := t.TempDir()
	c := exec.Command(filepath.Join(scripts, "mariadb-start.sh"), dir)
	c.Env = append(os.Environ(), "MARIADB_BUFFER_POOL=128M")
	if o, err := c.CombinedOutput(); err != nil {
		t.Fatalf("starting the server to freeze: %v %s", err, o)
	}
	port, err1 := os.ReadFile(filepath.Join(dir, "port"))
	pid, err2 := os.ReadFile(filepath.Join(dir, "mysqld.pid"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	s := &frozenServer{t: t, dir: dir, args: []string{"--mysql-host=127.0.0.1", "--mysql-port=" + strings.TrimSpace(string(port)), "--mysql-user=root"}}
	var err error
	if s.pid, err = strconv.Atoi(strings.TrimSpace(string(pid))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.wake(); stopServer(t, dir, true) })
	return s
}

// in is s for the test t (a subtest's failures are its own).
func (s *frozenServer) in(t *testing.T) *frozenServer { c := *s; c.t = t; return &c }

func (s *frozenServer) freeze() { syscall.Kill(s.pid, syscall.SIGSTOP) }
func (s *frozenServer) wake()   { syscall.Kill(s.pid, syscall.SIGCONT) }

// conn is the connection options with db.
func (s *frozenServer) conn(db string) []string {
	return append(append([]string{}, s.args...), "--mysql-db="+db)
}

func (s *frozenServer) db(db string) *sql.DB {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr, cfg.DBName = "root", "tcp", strings.TrimPrefix(s.args[0], "--mysql-host=")+":"+strings.TrimPrefix(s.args[1], "--mysql-port="), db
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	d := sql.OpenDB(c)
	s.t.Cleanup(func() { d.Close() })
	return d
}

func (s *frozenServer) must(args ...string) string {
	s.t.Helper()
	out, err := exec.Command(binPath, args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

// frozenRun is a command run with the server frozen as a line of its
// output (stdout and stderr merged) first holds at (at "": before it
// starts), and woken when it has ended.
type frozenRun struct {
	out       string
	code      int
	took      time.Duration // from the freeze to the command's end
	triggered bool
}

func (s *frozenServer) run(at string, args ...string) frozenRun {
	s.t.Helper()
	return s.runWhen(at, nil, s.freeze, args...)
}

// runWhen runs a command and acts (freezes the server) when the line at
// appears (at "A >> B": the first line B after a line A) or, with when
// set, as soon as when holds (checked every 10 ms); the server is woken
// when the command has ended.
func (s *frozenServer) runWhen(at string, when func() bool, act func(), args ...string) frozenRun {
	s.t.Helper()
	// A command that the freeze hangs is killed here, and fails the test
	// below, rather than hang go test with the server stopped.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	// SIGQUIT: Go prints every goroutine's stack as it exits, so the
	// failure below shows where the command waited.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 10 * time.Second
	r, w, err := os.Pipe()
	if err != nil {
		s.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	var fr frozenRun
	var frozen time.Time
	if at == "" && when == nil {
		act()
		frozen, fr.triggered = time.Now(), true
	}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	w.Close()
	defer s.wake()
	var mu sync.Mutex
	if when != nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			for !when() {
				select {
				case <-done:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
			mu.Lock()
			act()
			frozen, fr.triggered = time.Now(), true
			mu.Unlock()
		}()
	}
	var out strings.Builder
	sc := bufio.NewScanner(r)
	sc.Split(lines)
	seq := strings.Split(at, " >> ")
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if !fr.triggered && when == nil && strings.Contains(sc.Text(), seq[0]) && len(seq) > 1 {
			seq = seq[1:]
		} else if !fr.triggered && when == nil && strings.Contains(sc.Text(), seq[0]) {
			act()
			frozen, fr.triggered = time.Now(), true
		}
	}
	err = cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	fr.took = time.Since(frozen)
	s.wake()
	fr.out = out.String()
	if ctx.Err() != nil {
		s.t.Fatalf("%v hung with the server frozen (stopped after 2 minutes, its goroutines below):\n%s", args, fr.out)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		fr.code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatal(err)
	}
	if !fr.triggered {
		s.t.Fatalf("%v: %q never appeared:\n%s", args, at, fr.out)
	}
	return fr
}

// lines splits at \n and at \r (a progress line rewritten in place).
func lines(data []byte, atEOF bool) (int, []byte, error) {
	if i := strings.IndexAny(string(data), "\r\n"); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// said says whether out has a line of oltpbench's own that holds what.
func said(out, what string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "oltpbench: ") && strings.Contains(l, what) {
			return true
		}
	}
	return false
}

// TestFrozenServerRun: a sysbench run whose server freezes before it, in
// its warm-up (the window's start is then the first read to miss), mid-run
// and just before the window's end.
func TestFrozenServerRun(t *testing.T) {
	t.Parallel() // a server of its own, mostly waiting on it: beside the other freezes
	s := startFrozenServer(t)
	db := "frz"
	s.db("").Exec("CREATE DATABASE " + db)
	s.must(append([]string{"sysbench", "oltp_read_write", "--tables=2", "--table-size=2000", "prepare"}, s.conn(db)...)...)
	resultFile := filepath.Join(t.TempDir(), "r.json")
	base := append([]string{"sysbench", "oltp_read_write", "--tables=2", "--table-size=2000", "--threads=4", "--notes",
		"--mysql-connect-timeout=2", "--result-file=" + resultFile}, s.conn(db)...)
	for _, c := range []struct {
		name, at string
		args     []string
		bound    time.Duration // from the freeze
		code     int
		line     string
		kept     bool // a result with the events before the freeze
	}{
		{"before the run", "", []string{"--time=3"}, 2 * time.Second, 1, "timed out after 2s", false},
		{"warm-up", "Threads started!", []string{"--warmup-time=2", "--time=2"}, 4*time.Second + 5*time.Second, 1,
			"no event completed in the measured window: server evidence missing: the server did not answer within 5 s", false},
		{"mid-run", "[ 2s ]", []string{"--time=6", "--report-interval=1"}, 4*time.Second + 5*time.Second, 0,
			"server evidence missing: the server did not answer within 5 s", true},
		{"window's end", "[ 5s ]", []string{"--time=6", "--report-interval=1"}, time.Second + 5*time.Second, 0,
			"server evidence missing: the server did not answer within 5 s", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := s.in(t)
			os.Remove(resultFile)
			r := s.run(c.at, append(base, append(c.args, "run")...)...)
			if r.code != c.code || !said(r.out, c.line) {
				t.Fatalf("exit %d, want %d and the line %q:\n%s", r.code, c.code, c.line, r.out)
			}
			if r.took > c.bound+freezeMargin {
				t.Errorf("ended %s after the freeze, bound %s + %s", r.took.Round(time.Millisecond), c.bound, freezeMargin)
			}
			data, err := os.ReadFile(resultFile)
			if !c.kept {
				if err == nil {
					t.Errorf("a run that measured nothing kept a result")
				}
				return
			}
			if !strings.Contains(r.out, "SQL statistics:") || err != nil {
				t.Fatalf("no report or result (%v):\n%s", err, r.out)
			}
			var res result.Result
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
			if res.Evidence == nil || !strings.Contains(strings.Join(res.Evidence.Missing, "\n"), c.line) || res.Totals["events"] == 0 {
				t.Errorf("the result: evidence %+v, events %d; want what was missing and the events before the freeze", res.Evidence, res.Totals["events"])
			}
			if res.DatasetState == nil || res.DatasetState.End != nil {
				t.Errorf("dataset state %+v: want its start, and no end (not read)", res.DatasetState)
			}
		})
	}
	// The checks before the run, then the dataset's state read at the run's
	// start, each the first to wait: a table the test holds locked holds
	// them (the checks read it first; skipped, the state's exact count
	// does), let go once the state's line says so.
	t.Run("checks and dataset state", func(t *testing.T) {
		s := s.in(t)
		os.Remove(resultFile)
		lock, err := s.db(db).Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close()
		if _, err := lock.ExecContext(context.Background(), "LOCK TABLES sbtest1 WRITE"); err != nil {
			t.Fatal(err)
		}
		// The checks read the table first: the run is refused at their bound.
		checks := "checks before the run missing: the server did not answer within 10 s"
		start := time.Now()
		r := s.runWhen(checks, nil, func() {}, append(base, "--time=2", "run")...)
		if took := time.Since(start); r.code != 1 || !said(r.out, checks) || strings.Contains(r.out, "SQL statistics:") || took > 10*time.Second+freezeMargin {
			t.Fatalf("exit %d after %s:\n%s", r.code, took, r.out)
		}
		line := "dataset state missing: the server did not answer within 10 s"
		start = time.Now()
		r = s.runWhen(line, nil, func() { lock.ExecContext(context.Background(), "UNLOCK TABLES") },
			append(base, "--time=2", "--skip-dataset-check", "run")...)
		if r.code != 0 || !said(r.out, line) || !strings.Contains(r.out, "SQL statistics:") {
			t.Fatalf("exit %d:\n%s", r.code, r.out)
		}
		if took := time.Since(start); took > 10*time.Second+2*time.Second+freezeMargin {
			t.Errorf("took %s: the state read's bound, then the run", took)
		}
		var res result.Result
		data, err := os.ReadFile(resultFile)
		if err == nil {
			err = json.Unmarshal(data, &res)
		}
		if err != nil || res.DatasetState != nil || res.Evidence == nil || !slices.Contains(res.Evidence.Missing, line) {
			t.Errorf("the result (%v): state %+v, evidence %+v", err, res.DatasetState, res.Evidence)
		}
	})
	// The server lost nothing: its tables answer as prepared.
	var n int
	if err := s.db(db).QueryRow("SELECT COUNT(*) FROM sbtest2").Scan(&n); err != nil || n != 2000 {
		t.Errorf("after the freezes: %d rows, %v", n, err)
	}
}

// TestFrozenServerPlan: a plan whose server freezes between two cells, and
// in a reset: it stops at the bound with the cell named, and the same
// command, the server woken, finishes it with no cell run twice.
func TestFrozenServerPlan(t *testing.T) {
	t.Parallel() // a server of its own, mostly waiting on it: beside the other freezes
	s := startFrozenServer(t)
	// Where the freeze lands decides the line and its bound: between cells
	// it usually finds cell 2 connecting (the connect timeout), but the
	// freeze follows the line it waits for through a pipe, and on a busy
	// machine cell 2 has sometimes connected by then: its first read, the
	// checks before the run, then meets the freeze at their own bound.
	type stop struct {
		line  string
		bound time.Duration
	}
	for _, c := range []struct {
		name, at, reset string
		stops           []stop
	}{
		{"between cells", "== cell 2/2", "", []stop{{"cannot connect", 2 * time.Second},
			{"checks before the run missing: the server did not answer within 10 s", 10 * time.Second}}},
		{"in a reset", "Reset (reload) before cell 2/2 >> Inserting 20000 records into 'sbtest2'", "reset = \"reload\"\n",
			[]stop{{"failed: reset (reload) before it: reload stopped: ", 5 * time.Second}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := s.in(t)
			db := "frz_plan"
			s.db("").Exec("DROP DATABASE IF EXISTS " + db)
			s.db("").Exec("CREATE DATABASE " + db)
			p := writePlan(t, "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 2, table-size = 20000 }\n"+
				"[[step]]\ntest = \"oltp_point_select\"\nthreads = [1, 2]\ntime = \"2s\"\n"+c.reset)
			dir := t.TempDir()
			args := append([]string{"plan", "run", p, "--result-dir", dir, "--", "--mysql-connect-timeout=2"}, s.conn(db)...)
			r := s.run(c.at, args...)
			i := slices.IndexFunc(c.stops, func(st stop) bool { return said(r.out, st.line) })
			if r.code == 0 || !said(r.out, "cell 2/2") || i < 0 {
				t.Fatalf("exit %d, want the cell and one of %+v:\n%s", r.code, c.stops, r.out)
			}
			if bound := c.stops[i].bound; r.took > bound+freezeMargin {
				t.Errorf("ended %s after the freeze, bound %s + %s", r.took.Round(time.Millisecond), bound, freezeMargin)
			}
			if f := resultFiles(t, dir); !slices.Equal(f, []string{"oltp_point_select-1threads-r1.json"}) {
				t.Errorf("after the freeze the folder holds %v", f)
			}
			out := s.must(args...)
			if !strings.Contains(out, "Resuming: 1 of 2 cells are done") || strings.Contains(out, "== cell 1/2") || len(resultFiles(t, dir)) != 2 {
				t.Errorf("woken:\n%s", out)
			}
		})
	}
}

// TestFrozenServerCommands: prepare, tpcc check and import whose server
// freezes part way end at the ping's bound with one line; woken, the same
// command finishes (a load resumes) and nothing is lost or doubled.
func TestFrozenServerCommands(t *testing.T) {
	t.Parallel() // a server of its own, mostly waiting on it: beside the other freezes
	s := startFrozenServer(t)
	for _, db := range []string{"frz_load", "frz_tpcc", "frz_import"} {
		s.db("").Exec("CREATE DATABASE " + db)
	}
	exact := func(t *testing.T, db string, tables, rows int) {
		t.Helper()
		for i := 1; i <= tables; i++ {
			var n, ids int
			if err := s.db(db).QueryRow("SELECT COUNT(*), COUNT(DISTINCT id) FROM sbtest"+strconv.Itoa(i)).Scan(&n, &ids); err != nil || n != rows || ids != rows {
				t.Errorf("%s.sbtest%d: %d rows, %d ids, %v; want %d", db, i, n, ids, err, rows)
			}
		}
	}
	const pingBound = 5 * time.Second

	t.Run("prepare", func(t *testing.T) {
		s := s.in(t)
		args := append([]string{"sysbench", "oltp_read_only", "--tables=4", "--table-size=100000"}, s.conn("frz_load")...)
		r := s.run("Inserting 100000 records into 'sbtest2'", append(args, "prepare")...)
		if r.code != 1 || !strings.Contains(r.out, "oltpbench: prepare stopped: ") || !strings.Contains(r.out, "the server did not answer within 5 s") ||
			!strings.Contains(r.out, "--resume") || strings.Count(r.out, "oltpbench:") != 1 {
			t.Fatalf("exit %d:\n%s", r.code, r.out)
		}
		if r.took > pingBound+freezeMargin {
			t.Errorf("ended %s after the freeze", r.took)
		}
		s.must(append(args, "prepare", "--resume")...)
		exact(t, "frz_load", 4, 100000)
	})

	// A script's own prepare: its statements take no context, so the watch
	// closes its connections under them.
	t.Run("script prepare", func(t *testing.T) {
		s := s.in(t)
		common, err1 := os.ReadFile("/usr/share/sysbench/oltp_common.lua")
		point, err2 := os.ReadFile("/usr/share/sysbench/oltp_point_select.lua")
		if err1 != nil || err2 != nil {
			t.Skip("needs sysbench's own scripts")
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "oltp_common.lua"), common, 0o644)
		os.WriteFile(filepath.Join(dir, "my_select.lua"), point, 0o644)
		s.db("").Exec("CREATE DATABASE frz_script")
		args := append([]string{"sysbench", filepath.Join(dir, "my_select.lua"), "--tables=4", "--table-size=100000"}, s.conn("frz_script")...)
		r := s.run("Inserting 100000 records into 'sbtest2'", append(args, "prepare")...)
		if r.code != 1 || !said(r.out, "prepare stopped: the server did not answer within 5 s") || strings.Contains(r.out, "--resume") {
			t.Fatalf("exit %d:\n%s", r.code, r.out)
		}
		if r.took > pingBound+freezeMargin {
			t.Errorf("ended %s after the freeze", r.took)
		}
		s.must(append(args, "cleanup")...)
		s.must(append(args, "prepare")...)
		exact(t, "frz_script", 4, 100000)
	})

	t.Run("tpcc check", func(t *testing.T) {
		s := s.in(t)
		args := append([]string{"tpcc", "--warehouses=1"}, s.conn("frz_tpcc")...)
		s.must(append(args, "prepare")...)
		// The check's conditions print at its end: it is frozen while its
		// first query waits on a table the test holds locked.
		lock, err := s.db("frz_tpcc").Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close()
		if _, err := lock.ExecContext(context.Background(), "LOCK TABLES warehouse WRITE"); err != nil {
			t.Fatal(err)
		}
		waiting := func() bool {
			var n int
			s.db("").QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = 'frz_tpcc' AND STATE LIKE 'Waiting for table%'").Scan(&n)
			return n > 0
		}
		r := s.runWhen("", waiting, s.freeze, append(args, "check")...)
		lock.ExecContext(context.Background(), "UNLOCK TABLES")
		if r.code != 1 || !strings.Contains(r.out, "oltpbench: check stopped: ") || !strings.Contains(r.out, "the server did not answer within 5 s") {
			t.Fatalf("exit %d:\n%s", r.code, r.out)
		}
		if r.took > pingBound+freezeMargin {
			t.Errorf("ended %s after the freeze", r.took)
		}
		if out := s.must(append(args, "check")...); strings.Contains(out, "FAIL") {
			t.Errorf("woken, the check fails:\n%s", out)
		}
	})

	t.Run("import", func(t *testing.T) {
		s := s.in(t)
		dir := t.TempDir()
		s.must("csv", "sysbench", "oltp_read_only", "--tables=4", "--table-size=200000", "--mysql-db=frz_import", "--dir="+dir)
		args := append([]string{"import", "--dir=" + dir, "--threads=1", "--progress=on"}, s.args...)
		r := s.run("[load]", args...)
		if r.code != 1 || !strings.Contains(r.out, "oltpbench: import stopped: ") || !strings.Contains(r.out, "the server did not answer within 5 s") {
			t.Fatalf("exit %d:\n%s", r.code, r.out)
		}
		if r.took > pingBound+freezeMargin {
			t.Errorf("ended %s after the freeze", r.took)
		}
		s.must(append(args, "--resume")...)
		exact(t, "frz_import", 4, 200000)
	})
}

// TestFrozenServerTPCH: a TPC-H run has no time limit of its own (its
// tests end when their queries are done), so a server that freezes as the
// streams start must still end it: each statement gives up on the client
// --query-timeout + 10 s after it was sent, and the run ends in one line
// naming the bound that ended it, exit 1. Woken, the server holds dbgen's
// rows, and the same run completes.
func TestFrozenServerTPCH(t *testing.T) {
	t.Parallel() // a server of its own, mostly waiting on it: beside the other freezes
	s := startFrozenServer(t)
	db := "frz_tpch"
	s.db("").Exec("CREATE DATABASE " + db)
	s.must(append([]string{"tpch", "prepare", "--sf=0.01", "--progress=off"}, s.conn(db)...)...)
	args := append([]string{"tpch", "run", "--sf=0.01", "--query-timeout=3s", "--mysql-connect-timeout=2"}, s.conn(db)...)
	r := s.run("TPC-H at SF 0.01", args...)
	lines := nonEmpty(r.out)
	last := lines[len(lines)-1]
	if r.code != 1 || !(strings.Contains(last, "timed out after") || strings.Contains(last, "did not answer within")) {
		t.Fatalf("exit %d, want 1 and one line naming the bound:\n%s", r.code, r.out)
	}
	// The evidence's read at the window's start gives up first (5 s),
	// then the power test's statement (--query-timeout + 10 s); the
	// stream that follows finds no connection (2 s, or at once).
	if bound := 5*time.Second + 3*time.Second + 10*time.Second + 2*time.Second; r.took > bound+freezeMargin {
		t.Errorf("ended %s after the freeze, bound %s + %s:\n%s", r.took.Round(time.Millisecond), bound, freezeMargin, r.out)
	}
	if out := s.must(append([]string{"tpch", "check", "--sf=0.01"}, s.conn(db)...)...); strings.Count(out, " PASS ") != 8 {
		t.Errorf("check after the freeze:\n%s", out)
	}
	if out := s.must(args...); !strings.Contains(out, "QphH@0.01: ") {
		t.Errorf("the run again, woken:\n%s", out)
	}
}

func nonEmpty(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return append(out, "")[:max(len(out), 1)]
}
