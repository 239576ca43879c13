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
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/random"
)

// Dataset is what a load makes (see dataset.Dataset).
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
	// Watch, if set, is given the load's progress as the load starts, to
	// read at any time from any goroutine (live metrics).
	Watch func(progress func() metrics.Load)
	// OnUnit, if set, is told of each unit this load writes (not those
	// done earlier) as it is done: one transaction, a LOAD DATA or the
	// INSERTs of its rows. Called from the loading goroutines.
	OnUnit func(UnitTime)
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

// UnitTime is one unit's rows and the time its transaction took.
type UnitTime struct {
	Rows int64
	Took time.Duration
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
	file     string // CSV file to read from the job's files (import); "" to generate
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
	j := &job{pool: pool, schema: co.DB, srv: srv, ds: ds, units: units, kind: "chunk:" + strconv.FormatInt(chunkRows(ds), 10), o: o, rep: rep}
	return j.run(ctx)
}

func chunkRows(ds Dataset) int64 {
	if len(ds.Tables) == 0 {
		return 0
	}
	return ds.Tables[0].ChunkRows
}

// job is one load of units into a server, the server modes' and import's
// alike. Its phases run in order (run): plan, record, create, schedule,
// load (each table's indexes as soon as its data is in), index (tables
// completed earlier or by other shards), analyze, finish.
type job struct {
	pool   *conn.Pool
	schema string
	srv    *server
	ds     Dataset
	units  [][]unit // per table
	kind   string   // what a unit is, recorded so a resume cuts the same units
	files  Store    // import: where the units' files are; nil when generated
	o      Options
	rep    *Report

	splits     []*Split
	names      []string
	existing   []string        // tables there before this load
	had        map[string]bool // the same, lower-case
	created    []bool
	continuing bool // --resume, or one of several shards
	extending  bool // adding tables to a complete dataset of ds.Extends
	tasks      []task
	all        int            // units in all, before resume and shards
	left       []atomic.Int64 // per table, units still to load here
	totalRows  int64
	indexed    []atomic.Bool
	indexNs    atomic.Int64
	start      time.Time
	prog       progress
}

// task is a unit to load, with whether its table existed (then a unit a
// crash left half-loaded is cleared first).
type task struct {
	u    unit
	redo bool
}

func (j *job) run(ctx context.Context) (*Report, error) {
	j.start = time.Now()
	// A statement that takes no context (a transaction's COMMIT) would wait
	// on a server that stopped answering after the context ended (a watch
	// that found it so): closing the connections under it ends the wait.
	defer context.AfterFunc(ctx, j.pool.Abort)()
	if j.o.Watch != nil {
		j.o.Watch(j.prog.snapshot)
	}
	for _, phase := range []struct {
		name string
		run  func(context.Context) error
	}{{"plan", j.plan}, {"record", j.record}, {"create", j.create}, {"schedule", j.schedule}, {"load", j.load}} {
		j.prog.setPhase(phase.name)
		if err := phase.run(ctx); err != nil {
			return nil, err
		}
	}
	j.prog.setPhase("index")
	complete, err := j.index(ctx)
	if err != nil {
		return nil, err
	}
	if !complete {
		fmt.Fprintf(j.o.Info, "Shard %d/%d done; the dataset is not complete yet: the last shard to finish adds the indexes\n", j.o.Shard, j.o.Shards)
		j.rep.Total = time.Since(j.start)
		return j.rep, nil
	}
	if err := createViews(ctx, j.pool.DB(0), j.ds.Views); err != nil {
		return nil, err
	}
	j.prog.setPhase("analyze")
	if err := j.analyze(ctx); err != nil {
		return nil, err
	}
	defer j.prog.setPhase("done")
	return j.rep, j.finish(ctx)
}

// plan chooses the index timing, splits each table's DDL into the table
// and its secondary indexes, and refuses tables already there unless the
// load continues an earlier one.
func (j *job) plan(ctx context.Context) error {
	var err error
	if j.rep.IndexTiming, j.rep.IxReason, err = chooseTiming(j.o.IndexTiming, j.srv); err != nil {
		return err
	}
	fmt.Fprintf(j.o.Info, "Load mode: %s (%s); indexes: %s (%s)\n", j.rep.Mode, j.rep.ModeReason, j.rep.IndexTiming, j.rep.IxReason)
	j.splits = make([]*Split, len(j.ds.Tables))
	for i, t := range j.ds.Tables {
		j.names = append(j.names, t.Name)
		if j.splits[i], err = SplitDDL(t.DDL); err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
	if j.existing, err = existingTables(ctx, j.pool.DB(0), j.schema, j.names); err != nil {
		return err
	}
	j.continuing = j.o.Resume || j.o.Shards > 0
	j.had = map[string]bool{}
	for _, n := range j.existing {
		j.had[strings.ToLower(n)] = true
	}
	if len(j.existing) == 0 {
		return nil
	}
	if j.extending, err = j.extends(ctx); err != nil {
		return err
	}
	if !j.extending && !j.continuing {
		return &ExistingTablesError{DB: j.schema, Tables: j.existing}
	}
	j.continuing = true
	return nil
}

// extends says whether the tables there are a complete dataset of the one
// ds extends, made with the same options: then only the tables it lacks
// are loaded, and the base's are left as they are.
func (j *job) extends(ctx context.Context) (bool, error) {
	if j.ds.Extends == "" {
		return false, nil
	}
	have, err := ReadDataset(ctx, j.pool.DB(0))
	if err != nil || have["workload"] != j.ds.Extends || have["state"] != "complete" {
		return false, err
	}
	keys := []string{"seed"}
	want := map[string]string{"seed": strconv.FormatUint(j.o.Seed, 10)}
	for k, v := range j.ds.Meta {
		keys, want[k] = append(keys, k), v
	}
	if diff := recordDiff(have, want, keys, true, "now"); diff != "" {
		return false, fmt.Errorf("the %s dataset in %s was made with %s: prepare it with the same options, or run cleanup", j.ds.Extends, j.schema, diff)
	}
	for ti, t := range j.ds.Tables {
		if j.had[strings.ToLower(t.Name)] {
			j.units[ti] = nil // complete: the base's record says so
		}
	}
	fmt.Fprintf(j.o.Info, "Extending the complete %s dataset in %s: loading only the tables it lacks\n", j.ds.Extends, j.schema)
	return true, nil
}

// record writes the dataset's record, or checks it against the one an
// earlier load (or another shard) wrote: a resumed load must make the same
// rows.
func (j *job) record(ctx context.Context) error {
	db := j.pool.DB(0)
	if err := ensureRecordTables(ctx, db); err != nil {
		return err
	}
	record := map[string]string{"workload": j.ds.Workload, "seed": strconv.FormatUint(j.o.Seed, 10), "unit": j.kind,
		"index_timing": j.rep.IndexTiming, "load_mode": j.rep.Mode, "state": "loading"}
	identity := []string{"workload", "seed", "unit", "index_timing"}
	if j.extending { // the base's record becomes this dataset's
		identity = []string{"seed", "index_timing"}
	}
	for k, v := range j.ds.Meta {
		record[k] = v
		identity = append(identity, k)
	}
	if len(j.existing) > 0 && !j.extending {
		have, err := ReadDataset(ctx, db)
		if err != nil {
			return err
		}
		if have["workload"] == "" {
			return fmt.Errorf("table(s) %s exist but no oltpbench load record does: they were not loaded by oltpbench; run cleanup first", strings.Join(j.existing, ", "))
		}
	}
	return writeDataset(ctx, db, record, identity)
}

// create makes the tables that are not there: with the primary key only,
// or whole when the indexes come before the data.
func (j *job) create(ctx context.Context) error {
	start := time.Now()
	j.created = make([]bool, len(j.ds.Tables))
	for i, t := range j.ds.Tables {
		if j.had[strings.ToLower(t.Name)] {
			continue
		}
		j.created[i] = true
		stmts := []string{j.splits[i].Create}
		if j.rep.IndexTiming == "before" {
			stmts = j.splits[i].Full
		}
		for k, q := range stmts {
			if k == 0 && j.continuing {
				q = ifNotExists(q)
			}
			if _, err := j.pool.DB(0).ExecContext(ctx, q); err != nil {
				if j.continuing && conn.Number(err) == conn.ErrDupKeyName { // another shard added the index first
					continue
				}
				return fmt.Errorf("creating table %s: %w", t.Name, err)
			}
		}
	}
	j.rep.Create = time.Since(start)
	return nil
}

// schedule leaves out the units done earlier and those of other shards,
// and orders the rest in waves of --threads tables.
func (j *job) schedule(ctx context.Context) error {
	done, err := doneUnits(ctx, j.pool.DB(0))
	if err != nil {
		return err
	}
	var all []task
	for ti := range j.units {
		for _, u := range j.units[ti] {
			all = append(all, task{u: u, redo: j.had[strings.ToLower(j.ds.Tables[ti].Name)]})
		}
	}
	j.all = len(all)
	// Shards are assigned in a canonical order (chunk, then table), so that
	// clients with different --threads still take disjoint parts.
	sort.SliceStable(all, func(a, b int) bool { return all[a].u.idx < all[b].u.idx })
	j.left = make([]atomic.Int64, len(j.ds.Tables))
	for g, tk := range all {
		_, loaded := done[j.ds.Tables[tk.u.ti].Name][tk.u.idx]
		if loaded || j.o.Shards > 0 && g%j.o.Shards != j.o.Shard-1 {
			j.rep.Skipped++
			continue
		}
		j.tasks = append(j.tasks, tk)
		j.left[tk.u.ti].Add(1)
		j.totalRows += j.ds.Tables[tk.u.ti].EstimatedRowsOf(tk.u.n)
	}
	// Tables load in waves of --threads tables, chunks of a wave interleaved:
	// threads work on different tables (InnoDB serialises bulk loads into one
	// table with AUTO_INCREMENT), and a wave's tables finish early enough for
	// their indexes to be built while the next wave loads.
	wave := func(t task) int { return t.u.ti / j.o.Threads }
	sort.SliceStable(j.tasks, func(a, b int) bool {
		if wa, wb := wave(j.tasks[a]), wave(j.tasks[b]); wa != wb {
			return wa < wb
		}
		return j.tasks[a].u.idx < j.tasks[b].u.idx
	})
	j.indexed = make([]atomic.Bool, len(j.ds.Tables))
	units := make([]int64, len(j.ds.Tables))
	for i := range units {
		units[i] = j.left[i].Load()
	}
	j.prog.setTables(j.names, units)
	return nil
}

// load loads the scheduled units in parallel; a table whose last unit is
// in gets its indexes at once, while the others load.
func (j *job) load(ctx context.Context) error {
	// The per-table lines come as each table's work starts, in sysbench's
	// order: create, insert, index for a table, the next table after it
	// with --threads=1, interleaved by table otherwise.
	announce := make([]sync.Once, len(j.ds.Tables))
	announceTable := func(ti int) {
		announce[ti].Do(func() {
			if j.o.Quiet {
				return
			}
			t := &j.ds.Tables[ti]
			if j.created[ti] {
				fmt.Fprintf(j.o.Log, "Creating table '%s'...\n", t.Name)
			}
			if j.left[ti].Load() > 0 {
				fmt.Fprintf(j.o.Log, "Inserting %d records into '%s'\n", t.EstimatedRows(), t.Name)
			}
		})
	}
	for ti := range j.ds.Tables {
		if j.left[ti].Load() == 0 {
			announceTable(ti)
		}
	}
	if j.rep.Skipped > 0 {
		fmt.Fprintf(j.o.Info, "Loading %d of %d units (%d done earlier or left to other shards)\n", len(j.tasks), j.all, j.rep.Skipped)
	}
	t0 := time.Now()
	m := startMeter(j.o.Info, "load", j.totalRows, j.o.Progress, 10*time.Second)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(j.o.Threads)
	var seq atomic.Int64
	for _, tk := range j.tasks {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			announceTable(tk.u.ti)
			t := &j.ds.Tables[tk.u.ti]
			start := time.Now()
			l, err := loadUnit(gctx, unitLoad{pool: j.pool, seq: int(seq.Add(1)), t: t, u: tk.u, redo: tk.redo, mode: j.rep.Mode, files: j.files, o: j.o})
			if err != nil {
				return fmt.Errorf("loading %s unit %d: %w", t.Name, tk.u.idx, err)
			}
			if j.o.OnUnit != nil {
				j.o.OnUnit(UnitTime{Rows: l.Rows, Took: time.Since(start)})
			}
			m.add(l.Rows, l.Bytes)
			j.prog.unit(tk.u.ti, l.Rows, l.Bytes)
			if j.left[tk.u.ti].Add(-1) == 0 && j.o.Shards == 0 {
				return j.addIndexes(gctx, tk.u.ti)
			}
			return nil
		})
	}
	err := g.Wait()
	m.finish()
	j.rep.Rows, j.rep.Bytes = m.rows.Load(), m.bytes.Load()
	j.rep.Load = time.Since(t0)
	if err != nil && ctx.Err() == nil {
		// The units done are recorded: say how to finish, not start over.
		err = fmt.Errorf("%w; the units loaded are kept: run the same command with --resume to finish", err)
	}
	return err
}

// addIndexes adds a table's secondary indexes (and foreign keys) in one
// ALTER, once, when they come after the data.
func (j *job) addIndexes(ctx context.Context, ti int) error {
	if j.rep.IndexTiming != "after" || j.indexed[ti].Swap(true) {
		return nil
	}
	s := j.splits[ti]
	if s.PostLoad == "" {
		return nil
	}
	have, err := existingIndexes(ctx, j.pool.DB(0), j.schema, s.Table)
	if err != nil {
		return err
	}
	q := s.AlterFor(have)
	if q == "" {
		return nil
	}
	if !j.o.Quiet {
		fmt.Fprintf(j.o.Log, "Creating a secondary index on '%s'...\n", s.Table)
	}
	st := time.Now()
	defer func() { j.indexNs.Add(int64(time.Since(st))) }()
	if _, err := j.pool.DB(ti).ExecContext(ctx, q); err != nil && conn.Number(err) != conn.ErrDupKeyName {
		return fmt.Errorf("adding indexes to %s: %w", s.Table, err)
	}
	return nil
}

// index adds the indexes of tables loaded earlier (resume) or by several
// shards, once they are complete: the last shard to finish adds them. It
// says whether the whole dataset is in.
func (j *job) index(ctx context.Context) (complete bool, err error) {
	t0 := time.Now()
	done, err := doneUnits(ctx, j.pool.DB(0))
	if err != nil {
		return false, err
	}
	complete = true
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(j.o.Threads)
	for ti, t := range j.ds.Tables {
		if int64(len(done[t.Name])) < int64(len(j.units[ti])) {
			complete = false
			continue
		}
		g.Go(func() error { return j.addIndexes(gctx, ti) })
	}
	if err := g.Wait(); err != nil {
		return false, err
	}
	// Index time overlaps the load: the load's own time is the rest.
	j.rep.Index = time.Duration(j.indexNs.Load())
	j.rep.Load += time.Since(t0) - j.rep.Index
	return complete, nil
}

// createViews makes the dataset's views, once its tables are complete.
func createViews(ctx context.Context, db *sql.DB, views []dataset.View) error {
	for _, v := range views {
		if _, err := db.ExecContext(ctx, v.DDL); err != nil {
			return fmt.Errorf("creating view %s: %w", v.Name, err)
		}
	}
	return nil
}

func (j *job) analyze(ctx context.Context) error {
	t0 := time.Now()
	if j.o.Analyze {
		if err := Analyze(ctx, j.pool, j.names, j.o.Threads); err != nil {
			return err
		}
		markAnalyzed(ctx, j.pool.DB(0))
	}
	j.rep.Analyze = time.Since(t0)
	return nil
}

// finish marks the dataset complete. The summary goes with the dataset, so
// result files carry it whatever was printed (sysbench's verbosity shows
// it only at 4).
func (j *job) finish(ctx context.Context) error {
	j.rep.Total = time.Since(j.start)
	summary := map[string]string{"state": "complete", "load_rows": strconv.FormatInt(j.rep.Rows, 10),
		"load_seconds": strconv.FormatFloat(j.rep.Total.Seconds(), 'f', 2, 64), "load_index_seconds": strconv.FormatFloat(j.rep.Index.Seconds(), 'f', 2, 64)}
	return writeDataset(ctx, j.pool.DB(0), summary, nil)
}

// unitLoad is how one unit is loaded: where, which, and whether a crashed
// earlier attempt may have left part of it.
type unitLoad struct {
	pool  *conn.Pool
	seq   int // which connection: units spread over the pool's endpoints
	t     *dataset.Table
	u     unit
	redo  bool
	mode  string // "local" streams LOAD DATA; otherwise INSERT (a file unit always LOAD DATA)
	files Store
	o     Options
}

// loaded is what loading a unit (or its rows) did.
type loaded struct {
	Rows  int64 // rows written
	Bytes int64 // bytes sent to the server
}

// loadUnit loads one unit in one transaction with its progress row. redo
// first removes whatever a crashed earlier attempt left in its key range
// (engines without transactions keep half a unit).
func loadUnit(ctx context.Context, ul unitLoad) (loaded, error) {
	return retryLocked(ctx, ul.tx)
}

// retryLocked runs a unit's transaction again on a deadlock or lock wait
// timeout (two resumed units of one table), however wrapped: it was
// rolled back whole.
func retryLocked(ctx context.Context, tx func(context.Context) (loaded, error)) (loaded, error) {
	for attempt := 0; ; attempt++ {
		l, err := tx(ctx)
		if n := conn.Number(err); (n == conn.ErrDeadlock || n == conn.ErrLockWaitTimeout) && attempt < 10 && ctx.Err() == nil {
			time.Sleep(time.Duration(attempt+1) * 50 * time.Millisecond)
			continue
		}
		return l, err
	}
}

// tx is one attempt at the unit.
func (ul unitLoad) tx(ctx context.Context) (loaded, error) {
	t, u, o, files := ul.t, ul.u, ul.o, ul.files
	c, err := ul.pool.ConnAt(ctx, ul.seq)
	if err != nil {
		return loaded{}, err
	}
	defer c.Close()
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return loaded{}, err
	}
	defer tx.Rollback()
	if ul.redo && u.keyed && u.n > 0 {
		if err := removePart(ctx, tx, t, u); err != nil {
			return loaded{}, err
		}
	}
	var sent, rows int64
	switch mode := ul.mode; {
	case u.file != "":
		f, err := files.Open(u.file)
		if err != nil {
			return loaded{}, err
		}
		defer f.Close()
		// The file is hashed as it streams, and checked against the manifest
		// before the transaction commits.
		h := sha256.New()
		cr := &countingReader{r: io.TeeReader(f, h)}
		file, release := conn.LocalInfile(cr)
		defer release()
		if _, err := tx.ExecContext(ctx, loadDataSQL(file, t, true)); err != nil {
			return loaded{}, err
		}
		sent, rows = cr.n, u.n
		if got := hex.EncodeToString(h.Sum(nil)); u.sha256 != "" && got != u.sha256 {
			return loaded{}, fmt.Errorf("%s/%s: SHA-256 %s differs from the manifest's %s: the file changed; make the files again", files.Location(), u.file, got, u.sha256)
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
		_, err := tx.ExecContext(ctx, loadDataSQL(file, t, false))
		pr.CloseWithError(errors.New("load ended")) // unblock the generator if the statement failed
		if err != nil {
			return loaded{}, err
		}
	default:
		l, err := insertRows(ctx, tx, t, random.NewRand(o.Seed, hashName(t.Name), uint64(u.idx)), u.first, u.n,
			"INSERT INTO "+quoteIdent(t.Name)+" "+columnList(t.Columns)+" VALUES ", o.BatchBytes)
		if err != nil {
			return loaded{}, err
		}
		rows, sent = l.Rows, l.Bytes
	}
	rows = atomic.LoadInt64(&rows)
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+progressTable+" (tbl, unit, `rows`) VALUES (?, ?, ?)", t.Name, u.idx, rows); err != nil {
		return loaded{}, err
	}
	return loaded{Rows: rows, Bytes: atomic.LoadInt64(&sent)}, tx.Commit()
}

// removePart removes what a crashed attempt left of a unit. Only a unit a
// crash left half-loaded has rows to remove; a plain read first spares the
// others the DELETE's gap locks.
func removePart(ctx context.Context, tx *sql.Tx, t *dataset.Table, u unit) error {
	rng := fmt.Sprintf("%s WHERE %s BETWEEN %d AND %d", quoteIdent(t.Name), quoteIdent(t.KeyColumn), u.lo, u.hi)
	var one int
	err := tx.QueryRowContext(ctx, "SELECT 1 FROM "+rng+" LIMIT 1").Scan(&one)
	switch {
	case err == nil:
		_, err = tx.ExecContext(ctx, "DELETE FROM "+rng)
		return err
	case errors.Is(err, sql.ErrNoRows):
		return nil
	}
	return err
}

// loadDataSQL is the LOAD DATA LOCAL statement of a unit streamed as file
// (a registered reader): CSV with a header line to skip, or generated text.
// Both are ASCII or bytes as written: CHARACTER SET binary skips a
// conversion pass.
func loadDataSQL(file string, t *dataset.Table, header bool) string {
	skip := ""
	if header {
		skip = " IGNORE 1 LINES"
	}
	return "LOAD DATA LOCAL INFILE '" + file + "' INTO TABLE " + quoteIdent(t.Name) + " CHARACTER SET binary " +
		csvgen.LoadDataClause + skip + " " + columnList(t.Columns)
}

// columnList is "(`a`,`b`)".
func columnList(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return "(" + strings.Join(q, ",") + ")"
}

// ifNotExists makes a CREATE TABLE statement one that leaves a table
// already there alone (a resumed load, another shard, import).
func ifNotExists(createTable string) string {
	return strings.Replace(createTable, "CREATE TABLE ", "CREATE TABLE IF NOT EXISTS ", 1)
}

// drain reads a statement's rows to the end (ANALYZE TABLE and IMPORT INTO
// answer with rows) and returns the first error of the query or its rows.
func drain(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// streamBlock is how much generated text goes to the pipe at a time.
const streamBlock = 256 << 10

// AnalyzeDataset runs ANALYZE TABLE on the dataset's tables in co.DB,
// threads at a time, and says how many it analyzed.
func AnalyzeDataset(ctx context.Context, co conn.Options, ds Dataset, threads int) (int, error) {
	pool, err := conn.Open(co, threads)
	if err != nil {
		return 0, err
	}
	defer pool.Close()
	var names []string
	for _, t := range ds.Tables {
		names = append(names, t.Name)
	}
	if len(ds.Tables) == 0 { // made by its workload: whatever tables it made
		if names, err = schemaTables(ctx, pool.DB(0), co.DB); err != nil {
			return 0, err
		}
	}
	if err := Analyze(ctx, pool, names, threads); err != nil {
		return 0, err
	}
	markAnalyzed(ctx, pool.DB(0))
	return len(names), nil
}

// markAnalyzed notes in the dataset's record when its tables were last
// ANALYZEd, so a run can say when they never were; a database without a
// record (another tool's dataset) is left as it is.
func markAnalyzed(ctx context.Context, db *sql.DB) {
	db.ExecContext(ctx, "INSERT INTO "+datasetTable+" (k, v) VALUES ('analyzed', ?) ON DUPLICATE KEY UPDATE v = VALUES(v)",
		time.Now().UTC().Format(time.RFC3339))
}

// Analyze runs ANALYZE TABLE on every table, in parallel.
func Analyze(ctx context.Context, pool *conn.Pool, names []string, threads int) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(threads, 1))
	for i, n := range names {
		g.Go(func() error {
			if err := drain(pool.DB(i).QueryContext(gctx, "ANALYZE TABLE "+quoteIdent(n))); err != nil {
				return fmt.Errorf("ANALYZE TABLE %s: %w", n, err)
			}
			return nil
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
		return fmt.Errorf("creating database %s: %w", co.DB, err)
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
	s.tidb = conn.IsTiDB(s.version)
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
