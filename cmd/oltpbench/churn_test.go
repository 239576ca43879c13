package main

import (
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

// TestConnectionChurn (issue 34's acceptance, scaled to 10 s): with
// --conn-refresh=1s each thread makes its connection anew about once a
// second, counted apart from fault reconnects and equal to the server's own
// count of connections; --reconnect=event makes one per event; every
// connect is timed; --idle-conns holds connections the server lists.
func TestConnectionChurn(t *testing.T) {
	needServer(t)
	db := "churn"
	freshDB(t, db)
	size := []string{"--tables=1", "--table-size=1000"}
	mustOK(t, sb(t, db, append([]string{"oltp_common", "prepare"}, size...)...), "prepare")
	run := func(args ...string) *result.Result {
		t.Helper()
		f := filepath.Join(t.TempDir(), "r.json")
		mustOK(t, sb(t, db, append(append([]string{"oltp_point_select", "--threads=2", "--result-file=" + f, "run"}, size...), args...)...), strings.Join(args, " "))
		r, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	serverConnects := func(r *result.Result) float64 { return r.Evidence.Counters["Connections"] }

	// Paced (500 events a second, a fraction of what the server does):
	// refreshes are counted, not speed, and an unthrottled 10 s run takes
	// CPU the other shards' tests wait for.
	r := run("--time=10", "--rate=500", "--conn-refresh=1s")
	c := r.Connections
	if c == nil || c.Refreshes < 2*8 || c.Refreshes > 2*10 || r.Totals["reconnects"] != 0 {
		t.Fatalf("--conn-refresh=1s over 10 s at 2 threads: %+v, reconnects %d", c, r.Totals["reconnects"])
	}
	// The window's ends may fall between a thread's close and its connect.
	if d := math.Abs(serverConnects(r) - float64(c.Refreshes)); d > 2 {
		t.Errorf("%d refreshes, the server counted %v connections", c.Refreshes, serverConnects(r))
	}
	if c.Connect.Count < c.Refreshes || c.Connect.MeanMs <= 0 {
		t.Errorf("connects timed: %+v", c.Connect)
	}

	r = run("--time=2", "--reconnect=event")
	// A thousand connects a second: the server's counters are read some of
	// them off the window's ends (tens on a busy machine).
	if r.Connections == nil {
		t.Fatal("--reconnect=event: no connections in the result")
	}
	if c, ev := r.Connections, r.Totals["events"]; math.Abs(float64(c.Refreshes-ev)) > 2 || ev < 100 ||
		math.Abs(serverConnects(r)-float64(ev)) > 0.05*float64(ev)+4 || r.Totals["reconnects"] != 0 {
		t.Errorf("--reconnect=event: %d refreshes for %d events, the server counted %v", c.Refreshes, ev, serverConnects(r))
	}

	// Without them the result has no connections part, and no refresh.
	if r := run("--time=1"); r.Connections != nil {
		t.Errorf("connections recorded without churn: %+v", r.Connections)
	}

	// --idle-conns: the server lists them beside the threads' own.
	most := func(args ...string) int {
		cmd, so, se := startBackground(t, append(append(append([]string{"sysbench", "oltp_point_select", "--threads=2", "--time=3", "--rate=500", "run"}, size...), connArgs(db)...), args...)...)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		n := 0
		for {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%v: %s %s", err, so, se)
				}
				return n
			case <-tick.C:
				var k int
				if err := openDB(t, "").QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE db = ?", db).Scan(&k); err == nil {
					n = max(n, k)
				}
			}
		}
	}
	without, with := most(), most("--idle-conns=5")
	if with-without < 5 {
		t.Errorf("processlist: %d connections with --idle-conns=5, %d without", with, without)
	}
	f := filepath.Join(t.TempDir(), "idle.json")
	mustOK(t, sb(t, db, append([]string{"oltp_point_select", "--threads=2", "--time=1", "--idle-conns=5", "--result-file=" + f, "run"}, size...)...), "idle")
	if r, err := result.Read(f); err != nil || r.Connections == nil || r.Connections.Idle != 5 {
		t.Errorf("idle connections not recorded: %+v %v", r.Connections, err)
	}
	if show := inProcess("report", "show", f).stdout; !regexp.MustCompile(`(?m)^connections: 0 made anew on purpose \(not faults\), 2 connects timed: mean [\d.]+ ms, p95 [\d.]+, p99 [\d.]+; 5 idle held$`).MatchString(show) {
		t.Errorf("report show:\n%s", show)
	}
	for _, bad := range [][2]string{{"--reconnect=always", "invalid --reconnect=always: event"}, {"--idle-conns=-1", "invalid --idle-conns=-1: 0 or more"}} {
		res := sb(t, db, append([]string{"oltp_point_select", "--time=1", bad[0], "run"}, size...)...)
		if res.code == 0 || !strings.Contains(res.stderr, bad[1]) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d %q", bad[0], res.code, res.stderr)
		}
	}
}

// TestRateSchedule (issue 34's acceptance): a --rate schedule of three
// segments gives three windows whose throughput follows the schedule within
// 5% (2,000 to 12,000 events each: Poisson arrivals, within 2% at one
// standard deviation), a ramp's its mean; latency stays open-loop; a bad
// schedule is one line.
func TestRateSchedule(t *testing.T) {
	needServer(t)
	db := "rate_schedule"
	freshDB(t, db)
	size := []string{"--tables=1", "--table-size=1000"}
	mustOK(t, sb(t, db, append([]string{"oltp_point_select", "prepare"}, size...)...), "prepare")
	alone(t) // its assertions are about speed and timing
	f := filepath.Join(t.TempDir(), "r.json")
	r := sb(t, db, append([]string{"oltp_point_select", "--threads=8", "--time=12", "--rate=1000@4s,3000@4s,1000-2000@4s", "--result-file=" + f, "run"}, size...)...)
	mustOK(t, r, "run")
	res, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"rate 1000/s": 1000, "rate 3000/s": 3000, "rate 1000-2000/s": 1500}
	if len(res.Windows) != 3 {
		t.Fatalf("windows %+v", res.Windows)
	}
	for _, w := range res.Windows {
		if rate, ok := want[w.Name]; !ok || math.Abs(w.PerS-rate) > 0.05*rate || math.Abs(w.Seconds-4) > 0.1 {
			t.Errorf("window %s: %.1f events/s over %.1f s, want %v", w.Name, w.PerS, w.Seconds, rate)
		}
	}
	if !strings.Contains(r.stdout, "Windows:\n    window ") || strings.Contains(r.stdout, "[ 1s ]") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	bad := sb(t, db, append([]string{"oltp_point_select", "--time=1", "--rate=1000@soon", "run"}, size...)...)
	if bad.code == 0 || strings.Count(strings.TrimSpace(bad.stderr), "\n") != 0 || !strings.Contains(bad.stderr, "soon") {
		t.Errorf("a bad schedule: exit %d %q", bad.code, bad.stderr)
	}
}

// TestThreadSchedule (issue 34's acceptance): --threads as a schedule
// within one run: each segment a window, the threads it adds connecting
// when it starts (the server counts exactly them), none reconnected.
func TestThreadSchedule(t *testing.T) {
	needServer(t)
	db := "thread_schedule"
	freshDB(t, db)
	size := []string{"--tables=1", "--table-size=1000"}
	mustOK(t, sb(t, db, append([]string{"oltp_point_select", "prepare"}, size...)...), "prepare")
	f := filepath.Join(t.TempDir(), "r.json")
	mustOK(t, sb(t, db, append([]string{"oltp_point_select", "--threads=1@2s,2@2s,4@2s", "--time=6", "--result-file=" + f, "run"}, size...)...), "run")
	r, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range r.Windows {
		names = append(names, w.Name)
	}
	if strings.Join(names, ",") != "threads 1,threads 2,threads 4" || r.Threads != 4 {
		t.Fatalf("windows %v, threads %d", names, r.Threads)
	}
	if c := r.Evidence.Counters["Connections"]; r.Totals["reconnects"] != 0 || c != 3 {
		t.Errorf("%v connections made in the run (want the 3 threads the schedule added), %d reconnects", c, r.Totals["reconnects"])
	}
	for _, p := range r.Windows {
		if p.Events == 0 {
			t.Errorf("window %s ran nothing", p.Name)
		}
	}
}

// TestChurnInPlans: the connection options are a step's options in a plan,
// and reach its cells' command lines.
func TestChurnInPlans(t *testing.T) {
	p := writePlan(t, "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1, table-size = 1000 }\n[[step]]\ntest = \"oltp_point_select\"\n"+
		"threads = [2]\ntime = \"2s\"\noptions = { conn-refresh = \"1s\", reconnect = \"event\", idle-conns = 3 }\n")
	r := inProcess("plan", "show", p)
	if r.code != 0 || !strings.Contains(r.stdout, "--conn-refresh=1s") || !strings.Contains(r.stdout, "--idle-conns=3") || !strings.Contains(r.stdout, "--reconnect=event") {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := writePlan(t, strings.Replace(mustRead(t, p), `reconnect = "event"`, `reconnect = "always"`, 1))
	if r := inProcess("plan", "show", bad); r.code == 0 || !strings.Contains(r.stderr, "invalid --reconnect=always") {
		t.Errorf("a bad reconnect in a plan: exit %d %s", r.code, r.stderr)
	}
}

// TestThreadScheduleInPlan: a plan step's thread_schedule runs as --threads
// does on a command line (a window per segment, only the threads added
// connect, none reconnects), its result named by its most threads and
// keyed by the schedule; the same plan run again has nothing to run, and
// the same step with plain threads of that count is another cell.
func TestThreadScheduleInPlan(t *testing.T) {
	needServer(t)
	db := "thread_schedule_plan"
	freshDB(t, db)
	src := "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1, table-size = 1000 }\n" +
		"[[step]]\nname = \"steps\"\ntest = \"oltp_point_select\"\nthread_schedule = \"1@2s,3@2s\"\n"
	p, dir := writePlan(t, src), t.TempDir()
	run := func() res {
		return ob(t, nil, append([]string{"plan", "run", p, "--result-dir", dir, "--"}, connArgs(db)...)...)
	}
	r := run()
	mustOK(t, r, "plan run")
	if !strings.Contains(r.stdout, "== cell 1/1: steps, threads 1@2s,3@2s, repeat 1/1") {
		t.Errorf("the cell's line:\n%s", r.stdout)
	}
	res, err := result.Read(filepath.Join(dir, "steps-3threads-r1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range res.Windows {
		names = append(names, w.Name)
		if w.Events == 0 {
			t.Errorf("window %s ran nothing", w.Name)
		}
	}
	if strings.Join(names, ",") != "threads 1,threads 3" || res.Threads != 3 {
		t.Fatalf("windows %v, threads %d", names, res.Threads)
	}
	if c := res.Evidence.Counters["Connections"]; res.Totals["reconnects"] != 0 || c != 2 {
		t.Errorf("%v connections made in the run (want the 2 threads the schedule added), %d reconnects", c, res.Totals["reconnects"])
	}
	if r := inProcess("report", "compare", dir, dir, "--names=a,b"); !strings.Contains(r.stdout, "(threads 1@2s,3@2s)") {
		t.Errorf("report compare does not name the schedule:\n%s%s", r.stdout, r.stderr)
	}
	if r := run(); r.code != 0 || !strings.Contains(r.stdout, "All 1 cells of the plan are done") {
		t.Errorf("the plan again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	plain := strings.Replace(src, `thread_schedule = "1@2s,3@2s"`, "threads = [3]\ntime = \"4s\"", 1)
	p = writePlan(t, plain)
	if r := run(); r.code != 0 || !strings.Contains(r.stdout, "cell 1/1 (steps, 3 threads, repeat 1/1): steps-3threads-r1.json holds another command's result (the plan changed): running it again") {
		t.Errorf("plain threads after the schedule: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestPlanScalesSchedules: --scale scales a step's thread schedule, a rate
// schedule in its options (sysbench's --rate, as its flags declare it) and
// its events' times, as it does the step's time.
func TestPlanScalesSchedules(t *testing.T) {
	p := writePlan(t, "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1, table-size = 1000 }\n[[step]]\ntest = \"oltp_point_select\"\n"+
		"thread_schedule = \"4@1m,8@1m\"\noptions = { rate = \"500@1m,1000@1m\" }\nevents = [{ at = \"90s\", sql = \"SELECT 1\" }]\n")
	for scale, want := range map[string]string{
		"1":   "--rate=500@1m,1000@1m --event=at=90s;sql=SELECT 1 --time=120 --threads=4@1m0s,8@1m0s",
		"0.1": "--rate=500@6s,1000@6s --event=at=9s;sql=SELECT 1 --time=12 --threads=4@6s,8@6s",
	} {
		if r := inProcess("plan", "show", p, "--scale="+scale); r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("--scale=%s: exit %d, want %q in:\n%s%s", scale, r.code, want, r.stdout, r.stderr)
		}
	}
}
