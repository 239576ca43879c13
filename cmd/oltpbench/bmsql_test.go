package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var cLines = regexp.MustCompile(`C value for C_LAST during load: (\d+)\nC value for C_LAST this run: (\d+)`)

// runDelta returns the C_LAST constants a run printed, and checks the
// delta rule of clause 2.1.6.1.
func runDelta(t *testing.T, out string) (load, run int) {
	t.Helper()
	m := cLines.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no C_LAST lines:\n%s", out)
	}
	load, _ = strconv.Atoi(m[1])
	run, _ = strconv.Atoi(m[2])
	d := max(run-load, load-run)
	if d < 65 || d > 119 || d == 96 || d == 112 {
		t.Errorf("C_LAST load %d, run %d: delta %d breaks clause 2.1.6.1", load, run, d)
	}
	return load, run
}

// BenchmarkSQL's layout in every load mode: the bmsql_* tables, all twelve
// conditions on the load, a run, and 1-10 and 12 after; foreign keys when
// asked; the dataset's bmsql_config.
func TestTPCCBenchmarkSQLLayout(t *testing.T) {
	needServer(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"local", []string{"--load-mode=local", "--warehouses=2"}},
		{"insert+fks", []string{"--load-mode=insert", "--warehouses=1", "--foreign-keys=on"}},
		{"import", []string{"--load-mode=import", "--warehouses=1"}},
		{"shards+resume", []string{"--warehouses=2", "--shard=1/2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := "bm_" + strings.NewReplacer("+", "_").Replace(c.name)
			freshDB(t, db)
			w := "--warehouses=1"
			for _, a := range c.args {
				if strings.HasPrefix(a, "--warehouses=") {
					w = a
				}
			}
			args := append([]string{"prepare", "--schema=benchmarksql", "--threads=2"}, c.args...)
			if strings.Contains(c.name, "import") {
				args = append(args, "--dir="+t.TempDir())
			}
			mustOK(t, tp(t, db, args...), "prepare")
			if strings.Contains(c.name, "shards") {
				// Shard 1 of 2 is in; --resume loads what is missing.
				r := tp(t, db, "prepare", "--schema=benchmarksql", "--threads=2", w, "--resume")
				mustOK(t, r, "prepare --resume")
				if !strings.Contains(r.stdout, "done earlier") {
					t.Errorf("resume reloaded everything:\n%s", r.stdout)
				}
			}
			var tables, fks int
			openDB(t, db).QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name LIKE 'bmsql\\_%'", db).Scan(&tables)
			openDB(t, db).QueryRow("SELECT COUNT(*) FROM information_schema.referential_constraints WHERE constraint_schema = ?", db).Scan(&fks)
			if tables != 10 {
				t.Errorf("%d bmsql_ tables, want 10", tables)
			}
			if want := map[bool]int{true: 10, false: 0}[strings.Contains(c.name, "fks")]; fks != want {
				t.Errorf("%d foreign keys, want %d", fks, want)
			}
			var uniq string
			openDB(t, db).QueryRow("SELECT non_unique FROM information_schema.statistics WHERE table_schema = ? AND table_name = 'bmsql_oorder' AND index_name = 'bmsql_oorder_idx1' LIMIT 1", db).Scan(&uniq)
			if uniq != "0" {
				t.Errorf("bmsql_oorder_idx1 is not UNIQUE (non_unique %q)", uniq)
			}
			checksPass(t, tp(t, db, "check", "--schema=benchmarksql", w, "--checks=all"), 12)
			r := tp(t, db, "run", "--schema=benchmarksql", w, "--threads=4", "--txns-per-terminal=50")
			mustOK(t, r, "run")
			runDelta(t, r.stdout)
			checksPass(t, tp(t, db, "check", "--schema=benchmarksql", w), 11)
			stockMatchesOrderLines(t, db, "bmsql_")
			mustOK(t, tp(t, db, "cleanup", "--schema=benchmarksql", w), "cleanup")
			openDB(t, db).QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ?", db).Scan(&tables)
			if tables != 0 {
				t.Errorf("cleanup left %d tables", tables)
			}
		})
	}
}

// A dataset as BenchmarkSQL's own loader leaves it: bmsql_* tables and
// bmsql_config with its constants, no oltpbench record, hist_id numbered
// 1..n. The run takes C_LAST from bmsql_config by the delta rule: with
// oltpbench's default seed alone, this dataset's constant gives delta 18.
func TestTPCCRunsOnBenchmarkSQLDataset(t *testing.T) {
	needServer(t)
	db := "bm_native"
	freshDB(t, db)
	mustOK(t, tp(t, db, "prepare", "--schema=benchmarksql", "--warehouses=1", "--threads=2"), "prepare")
	// oltpbench's own constants for the default seed, from a plain run.
	r := tp(t, db, "run", "--warehouses=1", "--threads=1", "--txns-per-terminal=50", "--schema=benchmarksql")
	mustOK(t, r, "run")
	_, ownRun := runDelta(t, r.stdout)
	trap := ownRun - 18
	if trap < 0 {
		trap = ownRun + 18
	}
	d := openDB(t, db)
	for _, q := range []string{
		"DROP TABLE oltpbench_dataset, oltpbench_progress",
		"UPDATE bmsql_config SET cfg_value = '" + strconv.Itoa(trap) + "' WHERE cfg_name = 'nURandCLast'",
		"UPDATE bmsql_config SET cfg_value = '77' WHERE cfg_name = 'nURandCC_ID'",
		// BenchmarkSQL numbers history 1..n.
		"SET @n = 0", "UPDATE bmsql_history SET hist_id = (@n := @n + 1) ORDER BY hist_id",
	} {
		if _, err := d.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	r = tp(t, db, "run", "--schema=benchmarksql", "--warehouses=1", "--threads=4", "--txns-per-terminal=50")
	mustOK(t, r, "run on the BenchmarkSQL dataset")
	if load, _ := runDelta(t, r.stdout); load != trap {
		t.Errorf("the run took C_LAST %d for the load, bmsql_config says %d", load, trap)
	}
	checksPass(t, tp(t, db, "check", "--schema=benchmarksql", "--warehouses=1"), 11)
	// The other layout's name is suggested.
	if r := tp(t, db, "run", "--warehouses=1", "--time=1s"); r.code == 0 || !strings.Contains(r.stderr, "--schema=benchmarksql") {
		t.Errorf("a run in the wrong layout: exit %d, %q", r.code, r.stderr)
	}
}

// csv --schema=benchmarksql writes the layout's files; import loads them.
func TestTPCCBenchmarkSQLCSV(t *testing.T) {
	needServer(t)
	dir := t.TempDir()
	db := "bm_csv"
	freshDB(t, db)
	mustOK(t, ob(t, nil, "csv", "tpcc", "--schema=benchmarksql", "--warehouses=1", "--db="+db, "--dir="+dir, "--progress=off"), "csv")
	for _, f := range []string{db + ".bmsql_oorder.000001.csv", db + ".bmsql_config.000001.csv", db + ".bmsql_history-schema.sql"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("no %s", f)
		}
	}
	mustOK(t, ob(t, nil, append([]string{"import", "--dir=" + dir, "--progress=off"}, connArgs(db)...)...), "import")
	checksPass(t, tp(t, db, "check", "--schema=benchmarksql", "--warehouses=1", "--checks=all"), 12)
}
