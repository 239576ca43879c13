package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPreflight: each check before a run fires when its condition holds
// and stays quiet when it does not; its line names the fix (sysbench's
// warnings go to a person: --notes here).
func TestPreflight(t *testing.T) {
	needServer(t)
	db := "preflight"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_read_write", "--tables=1", "--table-size=1000", "prepare"), "prepare")
	run := func(extra ...string) res {
		t.Helper()
		return sb(t, db, append([]string{"oltp_read_write", "--tables=1", "--table-size=1000", "--time=1", "--notes=on"}, append(extra, "run")...)...)
	}
	quiet := run()
	mustOK(t, quiet, "a matching run")
	if strings.Contains(quiet.stderr, "warning:") {
		t.Errorf("a run that matches its dataset and server warns:\n%s", quiet.stderr)
	}
	// A part of the dataset.
	if r := sb(t, db, "oltp_read_write", "--tables=1", "--table-size=500", "--time=1", "--notes=on", "run"); !strings.Contains(r.stderr, "warning: --table-size=500 reads part of the dataset in preflight (table_size=1000)") {
		t.Errorf("a smaller --table-size: %s", r.stderr)
	}
	// More than the dataset: refused, unless --skip-dataset-check.
	if r := sb(t, db, "oltp_read_write", "--tables=2", "--table-size=1000", "--time=1", "run"); r.code == 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "sbtest2 missing") {
		t.Errorf("--tables=2 on one table: exit %d, %q", r.code, r.stderr)
	}
	if r := sb(t, db, "oltp_point_select", "--tables=1", "--table-size=5000", "--time=1", "--skip-dataset-check", "run"); r.code != 0 {
		t.Errorf("--skip-dataset-check: exit %d, %q", r.code, r.stderr)
	}
	// Prepared statements beyond the server's limit.
	admin := openDB(t, "")
	var was string
	admin.QueryRow("SELECT @@max_prepared_stmt_count").Scan(&was)
	t.Cleanup(func() { admin.Exec("SET GLOBAL max_prepared_stmt_count = " + was) })
	if _, err := admin.Exec("SET GLOBAL max_prepared_stmt_count = 20"); err != nil {
		t.Fatal(err)
	}
	if r := run("--threads=4"); !strings.Contains(r.stderr, "the server's max_prepared_stmt_count is 20") {
		t.Errorf("4 threads x read_write's statements over 20: %s", r.stderr)
	}
	if r := run("--threads=4", "--db-ps-mode=disable"); strings.Contains(r.stderr, "max_prepared_stmt_count") {
		t.Errorf("text statements warned of prepared ones: %s", r.stderr)
	}
	admin.Exec("SET GLOBAL max_prepared_stmt_count = " + was)
	// Connections beyond max_connections: said before the run's connect.
	var maxConn string
	admin.QueryRow("SELECT @@max_connections").Scan(&maxConn)
	t.Cleanup(func() { admin.Exec("SET GLOBAL max_connections = " + maxConn) })
	if _, err := admin.Exec("SET GLOBAL max_connections = 12"); err != nil {
		t.Fatal(err)
	}
	if r := run("--threads=16"); !strings.Contains(r.stderr, "the run opens 16 connections and the server's max_connections is 12") {
		t.Errorf("16 threads over max_connections=12: %s", r.stderr)
	}
	admin.Exec("SET GLOBAL max_connections = " + maxConn)
	// Fewer open files than connections.
	sh := exec.Command("bash", "-c", `ulimit -n 100 && exec "$0" "$@"`, binPath, "sysbench", "oltp_point_select", "--tables=1", "--table-size=1000",
		"--time=1", "--threads=50", "--notes=on", "run")
	sh.Args = append(sh.Args, connArgs(db)...)
	out, _ := sh.CombinedOutput()
	if !strings.Contains(string(out), "this process may open 100 files: raise the limit (ulimit -n") {
		t.Errorf("50 connections under ulimit -n 100:\n%s", out)
	}
	// A dataset loaded without ANALYZE.
	freshDB(t, "preflight_na")
	mustOK(t, sb(t, "preflight_na", "oltp_point_select", "--tables=1", "--table-size=100", "--analyze=off", "prepare"), "prepare without analyze")
	if r := sb(t, "preflight_na", "oltp_point_select", "--tables=1", "--table-size=100", "--time=1", "--notes=on", "run"); !strings.Contains(r.stderr, "was not ANALYZEd since its load") {
		t.Errorf("no ANALYZE: %s", r.stderr)
	}
	// For sysbench's readers the lines are a person's: not at --verbosity=3.
	if r := sb(t, db, "oltp_read_write", "--tables=1", "--table-size=500", "--time=1", "run"); r.stderr != "" {
		t.Errorf("sysbench's stderr at verbosity 3: %q", r.stderr)
	}
}
