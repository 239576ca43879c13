// Package loader loads a dataset (tables as DDL plus chunked row sources)
// into a server, or writes it as CSV files: create the base tables, load units
// (a generated chunk, or a CSV file) in parallel as streamed LOAD DATA LOCAL
// or multi-row INSERTs, add secondary indexes after the data (or create them
// first), then ANALYZE. Each unit is loaded in one transaction together with
// its progress row, so --resume after a crash finishes the dataset with
// nothing lost or doubled.
package loader

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/csvgen"
	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// Dataset is what a load makes (see workload.Dataset).
type Dataset = dataset.Dataset

// Options shape a load.
type Options struct {
	Mode        string // auto | insert | local | csv | import
	IndexTiming string // auto | after | before
	Threads     int
	Seed        uint64
	Analyze     bool
	Resume      bool
	// Shard and Shards select the Shard-th (1-based) of Shards disjoint parts.
	Shard, Shards int
	Dir           string // csv and import modes
	FileSize      int64  // csv: bytes per file
	// BatchBytes bounds one INSERT statement (below max_allowed_packet).
	BatchBytes int
	Log        io.Writer // sysbench-style lines per table and phase (unless Quiet)
	Quiet      bool
	Info       io.Writer // the loader's own lines: mode, progress, resume and shard notes (nil: Log)
	Progress   string    // auto | on | off
	store      Store     // import: where the unit files are
}

// Report says what a load did, for the user and for result files.
type Report struct {
	Mode, ModeReason      string
	IndexTiming, IxReason string
	Rows, Bytes           int64
	Skipped               int64 // units found done (resume) or left to other shards
	// Index is the time spent adding indexes, partly overlapping Load.
	Create, Load, Index, Analyze, Total time.Duration
}

// ExistingTablesError names tables that are already there.
type ExistingTablesError struct {
	DB     string
	Tables []string
}

func (e *ExistingTablesError) Error() string {
	return fmt.Sprintf("table(s) %s already exist in database %q: run cleanup first, or --resume to finish an interrupted load", strings.Join(e.Tables, ", "), e.DB)
}

func (o *Options) defaults() error {
	if o.Threads < 1 {
		o.Threads = 1
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = 1 << 20
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Info == nil {
		o.Info = o.Log
	}
	if o.FileSize <= 0 {
		o.FileSize = 256 << 20
	}
	if o.Shards < 0 || o.Shards > 0 && (o.Shard < 1 || o.Shard > o.Shards) {
		return fmt.Errorf("invalid --shard=%d/%d: use i/n with 1 <= i <= n", o.Shard, o.Shards)
	}
	return nil
}

// ParseShard parses "i/n".
func ParseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("invalid --shard=%s: use i/n with 1 <= i <= n, e.g. 2/3", s)
	}
	return i, n, nil
}

// unit is what loads in one transaction: a generated chunk, or a CSV file.
type unit struct {
	ti       int
	idx      int64
	first, n int64
	file     string // CSV file to read from Options.store (import); "" to generate
	sha256   string // expected digest of file
	// lo and hi bound the unit's rows on the table's key column, so a
	// half-loaded unit can be removed; keyed is false when there is no key.
	lo, hi int64
	keyed  bool
}

// Load creates and fills the dataset's tables in co.DB, creating the database
// if missing. Mode csv only writes files (see WriteCSV); mode import writes
// them to o.Dir first and loads them from there.
func Load(ctx context.Context, co conn.Options, ds Dataset, o Options) (*Report, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	switch o.Mode {
	case "csv":
		return nil, errors.New("loader: csv mode writes files: use WriteCSV")
	case "import":
		if o.Dir == "" {
			return nil, errors.New("--load-mode=import needs --dir for the CSV files")
		}
		// Every machine writes all files (the same bytes) and loads its part.
		wo := o
		wo.Shard, wo.Shards = 0, 0
		m, err := WriteCSV(ctx, co.DB, ds, wo)
		if err != nil {
			return nil, err
		}
		return importManifest(ctx, co, m, o)
	}
	pool, srv, err := connect(ctx, co, o.Threads)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	rep := &Report{}
	if rep.Mode, rep.ModeReason, err = chooseMode(o.Mode, srv); err != nil {
		return nil, err
	}
	var units [][]unit
	for ti, t := range ds.Tables {
		var us []unit
		for c := int64(0); c < t.Chunks(); c++ {
			first, n := t.ChunkRange(c)
			u := unit{ti: ti, idx: c, first: first, n: n}
			if t.KeyColumn != "" && t.KeyOf != nil {
				u.lo, u.hi, u.keyed = t.KeyOf(first), t.KeyOf(first+n-1), true
			}
			us = append(us, u)
		}
		units = append(units, us)
	}
	unitKind := "chunk:" + strconv.FormatInt(chunkRows(ds), 10)
	return run(ctx, pool, co.DB, srv, ds, units, unitKind, rep, o)
}

func chunkRows(ds Dataset) int64 {
	if len(ds.Tables) == 0 {
		return 0
	}
	return ds.Tables[0].ChunkRows
}

// run is the common pipeline of the server modes and of import.
func run(ctx context.Context, pool *conn.Pool, schema string, srv *server, ds Dataset, units [][]unit, unitKind string, rep *Report, o Options) (*Report, error) {
	var err error
	if rep.IndexTiming, rep.IxReason, err = chooseTiming(o.IndexTiming, srv); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Info, "Load mode: %s (%s); indexes: %s (%s)\n", rep.Mode, rep.ModeReason, rep.IndexTiming, rep.IxReason)
	db := pool.DB(0)
	splits := make([]*Split, len(ds.Tables))
	var names []string
	for i, t := range ds.Tables {
		names = append(names, t.Name)
		if splits[i], err = SplitDDL(t.DDL); err != nil {
			return nil, fmt.Errorf("table %s: %v", t.Name, err)
		}
	}
	existing, err := existingTables(ctx, db, schema, names)
	if err != nil {
		return nil, err
	}
	continuing := o.Resume || o.Shards > 0
	if len(existing) > 0 && !continuing {
		return nil, &ExistingTablesError{DB: schema, Tables: existing}
	}
	if err := ensureRecordTables(ctx, db); err != nil {
		return nil, err
	}
	record := map[string]string{"workload": ds.Workload, "seed": strconv.FormatUint(o.Seed, 10), "unit": unitKind,
		"index_timing": rep.IndexTiming, "load_mode": rep.Mode, "state": "loading"}
	identity := []string{"workload", "seed", "unit", "index_timing"}
	for k, v := range ds.Meta {
		record[k] = v
		identity = append(identity, k)
	}
	if len(existing) > 0 {
		have, err := ReadDataset(ctx, db)
		if err != nil {
			return nil, err
		}
		if have["workload"] == "" {
			return nil, fmt.Errorf("table(s) %s exist but no oltpbench load record does: they were not loaded by oltpbench; run cleanup first", strings.Join(existing, ", "))
		}
	}
	if err := writeDataset(ctx, db, record, identity); err != nil {
		return nil, err
	}

	// Create.
	start := time.Now()
	have := map[string]bool{}
	for _, n := range existing {
		have[strings.ToLower(n)] = true
	}
	created := make([]bool, len(ds.Tables))
	for i, t := range ds.Tables {
		if have[strings.ToLower(t.Name)] {
			continue
		}
		created[i] = true
		stmts := []string{splits[i].Create}
		if rep.IndexTiming == "before" {
			stmts = splits[i].Full
		}
		for j, q := range stmts {
			if j == 0 && continuing {
				q = strings.Replace(q, "CREATE TABLE ", "CREATE TABLE IF NOT EXISTS ", 1)
			}
			if _, err := db.ExecContext(ctx, q); err != nil {
				if continuing && conn.Number(err) == errDupKeyName { // another shard added the index first
					continue
				}
				return nil, fmt.Errorf("creating table %s: %v", t.Name, err)
			}
		}
	}
	rep.Create = time.Since(start)

	// Plan: skip units already done; keep this shard's part.
	done, err := doneUnits(ctx, db)
	if err != nil {
		return nil, err
	}
	type task struct {
		u      unit
		redo   bool // the table existed: clear the unit's key range first
		global int
	}
	var all []task
	for ti := range units {
		for _, u := range units[ti] {
			all = append(all, task{u: u, redo: have[strings.ToLower(ds.Tables[ti].Name)]})
		}
	}
	// Shards are assigned in a canonical order (chunk, then table), so that
	// clients with different --threads still take disjoint parts.
	sort.SliceStable(all, func(a, b int) bool { return all[a].u.idx < all[b].u.idx })
	left := make([]atomic.Int64, len(ds.Tables))
	var tasks []task
	var totalRows int64
	for g, tk := range all {
		tk.global = g
		if _, ok := done[ds.Tables[tk.u.ti].Name][tk.u.idx]; ok {
			rep.Skipped++
			continue
		}
		if o.Shards > 0 && g%o.Shards != o.Shard-1 {
			rep.Skipped++
			continue
		}
		tasks = append(tasks, tk)
		left[tk.u.ti].Add(1)
		totalRows += ds.Tables[tk.u.ti].EstimatedRowsOf(tk.u.n)
	}
	// Tables load in waves of --threads tables, chunks of a wave interleaved:
	// threads work on different tables (InnoDB serialises bulk loads into one
	// table with AUTO_INCREMENT), and a wave's tables finish early enough for
	// their indexes to be built while the next wave loads.
	wave := func(t task) int { return t.u.ti / o.Threads }
	sort.SliceStable(tasks, func(a, b int) bool {
		if wa, wb := wave(tasks[a]), wave(tasks[b]); wa != wb {
			return wa < wb
		}
		return tasks[a].u.idx < tasks[b].u.idx
	})
	// The per-table lines come as each table's work starts, in sysbench's
	// order: create, insert, index for a table, the next table after it
	// with --threads=1, interleaved by table otherwise.
	announce := make([]sync.Once, len(ds.Tables))
	announceTable := func(ti int) {
		announce[ti].Do(func() {
			if o.Quiet {
				return
			}
			t := &ds.Tables[ti]
			if created[ti] {
				fmt.Fprintf(o.Log, "Creating table '%s'...\n", t.Name)
			}
			if left[ti].Load() > 0 {
				fmt.Fprintf(o.Log, "Inserting %d records into '%s'\n", t.EstimatedRows(), t.Name)
			}
		})
	}
	for ti := range ds.Tables {
		if left[ti].Load() == 0 {
			announceTable(ti)
		}
	}
	if rep.Skipped > 0 {
		fmt.Fprintf(o.Info, "Loading %d of %d units (%d done earlier or left to other shards)\n", len(tasks), len(all), rep.Skipped)
	}

	t0 := time.Now()
	var indexNs atomic.Int64
	indexed := make([]atomic.Bool, len(ds.Tables))
	addIndexes := func(ctx context.Context, ti int) error {
		if rep.IndexTiming != "after" || indexed[ti].Swap(true) {
			return nil
		}
		s := splits[ti]
		if s.PostLoad == "" {
			return nil
		}
		haveIx, err := existingIndexes(ctx, db, schema, s.Table)
		if err != nil {
			return err
		}
		q := s.AlterFor(haveIx)
		if q == "" {
			return nil
		}
		if !o.Quiet {
			fmt.Fprintf(o.Log, "Creating a secondary index on '%s'...\n", s.Table)
		}
		st := time.Now()
		defer func() { indexNs.Add(int64(time.Since(st))) }()
		if _, err := pool.DB(ti).ExecContext(ctx, q); err != nil && conn.Number(err) != errDupKeyName {
			return fmt.Errorf("adding indexes to %s: %v", s.Table, err)
		}
		return nil
	}
	m := startMeter(o.Info, "load", totalRows, o.Progress, 10*time.Second)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Threads)
	var seq atomic.Int64
	for _, tk := range tasks {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			announceTable(tk.u.ti)
			t := &ds.Tables[tk.u.ti]
			rows, b, err := loadUnit(gctx, pool, int(seq.Add(1)), t, tk.u, tk.redo, rep.Mode, o)
			if err != nil {
				return fmt.Errorf("loading %s unit %d: %w", t.Name, tk.u.idx, err)
			}
			m.add(rows, b)
			if left[tk.u.ti].Add(-1) == 0 && o.Shards == 0 {
				return addIndexes(gctx, tk.u.ti)
			}
			return nil
		})
	}
	err = g.Wait()
	m.finish()
	if err != nil {
		return nil, err
	}
	rep.Rows, rep.Bytes = m.rows.Load(), m.bytes.Load()

	// Tables loaded earlier (resume) or by several shards get their indexes
	// once complete; the last shard to finish adds them.
	complete := true
	done, err = doneUnits(ctx, db)
	if err != nil {
		return nil, err
	}
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(o.Threads)
	for ti, t := range ds.Tables {
		if int64(len(done[t.Name])) < int64(len(units[ti])) {
			complete = false
			continue
		}
		g.Go(func() error { return addIndexes(gctx, ti) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rep.Index = time.Duration(indexNs.Load())
	rep.Load = time.Since(t0) - rep.Index
	if !complete {
		fmt.Fprintf(o.Info, "Shard %d/%d done; the dataset is not complete yet: the last shard to finish adds the indexes\n", o.Shard, o.Shards)
		rep.Total = time.Since(start)
		return rep, nil
	}
	t0 = time.Now()
	if o.Analyze {
		if err := Analyze(ctx, pool, names, o.Threads); err != nil {
			return nil, err
		}
	}
	rep.Analyze = time.Since(t0)
	rep.Total = time.Since(start)
	// The summary goes with the dataset, so result files carry it whatever
	// was printed (sysbench's verbosity shows it only at 4).
	summary := map[string]string{"state": "complete", "load_rows": strconv.FormatInt(rep.Rows, 10),
		"load_seconds": strconv.FormatFloat(rep.Total.Seconds(), 'f', 2, 64), "load_index_seconds": strconv.FormatFloat(rep.Index.Seconds(), 'f', 2, 64)}
	if err := writeDataset(ctx, db, summary, nil); err != nil {
		return nil, err
	}
	return rep, nil
}

// loadUnit loads one unit in one transaction with its progress row. redo
// first removes whatever a crashed earlier attempt left in its key range
// (engines without transactions keep half a unit).
func loadUnit(ctx context.Context, pool *conn.Pool, seq int, t *dataset.Table, u unit, redo bool, mode string, o Options) (rows, sent int64, err error) {
	// A unit is one transaction: on a deadlock or lock wait timeout (two
	// resumed units of one table), it is rolled back whole and redone.
	for attempt := 0; ; attempt++ {
		sent, rows, err = loadUnitTx(ctx, pool, seq, t, u, redo, mode, o)
		if n := conn.Number(err); (n == 1213 || n == 1205) && attempt < 10 && ctx.Err() == nil {
			time.Sleep(time.Duration(attempt+1) * 50 * time.Millisecond)
			continue
		}
		return rows, sent, err
	}
}

func loadUnitTx(ctx context.Context, pool *conn.Pool, seq int, t *dataset.Table, u unit, redo bool, mode string, o Options) (int64, int64, error) {
	c, err := pool.ConnAt(ctx, seq)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	if redo && u.keyed && u.n > 0 {
		// Only a unit a crash left half-loaded has rows to remove; a plain
		// read first spares the others the DELETE's gap locks.
		rng := fmt.Sprintf("%s WHERE %s BETWEEN %d AND %d", quoteIdent(t.Name), quoteIdent(t.KeyColumn), u.lo, u.hi)
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM "+rng+" LIMIT 1").Scan(&one)
		if err == nil {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+rng); err != nil {
				return 0, 0, err
			}
		} else if !errors.Is(err, sql.ErrNoRows) {
			return 0, 0, err
		}
	}
	cols := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		cols[i] = quoteIdent(col)
	}
	colList := "(" + strings.Join(cols, ",") + ")"
	var sent, rows int64
	switch {
	case u.file != "":
		f, err := o.store.Open(u.file)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		// The file is hashed as it streams, and checked against the manifest
		// before the transaction commits.
		h := sha256.New()
		cr := &countingReader{r: io.TeeReader(f, h)}
		file, release := conn.LocalInfile(cr)
		defer release()
		if _, err := tx.ExecContext(ctx, "LOAD DATA LOCAL INFILE '"+file+"' INTO TABLE "+quoteIdent(t.Name)+
			" CHARACTER SET binary "+csvgen.LoadDataClause+" IGNORE 1 LINES "+colList); err != nil {
			return 0, 0, err
		}
		sent, rows = cr.n, u.n
		if got := hex.EncodeToString(h.Sum(nil)); u.sha256 != "" && got != u.sha256 {
			return 0, 0, fmt.Errorf("%s/%s: SHA-256 %s differs from the manifest's %s: the file changed; make the files again", o.store.Location(), u.file, got, u.sha256)
		}
	case mode == "local":
		// Generate into a pipe while the driver streams it to the server, so
		// the server starts on a chunk as soon as its first rows exist.
		pr, pw := io.Pipe()
		go func() {
			enc := csvgen.NewEncoder(streamBlock + 4096)
			enc.OnRow = func(e *csvgen.Encoder) error {
				if len(e.Buf) < streamBlock {
					return nil
				}
				atomic.AddInt64(&sent, int64(len(e.Buf)))
				_, err := pw.Write(e.Buf)
				e.Buf = e.Buf[:0]
				return err
			}
			err := t.Gen(random.NewRand(o.Seed, hashName(t.Name), uint64(u.idx)), u.first, u.n, enc)
			atomic.StoreInt64(&rows, enc.Rows)
			if err == nil && len(enc.Buf) > 0 {
				atomic.AddInt64(&sent, int64(len(enc.Buf)))
				_, err = pw.Write(enc.Buf)
			}
			pw.CloseWithError(err)
		}()
		file, release := conn.LocalInfile(pr)
		defer release()
		// Generated text is ASCII: CHARACTER SET binary skips a conversion pass.
		_, err := tx.ExecContext(ctx, "LOAD DATA LOCAL INFILE '"+file+"' INTO TABLE "+quoteIdent(t.Name)+
			" CHARACTER SET binary "+csvgen.LoadDataClause+" "+colList)
		pr.CloseWithError(errors.New("load ended")) // unblock the generator if the statement failed
		if err != nil {
			return 0, 0, err
		}
	default:
		var err error
		rows, sent, err = insertRows(ctx, tx, t, random.NewRand(o.Seed, hashName(t.Name), uint64(u.idx)), u.first, u.n,
			"INSERT INTO "+quoteIdent(t.Name)+" "+colList+" VALUES ", o.BatchBytes)
		if err != nil {
			return 0, 0, err
		}
	}
	rows = atomic.LoadInt64(&rows)
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+progressTable+" (tbl, unit, `rows`) VALUES (?, ?, ?)", t.Name, u.idx, rows); err != nil {
		return 0, 0, err
	}
	return atomic.LoadInt64(&sent), rows, tx.Commit()
}

// Server errors the loader expects.
const (
	errDupKeyName  = 1061 // ER_DUP_KEYNAME: the index is there already
	errNoSuchTable = 1146 // ER_NO_SUCH_TABLE
)

// streamBlock is how much generated text goes to the pipe at a time.
const streamBlock = 256 << 10

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
	rate := 0.0
	if r.Total > 0 {
		rate = float64(r.Rows) / r.Total.Seconds()
	}
	fmt.Fprintf(w, "Loaded %d rows (%.1f MB) in %.2fs: create %.2fs, load %.2fs, index %.2fs (overlapping the load), analyze %.2fs; %.0f rows/s\n",
		r.Rows, float64(r.Bytes)/1e6, r.Total.Seconds(), r.Create.Seconds(), r.Load.Seconds(), r.Index.Seconds(), r.Analyze.Seconds(), rate)
}

// connect creates the database if missing, opens the pool (LOAD DATA LOCAL
// allowed from registered readers) and looks at the server.
func connect(ctx context.Context, co conn.Options, threads int) (*conn.Pool, *server, error) {
	if err := createDatabase(ctx, co); err != nil {
		return nil, nil, err
	}
	co.AllowLocalInfile = true
	// Foreign keys, added with the indexes after a table's data, must not
	// wait for the tables they reference: the generated data is consistent,
	// and a resumed unit deletes rows others may reference.
	co.SessionVars = append(append([]string(nil), co.SessionVars...), "foreign_key_checks=0")
	pool, err := conn.Open(co, threads)
	if err != nil {
		return nil, nil, err
	}
	srv, err := probe(ctx, pool.DB(0))
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return pool, srv, nil
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
	// One server holds the schema; other endpoints are the same cluster.
	c, err := pool.ConnAt(ctx, 0)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err = c.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(co.DB)); err != nil {
		return fmt.Errorf("creating database %s: %v", co.DB, err)
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

const enableLocal = "SET GLOBAL local_infile=1 (or start the server with --local-infile=1) enables the faster local mode"

func chooseMode(mode string, s *server) (string, string, error) {
	switch mode {
	case "", "auto":
		if s.localInfile {
			return "local", "server allows LOAD DATA LOCAL", nil
		}
		return "insert", "server has local_infile off; " + enableLocal, nil
	case "insert":
		return "insert", "asked for", nil
	case "local":
		if !s.localInfile {
			return "insert", "asked for local, but the server has local_infile off: falling back to insert; " + enableLocal, nil
		}
		return "local", "asked for", nil
	}
	return "", "", fmt.Errorf("invalid --load-mode=%s: use auto, insert, local, csv or import", mode)
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

func hashName(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
