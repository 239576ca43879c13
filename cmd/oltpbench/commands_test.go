package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// These tests run command lines in-process, without a server, and compare
// what they print with golden files (go test -run Golden -update rewrites them).

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// legacy holds result files of format 1, as earlier versions wrote them.
const legacy = "../../internal/report/compare/testdata/results"

// history holds four versions' results with repeats (internal/report/compare's
// historyVersions): steady, a drop in the third, a drop too small to tell.
const history = "../../internal/report/compare/testdata/history"

type cmdOut struct {
	code           int
	stdout, stderr string
}

func inProcess(args ...string) cmdOut {
	var o, e bytes.Buffer
	code := run(args, &o, &e)
	return cmdOut{code, o.String(), e.String()}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update to accept):\n%s", p, got)
	}
}

func TestReportGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"compare.txt", []string{"report", "compare", "--baseline", legacy + "/v2.1", "--candidate", legacy + "/v3.0"}},
		{"compare.md", []string{"report", "compare", "--baseline", legacy + "/v2.1", "--candidate", legacy + "/v3.0", "--format=markdown"}},
		{"compare-history.txt", []string{"report", "compare", history + "/v1", history + "/v2", history + "/v3", history + "/v4"}},
		{"compare-history.md", []string{"report", "compare", history + "/v1", history + "/v2", history + "/v3", history + "/v4", "--format=markdown", "--names=6.1,6.5,7.1,7.5"}},
		{"show-sysbench.txt", []string{"report", "show", legacy + "/v3.0/sysbench-oltp_point_select-a.json"}},
		{"show-tpcc.txt", []string{"report", "show", legacy + "/v3.0/tpcc-d.json"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			r := inProcess(c.args...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			got := r.stdout
			if r.stderr != "" {
				got += "--- stderr\n" + r.stderr
			}
			golden(t, c.golden, got)
		})
	}
}

// clientResult is one client machine's part of a run, made from fixed samples.
func clientResult(t *testing.T, dir, client string, scale int64) string {
	t.Helper()
	h := hist.New()
	for i := int64(1); i <= 1000*scale; i++ {
		h.RecordValue(100 + i*7%5000)
	}
	op, err := result.NewOp("new_order", h)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	r := &result.Result{Format: result.Format, Tool: "oltpbench test", Workload: "tpcc", Client: client, Threads: 8, Seconds: 60,
		Start: start, End: start.Add(time.Minute), Options: map[string]string{"warehouses": "4", "mysql-host": client},
		Metric: result.Metric{Name: "tpmC", Unit: "new_order transactions per minute", Ops: []string{"new_order"}, PerSeconds: 60, LatencyOp: "new_order"},
		Totals: map[string]int64{"events": 1000 * scale}, Ops: []result.Op{op},
		Intervals: []result.Interval{{T: 60, Seconds: 60, Threads: 8, Counts: map[string]int64{"events": 1000 * scale}, P95Ms: map[string]float64{"new_order": float64(scale)}}}}
	p := filepath.Join(dir, client+".json")
	if err := r.Write(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMergeGolden(t *testing.T) {
	dir := t.TempDir()
	a, b := clientResult(t, dir, "client1", 1), clientResult(t, dir, "client2", 3)
	r := inProcess("report", "merge", a, b)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	golden(t, "merge.json", r.stdout)
	m := filepath.Join(dir, "merged.json")
	os.WriteFile(m, []byte(r.stdout), 0o644)
	show := inProcess("report", "show", m)
	// 4000 New-Orders in 60 s from both clients: 4000 per minute.
	if show.code != 0 || !strings.Contains(show.stdout, "tpmC 4000.00") {
		t.Errorf("merged result shows %q (stderr %q)", show.stdout, show.stderr)
	}
}

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	a := clientResult(t, dir, "client1", 1)
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(strings.Replace(mustRead(t, a), `"workload": "tpcc"`, `"workload": "sysbench/oltp_insert"`, 1)), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "compare", "--baseline", legacy + "/v2.1"}, "needs both --baseline and --candidate"},
		{[]string{"report", "compare", "--baseline", legacy + "/v2.1", "--candidate", legacy + "/v3.0", "--format=pdf"}, "--format=pdf"},
		{[]string{"report", "merge", a, other}, "merge only results of one run"},
		{[]string{"report", "show", filepath.Join(dir, "missing.json")}, "no such file"},
	} {
		r := inProcess(c.args...)
		if r.code == 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// smallDatasets are the options that make each registered workload's
// dataset small; a workload without one fails TestCSVGolden.
var smallDatasets = map[string][]string{
	"sysbench": {"--tables=2", "--table-size=3000", "--mysql-db=sb"},
	"tpcc":     {"--warehouses=1", "--mysql-db=tp", "--csv-file-size=8MiB"},
	"ch":       {"--warehouses=1", "--mysql-db=chb", "--csv-file-size=8MiB"},
	"kv":       {"--keys=1000", "--value-size=8", "--mysql-db=kvt"},
	"ycsb":     {"-p", "recordcount=500", "-p", "fieldlength=10", "--mysql-db=yc"},
	"tpch":     {"--sf=0.001", "--mysql-db=th"},
}

// csv needs no server: every registered workload's files, their manifest
// and the import statements are the same bytes on every run.
func TestCSVGolden(t *testing.T) {
	for _, spec := range workload.All() {
		small, ok := smallDatasets[spec.Name]
		if !ok {
			t.Errorf("workload %s has no small dataset for this golden test: add it to smallDatasets", spec.Name)
			continue
		}
		t.Run(spec.Name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append([]string{"csv", spec.Name}, small...), "--threads=2", "--dir="+dir, "--progress=off")
			r := inProcess(args...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			var listing strings.Builder
			listing.WriteString(strings.ReplaceAll(r.stdout, dir, "DIR"))
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			for _, f := range files {
				listing.WriteString(filepath.Base(f) + "\n")
			}
			for _, f := range files {
				if strings.HasSuffix(f, "-manifest.json") || strings.HasSuffix(f, "-import.sql") {
					listing.WriteString("== " + filepath.Base(f) + "\n" + strings.ReplaceAll(mustRead(t, f), dir, "DIR"))
				}
			}
			golden(t, "csv-"+spec.Name+".txt", listing.String())
		})
	}
}

func TestCSVErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"csv", "sysbench", "--tables=1"}, "--dir"},
		{[]string{"csv", "sysbench", "oltp_bogus", "--dir=" + t.TempDir()}, "unknown test"},
		{[]string{"csv", "tpcc", "--warehouses=0", "--dir=" + t.TempDir()}, "--warehouses=0"},
		{[]string{"csv", "tpcc", "--warehouses=1", "--shard=3/2", "--dir=" + t.TempDir()}, "--shard=3/2"},
		{[]string{"csv", "sysbench", "--csv-file-size=big", "--dir=" + t.TempDir()}, "--csv-file-size=big"},
	} {
		r := inProcess(c.args...)
		if r.code == 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// --time takes seconds or a duration in every command; so does every
// option of that kind.
func TestTimeSpelling(t *testing.T) {
	for _, spec := range workload.All() {
		for _, c := range []struct {
			arg  string
			want time.Duration
			got  func(*workload.RunOptions) time.Duration
		}{
			{"--time=10", 10 * time.Second, func(o *workload.RunOptions) time.Duration { return o.Time }},
			{"--time=2.5", 2500 * time.Millisecond, func(o *workload.RunOptions) time.Duration { return o.Time }},
			{"--time=5m", 5 * time.Minute, func(o *workload.RunOptions) time.Duration { return o.Time }},
			{"--report-interval=1m", time.Minute, func(o *workload.RunOptions) time.Duration { return o.ReportInterval }},
			{"--report-interval=3", 3 * time.Second, func(o *workload.RunOptions) time.Duration { return o.ReportInterval }},
		} {
			fs := pflag.NewFlagSet(spec.Name, pflag.ContinueOnError)
			p := pipeline.New(spec, fs, nil, workload.Invocation{})
			if err := fs.Parse([]string{c.arg, "--cooldown=7"}); err != nil {
				t.Fatalf("%s %s: %v", spec.Name, c.arg, err)
			}
			if got := c.got(p.RunOptions()); got != c.want {
				t.Errorf("%s %s: %v, want %v", spec.Name, c.arg, got, c.want)
			}
			if got := fs.Lookup("cooldown").Value.String(); got != "7" {
				t.Errorf("%s --cooldown=7: %v", spec.Name, got)
			}
		}
	}
	if r := inProcess("tpcc", "run", "--time=soon"); r.code == 0 || !regexp.MustCompile(`--time.*seconds \(300\) or a duration \(5m\)`).MatchString(r.stderr) {
		t.Errorf("bad --time: %q", r.stderr)
	}
	if r := inProcess("tpcc", "run", "--time=0"); r.code == 0 || !strings.Contains(r.stderr, "--time=0") {
		t.Errorf("--time=0: %q", r.stderr)
	}
}

// A wrong command line is one line naming what was expected, before any
// server is reached.
func TestArgumentErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sysbench", "oltp_read_write"}, "FATAL: Command is required. Supported commands: prepare, prewarm, run, cleanup, help"},
		{[]string{"sysbench", "oltp_read_write", "runn"}, "Unknown command: runn"},
		{[]string{"tpcc"}, `expected <prepare|run|check|search|cleanup>, got ""`},
		{[]string{"tpcc", "prewarm"}, `unknown command "prewarm": use prepare, run, check, search or cleanup`},
		{[]string{"tpcc", "run", "--weights=1,2"}, "--weights"},
		// Every group refuses a subcommand it lacks (cobra's default below the root is help and exit 0).
		{[]string{"report", "histroy"}, `unknown command "histroy" for "oltpbench report": use compare, history, merge or show (did you mean history?)`},
		{[]string{"plan", "foo"}, `unknown command "foo" for "oltpbench plan": use run or show`},
		{[]string{"csv", "foo"}, `unknown command "foo" for "oltpbench csv": use ch, kv, sysbench, tpcc, tpch or ycsb`},
		{[]string{"sysbnch"}, `unknown command "sysbnch" for "oltpbench": use bisect, ch, completion, csv, import, kv, plan, report, sysbench, tpcc, tpch or ycsb (did you mean sysbench?)`},
		{[]string{"tpcc", "run", "--output=xml"}, "--output=xml"},
		{[]string{"csv", "sysbench", "a", "b", "--dir=x"}, "at most one test"},
		{[]string{"csv", "tpcc", "a", "--dir=x"}, "tpcc has no tests"},
		{[]string{"sysbench", "oltp_read_write", "run", "--time=0", "--events=0"}, "would run forever"},
		{[]string{"sysbench", "oltp_read_write", "run", "--percentile=101"}, "--percentile=101"},
		// sysbench's line alone for a harness at any verbosity; the hint for a person (or --notes).
		{[]string{"sysbench", "oltp_read_write", "run", "--db-driver=pgsql"}, "FATAL: invalid database driver name: 'pgsql'\n"},
		{[]string{"sysbench", "oltp_read_write", "run", "--db-driver=pgsql", "--verbosity=5"}, "FATAL: invalid database driver name: 'pgsql'\n"},
		{[]string{"sysbench", "oltp_read_write", "run", "--db-driver=pgsql", "--notes=on"}, "FATAL: invalid database driver name: 'pgsql'\noltpbench: "},
		{[]string{"sysbench", "oltp_read_write", "run", "--db-driver=pgsql", "--notes"}, "FATAL: invalid database driver name: 'pgsql'\noltpbench: "},
	} {
		r := inProcess(c.args...)
		if strings.HasSuffix(c.want, "'\n") && strings.Contains(r.stderr, "oltpbench: ") {
			t.Errorf("%v: a hint for a harness that reads stderr: %q", c.args, r.stderr)
		}
		if r.code == 0 || strings.Count(r.stderr, "\n") > 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// --config-file counts before anything is printed: verbosity=0 there silences
// the banner and the report (a dry run needs no server).
func TestConfigFileVerbosity(t *testing.T) {
	dir := t.TempDir()
	quiet, loud := filepath.Join(dir, "quiet.conf"), filepath.Join(dir, "loud.conf")
	os.WriteFile(quiet, []byte("verbosity=0\nmysql-dry-run=on\ntime=1\n"), 0o644)
	os.WriteFile(loud, []byte("mysql-dry-run=on\ntime=1\n"), 0o644)
	if r := inProcess("sysbench", "--config-file="+quiet, "oltp_point_select", "run"); r.code != 0 || r.stdout != "" {
		t.Errorf("verbosity=0 from the config file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r := inProcess("sysbench", "--config-file="+loud, "oltp_point_select", "run")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "sysbench 1.0.20 (") || !strings.Contains(r.stdout, "SQL statistics:") {
		t.Errorf("dry run from the config file: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// report compare over versions as arguments: one bad line each for what
// cannot be compared, and --fail-on judging the last version against the
// one before it.
func TestCompareVersionsArgs(t *testing.T) {
	v := func(n int) string { return history + "/v" + strconv.Itoa(n) }
	for _, c := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{v(1)}, 1, "compare needs two or more versions, oldest first"},
		{[]string{v(1), v(2), "--baseline=" + v(1), "--candidate=" + v(2)}, 1, "either as arguments (A B C ...) or as --baseline and --candidate, not both"},
		{[]string{"--baseline=" + v(1)}, 1, "compare needs both --baseline and --candidate"},
		{[]string{v(1), v(2), v(3), "--names=a,b"}, 1, "--names has 2 labels for 3 versions"},
		{[]string{v(1), v(2), "--baseline-name=a"}, 1, "name versions given as arguments with --names"},
		{[]string{v(1), history + "/none"}, 1, "cannot read " + history + "/none"},
		// The last step (v3 -> v4) is within the noise; v2 -> v3 is not.
		{[]string{v(1), v(2), v(3), v(4), "--fail-on=regression:5%"}, 0, ""},
		{[]string{v(1), v(2), v(3), "--fail-on=regression:5%"}, 1, "regression beyond 5%: Point Select at 16 threads: v2 -> v3, QPS -21%"},
		{[]string{v(2), v(3), "--fail-on=regression:5%"}, 1, "regression beyond 5%: Point Select at 16 threads: QPS -21%"},
		{[]string{v(2), v(3), "--fail-on=regression:25%"}, 0, ""},
	} {
		r := inProcess(append([]string{"report", "compare"}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != c.code || (c.err != "" && (len(lines) != 1 || !strings.Contains(lines[0], c.err))) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", c.args, r.code, r.stderr, c.code, c.err)
		}
	}
	// Labels: folder names where the server versions are one (the
	// fixtures' servers are named v1..v4: here all four are "x").
	dir := t.TempDir()
	for _, name := range []string{"before", "after"} {
		src, _ := filepath.Glob(v(1) + "/sysbench-oltp_point_select-16-*.json")
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		for _, f := range src {
			r, err := result.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			r.Server.Version = "x"
			r.Write(filepath.Join(dir, name, filepath.Base(f)))
		}
	}
	r := inProcess("report", "compare", filepath.Join(dir, "before"), filepath.Join(dir, "after"), filepath.Join(dir, "before"))
	if r.code != 0 || !strings.Contains(r.stdout, "QPS by version: before -> after +0%, after -> before #3 +0%.") {
		t.Errorf("labels: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestFlagSpellings: oltpbench's own flags work as "--flag value" and as
// "--flag=value" in every command that takes them, a sysbench script's
// command line included (the scan for the script skips a flag's value).
func TestFlagSpellings(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	os.WriteFile(script, []byte("function event() end\n"), 0o644)
	plan := filepath.Join(dir, "p.toml")
	os.WriteFile(plan, []byte("[dataset]\nworkload = \"sysbench\"\n[[step]]\ntest = \"oltp_point_select\"\nthreads = [1]\ntime = \"1m\"\n"), 0o644)
	for _, c := range []struct {
		name   string
		spaced []string // with "--flag value"; the same with "=" is derived
	}{
		{"csv sysbench", []string{"csv", "sysbench", "--dir", "D", "--tables", "2", "--table-size", "10", "--mysql-db", "sb"}},
		{"csv tpcc", []string{"csv", "tpcc", "--dir", "D", "--warehouses", "1", "--threads", "2"}},
		{"csv sysbench with a test", []string{"csv", "sysbench", "--dir", "D", "oltp_common", "--tables", "1", "--table-size", "5"}},
		{"plan show", []string{"plan", "show", plan, "--scale", "0.01"}},
		{"sysbench script", []string{"sysbench", "--result-file", "R", "--mysql-dry-run", script, "--events", "3", "run"}},
		{"sysbench native", []string{"sysbench", "--result-file", "R", "--mysql-dry-run", "oltp_point_select", "--events", "3", "run"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var outs [2]string
			for i := range outs {
				d := filepath.Join(t.TempDir(), "out")
				args := make([]string, 0, len(c.spaced))
				for j := 0; j < len(c.spaced); j++ {
					a := c.spaced[j]
					if i == 1 && strings.HasPrefix(a, "--") && j+1 < len(c.spaced) && !strings.HasPrefix(c.spaced[j+1], "-") &&
						a != "--mysql-dry-run" && c.spaced[j+1] != "run" && !strings.HasSuffix(c.spaced[j+1], ".lua") && c.spaced[j+1] != "oltp_point_select" && c.spaced[j+1] != "oltp_common" {
						a += "=" + c.spaced[j+1]
						j++
					}
					switch a {
					case "D", "R":
						a = d
					case "--dir=D", "--result-file=R":
						a = a[:len(a)-1] + d
					}
					args = append(args, a)
				}
				r := inProcess(args...)
				if r.code != 0 {
					t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
				}
				outs[i] = strings.Join(masked(strings.ReplaceAll(r.stdout+r.stderr, d, "DIR")), "\n")
			}
			if outs[0] != outs[1] {
				t.Errorf("--flag value and --flag=value differ:\n%s\n---\n%s", outs[0], outs[1])
			}
		})
	}
}

// --mysql-user's default is the workload's: sysbench's sbtest for sysbench,
// MySQL's root for TPC-C, CH and import, as go-tpc and BenchmarkSQL have it.
func TestMySQLUserDefault(t *testing.T) {
	for cmd, want := range map[string]string{"tpcc": `(default "root")`, "ch": `(default "root")`, "import": `(default "root")`} {
		if r := inProcess(cmd, "--help"); !strings.Contains(r.stdout, "--mysql-user string") || !strings.Contains(r.stdout, "MySQL user "+want) {
			t.Errorf("%s --help: --mysql-user's default is not %s:\n%s", cmd, want, r.stdout)
		}
	}
	if r := inProcess("sysbench", "--help"); !strings.Contains(r.stdout, "--mysql-user=STRING              MySQL user [sbtest]") {
		t.Errorf("sysbench --help: %s", r.stdout)
	}
	// what a sysbench run uses, as its result file records it
	f := filepath.Join(t.TempDir(), "r.json")
	if r := inProcess("sysbench", "oltp_point_select", "--mysql-dry-run", "--events=1", "--result-file="+f, "run"); r.code != 0 {
		t.Fatalf("dry run: %d %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(f); !strings.Contains(string(b), `"mysql-user": "sbtest"`) {
		t.Errorf("a sysbench run's user is not sbtest: %s", b)
	}
}

// TestClientBoundOptions: the client-bound limits are options: at 0 they
// never call a run client-bound, and a limit any run reaches always does
// (a dry run needs no server).
func TestClientBoundOptions(t *testing.T) {
	alone(t) // on a host busy with other tests a run is "host busy", not client-bound, whatever the limits
	dir := t.TempDir()
	for _, c := range []struct {
		args  []string
		bound bool
	}{
		{[]string{"--client-bound-cpu=0", "--client-bound-sched-latency=0"}, false},
		{[]string{"--client-bound-cpu=0.001", "--client-bound-sched-latency=0"}, true},
		{[]string{"--client-bound-cpu=0", "--client-bound-sched-latency=1ns"}, true},
	} {
		f := filepath.Join(dir, "r.json")
		args := append([]string{"sysbench", "oltp_point_select", "--mysql-dry-run", "--threads=4", "--time=1", "--result-file=" + f}, c.args...)
		if r := inProcess(append(args, "run")...); r.code != 0 {
			t.Fatalf("%v: exit %d %s", c.args, r.code, r.stderr)
		}
		res, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		if h := res.ClientHealth; h == nil || h.ClientBound != c.bound {
			t.Errorf("%v: client health %+v, want bound %v", c.args, res.ClientHealth, c.bound)
		}
	}
}

// TestReportHistoryArgs: report history over the fixtures' four builds
// names the change and gates on it; what cannot be read is skipped and
// named, and bad input is one line each.
func TestReportHistoryArgs(t *testing.T) {
	v := func(n int) string { return history + "/v" + strconv.Itoa(n) }
	mixed := t.TempDir()
	os.WriteFile(filepath.Join(mixed, "broken.json"), []byte("{"), 0o644)
	files, _ := filepath.Glob(v(1) + "/*.json")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(mixed, filepath.Base(f)), b, 0o644)
	}
	builds := filepath.Join(t.TempDir(), "builds.txt")
	os.WriteFile(builds, []byte("v3\nv4\n"), 0o644)
	onlyBroken := t.TempDir()
	os.WriteFile(filepath.Join(onlyBroken, "broken.json"), []byte("{"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		out  string // in stdout
		err  string // the one line of stderr
	}{
		{[]string{v(1), v(2), v(3), v(4)}, 0, "  QPS: a change at run 11: -20.6% (100000 -> 79440 QPS), worse, p = 0.001\n    last before: v2, ", ""},
		{[]string{v(1), v(2), v(3), v(4), "--fail-on=change:5%"}, 1, "", "change beyond 5%: Point Select, 16 threads: QPS -20.6% from v3"},
		{[]string{v(1), v(2), v(3), v(4), "--fail-on=change:30%"}, 0, "", ""},
		{[]string{v(1), v(2), v(3), v(4), "--versions=v1,v2"}, 0, "left out, a build not in the list: ", ""},
		{[]string{v(1), v(2), v(3), v(4), "--versions-file=" + builds}, 0, "v3 (2026-01-01) .. v4 (2026-01-01)", ""},
		{[]string{v(1), v(2), v(3), v(4), "--min-runs=11"}, 0, "Point Select, 16 threads: 20 runs, v1 (2026-01-01) .. v4 (2026-01-01)\n  too short to judge", ""},
		// 9,999 shuffles there: a p-value to four decimals.
		{[]string{v(1), v(2), v(3), v(4), "--confidence=0.999"}, 0, "p <= 0.001\n\nPoint Select, 16 threads: 20 runs, v1 (2026-01-01) .. v4 (2026-01-01)\n  QPS: a change at run 11: -20.6% (100000 -> 79440 QPS), worse, p = 0.0001\n", ""},
		{[]string{v(1), "--confidence=0.9995"}, 1, "", "invalid --confidence=0.9995: between 0.5 and 0.999, as 0.99"},
		{[]string{v(1), v(2), v(3), v(4), "--format=markdown"}, 0, "| Point Select, 16 threads | QPS | -20.6% (100000 -> 79440), worse | 0.001 | v2 (2026-01-01 00:00) | v3 (2026-01-01 00:00) |", ""},
		{[]string{mixed}, 0, "skipped, unreadable: " + filepath.Join(mixed, "broken.json") + ": not a result file", ""},
		{[]string{t.TempDir()}, 1, "", "holds no result files (*.json)"},
		{[]string{onlyBroken}, 1, "", "no result could be read under " + onlyBroken},
		{[]string{v(1), "--fail-on=change:5"}, 1, "", "invalid --fail-on=change:5: use change:N%, e.g. change:5%"},
		{[]string{v(1), "--order=random"}, 1, "", "invalid --order=random: time or version"},
		{[]string{v(1), "--since=yesterday"}, 1, "", "invalid --since=yesterday"},
		{[]string{v(1), "--format=pdf"}, 1, "", "invalid --format=pdf: use text, markdown or html"},
		{[]string{v(1), "--versions=a", "--versions-file=x"}, 1, "", "give the builds' order with --versions or --versions-file, not both"},
	} {
		r := inProcess(append([]string{"report", "history"}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != c.code || !strings.Contains(r.stdout, c.out) || (c.err != "" && (len(lines) != 1 || !strings.Contains(lines[0], c.err))) || (c.err == "" && r.stderr != "") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, %q and %q", c.args, r.code, r.stdout, r.stderr, c.code, c.out, c.err)
		}
	}
}
