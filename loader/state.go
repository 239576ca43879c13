package loader

import (
	"context"
	"database/sql"
	"strconv"

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

// CountRun adds a measured run and its events to the dataset's record:
// how much the dataset has been run on since its load. A database without
// a record is left as it is.
func CountRun(ctx context.Context, db *sql.DB, events int64) {
	for k, n := range map[string]int64{"runs_since_load": 1, "events_since_load": events} {
		db.ExecContext(ctx, "INSERT INTO "+datasetTable+" (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = CAST(CAST(v AS UNSIGNED) + ? AS CHAR)",
			k, strconv.FormatInt(n, 10), n)
	}
}
