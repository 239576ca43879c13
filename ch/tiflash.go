package ch

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
)

// tiflashSQL are the statements that give every table n TiFlash replicas.
func tiflashSQL(ds dataset.Dataset, n int) []string {
	var out []string
	for _, t := range ds.Tables {
		out = append(out, fmt.Sprintf("ALTER TABLE `%s` SET TIFLASH REPLICA %d", t.Name, n))
	}
	return out
}

// tiflashPending counts the dataset's tables whose replicas are not
// available yet.
const tiflashPending = "SELECT COUNT(*), COALESCE(MIN(PROGRESS), 1) FROM information_schema.tiflash_replica WHERE TABLE_SCHEMA = DATABASE() AND AVAILABLE = 0"

// setTiFlashReplicas sets the replicas (TiDB only) and waits until TiFlash
// has them all, printing the progress every 10 s.
func setTiFlashReplicas(ctx context.Context, db *sql.DB, ds dataset.Dataset, n int, out io.Writer) error {
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return err
	}
	if !conn.IsTiDB(version) {
		return fmt.Errorf("--tiflash-replica is TiDB's, and the server is %s: leave it out", version)
	}
	for _, q := range tiflashSQL(ds, n) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	fmt.Fprintf(out, "Waiting for %d TiFlash replica(s) of %d tables...\n", n, len(ds.Tables))
	start, last := time.Now(), time.Now()
	for {
		var pending int
		var progress float64
		if err := db.QueryRowContext(ctx, tiflashPending).Scan(&pending, &progress); err != nil {
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
