package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

// The metrics tests run oltpbench with --metrics-addr on the address that
// the real Prometheus of scripts/test.sh scrapes every second, then ask
// Prometheus (its HTTP API) what it stored.

func needPrometheus(t *testing.T) (promURL, addr string) {
	t.Helper()
	needServer(t)
	promURL, addr = os.Getenv("OLTPBENCH_TEST_PROM_URL"), os.Getenv("OLTPBENCH_TEST_METRICS_ADDR")
	if promURL == "" || addr == "" {
		t.Skip("needs scripts/test.sh's Prometheus")
	}
	return promURL, addr
}

type promSample struct {
	Metric map[string]string
	Value  float64
}

// promQuery evaluates q at time at (zero: now).
func promQuery(t *testing.T, promURL, q string, at time.Time) []promSample {
	t.Helper()
	v := url.Values{"query": {q}}
	if !at.IsZero() {
		v.Set("time", strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64))
	}
	resp, err := http.Get(promURL + "/api/v1/query?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status, Error string
		Data          struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" {
		t.Fatalf("query %s: %v %s", q, err, body.Error)
	}
	var out []promSample
	for _, r := range body.Data.Result {
		f, _ := strconv.ParseFloat(fmt.Sprint(r.Value[1]), 64)
		out = append(out, promSample{r.Metric, f})
	}
	return out
}

// promLast is the last value Prometheus holds of a series selector: one
// series, read until it equals want (Prometheus stores a scrape shortly
// after it took it) or 10 s passed.
func promLast(t *testing.T, promURL, sel string, want float64) float64 {
	t.Helper()
	var got float64 = -1
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		s := promQuery(t, promURL, "last_over_time("+sel+"[10m])", time.Time{})
		if len(s) == 1 {
			got = s[0].Value
			if got == want {
				break
			}
		}
	}
	return got
}

// A sysbench run, a TPC-C run and a two-cell plan (with its load) under a
// real Prometheus: every counter's last value is the result file's count,
// each histogram's count its operation's count, the plan's cells done its
// cells; then every query of the Grafana dashboard returns data.
func TestMetricsPrometheus(t *testing.T) {
	promURL, addr := needPrometheus(t)
	metrics := []string{"--metrics-addr=" + addr, "--client-id=ci-client"}
	dir := t.TempDir()

	metricsSysbench(t, promURL, metrics, dir)
	metricsTPCC(t, promURL, metrics, dir)
	ended := metricsPlan(t, promURL, metrics)
	dashboardAnswers(t, promURL, ended)
}

// metricsSysbench: a sysbench run's counters are its result's counts.
func metricsSysbench(t *testing.T, promURL string, metrics []string, dir string) {
	t.Helper()
	freshDB(t, "metrics_sb")
	mustOK(t, sb(t, "metrics_sb", "oltp_read_write", "--tables=1", "--table-size=2000", "prepare"), "prepare")
	sbFile := filepath.Join(dir, "sb.json")
	mustOK(t, sb(t, "metrics_sb", append([]string{"oltp_read_write", "--tables=1", "--table-size=2000", "--threads=2", "--time=3",
		"--result-file=" + sbFile, "run"}, metrics...)...), "sysbench run")
	res, err := result.Read(sbFile)
	if err != nil {
		t.Fatal(err)
	}
	run := `client="ci-client",test="sysbench/oltp_read_write"`
	for _, c := range []struct{ sel, total string }{
		{"oltpbench_events_total{" + run + "}", "events"},
		{"oltpbench_statements_total{" + run + `,kind="read"}`, "reads"},
		{"oltpbench_statements_total{" + run + `,kind="write"}`, "writes"},
		{"oltpbench_statements_total{" + run + `,kind="other"}`, "others"},
		{"oltpbench_ignored_errors_total{" + run + "}", "errors"},
		{"oltpbench_reconnects_total{" + run + "}", "reconnects"},
	} {
		if want := float64(res.Totals[c.total]); promLast(t, promURL, c.sel, want) != want {
			t.Errorf("%s: Prometheus has %v, the result %v", c.sel, promLast(t, promURL, c.sel, want), want)
		}
	}
	op := res.Ops[0]
	for _, sel := range []string{"oltpbench_latency_seconds_count{" + run + `,op="` + op.Name + `"}`, "oltpbench_operations_total{" + run + `,op="` + op.Name + `"}`} {
		if got := promLast(t, promURL, sel, float64(op.Count)); got != float64(op.Count) || op.Count == 0 {
			t.Errorf("%s: %v, the result's %s count %d", sel, got, op.Name, op.Count)
		}
	}

}

// metricsTPCC: a TPC-C run's operations, its audit and tpmC.
func metricsTPCC(t *testing.T, promURL string, metrics []string, dir string) {
	t.Helper()
	freshDB(t, "metrics_tpcc")
	prepared(t, "metrics_tpcc", "tpcc", "prepare", "--warehouses=1")
	tpFile := filepath.Join(dir, "tpcc.json")
	mustOK(t, tp(t, "metrics_tpcc", append([]string{"run", "--warehouses=1", "--threads=2", "--time=4s", "--result-file=" + tpFile}, metrics...)...), "tpcc run")
	res, err := result.Read(tpFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range res.Ops {
		sel := `oltpbench_operations_total{client="ci-client",workload="tpcc",op="` + o.Name + `"}`
		if got := promLast(t, promURL, sel, float64(o.Count)); got != float64(o.Count) {
			t.Errorf("%s: %v, the result's %d", sel, got, o.Count)
		}
	}
	if got := promLast(t, promURL, `oltpbench_workload_count_total{client="ci-client",workload="tpcc",name="new_orders"}`, -2); got <= 0 {
		t.Errorf("the audit's New-Order count: %v", got)
	}
	tpmC, _ := res.Throughput()
	if got := promLast(t, promURL, `oltpbench_run_figure{client="ci-client",workload="tpcc",figure="tpmC"}`, tpmC); got != tpmC {
		t.Errorf("tpmC figure %v, the result's %v", got, tpmC)
	}
	// A capacity search's probe: served by level and outcome.
	r := tp(t, "metrics_tpcc", append([]string{"search", "--warehouses=1", "--wait=0.05", "--time=2s", "--result-dir=" + filepath.Join(dir, "search")}, metrics...)...)
	mustOK(t, r, "tpcc search")
	probe, err := result.Read(filepath.Join(dir, "search", "tpcc-1warehouses.json"))
	if err != nil {
		t.Fatal(err)
	}
	outcome := map[bool]string{true: "pass", false: "fail"}[probe.Figures["spec_pass"] == 1]
	v, _ := probe.Throughput()
	if got := promLast(t, promURL, `oltpbench_search_probe_throughput{client="ci-client",level="1",outcome="`+outcome+`"}`, v); got != v {
		t.Errorf("the search's probe: %v, its result's %v (%s)", got, v, outcome)
	}

}

// metricsPlan: a plan's cells done, its load's rows and its cells' events;
// it returns when the plan ended.
func metricsPlan(t *testing.T, promURL string, metrics []string) time.Time {
	t.Helper()
	freshDB(t, "metrics_plan")
	planFile := writePlan(t, `[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 1000 }
[[step]]
name = "ps"
test = "oltp_point_select"
threads = [1, 2]
time = "2s"
`)
	args := append([]string{"plan", "run", planFile, "--result-dir", t.TempDir()}, metrics...)
	r := ob(t, nil, append(append(args, "--"), connArgs("metrics_plan")...)...)
	ended := time.Now()
	mustOK(t, r, "plan run")
	if got := promLast(t, promURL, `oltpbench_plan_cells_done{client="ci-client"}`, 2); got != 2 {
		t.Errorf("plan cells done %v, want 2", got)
	}
	if got := promLast(t, promURL, `oltpbench_load_rows_total{client="ci-client",table="sbtest1"}`, 1000); got != 1000 {
		t.Errorf("rows loaded %v, want 1000", got)
	}
	if got := promLast(t, promURL, `oltpbench_events_total{client="ci-client",step="ps",threads="2",repeat="1"}`, -2); got <= 0 {
		t.Errorf("the plan's second cell has no events: %v", got)
	}

	return ended
}

// dashboardAnswers: every query of the dashboard, as Grafana would send it
// just before the plan ended (every workload ran within its rate window),
// returns data.
func dashboardAnswers(t *testing.T, promURL string, ended time.Time) {
	t.Helper()
	b, err := os.ReadFile("../../deploy/grafana/oltpbench.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("$__rate_interval", "2m", "$client", "ci-client", "$workload", ".*", "$test", ".*")
	n := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			q := vars.Replace(tg.Expr)
			if regexp.MustCompile(`\$\w+`).MatchString(q) {
				t.Errorf("panel %q: a variable the test does not know in %s", p.Title, tg.Expr)
			}
			if s := promQuery(t, promURL, q, ended.Add(-300*time.Millisecond)); len(s) == 0 {
				t.Errorf("panel %q: no data for %s", p.Title, q)
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("the dashboard has %d queries", n)
	}
}

// Bad --metrics-addr values stop the command in one line before anything
// runs; a port in use says so.
func TestMetricsBadAddr(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct{ addr, want string }{
		{"localhost", "invalid --metrics-addr=localhost: use HOST:PORT"},
		{busy.Addr().String(), "--metrics-addr=" + busy.Addr().String() + ": "},
	} {
		r := inProcess("sysbench", "oltp_point_select", "--mysql-dry-run", "--time=1", "--metrics-addr="+c.addr, "run")
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code == 0 || len(lines) != 1 || !strings.Contains(lines[0], c.want) || strings.Contains(r.stdout, "Threads started") {
			t.Errorf("%s: exit %d, stderr %q, stdout %q", c.addr, r.code, r.stderr, r.stdout)
		}
	}
	r := inProcess("plan", "run", writePlan(t, "[dataset]\nworkload = \"sysbench\"\n[[step]]\ntest = \"oltp_point_select\"\nthreads = [1]\ntime = \"1s\"\n"),
		"--result-dir", t.TempDir(), "--", "--metrics-addr=127.0.0.1:1")
	if r.code == 0 || !strings.Contains(r.stderr, "--metrics-addr=127.0.0.1:1 after -- is the plan's to set: change the plan, or give it to plan run before --") {
		t.Errorf("--metrics-addr after --: exit %d, stderr %q", r.code, r.stderr)
	}
}

// scrapeDuring runs the binary with --metrics-addr on a free port, reading
// /metrics every 20 ms until it exits, and returns the last page read (the
// command waits for one more scrape at its end, so it has the final values).
func scrapeDuring(t *testing.T, args ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := exec.Command(binPath, append(args, "--metrics-addr="+addr)...)
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	var last string
	for {
		if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = string(b)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out.String())
			}
			return last
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// The password is in no series: a run given one, scraped while it runs.
func TestMetricsNoSecret(t *testing.T) {
	needServer(t) // the binary is built with the test server
	const secret = "hunter2-metrics-secret"
	body := scrapeDuring(t, "sysbench", "oltp_point_select", "--mysql-dry-run", "--time=2", "--mysql-password="+secret, "--client-id=nosecret", "run")
	if !strings.Contains(body, `oltpbench_events_total{client="nosecret"`) || strings.Contains(body, secret) {
		t.Errorf("scrape during the run (secret there: %v):\n%.2000s", strings.Contains(body, secret), body)
	}
}

// import --metrics-addr serves the load's progress per table: at the end,
// every row and unit of the CSV files, and the phase done.
func TestMetricsImport(t *testing.T) {
	needServer(t)
	dir := filepath.Join(t.TempDir(), "csv")
	mustOK(t, ob(t, nil, "csv", "sysbench", "--dir="+dir, "--tables=2", "--table-size=30000", "--mysql-db=metrics_imp", "--csv-file-size=256KiB", "--progress=off"), "csv")
	freshDB(t, "metrics_imp")
	body := scrapeDuring(t, "import", "--dir="+dir, "--mysql-host="+testHost, "--mysql-port="+testPort, "--mysql-user=root", "--progress=off", "--client-id=imp")
	for _, want := range []string{`oltpbench_load_rows_total{client="imp",table="sbtest1"} 30000`, `oltpbench_load_rows_total{client="imp",table="sbtest2"} 30000`,
		`oltpbench_load_phase{client="imp",phase="done"} 1`} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("the last scrape of import lacks %s:\n%.3000s", want, body)
		}
	}
	units := regexp.MustCompile(`(?m)^oltpbench_load_units(_done)?\{client="imp",table="sbtest1"\} (\d+)$`).FindAllStringSubmatch(body, -1)
	if len(units) != 2 || units[0][2] != units[1][2] || units[0][2] == "0" || units[0][2] == "1" {
		t.Errorf("sbtest1's units done and to do: %v (want equal, several)", units)
	}
}
