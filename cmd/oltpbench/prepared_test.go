package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// prepared gives db on the test server the dataset that the prepare
// command args makes (e.g. "tpcc", "prepare", "--warehouses=1"), for the
// tests whose subject is what they do on a loaded dataset, not the load.
// Under make test (OLTPBENCH_TEST_FIXTURES set: a folder of the run's,
// shared by every server it starts, all of one MariaDB build) the first
// test to ask loads it once, into a database of its own, and keeps its
// tables' files (InnoDB's transportable tablespaces: FLUSH TABLES ... FOR
// EXPORT); each test then gets a copy by importing them (ALTER TABLE ...
// IMPORT TABLESPACE), then analyzes them: about 0.4 server CPU-seconds
// where a 1-warehouse TPC-C load takes 5 to 7. Without the folder the
// command runs into db.
func prepared(t *testing.T, db string, args ...string) {
	t.Helper()
	preparedOn(t, []string{"--mysql-host=" + testHost, "--mysql-port=" + testPort, "--mysql-user=root"}, db, args...)
}

// preparedOn is prepared on the server of the connection options server
// (--mysql-host, --mysql-port, --mysql-user; its files must be this
// machine's). Under make test db is made anew; without the
// fixtures folder the command runs into db as it is.
func preparedOn(t *testing.T, server []string, db string, args ...string) {
	t.Helper()
	fixtures := os.Getenv("OLTPBENCH_TEST_FIXTURES")
	if fixtures == "" {
		prepareCommand(t, server, db, args)
		return
	}
	sum := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	files := filepath.Join(fixtures, hex.EncodeToString(sum[:8]))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := serverDB(t, server)
	func() {
		unlock := lockFile(t, ctx, files+".lock")
		defer unlock()
		if _, err := os.Stat(filepath.Join(files, "tables.json")); err == nil {
			return
		}
		exportDataset(t, ctx, d, server, files, args)
	}()
	if err := importDataset(ctx, d, db, files); err != nil {
		t.Fatalf("%s: copying the dataset into %s: %v", strings.Join(args, " "), db, err)
	}
}

// A table of a kept dataset: its definition, and its files in the folder
// (none for a view). InnoDB numbers the rows of a table without a primary
// key from one counter of the server's, which an import does not move on,
// so that rows inserted after it would take the numbers of imported ones
// ("Index history is corrupted"): such a table's files are imported into
// a table beside it, whose rows are then inserted.
type keptTable struct {
	Name, DDL string
	View      bool
	NoKey     bool
}

// exportDataset loads the dataset into a database of the fixture's own and
// keeps its tables' definitions and files in dir.
func exportDataset(t *testing.T, ctx context.Context, d *sql.DB, server []string, dir string, args []string) {
	t.Helper()
	src := "fixture_" + filepath.Base(dir)
	if _, err := d.ExecContext(ctx, "DROP DATABASE IF EXISTS "+src); err != nil {
		t.Fatal(err)
	}
	defer d.ExecContext(ctx, "DROP DATABASE IF EXISTS "+src)
	prepareCommand(t, server, src, args)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := keepDataset(ctx, d, src, dir); err != nil {
		t.Fatalf("%s: keeping the dataset's files: %v", strings.Join(args, " "), err)
	}
}

// prepareCommand runs the prepare command args into db.
func prepareCommand(t *testing.T, server []string, db string, args []string) {
	t.Helper()
	mustOK(t, ob(t, nil, append(append(append([]string(nil), args...), server...), "--mysql-db="+db, "--progress=off")...), strings.Join(args, " "))
}

func keepDataset(ctx context.Context, d *sql.DB, src, dir string) error {
	c, datadir, err := dataConn(ctx, d)
	if err != nil {
		return err
	}
	defer c.Close()
	tables, views, err := listTables(ctx, c, src)
	if err != nil {
		return err
	}
	names := make([]string, len(tables))
	for i := range tables {
		var name string
		if err := c.QueryRowContext(ctx, "SHOW CREATE TABLE "+src+"."+tables[i].Name).Scan(&name, &tables[i].DDL); err != nil {
			return err
		}
		names[i] = src + "." + tables[i].Name
	}
	// A view's definition names its tables with their database's name.
	for i := range views {
		var def string
		if err := c.QueryRowContext(ctx, "SELECT view_definition FROM information_schema.views WHERE table_schema = ? AND table_name = ?", src, views[i].Name).Scan(&def); err != nil {
			return err
		}
		views[i].DDL = "CREATE VIEW `" + views[i].Name + "` AS " + strings.ReplaceAll(def, "`"+src+"`.", "")
	}
	// The files are consistent while this connection holds the tables
	// flushed for export; UNLOCK TABLES ends it.
	if _, err := c.ExecContext(ctx, "FLUSH TABLES "+strings.Join(names, ", ")+" FOR EXPORT"); err != nil {
		return err
	}
	defer c.ExecContext(ctx, "UNLOCK TABLES")
	for _, tb := range tables {
		for _, ext := range []string{".ibd", ".cfg"} {
			if err := copyFile(filepath.Join(datadir, src, tb.Name+ext), filepath.Join(dir, tb.Name+ext)); err != nil {
				return err
			}
		}
	}
	b, err := json.Marshal(append(tables, views...)) // the views after their tables
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tables.json"), b, 0o644) // written last: the folder is whole
}

// listTables is src's tables and views, refusing what cannot be copied.
func listTables(ctx context.Context, c *sql.Conn, src string) (tables, views []keptTable, err error) {
	rows, err := c.QueryContext(ctx, `SELECT t.table_name, t.table_type, t.engine, t.create_options, k.constraint_name IS NULL
		FROM information_schema.tables t LEFT JOIN information_schema.table_constraints k
		ON k.table_schema = t.table_schema AND k.table_name = t.table_name AND k.constraint_type = 'PRIMARY KEY'
		WHERE t.table_schema = ? ORDER BY t.table_name`, src)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var name, kind string
		var engine, options sql.NullString
		var noKey bool
		if err := rows.Scan(&name, &kind, &engine, &options, &noKey); err != nil {
			rows.Close()
			return nil, nil, err
		}
		if kind == "VIEW" {
			views = append(views, keptTable{Name: name, View: true})
			continue
		}
		if kind != "BASE TABLE" || engine.String != "InnoDB" || strings.Contains(options.String, "partitioned") {
			rows.Close()
			return nil, nil, fmt.Errorf("%s is a %s (%s, %s): only InnoDB tables without partitions and views are copied", name, kind, engine.String, options.String)
		}
		tables = append(tables, keptTable{Name: name, NoKey: noKey})
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, nil, err
	}
	if len(tables) == 0 {
		return nil, nil, fmt.Errorf("the command made no tables in %s", src)
	}
	return tables, views, nil
}

// importDataset makes db anew from the kept files in dir.
func importDataset(ctx context.Context, d *sql.DB, db, dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "tables.json"))
	if err != nil {
		return err
	}
	var tables []keptTable
	if err := json.Unmarshal(b, &tables); err != nil {
		return err
	}
	c, datadir, err := dataConn(ctx, d)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, q := range []string{"DROP DATABASE IF EXISTS " + db, "CREATE DATABASE " + db, "USE " + db, "SET SESSION foreign_key_checks = 0"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for _, tb := range tables {
		if _, err := c.ExecContext(ctx, tb.DDL); err != nil {
			return err
		}
		if tb.View {
			continue
		}
		into := tb.Name
		if tb.NoKey {
			into = tb.Name + "_imported"
			if _, err := c.ExecContext(ctx, "CREATE TABLE `"+into+"` LIKE `"+tb.Name+"`"); err != nil {
				return err
			}
		}
		if err := importFiles(ctx, c, filepath.Join(dir, tb.Name), filepath.Join(datadir, db), into); err != nil {
			return fmt.Errorf("importing %s: %w", tb.Name, err)
		}
		if tb.NoKey {
			for _, q := range []string{"INSERT INTO `" + tb.Name + "` SELECT * FROM `" + into + "`", "DROP TABLE `" + into + "`"} {
				if _, err := c.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("copying %s's rows: %w", tb.Name, err)
				}
			}
		}
		// The statistics an import leaves in the server's memory misled its
		// optimizer (CH's q7 joined every order line of a district to each
		// customer: minutes, not a second); as the load does, ANALYZE TABLE.
		if err := drainQuery(ctx, c, "ANALYZE TABLE `"+tb.Name+"`"); err != nil {
			return fmt.Errorf("analyzing %s: %w", tb.Name, err)
		}
	}
	return nil
}

// drainQuery runs q and reads its rows to the end.
func drainQuery(ctx context.Context, c *sql.Conn, q string) error {
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	return errors.Join(rows.Err(), rows.Close())
}

// importFiles makes the table into (in the folder folder) hold the table
// whose files are from.ibd and from.cfg.
func importFiles(ctx context.Context, c *sql.Conn, from, folder, into string) error {
	if _, err := c.ExecContext(ctx, "ALTER TABLE `"+into+"` DISCARD TABLESPACE"); err != nil {
		return err
	}
	for _, ext := range []string{".ibd", ".cfg"} {
		if err := copyFile(from+ext, filepath.Join(folder, into+ext)); err != nil {
			return err
		}
	}
	if _, err := c.ExecContext(ctx, "ALTER TABLE `"+into+"` IMPORT TABLESPACE"); err != nil {
		return err
	}
	return os.Remove(filepath.Join(folder, into+".cfg")) // read by the import, not needed after it
}

// dataConn is a connection of d, and the folder of its server's data.
func dataConn(ctx context.Context, d *sql.DB) (*sql.Conn, string, error) {
	c, err := d.Conn(ctx)
	if err != nil {
		return nil, "", err
	}
	var datadir string
	if err := c.QueryRowContext(ctx, "SELECT @@datadir").Scan(&datadir); err != nil {
		c.Close()
		return nil, "", err
	}
	return c, datadir, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o660)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// serverDB opens the server of the connection options server, no database.
func serverDB(t *testing.T, server []string) *sql.DB {
	t.Helper()
	host, port, user := "127.0.0.1", "3306", ""
	for _, a := range server {
		switch k, v, _ := strings.Cut(a, "="); k {
		case "--mysql-host":
			host = v
		case "--mysql-port":
			port = v
		case "--mysql-user":
			user = v
		}
	}
	return openAt(t, host+":"+port, user, "")
}

// lockFile takes an exclusive lock on path, waiting until ctx ends; the
// lock goes with the process, should it die holding it.
func lockFile(t *testing.T, ctx context.Context, path string) (unlock func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			t.Fatalf("locking %s: %v", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			t.Fatalf("locking %s: another test held it past the deadline", path)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestPreparedCopy: a dataset copied by prepared is the one its command
// loads: the same tables, definitions and rows (CHECKSUM TABLE), the same
// dataset record but for the load's timings. The copy is made on a new
// server, whose counter of the rows of tables without a primary key
// (history) starts below the copied rows' numbers: a run's inserts there
// leave the table sound, and TPC-C's checks pass after the run.
func TestPreparedCopy(t *testing.T) {
	needServer(t)
	scripts := os.Getenv("OLTPBENCH_TEST_SCRIPTS")
	if os.Getenv("OLTPBENCH_TEST_FIXTURES") == "" || scripts == "" {
		t.Skip("copies only under make test (OLTPBENCH_TEST_FIXTURES, OLTPBENCH_TEST_SCRIPTS)")
	}
	freshDB(t, "fx_load")
	freshDB(t, "fx_kept")
	mustOK(t, tp(t, "fx_load", "prepare", "--warehouses=1"), "prepare")
	prepared(t, "fx_kept", "tpcc", "prepare", "--warehouses=1") // kept from this server, if no test has yet
	srv := t.TempDir()
	if o, err := exec.Command(filepath.Join(scripts, "mariadb-start.sh"), srv).CombinedOutput(); err != nil {
		t.Fatalf("starting a new server: %v %s", err, o)
	}
	t.Cleanup(func() { stopServer(t, srv, true) })
	port, err := os.ReadFile(filepath.Join(srv, "port"))
	if err != nil {
		t.Fatal(err)
	}
	server := []string{"--mysql-host=127.0.0.1", "--mysql-port=" + strings.TrimSpace(string(port)), "--mysql-user=root"}
	preparedOn(t, server, "fx_copy", "tpcc", "prepare", "--warehouses=1")
	d, copies := openDB(t, ""), serverDB(t, server)
	tables := func(d *sql.DB, db string) map[string]string {
		m := map[string]string{}
		rows, err := d.Query("SELECT table_name FROM information_schema.tables WHERE table_schema = ?", db)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var name, ddl string
			rows.Scan(&name)
			if err := d.QueryRow("SHOW CREATE TABLE "+db+"."+name).Scan(&name, &ddl); err != nil {
				t.Fatal(err)
			}
			var sum sql.NullInt64
			if err := d.QueryRow("CHECKSUM TABLE "+db+"."+name).Scan(&name, &sum); err != nil {
				t.Fatal(err)
			}
			m[strings.TrimPrefix(name, db+".")] = fmt.Sprintf("%s\n%d", ddl, sum.Int64)
		}
		return m
	}
	load, copied := tables(d, "fx_load"), tables(copies, "fx_copy")
	if len(load) < 9 {
		t.Fatalf("the load made %d tables", len(load))
	}
	for name, want := range load {
		if name == "oltpbench_dataset" {
			continue
		}
		if copied[name] != want {
			t.Errorf("%s: copied\n%s\nloaded\n%s", name, copied[name], want)
		}
	}
	if len(copied) != len(load) {
		t.Errorf("copied %d tables, loaded %d", len(copied), len(load))
	}
	record := func(d *sql.DB, db string) string {
		var s string
		d.QueryRow("SELECT GROUP_CONCAT(k, '=', v ORDER BY k) FROM " + db + ".oltpbench_dataset WHERE k NOT LIKE 'load\\_%' AND k <> 'analyzed'").Scan(&s)
		return s
	}
	if a, b := record(d, "fx_load"), record(copies, "fx_copy"); a != b || !strings.Contains(a, "state=complete") {
		t.Errorf("dataset records: loaded %q, copied %q", a, b)
	}
	// The server's statistics of the copy are an analyzed table's: joined
	// by district, order_line is reckoned thousands of rows a customer
	// (after the import alone, one: CH's q7 then ran for minutes).
	plan := mariaRows(t, copies, "EXPLAIN SELECT COUNT(*) FROM fx_copy.customer JOIN fx_copy.order_line ON ol_w_id = c_w_id AND ol_d_id = c_d_id")
	if i := slices.IndexFunc(plan, func(r []string) bool { return r[2] == "order_line" }); i < 0 {
		t.Errorf("no order_line in the plan: %q", plan)
	} else if n, _ := strconv.Atoi(plan[i][8]); n < 1000 { // EXPLAIN's columns: id, select_type, table, ..., rows (9th)
		t.Errorf("the optimizer reckons %d order lines a district in the copy, want thousands", n)
	}
	tpcc := func(args ...string) res {
		return ob(t, nil, append(append([]string{"tpcc"}, args...), append([]string{"--warehouses=1", "--db=fx_copy", "--progress=off"}, server...)...)...)
	}
	mustOK(t, tpcc("run", "--threads=2", "--txns-per-terminal=200"), "run")
	checksPass(t, tpcc("check"), 11)
	var table, op, kind, text string
	if err := copies.QueryRow("CHECK TABLE fx_copy.history").Scan(&table, &op, &kind, &text); err != nil || text != "OK" {
		t.Errorf("CHECK TABLE history after the run: %s %s (%v)", kind, text, err)
	}
}
