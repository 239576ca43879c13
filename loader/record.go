package loader

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/oltpbench/oltpbench/internal/conn"
)

// Tables in the target database that make a load resumable and describe the
// dataset to result files.
const (
	datasetTable  = "oltpbench_dataset"
	progressTable = "oltpbench_progress"
)

// RecordTables names the loader's own tables, for cleanup.
var RecordTables = []string{datasetTable, progressTable}

func ensureRecordTables(ctx context.Context, db *sql.DB) error {
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS " + datasetTable + " (k VARCHAR(64) NOT NULL PRIMARY KEY, v TEXT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS " + progressTable + " (tbl VARCHAR(64) NOT NULL, unit BIGINT NOT NULL, `rows` BIGINT NOT NULL, PRIMARY KEY (tbl, unit))",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("creating %s: %v", strings.Fields(q)[5], err)
		}
	}
	return nil
}

// ReadDataset returns the dataset record of the database (empty if there is none).
func ReadDataset(ctx context.Context, db *sql.DB) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT k, v FROM "+datasetTable)
	if err != nil {
		if conn.Number(err) == errNoSuchTable {
			return map[string]string{}, nil
		}
		return nil, err
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, rows.Err()
}

// writeDataset records want, or checks it against what an earlier load (or
// another shard) recorded: a resumed load must make the same rows.
func writeDataset(ctx context.Context, db *sql.DB, want map[string]string, identity []string) error {
	have, err := ReadDataset(ctx, db)
	if err != nil {
		return err
	}
	var diff []string
	for _, k := range identity {
		if v, ok := have[k]; ok && v != want[k] {
			diff = append(diff, fmt.Sprintf("%s=%s (now %s)", k, v, want[k]))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("the dataset in this database was made with %s: use the same options to resume, or run cleanup", strings.Join(diff, ", "))
	}
	for k, v := range want {
		if _, err := db.ExecContext(ctx, "INSERT INTO "+datasetTable+" (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)", k, v); err != nil {
			return err
		}
	}
	return nil
}

// doneUnits returns, per table, the units already loaded.
func doneUnits(ctx context.Context, db *sql.DB) (map[string]map[int64]int64, error) {
	rows, err := db.QueryContext(ctx, "SELECT tbl, unit, `rows` FROM "+progressTable)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]map[int64]int64{}
	for rows.Next() {
		var t string
		var u, n int64
		if err := rows.Scan(&t, &u, &n); err != nil {
			return nil, err
		}
		if m[t] == nil {
			m[t] = map[int64]int64{}
		}
		m[t][u] = n
	}
	return m, rows.Err()
}

func existingIndexes(ctx context.Context, db *sql.DB, schema, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = ? AND table_name = ?", schema, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		m[strings.ToLower(n)] = true
	}
	// Foreign keys are constraints, not always indexes by name.
	fk, err := db.QueryContext(ctx, "SELECT constraint_name FROM information_schema.table_constraints WHERE table_schema = ? AND table_name = ? AND constraint_type = 'FOREIGN KEY'", schema, table)
	if err == nil {
		for fk.Next() {
			var n string
			fk.Scan(&n)
			m[strings.ToLower(n)] = true
		}
		fk.Close()
	}
	return m, rows.Err()
}
