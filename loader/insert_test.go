package loader

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// testPool opens the test server (scripts/test.sh starts it) with a fresh
// database, or skips outside make test.
func testPool(t *testing.T, db string) *conn.Pool {
	t.Helper()
	host, port := os.Getenv("OLTPBENCH_TEST_HOST"), os.Getenv("OLTPBENCH_TEST_PORT")
	if port == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("OLTPBENCH_TEST_PORT not set: run through make test")
		}
		t.Skip("no test server: run make test")
	}
	p, _ := strconv.Atoi(port)
	co := conn.Options{Hosts: []string{host}, Ports: []int{p}, User: "root"}
	admin, err := conn.Open(co, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{"DROP DATABASE IF EXISTS " + db, "CREATE DATABASE " + db} {
		if _, err := admin.DB(0).ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		admin.DB(0).ExecContext(ctx, "DROP DATABASE IF EXISTS "+db)
		admin.Close()
	})
	co.DB = db
	pool, err := conn.Open(co, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

// numbered writes rows id = first+1 ... with a text column long enough that
// a small statement limit splits a chunk into many statements.
var numbered = &dataset.Table{Name: "t", Columns: []string{"id", "v"},
	Gen: func(r *random.Rand, first, n int64, w dataset.RowWriter) error {
		for row := first; row < first+n; row++ {
			w.Int(row + 1)
			w.Str(fmt.Sprintf("row %d, 'quoted'", row+1))
			if err := w.EndRow(); err != nil {
				return err
			}
		}
		return nil
	}}

func TestInsertRowsPipelined(t *testing.T) {
	pool := testPool(t, "oltpbench_insert_rows")
	ctx := context.Background()
	db := pool.DB(0)
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(64) NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	insert := func(first, n int64) (int64, int64, error) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		l, err := insertRows(ctx, tx, numbered, random.NewRand(1), first, n, "INSERT INTO t (id, v) VALUES ", 200)
		rows, sent := l.Rows, l.Bytes
		if err == nil {
			err = tx.Commit()
		}
		return rows, sent, err
	}
	rows, sent, err := insert(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var count, sum int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(id) FROM t WHERE v = CONCAT('row ', id, ', ''quoted''')").Scan(&count, &sum); err != nil {
		t.Fatal(err)
	}
	if rows != 1000 || count != 1000 || sum != 1000*1001/2 {
		t.Fatalf("reported %d rows; table has %d intact rows with id sum %d, want 1000 and %d", rows, count, sum, 1000*1001/2)
	}
	if sent < 1000*int64(len("(1,'row 1, \\'quoted\\'')")) {
		t.Errorf("reported %d bytes sent, fewer than the rows hold", sent)
	}

	// A statement failing midway (a duplicate key several statements in)
	// ends the generator and returns the server's error, nothing committed.
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (1050, 'in the way')"); err != nil {
		t.Fatal(err)
	}
	_, _, err = insert(1000, 100)
	if err == nil || !strings.Contains(err.Error(), "1062") {
		t.Fatalf("insert over existing ids: err = %v, want a duplicate key error (1062)", err)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM t WHERE id = 1050"); err != nil {
		t.Fatal(err)
	}
	_, _, err = insert(1000, 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != 1020 {
		t.Fatalf("%d rows after the failed and the good insert, want 1020", count)
	}
}

// A cancelled context stops both the statements and the generator.
func TestInsertRowsCancelled(t *testing.T) {
	pool := testPool(t, "oltpbench_insert_cancel")
	db := pool.DB(0)
	if _, err := db.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(64) NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	cancel()
	if _, err := insertRows(ctx, tx, numbered, random.NewRand(1), 0, 100000, "INSERT INTO t (id, v) VALUES ", 200); err == nil {
		t.Fatal("insert with a cancelled context succeeded")
	}
	var n int
	if err := db.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM t").Scan(&n); err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d rows visible after a cancelled insert", n)
	}
}
