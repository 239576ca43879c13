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

func ensureRecordTables(ctx context.Context, db *sql.DB) error {
	for _, q := range []string{
		"CREATE TABLE IF NOT EXISTS " + datasetTable + " (k VARCHAR(64) NOT NULL PRIMARY KEY, v TEXT NOT NULL)",
		"CREATE TABLE IF NOT EXISTS " + progressTable + " (tbl VARCHAR(64) NOT NULL, unit BIGINT NOT NULL, `rows` BIGINT NOT NULL, PRIMARY KEY (tbl, unit))",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("creating %s: %w", strings.Fields(q)[5], err)
		}
	}
	return nil
}

// ReadDataset returns the dataset record of the database (empty if there is none).
func ReadDataset(ctx context.Context, db *sql.DB) (map[string]string, error) {
	m := map[string]string{}
	err := conn.QueryStrings(ctx, db, "SELECT k, v FROM "+datasetTable, func(v []sql.NullString) error {
		m[v[0].String] = v[1].String
		return nil
	})
	if conn.Number(err) == conn.ErrNoSuchTable {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// writeDataset records want, or checks it against what an earlier load (or
// another shard) recorded: a resumed load must make the same rows.
func writeDataset(ctx context.Context, db *sql.DB, want map[string]string, identity []string) error {
	have, err := ReadDataset(ctx, db)
	if err != nil {
		return err
	}
	if diff := recordDiff(have, want, identity, false, "now"); diff != "" {
		return fmt.Errorf("the dataset in this database was made with %s: use the same options to resume, or run cleanup", diff)
	}
	for k, v := range want {
		if _, err := db.ExecContext(ctx, "INSERT INTO "+datasetTable+" (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)", k, v); err != nil {
			return err
		}
	}
	return nil
}

// recordDiff lists the keys whose recorded value differs from want's, as
// "k=have (label want)", sorted; a key the record lacks differs only when
// missing counts.
func recordDiff(have, want map[string]string, keys []string, missing bool, label string) string {
	var diff []string
	for _, k := range keys {
		v, ok := have[k]
		if (ok || missing) && v != want[k] {
			diff = append(diff, fmt.Sprintf("%s=%s (%s %s)", k, v, label, want[k]))
		}
	}
	sort.Strings(diff)
	return strings.Join(diff, ", ")
}

// DatasetState is what a database holds of a dataset.
type DatasetState int

const (
	NoDataset     DatasetState = iota // no database, or no record in it
	LoadCut                           // a load started and did not finish: --resume finishes it
	DatasetLoaded                     // complete, made with the dataset's options
)

// CheckDataset says what the database co.DB holds of ds, with the record
// found; a complete dataset made with other options is an error that names
// each difference, "table_size=500 (the plan: 600)" when whose is "the plan".
func CheckDataset(ctx context.Context, co conn.Options, ds Dataset, whose string) (DatasetState, map[string]string, error) {
	pool, err := conn.Open(co, 1)
	if err != nil {
		return NoDataset, nil, err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		if conn.Number(err) == conn.ErrBadDB { // prepare creates it
			return NoDataset, nil, nil
		}
		return NoDataset, nil, err
	}
	have, err := ReadDataset(ctx, pool.DB(0))
	if err != nil {
		return NoDataset, nil, fmt.Errorf("reading the dataset record: %w", err)
	}
	switch {
	case len(have) == 0:
		return NoDataset, have, nil
	case have["state"] != "complete":
		return LoadCut, have, nil
	}
	want := map[string]string{"workload": ds.Workload}
	keys := []string{"workload"}
	for k, v := range ds.Meta {
		want[k] = v
		keys = append(keys, k)
	}
	if diff := recordDiff(have, want, keys, true, whose+":"); diff != "" {
		return DatasetLoaded, have, fmt.Errorf("the dataset in %s is not %s's: %s; run cleanup, or point %s at another database", co.DB, whose, diff, whose)
	}
	return DatasetLoaded, have, nil
}

// Drop drops the dataset's tables and the loader's record tables from
// co.DB, in any order (tables may reference each other); dropping is told
// each name first.
func Drop(ctx context.Context, co conn.Options, ds Dataset, dropping func(table string)) error {
	pool, err := conn.Open(co, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	c, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET foreign_key_checks = 0"); err != nil {
		return err
	}
	for _, v := range ds.Views {
		if dropping != nil {
			dropping(v.Name)
		}
		if _, err := c.ExecContext(ctx, "DROP VIEW IF EXISTS "+quoteIdent(v.Name)); err != nil {
			return fmt.Errorf("dropping view %s: %w", v.Name, err)
		}
	}
	var names []string
	for _, t := range ds.Tables {
		names = append(names, t.Name)
	}
	for _, n := range append(names, datasetTable, progressTable) {
		if dropping != nil {
			dropping(n)
		}
		if _, err := c.ExecContext(ctx, "DROP TABLE IF EXISTS "+quoteIdent(n)); err != nil {
			return fmt.Errorf("dropping %s: %w", n, err)
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
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Foreign keys are constraints, not always indexes by name.
	err = conn.QueryStrings(ctx, db, "SELECT constraint_name FROM information_schema.table_constraints WHERE table_schema = ? AND table_name = ? AND constraint_type = 'FOREIGN KEY'",
		func(v []sql.NullString) error {
			m[strings.ToLower(v[0].String)] = true
			return nil
		}, schema, table)
	return m, err
}

// AfterOwnCleanup is what follows a workload's own cleanup command: a
// dataset the workload makes itself (no tables of the loader's) may have a
// record a plan's prepare wrote, and it goes too, when the command reached
// the server (one that sent no SQL needs no server). Datasets with tables
// are the loader's to drop (Drop).
func AfterOwnCleanup(ctx context.Context, co conn.Options, ds Dataset, connected bool) error {
	if len(ds.Tables) > 0 || !connected {
		return nil
	}
	return Drop(ctx, co, ds, nil)
}
