package loader

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/oltpbench/oltpbench/internal/conn"
)

// EnsureDataset makes co.DB hold ds for whose (a plan) and says on out what
// it found: a complete record that matches is verified; no dataset is
// prepared; a load that was cut is resumed.
//
// prepare runs the workload's prepare through the loader (resume: finish a
// cut load). A dataset with no tables is made by its workload's own prepare
// command instead, run by command (a sysbench Lua script makes its tables
// itself); the loader cannot resume or verify rows it did not write, so
// such a prepare is recorded around it, "preparing" before and "complete"
// after, and a prepare found cut is cleaned up and run again.
func EnsureDataset(ctx context.Context, co conn.Options, ds Dataset, whose string, out io.Writer, prepare func(resume bool) error, command func(string) error) error {
	state, have, err := CheckDataset(ctx, co, ds, whose)
	if err != nil {
		return err
	}
	switch {
	case state == NoDataset && have == nil:
		fmt.Fprintf(out, "Dataset: no database %s yet: preparing it\n", co.DB)
	case state == NoDataset:
		fmt.Fprintf(out, "Dataset: %s holds none: preparing it\n", co.DB)
	case state == LoadCut && len(ds.Tables) == 0:
		fmt.Fprintf(out, "Dataset: its prepare into %s was cut: running cleanup, then prepare again\n", co.DB)
	case state == LoadCut:
		fmt.Fprintf(out, "Dataset: a load into %s was interrupted: resuming it\n", co.DB)
		return prepare(true)
	case len(ds.Tables) == 0:
		fmt.Fprintf(out, "Dataset: verified against its record in %s (made by the prepare of %s)\n", co.DB, ds.Workload)
		return nil
	default:
		fmt.Fprintf(out, "Dataset: verified against its record in %s (%s rows)\n", co.DB, have["load_rows"])
		return nil
	}
	if len(ds.Tables) > 0 {
		return prepare(false)
	}
	return prepareOwn(ctx, co, ds, state, command)
}

// prepareOwn runs a workload's own prepare, recorded around it.
func prepareOwn(ctx context.Context, co conn.Options, ds Dataset, state DatasetState, command func(string) error) error {
	pool, err := conn.Open(co, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	db := pool.DB(0)
	if state == LoadCut {
		if err := command("cleanup"); err != nil {
			return err
		}
	} else if tables, err := schemaTables(ctx, db, co.DB); err != nil {
		return err
	} else if len(tables) > 0 {
		return fmt.Errorf("%s holds tables that no prepare of the plan recorded (%s): run cleanup, or point the plan at another database", co.DB, strings.Join(tables, ", "))
	}
	if err := recordOwn(ctx, db, ds, "preparing"); err != nil {
		return err
	}
	if err := command("prepare"); err != nil {
		return err
	}
	return recordOwn(ctx, db, ds, "complete")
}

// recordOwn replaces the database's dataset record by ds's, in state.
func recordOwn(ctx context.Context, db *sql.DB, ds Dataset, state string) error {
	if err := ensureRecordTables(ctx, db); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM "+datasetTable); err != nil {
		return err
	}
	rec := map[string]string{"workload": ds.Workload, "state": state}
	for k, v := range ds.Meta {
		rec[k] = v
	}
	for k, v := range rec {
		if _, err := db.ExecContext(ctx, "INSERT INTO "+datasetTable+" (k, v) VALUES (?, ?)", k, v); err != nil {
			return err
		}
	}
	return nil
}

// schemaTables are the tables of schema, the loader's record tables left
// out, sorted.
func schemaTables(ctx context.Context, db *sql.DB, schema string) ([]string, error) {
	var names []string
	err := conn.QueryStrings(ctx, db, "SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'", func(v []sql.NullString) error {
		if n := v[0].String; n != datasetTable && n != progressTable {
			names = append(names, n)
		}
		return nil
	}, schema)
	sort.Strings(names)
	return names, err
}
