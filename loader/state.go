package loader

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/result"
)

// State is the size of each of the dataset's tables now: the server's
// estimates (information_schema), replaced by exact counts where exact
// gives them (a workload's cheap exact counts: TPC-C's from its district
// counters).
func State(ctx context.Context, db *sql.DB, ds Dataset, exact map[string]int64) ([]result.TableState, error) {
	rows, err := db.QueryContext(ctx, "SELECT TABLE_NAME, COALESCE(TABLE_ROWS, 0), COALESCE(DATA_LENGTH, 0), COALESCE(INDEX_LENGTH, 0) "+
		"FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]result.TableState{}
	for rows.Next() {
		var t result.TableState
		if err := rows.Scan(&t.Name, &t.Rows, &t.DataBytes, &t.IndexBytes); err != nil {
			return nil, err
		}
		have[t.Name] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []result.TableState
	for _, tb := range ds.Tables {
		t, ok := have[tb.Name]
		if !ok {
			continue
		}
		if n, ok := exact[tb.Name]; ok {
			t.Rows, t.Exact = n, true
		}
		out = append(out, t)
	}
	return out, nil
}

// RunKeys are the record's keys that runs write (how much the dataset was
// run on, when it was last ANALYZEd), not the load: they say nothing of what
// the dataset was made with.
var RunKeys = map[string]bool{"runs_since_load": true, "events_since_load": true, "analyzed": true}

// CountRun adds a run to the dataset's record as the run starts, so that
// a run killed before its end still counts: a dataset it may have changed
// is never taken for one as loaded (Fresh). A database without a record is
// left as it is.
func CountRun(ctx context.Context, db *sql.DB) { addToRecord(ctx, db, "runs_since_load", 1) }

// CountEvents adds a finished run's events to the dataset's record.
func CountEvents(ctx context.Context, db *sql.DB, events int64) {
	addToRecord(ctx, db, "events_since_load", events)
}

func addToRecord(ctx context.Context, db *sql.DB, k string, n int64) {
	db.ExecContext(ctx, "INSERT INTO "+datasetTable+" (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = CAST(CAST(v AS UNSIGNED) + ? AS CHAR)",
		k, strconv.FormatInt(n, 10), n)
}

// Fresh says whether co.DB holds ds as its load left it, or why not: a
// complete record of ds's options (and seed, when given), no run since the
// load, and every table whose rows exact counts (the workload's cheap ones)
// holding as many as the generator makes. It returns what it checked, for
// the log. A dataset of no tables (a script's own) is checked by its record
// alone.
func Fresh(ctx context.Context, co conn.Options, ds Dataset, whose, seed string, exact func(context.Context, *sql.DB) map[string]int64) (string, error) {
	state, have, err := CheckDataset(ctx, co, ds, whose)
	switch {
	case err != nil:
		return "", err
	case state == NoDataset:
		return "", fmt.Errorf("%s holds no dataset", co.DB)
	case state == LoadCut:
		return "", fmt.Errorf("the load into %s is not complete (its record says %q)", co.DB, have["state"])
	case seed != "" && len(ds.Tables) > 0 && have["seed"] != seed:
		return "", fmt.Errorf("the dataset in %s was made with seed %s, not %s", co.DB, have["seed"], seed)
	case have["runs_since_load"] != "" && have["runs_since_load"] != "0":
		return "", fmt.Errorf("the dataset in %s was run on since its load (runs_since_load = %s in its record)", co.DB, have["runs_since_load"])
	}
	if len(ds.Tables) == 0 || exact == nil {
		return "record complete, no run since its load", nil
	}
	pool, err := conn.Open(co, 1)
	if err != nil {
		return "", err
	}
	defer pool.Close()
	counts := exact(ctx, pool.DB(0))
	var checked []string
	for _, t := range ds.Tables {
		n, ok := counts[t.Name]
		if !ok || t.RowsPerIndex != 0 { // no exact count, or the generator's is an average
			continue
		}
		if n != t.Rows {
			return "", fmt.Errorf("%s holds %d rows, and its load makes %d", t.Name, n, t.Rows)
		}
		checked = append(checked, fmt.Sprintf("%s %d", t.Name, n))
	}
	if len(checked) == 0 {
		return "record complete, no run since its load", nil
	}
	return "record complete, no run since its load, exact rows as loaded: " + strings.Join(checked, ", "), nil
}
