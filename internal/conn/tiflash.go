package conn

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"time"
)

// TiFlashPending counts the database's tables whose TiFlash replicas are
// not available yet.
const TiFlashPending = "SELECT COUNT(*), COALESCE(MIN(PROGRESS), 1) FROM information_schema.tiflash_replica WHERE TABLE_SCHEMA = DATABASE() AND AVAILABLE = 0"

// TiFlashSQL are the statements that give each table n TiFlash replicas.
func TiFlashSQL(tables []string, n int) []string {
	var out []string
	for _, t := range tables {
		out = append(out, fmt.Sprintf("ALTER TABLE `%s` SET TIFLASH REPLICA %d", t, n))
	}
	return out
}

// SetTiFlashReplicas sets n replicas of the tables (TiDB only) and waits
// until TiFlash has them all, printing the progress every 10 s; ctx bounds
// the wait.
func SetTiFlashReplicas(ctx context.Context, db *sql.DB, tables []string, n int, out io.Writer) error {
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return err
	}
	if !IsTiDB(version) {
		return fmt.Errorf("--tiflash-replica is TiDB's, and the server is %s: leave it out", version)
	}
	for _, q := range TiFlashSQL(tables, n) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	fmt.Fprintf(out, "Waiting for %d TiFlash replica(s) of %d tables...\n", n, len(tables))
	start, last := time.Now(), time.Now()
	for {
		var pending int
		var progress float64
		if err := db.QueryRowContext(ctx, TiFlashPending).Scan(&pending, &progress); err != nil {
			return err
		}
		if pending == 0 {
			fmt.Fprintf(out, "TiFlash replicas available after %.0fs\n", time.Since(start).Seconds())
			return nil
		}
		if time.Since(last) >= 10*time.Second {
			fmt.Fprintf(out, "  %d table(s) not available yet (least progress %.0f%%)\n", pending, progress*100)
			last = time.Now()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
