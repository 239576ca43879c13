package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var r result.Result
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return &r
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
