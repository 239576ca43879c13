package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
)

var known = Workloads{"sysbench": 1, "tpcc": 0}

func timing(w string) (string, string, string) {
	if w == "tpcc" {
		return "time", "ramp", ""
	}
	return "time", "warmup-time", "rate"
}

const good = `name = "two steps"
scale = 1

[dataset]
workload = "sysbench"
options = { tables = 2, table-size = 10000 }
scaled = ["table-size"]

[warmup]
prewarm = true

[[step]]
test = "oltp_point_select"
threads = [1, 4]
time = "10s"
warmup = "2s"
cooldown = "1s"
repeats = 2

[[step]]
name = "rw-uniform"
test = "oltp_read_write"
threads = [2]
time = "1m"
options = { rand-type = "uniform", skip_trx = true }
`

func TestCells(t *testing.T) {
	p, err := Parse("p.toml", []byte(good), 0, known)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cells.Expand(p.Series(timing)) {
		got = append(got, fmt.Sprintf("%d/%d %s %s %s %s", c.Index, c.Of, c.File, c.Expected, c.Series.Cooldown, strings.Join(c.Args(), " ")))
	}
	want := []string{
		"1/5 oltp_point_select-1threads-r1.json 13s 1s sysbench oltp_point_select --table-size=10000 --tables=2 --time=10 --warmup-time=2 --threads=1",
		"2/5 oltp_point_select-4threads-r1.json 13s 1s sysbench oltp_point_select --table-size=10000 --tables=2 --time=10 --warmup-time=2 --threads=4",
		"3/5 oltp_point_select-1threads-r2.json 13s 1s sysbench oltp_point_select --table-size=10000 --tables=2 --time=10 --warmup-time=2 --threads=1",
		"4/5 oltp_point_select-4threads-r2.json 13s 1s sysbench oltp_point_select --table-size=10000 --tables=2 --time=10 --warmup-time=2 --threads=4",
		"5/5 rw-uniform-2threads-r1.json 1m0s 0s sysbench oltp_read_write --table-size=10000 --tables=2 --rand-type=uniform --skip_trx=true --time=60 --threads=2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cells:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !p.Warmup.Prewarm || p.Warmup.Analyze {
		t.Errorf("warmup = %+v", p.Warmup)
	}
	if d := strings.Join(p.DatasetArgs(true), " "); d != "sysbench oltp_point_select --table-size=10000 --tables=2" {
		t.Errorf("dataset args %q", d)
	}
}

// TestScale: one variable scales the durations (whole seconds, at least 1)
// and the sizes listed in scaled (at least 1), not the thread levels.
// TestDatasets: a plan of two workloads prepares a dataset of each, and
// each step runs with its own dataset's options and database.
func TestDatasets(t *testing.T) {
	src := `[dataset]
workload = "sysbench"
options = { tables = 1, mysql-db = "sb" }
[[datasets]]
workload = "tpcc"
options = { warehouses = 2, mysql-db = "tp" }
[[step]]
test = "oltp_point_select"
threads = [1]
time = "1s"
[[step]]
workload = "tpcc"
threads = [4]
time = "2s"
`
	p, err := Parse("p.toml", []byte(src), 0, known)
	if err != nil {
		t.Fatal(err)
	}
	var prep []string
	for _, ds := range p.Datasets() {
		prep = append(prep, strings.Join(p.ArgsOf(ds), " "))
	}
	if want := []string{"sysbench oltp_point_select --mysql-db=sb --tables=1", "tpcc --mysql-db=tp --warehouses=2"}; !slices.Equal(prep, want) {
		t.Errorf("prepares %q, want %q", prep, want)
	}
	var got []string
	for _, c := range cells.Expand(p.Series(timing)) {
		got = append(got, strings.Join(c.Args(), " "))
	}
	want := []string{"sysbench oltp_point_select --mysql-db=sb --tables=1 --time=1 --threads=1", "tpcc --mysql-db=tp --warehouses=2 --time=2 --threads=4"}
	if !slices.Equal(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
}

func TestScale(t *testing.T) {
	p, err := Parse("p.toml", []byte(good), 0.01, known)
	if err != nil {
		t.Fatal(err)
	}
	c := cells.Expand(p.Series(timing))
	if c[0].Expected != 3*time.Second || !strings.Contains(strings.Join(c[0].Args(), " "), "--table-size=100 --tables=2 --time=1 --warmup-time=1 --threads=1") {
		t.Errorf("scaled cell: %s %v", c[0].Expected, c[0].Args())
	}
	if !strings.Contains(strings.Join(c[4].Args(), " "), "--time=1 ") {
		t.Errorf("1m at 0.01: %v", c[4].Args())
	}
}

// TestThreadScheduleStep: a step's thread_schedule is one cell a repeat,
// named by its most threads, whose command line carries the schedule (its
// durations scaled as the plan's) and whose time covers it; its key is not
// a plain run's of those threads.
func TestThreadScheduleStep(t *testing.T) {
	src := "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1 }\n" +
		"[[step]]\nname = \"steps\"\ntest = \"oltp_point_select\"\nthread_schedule = \"16@60s, 32@60s, 32-64@30s\"\nrepeats = 2\n" +
		"[[step]]\nname = \"plain\"\ntest = \"oltp_point_select\"\nthreads = [64]\ntime = \"150s\"\n"
	for _, c := range []struct {
		scale float64
		sched string
		want  []string
	}{
		{0, "16@1m0s,32@1m0s,32-64@30s", []string{
			"steps-64threads-r1.json 2m30s sysbench oltp_point_select --tables=1 --time=150 --threads=16@1m0s,32@1m0s,32-64@30s",
			"steps-64threads-r2.json 2m30s sysbench oltp_point_select --tables=1 --time=150 --threads=16@1m0s,32@1m0s,32-64@30s",
			"plain-64threads-r1.json 2m30s sysbench oltp_point_select --tables=1 --time=150 --threads=64"}},
		// 0.01: 0.6 s and 0.3 s are a second each, so the time, 1.5 s
		// scaled to 2, grows to the schedule's 3.
		{0.01, "16@1s,32@1s,32-64@1s", []string{
			"steps-64threads-r1.json 3s sysbench oltp_point_select --tables=1 --time=3 --threads=16@1s,32@1s,32-64@1s",
			"steps-64threads-r2.json 3s sysbench oltp_point_select --tables=1 --time=3 --threads=16@1s,32@1s,32-64@1s",
			"plain-64threads-r1.json 2s sysbench oltp_point_select --tables=1 --time=2 --threads=64"}},
	} {
		p, err := Parse("p.toml", []byte(src), c.scale, known)
		if err != nil {
			t.Fatal(err)
		}
		cs := cells.Expand(p.Series(timing))
		var got []string
		for _, c := range cs {
			got = append(got, fmt.Sprintf("%s %s %s", c.File, c.Expected, strings.Join(c.Args(), " ")))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("scale %v: cells:\n%s\nwant:\n%s", c.scale, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
		if s := cs[0].String(); s != "steps, threads "+c.sched+", repeat 1/2" {
			t.Errorf("cell named %q", s)
		}
		k0, err0 := cs[0].Key()
		k1, err1 := cs[1].Key()
		k2, err2 := cs[2].Key()
		if err0 != nil || err1 != nil || err2 != nil || !k0.Equal(k1) || k0.Equal(k2) || k0.Schedule != c.sched {
			t.Errorf("keys %+v %+v %+v (%v %v %v)", k0, k1, k2, err0, err1, err2)
		}
	}
}

// TestScaledRate: a rate schedule in a step's options is scaled with the
// plan's durations (the workload names its rate option); a plain rate and
// other options are not, and at scale 1 the plan's spelling stays.
func TestScaledRate(t *testing.T) {
	src := "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1 }\n" +
		"[[step]]\nname = \"a\"\ntest = \"oltp_point_select\"\nthreads = [4]\ntime = \"3m\"\noptions = { rate = \"500@60s,1000-2000@2m\", report-interval = 10 }\n" +
		"[[step]]\nname = \"b\"\ntest = \"oltp_point_select\"\nthreads = [4]\ntime = \"3m\"\noptions = { rate = 100 }\n"
	for _, c := range []struct {
		scale float64
		a, b  string
	}{
		{1, "--rate=500@60s,1000-2000@2m --report-interval=10 --time=180", "--rate=100 --time=180"},
		{0.1, "--rate=500@6s,1000-2000@12s --report-interval=10 --time=18", "--rate=100 --time=18"},
	} {
		p, err := Parse("r.toml", []byte(src), c.scale, known)
		if err != nil {
			t.Fatal(err)
		}
		s := p.Series(timing)
		if a, b := strings.Join(s[0].Args, " "), strings.Join(s[1].Args, " "); !strings.HasSuffix(a, c.a) || !strings.HasSuffix(b, c.b) {
			t.Errorf("scale %v:\n%s\n%s\nwant the ends\n%s\n%s", c.scale, a, b, c.a, c.b)
		}
	}
}

// TestSearchCell: a p95_limit step is one cell, its command line the range,
// the limit and the steps.
func TestSearchCell(t *testing.T) {
	src := `[dataset]
workload = "tpcc"
options = { warehouses = 4 }
[[step]]
threads = [8, 1024]
time = "20s"
p95_limit = "105ms"
search_steps = 6
`
	p, err := Parse("s.toml", []byte(src), 0, known)
	if err != nil {
		t.Fatal(err)
	}
	c := cells.Expand(p.Series(timing))
	if len(c) != 1 || c[0].Series.Search == nil || c[0].File != "tpcc-p95search" || c[0].Expected != 6*20*time.Second {
		t.Fatalf("search cell %+v", c)
	}
	if a := strings.Join(c[0].Args(), " "); a != "tpcc --warehouses=4 --time=20 --threads=8-1024 --p95-slo=105ms --slo-steps=6" {
		t.Errorf("args %q", a)
	}
}

// TestBadPlans: one line, naming the file, the line and the key.
func TestBadPlans(t *testing.T) {
	head := "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1 }\n"
	step := "[[step]]\ntest = \"oltp_point_select\"\nthreads = [1]\ntime = \"1s\"\n"
	for _, c := range []struct{ name, src, want string }{
		{"unknown key", head + step + "treads = [2]\n", `b.toml:8: unknown key "step.treads"`},
		{"unknown dataset key", "[dataset]\nworkload = \"sysbench\"\nsize = 3\n" + step, `b.toml:3: unknown key "dataset.size"`},
		{"syntax", head + "[[step]\n", `b.toml:4:`},
		{"type", head + step + "repeats = \"two\"\n", `b.toml:8:`},
		{"zero threads", head + "[[step]]\ntest = \"oltp_point_select\"\nthreads = [4, 0]\ntime = \"1s\"\n", `b.toml:6: step "oltp_point_select": threads 0: every level must be at least 1`},
		{"bad time", head + "[[step]]\ntest = \"oltp_point_select\"\nthreads = [1]\ntime = \"5 minutes\"\n", `b.toml:7: step "oltp_point_select": time = "5 minutes": a duration like 5m or 30s`},
		{"time below a second", head + "[[step]]\ntest = \"oltp_point_select\"\nthreads = [1]\ntime = \"500ms\"\n", `b.toml:7: step "oltp_point_select": time = "500ms": whole seconds, like 1s`},
		{"warmup in parts of a second", head + "[[step]]\ntest = \"oltp_point_select\"\nthreads = [1]\ntime = \"5s\"\nwarmup = \"2.6s\"\n", `b.toml:8: step "oltp_point_select": warmup = "2.6s": whole seconds, like 3s`},
		{"no time", head + "[[step]]\ntest = \"oltp_point_select\"\nthreads = [1]\n", `b.toml:4: step "oltp_point_select" needs time`},
		{"repeats 0", head + step + "repeats = 0\n", `b.toml:8: step "oltp_point_select": repeats must be at least 1`},
		{"other workload", head + step + "[[step]]\nworkload = \"tpcc\"\nthreads = [1]\ntime = \"1s\"\n", `b.toml:9: step 2 runs tpcc, and the plan has no dataset of tpcc: add [[datasets]]`},
		{"two datasets, no databases", head + "[[datasets]]\nworkload = \"tpcc\"\n" + step, `b.toml:1: [dataset]: a plan of several datasets keeps each in a database of its own`},
		{"two datasets, one database", "[dataset]\nworkload = \"sysbench\"\noptions = { mysql-db = \"d\" }\n[[datasets]]\nworkload = \"tpcc\"\noptions = { mysql-db = \"d\" }\n" + step, `b.toml:6: [[datasets]] 1: database "d" is another dataset's`},
		{"a workload twice", head + "[[datasets]]\nworkload = \"sysbench\"\n" + step, `b.toml:5: a second dataset of sysbench in [[datasets]] 1`},
		{"reset of another dataset", "[dataset]\nworkload = \"sysbench\"\noptions = { mysql-db = \"a\" }\n[[datasets]]\nworkload = \"tpcc\"\noptions = { mysql-db = \"b\" }\n" + step + "[[step]]\nworkload = \"tpcc\"\nthreads = [1]\ntime = \"1s\"\nreset = \"reload\"\n", `b.toml:15: step "tpcc": reset = "reload" remakes [dataset] (sysbench), and the step runs tpcc`},
		{"unknown workload", "[dataset]\nworkload = \"tpch\"\n" + step, `b.toml:2: unknown workload "tpch" in [dataset]: use one of sysbench, tpcc`},
		{"no test", head + "[[step]]\nthreads = [1]\ntime = \"1s\"\n", `b.toml:4: step 1 needs test = the sysbench test to run`},
		{"duplicate", head + step + step, `b.toml:8: steps 1 and 2 are both named "oltp_point_select"`},
		{"reserved option", head + step + "options = { threads = 8 }\n", `b.toml:8: option threads: set it with the step's threads key`},
		{"password", head + step + "options = { mysql_password = \"x\" }\n", `b.toml:8: option mysql_password: keep secrets out of plans`},
		{"search range", head + step + "p95_limit = \"100ms\"\n", `b.toml:6: step "oltp_point_select" searches a range: threads = [lo, hi]`},
		{"scaled not integer", "[dataset]\nworkload = \"sysbench\"\noptions = { table-size = \"big\" }\nscaled = [\"table-size\"]\n" + step, `b.toml:3: table-size is scaled, so it must be an integer`},
		{"scale", "scale = -1\n" + head + step, `b.toml:1: scale must be above 0`},
		{"no dataset", step, `b.toml: the plan needs [dataset]`},
		{"no steps", head, `b.toml: the plan has no [[step]]`},
		{"event with both", head + step + "events = [{ at = \"2s\", sql = \"SELECT 1\", command = \"true\" }]\n", `b.toml:8: event 1 of step 1 has both sql and command: one of them`},
		{"event without a time", head + step + "events = [{ sql = \"SELECT 1\" }]\n", `b.toml:8: event 1 of step 1: no at= (the time after the measured start, e.g. at=20s)`},
		{"event's bad timeout", head + step + "[[step.events]]\nat = \"2s\"\ncommand = \"true\"\n" + strings.ReplaceAll(step, "point_select", "read_only") +
			"[[step.events]]\nat = \"2s\"\ncommand = \"true\"\n[[step.events]]\nat = \"2s\"\ntimeout = \"soon\"\ncommand = \"true\"\n", `b.toml:18: event 2 of step 2: timeout: "soon" is not seconds`},
		{"event as an option", head + step + "options = { event = \"at=1s;sql=SELECT 1\" }\n", `b.toml:8: option event: set it with the step's events key`},
		{"threads and a schedule", head + step + "thread_schedule = \"1@1s\"\n", `b.toml:8: step "oltp_point_select": threads or thread_schedule, not both`},
		{"neither", head + "[[step]]\ntest = \"oltp_point_select\"\ntime = \"1s\"\n", `b.toml:4: step "oltp_point_select" needs threads = [...] or thread_schedule = "16@60s,32@60s"`},
		{"bad schedule", head + "[[step]]\ntest = \"oltp_point_select\"\nthread_schedule = \"2@1s,0.5@1s\"\n", `b.toml:6: step "oltp_point_select": thread_schedule = 2@1s,0.5@1s: whole numbers of threads`},
		{"no thread in a segment", head + "[[step]]\ntest = \"oltp_point_select\"\nthread_schedule = \"0-4@1m\"\n", `b.toml:6: step "oltp_point_select": thread_schedule = 0-4@1m: at least 1 thread in every segment`},
		{"schedule not read", head + "[[step]]\ntest = \"oltp_point_select\"\nthread_schedule = \"4\"\n", `b.toml:6: step "oltp_point_select": thread_schedule = 4: "4" is not LEVEL@DURATION`},
		{"schedule longer than time", head + "[[step]]\ntest = \"oltp_point_select\"\nthread_schedule = \"1@1m,2@1m\"\ntime = \"90s\"\n", `b.toml:7: step "oltp_point_select": time = "90s" ends before its thread_schedule (2m0s)`},
		{"schedule search", head + "[[step]]\ntest = \"oltp_point_select\"\nthread_schedule = \"1@1m\"\np95_limit = \"100ms\"\n", `b.toml:6: step "oltp_point_select": a p95_limit search needs threads = [lo, hi], not a thread_schedule`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("b.toml", []byte(c.src), 0, known)
			if err == nil {
				t.Fatalf("accepted:\n%s", c.src)
			}
			if !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got  %q\nwant %q...", err, c.want)
			}
		})
	}
}

// TestStepEvents: a step's events reach each of its cells' command lines as
// --event, in order, and so their keys.
func TestStepEvents(t *testing.T) {
	src := good + "events = [{ at = \"20s\", name = \"add c_1\", sql = \"ALTER TABLE sbtest1 ADD INDEX c_1 (c)\" },\n" +
		"  { at = \"40s\", timeout = \"5m\", on_error = \"stop\", command = \"tiup cluster restart c1 -N tikv-2 --yes\" }]\n"
	p, err := Parse("e.toml", []byte(src), 0, known)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(p.Series(timing)[1].Args, " ")
	want := "--event=name=add c_1;at=20s;sql=ALTER TABLE sbtest1 ADD INDEX c_1 (c) --event=at=40s;timeout=5m;on_error=stop;command=tiup cluster restart c1 -N tikv-2 --yes"
	if !strings.Contains(args, want) {
		t.Errorf("args %s\nlack %s", args, want)
	}
	if strings.Contains(strings.Join(p.Series(timing)[0].Args, " "), "--event") {
		t.Error("the other step's cells have the events")
	}
	// Scaled as the step's time is (1m at 0.1 is 6 s): 20 s at 2 s, 40 s
	// at 4 s; a timeout is a bound, not the plan's time, and stays.
	if p, err = Parse("e.toml", []byte(src), 0.1, known); err != nil {
		t.Fatal(err)
	}
	args = strings.Join(p.Series(timing)[1].Args, " ")
	want = "--event=name=add c_1;at=2s;sql=ALTER TABLE sbtest1 ADD INDEX c_1 (c) --event=at=4s;timeout=5m;on_error=stop;command=tiup cluster restart c1 -N tikv-2 --yes --time=6"
	if !strings.Contains(args, want) {
		t.Errorf("scaled 0.1: args %s\nlack %s", args, want)
	}
}

func TestKeyLines(t *testing.T) {
	l := scanKeyLines([]byte(good))
	for k, want := range map[string]int{"name": 1, "dataset": 4, "dataset.options.table-size": 6, "step.0": 12, "step.0.repeats": 18,
		"step.1.options.skip_trx": 25, "step.1.options.nothing": 25, "step.1.threads": 23} {
		if got := l.line(k); got != want {
			t.Errorf("line(%s) = %d, want %d", k, got, want)
		}
	}
}
