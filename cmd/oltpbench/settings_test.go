package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Every result records the server's global variables, secrets hidden, and
// report compare lists the settings that differ before anything else.
func TestResultRecordsServerSettings(t *testing.T) {
	needServer(t)
	db := "settings"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_common", "prepare", "--tables=1", "--table-size=1000"), "prepare")
	dir := t.TempDir()
	runTo := func(name string) *result.Result {
		t.Helper()
		p := filepath.Join(dir, name, "r.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		mustOK(t, sb(t, db, "oltp_point_select", "run", "--events=200", "--time=0", "--tables=1", "--table-size=1000", "--result-file="+p), "run")
		r, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := runTo("a")
	if a.Server.Variables["max_connections"] != "5000" || a.Server.Variables["innodb_buffer_pool_size"] == "" || len(a.Server.Variables) < 100 {
		t.Fatalf("variables not recorded: %d, max_connections %q", len(a.Server.Variables), a.Server.Variables["max_connections"])
	}
	for k, v := range a.Server.Variables {
		if result.SecretSetting(k) && v != "" && v != result.Hidden {
			t.Errorf("secret variable %s kept: %q", k, v)
		}
	}
	admin := openDB(t, "")
	if _, err := admin.Exec("SET GLOBAL max_connections = 4999"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec("SET GLOBAL max_connections = 5000")
	runTo("b")
	r := ob(t, nil, "report", "compare", "--baseline="+filepath.Join(dir, "a"), "--candidate="+filepath.Join(dir, "b"), "--baseline-name=A", "--candidate-name=B")
	mustOK(t, r, "compare")
	if !strings.HasPrefix(r.stdout, "Server settings that differ (A -> B):\n  max_connections: 5000 -> 4999\n") {
		t.Errorf("compare does not start with the changed setting:\n%s", r.stdout)
	}
}

// --repeat runs every level several times, one result each, alternating
// over the levels; report compare tests each cell and --fail-on gates on a
// significant regression.
func TestRepeatAndFailOn(t *testing.T) {
	needServer(t)
	db := "repeats"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_common", "prepare", "--tables=1", "--table-size=1000"), "prepare")
	a := t.TempDir()
	r := sb(t, db, "oltp_point_select", "run", "--events=2000", "--time=0", "--tables=1", "--table-size=1000", "--threads=1,2", "--repeat=4", "--result-dir="+a)
	mustOK(t, r, "run --repeat")
	order := regexp.MustCompile(`== (\d) threads, repeat (\d) of 4 \(run (\d) of 8\)`).FindAllStringSubmatch(r.stdout, -1)
	if len(order) != 8 || order[0][1] != "1" || order[1][1] != "2" || order[2][2] != "2" {
		t.Errorf("runs not alternating over levels: %v", order)
	}
	files, _ := filepath.Glob(filepath.Join(a, "*.json"))
	if len(files) != 8 || !strings.HasSuffix(files[0], "oltp_point_select-1threads-r1.json") {
		t.Fatalf("result files %v", files)
	}
	// The statistics are tested on their own (internal/report/compare); here the
	// path through the files: a baseline and a candidate 20% slower, with
	// the measured counts and durations set to known throughputs, since
	// runs this short vary more than any shift worth testing.
	base, b := t.TempDir(), t.TempDir()
	for i, f := range files {
		raw, _ := os.ReadFile(f)
		for dir, qps := range map[string]float64{base: 1000, b: 800} {
			var m map[string]any
			json.Unmarshal(raw, &m)
			tot := m["totals"].(map[string]any)
			n := tot["reads"].(float64) + tot["writes"].(float64) + tot["others"].(float64)
			m["seconds"] = n / (qps * (1 + 0.01*float64(i)))
			out, _ := json.Marshal(m)
			os.WriteFile(filepath.Join(dir, filepath.Base(f)), out, 0o644)
		}
	}
	same := ob(t, nil, "report", "compare", "--baseline="+a, "--candidate="+a, "--fail-on=regression:5%")
	mustOK(t, same, "compare with itself")
	if !strings.Contains(same.stdout, "1 threads: ~ no significant change (p=1.00, n=4+4)") {
		t.Errorf("no cell verdict:\n%s", same.stdout)
	}
	slow := ob(t, nil, "report", "compare", "--baseline="+base, "--candidate="+b, "--fail-on=regression:5%")
	if slow.code == 0 || !strings.Contains(slow.stderr, "regression beyond 5%") || !strings.Contains(slow.stdout, "QPS -20% (95% CI") {
		t.Errorf("slower candidate: exit %d\n%s\n%s", slow.code, slow.stdout, slow.stderr)
	}
	if r := ob(t, nil, "report", "compare", "--baseline="+a, "--candidate="+b, "--fail-on=5"); r.code == 0 || !strings.Contains(r.stderr, "invalid --fail-on=5") {
		t.Errorf("bad --fail-on: %q", r.stderr)
	}
}
