package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/spf13/cobra"
)

// Schema options reach the server's DDL; sockets, port lists and the
// histogram work as in sysbench.
func TestSchemaAndConnectionOptions(t *testing.T) {
	needServer(t)
	db := "opts"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_common", "prepare", "--table-size=3000", "--secondary=on", "--mysql-storage-engine=myisam",
		"--create-table-options=COMMENT='made by oltpbench'"), "prepare")
	var ddl, name string
	if err := openDB(t, db).QueryRow("SHOW CREATE TABLE sbtest1").Scan(&name, &ddl); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"KEY `xid` (`id`)", "KEY `k_1` (`k`)", "ENGINE=MyISAM", "COMMENT='made by oltpbench'"} {
		if !strings.Contains(ddl, want) {
			t.Errorf("DDL lacks %q:\n%s", want, ddl)
		}
	}
	if strings.Contains(ddl, "PRIMARY KEY") {
		t.Errorf("--secondary left a primary key:\n%s", ddl)
	}
	// The same port twice: two endpoints, connections round-robin over them.
	out := filepath.Join(t.TempDir(), "r.json")
	r := ob(t, nil, "sysbench", "oltp_read_write", "run", "--time=1", "--threads=2", "--table-size=3000", "--histogram=on",
		"--mysql-host="+testHost, "--mysql-port="+testPort+","+testPort, "--mysql-user=root", "--mysql-db="+db, "--result-file="+out)
	mustOK(t, r, "run")
	if !strings.Contains(r.stdout, "Latency histogram (values are in milliseconds)") {
		t.Error("--histogram=on printed no histogram")
	}
	var rf struct{ Server struct{ Endpoints []string } }
	b, _ := os.ReadFile(out)
	json.Unmarshal(b, &rf)
	if len(rf.Server.Endpoints) != 2 {
		t.Errorf("endpoints %v, want the port twice", rf.Server.Endpoints)
	}
	// A Unix socket, as root over the socket.
	if sock := os.Getenv("OLTPBENCH_TEST_SOCKET"); sock != "" {
		r := ob(t, nil, "sysbench", "oltp_point_select", "run", "--time=1", "--table-size=3000", "--mysql-socket="+sock, "--mysql-user=root", "--mysql-db="+db)
		mustOK(t, r, "run over the socket")
	}
}

// csv's --help shows what shapes the files and hides the run and connection
// options, which it still accepts so that a prepare line works with csv.
func TestCSVHelpShowsDataOptions(t *testing.T) {
	for _, tc := range []struct {
		sub        string
		show, hide []string
	}{
		{"sysbench", []string{"dir", "tables", "table-size", "rand-type", "mysql-db", "threads", "seed"},
			[]string{"mysql-host", "mysql-password", "time", "events", "report-interval", "net-io", "load-mode", "point-selects", "shard"}},
		{"tpcc", []string{"dir", "warehouses", "partitions", "mysql-db", "threads", "seed"},
			[]string{"mysql-host", "mysql-password", "time", "weights", "wait", "net-io", "load-mode", "checks"}},
	} {
		var sub *cobra.Command
		for _, c := range csvCommand(nil, workload.Invocation{}).Commands() {
			if c.Name() == tc.sub {
				sub = c
			}
		}
		if sub == nil {
			t.Fatalf("csv has no %s command", tc.sub)
		}
		for _, n := range append(append([]string{}, tc.show...), tc.hide...) {
			if sub.Flags().Lookup(n) == nil {
				t.Errorf("csv %s does not accept --%s", tc.sub, n)
			}
		}
		usage := sub.Flags().FlagUsages()
		for _, n := range tc.show {
			if !strings.Contains(usage, "--"+n+" ") {
				t.Errorf("csv %s --help lacks --%s", tc.sub, n)
			}
		}
		for _, n := range tc.hide {
			if strings.Contains(usage, "--"+n+" ") {
				t.Errorf("csv %s --help shows --%s, which has no effect there", tc.sub, n)
			}
		}
	}
}
