package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/sysbench"
)

// guideOptions reads the option names of the sysbench guide's table of
// options (docs/guide/sysbench.md).
func guideOptions(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open("../../docs/guide/sysbench.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]bool{}
	in := false
	names := regexp.MustCompile("`--([a-z0-9-]+)`")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "<!-- options:begin -->":
			in = true
		case l == "<!-- options:end -->":
			in = false
		case in && strings.HasPrefix(l, "| `--"):
			cells := strings.Split(l, "|")
			for _, m := range names.FindAllStringSubmatch(cells[1], -1) {
				rows[m[1]] = true
			}
		}
	}
	if len(rows) == 0 {
		t.Fatal("no option table between <!-- options:begin --> and <!-- options:end --> in docs/guide/sysbench.md")
	}
	return rows
}

// shownBy says, for every sysbench option, what shows its effect: the
// trace or schema probes below, "no-op" for sysbench's own no-ops here, or
// the test that does.
var shownBy = map[string]string{
	"threads":              "trace",
	"events":               "trace",
	"time":                 "TestTimeSpelling",
	"forced-shutdown":      "TestForcedShutdown",
	"thread-stack-size":    "no-op",
	"rate":                 "trace",
	"report-interval":      "TestWarmupAndCheckpoints",
	"report-checkpoints":   "TestWarmupAndCheckpoints",
	"debug":                "trace",
	"validate":             "trace",
	"help":                 "TestDropInVersionAndHelp",
	"version":              "TestDropInVersionAndHelp",
	"config-file":          "TestConfigFileVerbosity",
	"tx-rate":              "TestDropInScripts",
	"max-requests":         "TestDropInScripts",
	"max-time":             "TestDropInScripts",
	"num-threads":          "TestDropInScripts",
	"rand-type":            "trace",
	"rand-spec-iter":       "trace",
	"rand-spec-pct":        "trace",
	"rand-spec-res":        "trace",
	"rand-seed":            "trace",
	"rand-pareto-h":        "trace",
	"rand-zipfian-exp":     "trace",
	"verbosity":            "trace",
	"percentile":           "trace",
	"histogram":            "trace",
	"db-driver":            "TestDropInErrors",
	"db-ps-mode":           "trace",
	"db-debug":             "trace",
	"mysql-host":           "trace",
	"mysql-port":           "trace",
	"mysql-socket":         "trace",
	"mysql-user":           "trace",
	"mysql-password":       "trace",
	"mysql-db":             "trace",
	"mysql-ssl":            "TestTLS",
	"mysql-ssl-cipher":     "TestTLS",
	"mysql-compression":    "TestMySQLCompression",
	"mysql-debug":          "TestMySQLDebug",
	"mysql-ignore-errors":  "TestIgnoreErrors",
	"mysql-dry-run":        "trace",
	"pgsql-variant":        "no-op",
	"tables":               "trace",
	"table-size":           "trace",
	"range-size":           "trace",
	"point-selects":        "trace",
	"simple-ranges":        "trace",
	"sum-ranges":           "trace",
	"order-ranges":         "trace",
	"distinct-ranges":      "trace",
	"index-updates":        "trace",
	"non-index-updates":    "trace",
	"delete-inserts":       "trace",
	"range-selects":        "trace",
	"skip-trx":             "trace",
	"auto-inc":             "schema",
	"create-secondary":     "schema",
	"secondary":            "schema",
	"mysql-storage-engine": "schema",
	"create-table-options": "schema",
	"random-points":        "trace",
	"number-of-ranges":     "trace",
	"delta":                "trace",
}

// sysbenchOptions are the options sysbench 1.0.20 takes for its OLTP tests
// (its --help's and the tests' own), which oltpbench sysbench accepts.
func sysbenchOptions() []string {
	return append(sysbench.HelpOptionNames(), sysbench.TestOptionNames()...)
}

// TestSysbenchOptionsDocumented: the guide lists every sysbench option
// oltpbench accepts, and each has what shows its effect (shownBy): a test
// that exists, the trace or schema probes below, or "no-op" for exactly the
// options that are sysbench's own no-ops here.
func TestSysbenchOptionsDocumented(t *testing.T) {
	documented := guideOptions(t)
	rows := shownBy
	tests := map[string]bool{}
	files, _ := filepath.Glob("../../*/*_test.go")
	more, _ := filepath.Glob("../../*/*/*_test.go")
	for _, f := range append(append(files, more...), "sysbench_options_test.go") {
		b, _ := os.ReadFile(f)
		for _, m := range regexp.MustCompile(`(?m)^func (Test\w+)\(`).FindAllStringSubmatch(string(b), -1) {
			tests[m[1]] = true
		}
	}
	for _, n := range sysbenchOptions() {
		if !documented[n] {
			t.Errorf("--%s is accepted but not in docs/guide/sysbench.md's option table", n)
		}
		by, ok := rows[n]
		switch {
		case !ok:
			t.Errorf("--%s is accepted but has no entry in shownBy", n)
		case by == "trace" || by == "schema":
			if _, ok := probes[n]; !ok {
				t.Errorf("--%s is shown by the %s probe (shownBy), which has no case for it (probes)", n, by)
			}
		case by == "no-op":
			if !slices.Contains(sysbench.NoOpOptions(), n) {
				t.Errorf("--%s is a no-op in shownBy, and has an effect", n)
			}
		case !tests[by]:
			t.Errorf("--%s: shownBy names %s, which is no test", n, by)
		}
	}
	for _, n := range sysbench.NoOpOptions() {
		if rows[n] != "no-op" {
			t.Errorf("--%s does nothing here, and shownBy says %q", n, rows[n])
		}
	}
}

// probe is one option's value and, when it needs one, the company it shows
// in (both runs get with); test is the sysbench test it runs ("" for
// oltp_read_write).
type probe struct {
	test string
	opt  string
	with []string
}

// probes: each option against a run without it.
var probes = map[string]probe{
	"threads":           {opt: "--threads=2"},
	"events":            {opt: "--events=4"},
	"rate":              {opt: "--rate=100000"},
	"debug":             {opt: "--debug"},
	"db-debug":          {opt: "--db-debug"},
	"validate":          {opt: "--validate"},
	"rand-type":         {opt: "--rand-type=uniform"},
	"rand-spec-iter":    {opt: "--rand-spec-iter=3"},
	"rand-spec-pct":     {opt: "--rand-spec-pct=20"},
	"rand-spec-res":     {opt: "--rand-spec-res=30"},
	"rand-seed":         {opt: "--rand-seed=8"},
	"rand-pareto-h":     {opt: "--rand-pareto-h=0.6", with: []string{"--rand-type=pareto"}},
	"rand-zipfian-exp":  {opt: "--rand-zipfian-exp=0.3", with: []string{"--rand-type=zipfian"}},
	"verbosity":         {opt: "--verbosity=0"},
	"percentile":        {opt: "--percentile=99"},
	"histogram":         {opt: "--histogram"},
	"db-ps-mode":        {opt: "--db-ps-mode=auto"},
	"mysql-host":        {opt: "--mysql-host=localhost"},
	"mysql-port":        {opt: "--mysql-port=2"},
	"mysql-socket":      {opt: "--mysql-socket=/tmp/no.sock"},
	"mysql-user":        {opt: "--mysql-user=someone"},
	"mysql-password":    {opt: "--mysql-password=x"},
	"mysql-db":          {opt: "--mysql-db=other"},
	"mysql-dry-run":     {opt: "--mysql-dry-run=off"},
	"tables":            {opt: "--tables=3"},
	"table-size":        {opt: "--table-size=50"},
	"range-size":        {opt: "--range-size=5"},
	"point-selects":     {opt: "--point-selects=2"},
	"simple-ranges":     {opt: "--simple-ranges=2"},
	"sum-ranges":        {opt: "--sum-ranges=2"},
	"order-ranges":      {opt: "--order-ranges=2"},
	"distinct-ranges":   {opt: "--distinct-ranges=2"},
	"index-updates":     {opt: "--index-updates=2"},
	"non-index-updates": {opt: "--non-index-updates=2"},
	"delete-inserts":    {opt: "--delete-inserts=2"},
	"range-selects":     {opt: "--range-selects=off"},
	"skip-trx":          {opt: "--skip-trx=on"},
	"random-points":     {test: "select_random_points", opt: "--random-points=3"},
	"number-of-ranges":  {test: "select_random_ranges", opt: "--number-of-ranges=2"},
	"delta":             {test: "select_random_ranges", opt: "--delta=10"},
	// schema: what csv writes
	"auto-inc":             {test: "schema", opt: "--auto-inc=off"},
	"create-secondary":     {test: "schema", opt: "--create-secondary=off"},
	"secondary":            {test: "schema", opt: "--secondary=on"},
	"mysql-storage-engine": {test: "schema", opt: "--mysql-storage-engine=MyISAM"},
	"create-table-options": {test: "schema", opt: "--create-table-options=COLLATE latin1_bin"},
}

var (
	numberRE     = regexp.MustCompile(`\d+(\.\d+)?`)
	starsRE      = regexp.MustCompile(`\*+`)
	percentileRE = regexp.MustCompile(`(\d+)th percentile`)
)

// maskTimings masks what a run measures (every number and histogram bar
// outside the trace's lines), but which percentile the report shows.
func maskTimings(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "DEBUG: ") {
			continue
		}
		l = percentileRE.ReplaceAllStringFunc(l, func(m string) string {
			return strings.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return 'a' + r - '0'
				}
				return r
			}, m)
		})
		lines[i] = spaces.ReplaceAllString(starsRE.ReplaceAllString(numberRE.ReplaceAllString(l, "N"), "*"), " ")
	}
	return strings.Join(lines, "\n")
}

// TestSysbenchOptionEffects: each option in probes changes what a dry run
// prints with --mysql-debug (statements, arguments, the connection, the
// report; only timings masked), or the schema csv writes.
func TestSysbenchOptionEffects(t *testing.T) {
	needServer(t) // the binary
	base := []string{"run", "--mysql-dry-run", "--mysql-debug", "--db-ps-mode=disable", "--rand-seed=7", "--events=3", "--threads=1",
		"--mysql-host=127.0.0.1", "--mysql-port=1", "--table-size=10000"}
	print := func(test string, args []string) string {
		if test == "schema" {
			dir := t.TempDir()
			r := ob(t, nil, append([]string{"csv", "sysbench", "--dir=" + dir, "--tables=1", "--table-size=10", "--progress=off"}, args...)...)
			mustOK(t, r, "csv")
			var b strings.Builder
			fs, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
			for _, f := range fs {
				s, _ := os.ReadFile(f)
				b.Write(s)
			}
			return strings.ReplaceAll(b.String(), dir, "DIR")
		}
		if test == "" {
			test = "oltp_read_write"
		}
		r := ob(t, nil, append(append([]string{"sysbench", test}, base...), args...)...)
		return maskTimings(r.stdout+"\n--- stderr\n"+r.stderr) + string(rune('0'+r.code))
	}
	// The run without an option, once for each test and company (and once
	// more, to see that it repeats itself).
	baseline := map[string]string{}
	for name, p := range probes {
		t.Run(name, func(t *testing.T) {
			key := p.test + " " + strings.Join(p.with, " ")
			without, ok := baseline[key]
			if !ok {
				without = print(p.test, p.with)
				baseline[key] = without
			}
			again := without
			if !ok {
				again = print(p.test, p.with)
			}
			if without != again {
				a, b := strings.Split(without, "\n"), strings.Split(again, "\n")
				for i := range min(len(a), len(b)) {
					if a[i] != b[i] {
						t.Fatalf("the probe is not repeatable: line %d %q, then %q", i+1, a[i], b[i])
					}
				}
				t.Fatalf("the probe is not repeatable: %d lines, then %d", len(a), len(b))
			}
			if with := print(p.test, append(slices.Clone(p.with), p.opt)); with == without {
				t.Errorf("%s changes nothing printed:\n%s", p.opt, with)
			}
		})
	}
}

// TestForcedShutdown: an event that runs on past --time holds the report
// until it ends, unless --forced-shutdown says how long to wait.
func TestForcedShutdown(t *testing.T) {
	needServer(t)
	script := filepath.Join(t.TempDir(), "long.lua")
	os.WriteFile(script, []byte("function event()\n  local t = os.clock()\n  while os.clock() - t < 5 do end\nend\n"), 0o644)
	timed := func(args ...string) time.Duration {
		start := time.Now()
		r := ob(t, nil, append([]string{"sysbench", script, "--time=1"}, append(args, "run")...)...)
		if !strings.Contains(r.stdout, "General statistics:") {
			t.Errorf("no report:\n%s%s", r.stdout, r.stderr)
		}
		return time.Since(start)
	}
	if d := timed("--forced-shutdown=1"); d > 4*time.Second {
		t.Errorf("--forced-shutdown=1 reported after %v", d)
	}
	if d := timed(); d < 4500*time.Millisecond {
		t.Errorf("without --forced-shutdown the report came after %v, before the event's end", d)
	}
}
