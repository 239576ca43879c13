package sysbench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Check verifies before a run that the tables exist and hold the rows the
// options promise, naming what is missing.
func (t *Test) Check(ctx context.Context, db *sql.DB, schema string, o *Options) error {
	rows, err := db.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = ?", schema)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		have[strings.ToLower(n)] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var missing []string
	for _, n := range t.TableNames(o) {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("table(s) %s missing in database %q: run prepare first (same --tables and --table-size)", strings.Join(missing, ", "), schema)
	}
	if !t.ExpectsRows(o) || o.TableSize == 0 {
		return nil
	}
	for _, n := range t.TableNames(o) {
		var maxID sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT MAX(id) FROM "+n).Scan(&maxID); err != nil {
			return err
		}
		if maxID.Int64 < o.TableSize*9/10 {
			// oltp_delete and the delete/insert steps move rows around; a
			// shortfall beyond that means a smaller dataset.
			return fmt.Errorf("table %s holds ids up to %d, fewer than --table-size=%d: prepare with this --table-size, or run with the size that was prepared", n, maxID.Int64, o.TableSize)
		}
	}
	return nil
}
