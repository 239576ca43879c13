// Package loader loads a dataset (tables as DDL plus chunked row sources)
// into a server: create the base tables, load chunks in parallel as
// multi-row INSERTs or streamed LOAD DATA LOCAL, add the secondary indexes
// after the data (or create them first), then ANALYZE.
package loader

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/csvgen"
	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Options shape a load.
type Options struct {
	Mode        string // auto | insert | local
	IndexTiming string // auto | after | before
	Threads     int
	Seed        uint64
	Analyze     bool
	// BatchBytes bounds one INSERT statement (below max_allowed_packet).
	BatchBytes int
	// Log receives progress lines (sysbench-style messages and phase times).
	Log io.Writer
	// Quiet drops sysbench-style per-table messages.
	Quiet bool
}

// Report says what a load did, for the user and for result files.
type Report struct {
	Mode, ModeReason      string
	IndexTiming, IxReason string
	Rows                  int64
	Bytes                 int64
	// Index is the time spent adding indexes, partly overlapping Load.
	Create, Load, Index, Analyze, Total time.Duration
}

// ExistingTablesError names tables that are already there.
type ExistingTablesError struct {
	DB     string
	Tables []string
}

func (e *ExistingTablesError) Error() string {
	return fmt.Sprintf("table(s) %s already exist in database %q: run cleanup first (or drop them)", strings.Join(e.Tables, ", "), e.DB)
}

// Load creates and fills tables in co.DB, creating the database if missing.
func Load(ctx context.Context, co conn.Options, tables []workload.Table, o Options) (*Report, error) {
	if o.Threads < 1 {
		o.Threads = 1
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = 1 << 20
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if err := createDatabase(ctx, co); err != nil {
		return nil, err
	}
	co.AllowLocalInfile = true
	pool, err := conn.Open(co, o.Threads)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	db := pool.DB(0)

	rep := &Report{}
	srv, err := probe(ctx, db)
	if err != nil {
		return nil, err
	}
	rep.Mode, rep.ModeReason, err = chooseMode(o.Mode, srv)
	if err != nil {
		return nil, err
	}
	rep.IndexTiming, rep.IxReason, err = chooseTiming(o.IndexTiming, srv)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Log, "Load mode: %s (%s); indexes: %s (%s)\n", rep.Mode, rep.ModeReason, rep.IndexTiming, rep.IxReason)

	var names []string
	splits := make([]*Split, len(tables))
	for i := range tables {
		names = append(names, tables[i].Name)
		if splits[i], err = SplitDDL(tables[i].DDL); err != nil {
			return nil, fmt.Errorf("table %s: %v", tables[i].Name, err)
		}
	}
	if existing, err := existingTables(ctx, db, co.DB, names); err != nil {
		return nil, err
	} else if len(existing) > 0 {
		return nil, &ExistingTablesError{DB: co.DB, Tables: existing}
	}

	// Create.
	start := time.Now()
	t0 := start
	for i, t := range tables {
		if !o.Quiet {
			fmt.Fprintf(o.Log, "Creating table '%s'...\n", t.Name)
		}
		stmts := []string{splits[i].Create}
		if rep.IndexTiming == "before" {
			stmts = splits[i].Full
		}
		for _, q := range stmts {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return nil, fmt.Errorf("creating table %s: %v", t.Name, err)
			}
		}
	}
	rep.Create = time.Since(t0)

	// Load chunks of all tables at once, interleaved so every table
	// progresses; a table's indexes are added as soon as its last chunk is in,
	// while other tables still load.
	t0 = time.Now()
	type task struct {
		ti    int
		chunk int64
	}
	var tasks []task
	left := make([]atomic.Int64, len(tables))
	for i := range tables {
		t := &tables[i]
		if t.Rows > 0 && !o.Quiet {
			fmt.Fprintf(o.Log, "Inserting %d records into '%s'\n", t.Rows, t.Name)
		}
		left[i].Store(t.Chunks())
		for c := int64(0); c < t.Chunks(); c++ {
			tasks = append(tasks, task{i, c})
		}
	}
	sort.SliceStable(tasks, func(a, b int) bool { return tasks[a].chunk < tasks[b].chunk })
	var rows, nbytes atomic.Int64
	var indexNs atomic.Int64
	after := rep.IndexTiming == "after"
	addIndexes := func(ctx context.Context, i int) error {
		s := splits[i]
		if !after || s.PostLoad == "" {
			return nil
		}
		if !o.Quiet {
			fmt.Fprintf(o.Log, "Creating a secondary index on '%s'...\n", s.Table)
		}
		start := time.Now()
		defer func() { indexNs.Add(int64(time.Since(start))) }()
		if _, err := pool.DB(i).ExecContext(ctx, s.PostLoad); err != nil {
			return fmt.Errorf("adding indexes to %s: %v", s.Table, err)
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Threads)
	var seq atomic.Int64
	for i := range tables {
		if tables[i].Chunks() == 0 {
			g.Go(func() error { return addIndexes(gctx, i) })
		}
	}
	for _, tk := range tasks {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			t := &tables[tk.ti]
			n, b, err := loadChunk(gctx, pool, int(seq.Add(1)), t, tk.chunk, rep.Mode, o)
			rows.Add(n)
			nbytes.Add(b)
			if err != nil {
				return fmt.Errorf("loading %s chunk %d: %w", t.Name, tk.chunk, err)
			}
			if left[tk.ti].Add(-1) == 0 {
				return addIndexes(gctx, tk.ti)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rep.Rows, rep.Bytes = rows.Load(), nbytes.Load()
	rep.Index = time.Duration(indexNs.Load())
	rep.Load = time.Since(t0) - rep.Index

	t0 = time.Now()
	if o.Analyze {
		if err := Analyze(ctx, pool, names, o.Threads); err != nil {
			return nil, err
		}
	}
	rep.Analyze = time.Since(t0)
	rep.Total = time.Since(start)
	return rep, nil
}

// Analyze runs ANALYZE TABLE on every table, in parallel.
func Analyze(ctx context.Context, pool *conn.Pool, names []string, threads int) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(threads, 1))
	for i, n := range names {
		g.Go(func() error {
			rows, err := pool.DB(i).QueryContext(gctx, "ANALYZE TABLE "+quoteIdent(n))
			if err != nil {
				return fmt.Errorf("ANALYZE TABLE %s: %v", n, err)
			}
			for rows.Next() {
			}
			rows.Close()
			return rows.Err()
		})
	}
	return g.Wait()
}

// Summary prints the phase times.
func (r *Report) Summary(w io.Writer) {
	total := r.Total
	rate := 0.0
	if total > 0 {
		rate = float64(r.Rows) / total.Seconds()
	}
	fmt.Fprintf(w, "Loaded %d rows (%.1f MB) in %.2fs: create %.2fs, load %.2fs, index %.2fs, analyze %.2fs; %.0f rows/s\n",
		r.Rows, float64(r.Bytes)/1e6, total.Seconds(), r.Create.Seconds(), r.Load.Seconds(), r.Index.Seconds(), r.Analyze.Seconds(), rate)
}

func createDatabase(ctx context.Context, co conn.Options) error {
	if co.DB == "" {
		return errors.New("no database given: set --mysql-db")
	}
	admin := co
	admin.DB = ""
	pool, err := conn.Open(admin, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	for i := range pool.Endpoints() {
		c, err := pool.ConnAt(ctx, i)
		if err != nil {
			return err
		}
		_, err = c.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(co.DB))
		c.Close()
		if err != nil {
			return fmt.Errorf("creating database %s: %v", co.DB, err)
		}
		break // one server holds the schema; other endpoints are the same cluster
	}
	return nil
}

type server struct {
	version     string
	tidb        bool
	localInfile bool
	fastReorg   bool
}

func probe(ctx context.Context, db *sql.DB) (*server, error) {
	s := &server{}
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.version); err != nil {
		return nil, err
	}
	s.tidb = strings.Contains(strings.ToLower(s.version), "tidb")
	var li sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.local_infile").Scan(&li); err == nil {
		s.localInfile = li.String == "1" || strings.EqualFold(li.String, "ON")
	}
	if s.tidb {
		var fr sql.NullString
		if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL.tidb_ddl_enable_fast_reorg").Scan(&fr); err == nil {
			s.fastReorg = fr.String == "1" || strings.EqualFold(fr.String, "ON")
		}
	}
	return s, nil
}

func chooseMode(mode string, s *server) (string, string, error) {
	switch mode {
	case "", "auto":
		if s.localInfile {
			return "local", "server allows LOAD DATA LOCAL", nil
		}
		return "insert", "server has local_infile off; SET GLOBAL local_infile=1 enables the faster local mode", nil
	case "insert":
		return "insert", "asked for", nil
	case "local":
		if !s.localInfile {
			return "insert", "server has local_infile off, falling back; SET GLOBAL local_infile=1 enables it", nil
		}
		return "local", "asked for", nil
	}
	return "", "", fmt.Errorf("invalid --load-mode=%s: use auto, insert or local", mode)
}

func chooseTiming(t string, s *server) (string, string, error) {
	switch t {
	case "", "auto":
		if s.tidb && !s.fastReorg {
			return "before", "TiDB without fast reorg: ADD INDEX after the load would backfill slowly", nil
		}
		return "after", "compact indexes, faster load", nil
	case "after", "before":
		return t, "asked for", nil
	}
	return "", "", fmt.Errorf("invalid --index-timing=%s: use auto, after or before", t)
}

func existingTables(ctx context.Context, db *sql.DB, schema string, names []string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = ?", schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	want := map[string]bool{}
	for _, n := range names {
		want[strings.ToLower(n)] = true
	}
	var found []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		if want[strings.ToLower(n)] {
			found = append(found, n)
		}
	}
	sort.Strings(found)
	return found, rows.Err()
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// loadChunk generates one chunk and sends it as one transaction (one LOAD
// DATA statement, or the INSERTs of the chunk between BEGIN and COMMIT), so a
// chunk is either wholly in or wholly out.
func loadChunk(ctx context.Context, pool *conn.Pool, seq int, t *workload.Table, chunk int64, mode string, o Options) (int64, int64, error) {
	first, n := t.ChunkRange(chunk)
	r := workload.NewRand(o.Seed, hashName(t.Name), uint64(chunk))
	c, err := pool.ConnAt(ctx, seq)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	cols := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		cols[i] = quoteIdent(col)
	}
	colList := "(" + strings.Join(cols, ",") + ")"
	switch mode {
	case "local":
		// Generate into a pipe while the driver streams it to the server, so
		// the server starts on a chunk as soon as its first rows exist.
		pr, pw := io.Pipe()
		var sent int64
		go func() {
			enc := csvgen.NewEncoder(streamBlock + 4096)
			enc.OnRow = func(e *csvgen.Encoder) error {
				if len(e.Buf) < streamBlock {
					return nil
				}
				sent += int64(len(e.Buf))
				_, err := pw.Write(e.Buf)
				e.Buf = e.Buf[:0]
				return err
			}
			err := t.Gen(r, first, n, enc)
			if err == nil && len(enc.Buf) > 0 {
				sent += int64(len(enc.Buf))
				_, err = pw.Write(enc.Buf)
			}
			pw.CloseWithError(err)
		}()
		file, done := conn.LocalInfile(pr)
		defer done()
		// Generated text is ASCII: CHARACTER SET binary skips a conversion pass.
		q := "LOAD DATA LOCAL INFILE '" + file + "' INTO TABLE " + quoteIdent(t.Name) +
			" CHARACTER SET binary " + csvgen.LoadDataClause + " " + colList
		_, err := c.ExecContext(ctx, q)
		pr.CloseWithError(errors.New("load ended")) // unblock the generator if the statement failed
		if err != nil {
			return 0, 0, err
		}
		return n, sent, nil
	default:
		prefix := "INSERT INTO " + quoteIdent(t.Name) + " " + colList + " VALUES "
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			return 0, 0, err
		}
		enc := &insertEncoder{buf: make([]byte, 0, o.BatchBytes+4096), prefix: prefix, limit: o.BatchBytes}
		enc.flush = func(q []byte) error {
			_, err := tx.ExecContext(ctx, string(q))
			return err
		}
		enc.reset()
		err = t.Gen(r, first, n, enc)
		if err == nil {
			err = enc.send()
		}
		if err != nil {
			tx.Rollback()
			return 0, 0, err
		}
		if err := tx.Commit(); err != nil {
			return 0, 0, err
		}
		return n, enc.sent, nil
	}
}

// streamBlock is how much generated text goes to the pipe at a time.
const streamBlock = 256 << 10

func hashName(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
