package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pgLoad makes database db on the test PostgreSQL from ddl (a file of
// testdata) and the CSV files of the manifest in dir, with its views and
// statistics; it returns psql on that server, printing rows unaligned.
func pgLoad(t *testing.T, db, dir, ddl string) (psql func(dbname string, args ...string) string) {
	t.Helper()
	port := os.Getenv("OLTPBENCH_TEST_PG_PORT")
	if port == "" {
		t.Fatal("OLTPBENCH_TEST_PG_PORT not set: run through make test (scripts/postgres-start.sh)")
	}
	psql = func(dbname string, args ...string) string {
		t.Helper()
		out, err := exec.Command("psql", append([]string{"-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", dbname,
			"-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-F", "\x1f", "-P", "null=\\N"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	psql("postgres", "-c", "DROP DATABASE IF EXISTS "+db, "-c", "CREATE DATABASE "+db)
	psql(db, "-f", ddl)
	var m struct {
		Tables []struct {
			Name    string
			Columns []string
			Files   []struct{ Name string }
		}
		Views []struct {
			SchemaFile string `json:"schema_file"`
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, db+"-manifest.json"))
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	for _, tb := range m.Tables {
		for _, f := range tb.Files {
			psql(db, "-c", fmt.Sprintf(`\copy %s (%s) FROM '%s' WITH (FORMAT csv, HEADER true, NULL '\N', ESCAPE '\')`,
				tb.Name, strings.Join(tb.Columns, ","), filepath.Join(dir, f.Name)))
		}
	}
	for _, v := range m.Views {
		psql(db, "-f", filepath.Join(dir, v.SchemaFile))
	}
	// Statistics, as MariaDB's load ends with ANALYZE TABLE: without them
	// PostgreSQL's planner nests loops over large joins (CH's Q5: a minute).
	psql(db, "-c", "ANALYZE")
	return psql
}
