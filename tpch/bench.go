// Package tpch is TPC-H for go-tpc's users: the specification's eight
// tables made as TPC's dbgen makes them (tpch/dbgen) and loaded by the
// loader, its 22 queries with the validation parameters or random ones,
// the power test and the throughput test with the refresh functions RF1
// and RF2, QphH@Size from their times, and the answers checked against the
// specification's answer set at SF 1.
package tpch

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/tpch/dbgen"
)

func init() {
	workload.Register(workload.Spec{
		Name:        "tpch",
		Use:         "<prepare|run|check|cleanup> [options]",
		Example:     "oltpbench tpch run --sf=1",
		Short:       "TPC-H: dbgen's data, the 22 queries, the power and throughput tests with RF1/RF2, QphH@Size",
		Long:        "TPC-H: the eight tables as TPC's dbgen makes them at --sf, the 22 queries, and a run of the power test (RF1, the queries of stream 0, RF2) then the throughput test (--threads query streams beside a refresh stream), reported as QphH@Size.",
		DefaultDB:   "tpch",
		Threads:     "2",
		ThreadsHelp: "the throughput test's query streams (default: the specification's minimum for --sf: 2 at SF 1, 3 at 10, 5 at 100, ...)",
		CSVFlags:    []string{"sf"},
		RangeKeys:   []string{"sf"},
		Describe: func(name string) (workload.Description, bool) {
			return workload.Description{Title: "TPC-H", Rank: 97, Details: true}, name == "tpch"
		},
		New: func() workload.Workload { return &tpch{} },
		Clients: &workload.Clients{
			Whole:   wholeRun,
			Share:   streamShare,
			Figures: mergeFigures,
		},
	})
}

type tpch struct {
	ro        *workload.RunOptions
	sf        float64
	scale     *dbgen.Scale
	queryList string
	queries   []Query
	paramKind string
	test      string
	refresh   bool
	check     bool
	timeout   time.Duration
	tiflash   int
	streams   int
	seed      uint64
	// A share of a throughput test split among client machines: this
	// client's query streams are first to first+streams-1 (1-based) of
	// all; the refresh stream runs with stream 1.
	first, all int
}

func (w *tpch) Flags(fs *pflag.FlagSet, ro *workload.RunOptions) {
	w.ro = ro
	fs.Float64Var(&w.sf, "sf", 1, "scale factor: 1, 10, 100 ... (below 1 in thousandths, 0.01 or 0.1 for a quick try)")
	fs.StringVar(&w.queryList, "queries", "all", "run: the queries, e.g. q1,q6,q14 (all: q1 to q22)")
	fs.StringVar(&w.paramKind, "params", "default", "run: the queries' parameters: default (the specification's validation values) or random (its substitution rules, from --seed)")
	fs.StringVar(&w.test, "test", "both", "run: power (one stream, alone), throughput (--threads streams at once) or both, power first")
	fs.BoolVar(&w.refresh, "refresh", true, "run: the refresh functions RF1 (new orders) and RF2 (old orders deleted) in both tests; the orders are put back as loaded before the next run")
	fs.BoolVar(&w.check, "check", false, "run: check each answer against the specification's answer set (--sf=1 with --params=default)")
	workload.SecondsVar(fs, &w.timeout, "query-timeout", time.Hour, "run and check: a query running longer is stopped by the server and counted as an error; the client gives up 10 s later (0: none)")
	fs.IntVar(&w.tiflash, "tiflash-replica", 0, "prepare: TiDB only: set N TiFlash replicas of every table and wait until they are available")
	fs.IntVar(&w.first, "first-stream", 1, "run: --test=throughput on several client machines: the number of this client's first query stream (plan run --clients sets it)")
	fs.IntVar(&w.all, "all-streams", 0, "run: --test=throughput on several client machines: the query streams of all clients, whose refresh pairs the client of stream 1 runs (0: --threads)")
	ro.TimeVar(fs, "time", 0, "run: at most this long (0: until the tests end)")
	workload.SecondsVar(fs, &ro.ReportInterval, "report-interval", 10*time.Second, "interval of the progress lines (0: none)")
}

// MinStreams is the specification's minimum number of query streams of
// the throughput test at a scale factor (clause 5.3.4).
func MinStreams(sf float64) int {
	for i, bound := range []float64{1, 10, 30, 100, 300, 1000, 3000, 10000, 30000} {
		if sf <= bound {
			return i + 2
		}
	}
	return 11
}

func (w *tpch) Setup(s *workload.Setup) error {
	var err error
	if w.scale, err = dbgen.NewScale(w.sf); err != nil {
		return err
	}
	if w.tiflash < 0 {
		return fmt.Errorf("invalid --tiflash-replica=%d: a replica count, or 0 for none", w.tiflash)
	}
	if w.queries, err = SelectQueries(w.queryList); err != nil {
		return err
	}
	switch w.paramKind {
	case "default", "random":
	default:
		return fmt.Errorf("invalid --params=%s: default or random", w.paramKind)
	}
	switch w.test {
	case "both", "power", "throughput":
	default:
		return fmt.Errorf("invalid --test=%s: power, throughput or both", w.test)
	}
	if w.check && (w.sf != 1 || w.paramKind != "default") {
		return fmt.Errorf("--check compares with the specification's answers, made at --sf=1 with --params=default: run with those, or without --check")
	}
	if w.check && w.refresh {
		return fmt.Errorf("--check compares with the answers of the data as loaded, and RF1 adds orders before the queries: add --refresh=false")
	}
	if w.timeout < 0 {
		return fmt.Errorf("invalid --query-timeout=%s: a duration, or 0 for none", w.timeout)
	}
	if !s.ThreadsSet {
		s.Threads = MinStreams(w.sf)
		if w.test == "power" {
			s.Threads = 1
		}
	}
	if w.test == "power" && s.Threads != 1 {
		return fmt.Errorf("--test=power runs one stream: leave --threads out, or run --test=throughput or both")
	}
	w.streams, w.seed = s.Threads, s.Seed
	if w.all == 0 {
		w.all = w.first + w.streams - 1
	}
	switch {
	case w.first < 1:
		return fmt.Errorf("invalid --first-stream=%d: a query stream's number, from 1", w.first)
	case w.first > 1 && w.test != "throughput":
		return fmt.Errorf("--first-stream=%d splits the throughput test among clients, and --test=%s runs the power test: add --test=throughput", w.first, w.test)
	case w.all < w.first+w.streams-1:
		return fmt.Errorf("invalid --all-streams=%d: this client runs streams %d to %d, so at least %d", w.all, w.first, w.first+w.streams-1, w.first+w.streams-1)
	}
	return nil
}

// refreshes reports whether this client runs the refresh stream of the
// throughput test: the client of stream 1 does.
func (w *tpch) refreshes() bool { return w.refresh && w.test != "power" && w.first == 1 }

func (w *tpch) Name() string { return "tpch" }

func (w *tpch) Sizes() map[string]string {
	return map[string]string{"sf": strconv.FormatFloat(w.sf, 'f', -1, 64)}
}

// Metric is the queries completed per hour of the run, both tests and all
// streams; QphH@Size, Power@Size and Throughput@Size are figures.
func (w *tpch) Metric() result.Metric {
	var names []string
	for _, q := range Queries {
		names = append(names, q.Name)
	}
	return result.Metric{Name: "queries/h", Unit: "queries completed per hour", Ops: names, PerSeconds: 3600, LatencyOp: "q1"}
}

// ddl are the specification's tables (clause 1.4), keys as BIGINT so that
// any scale factor fits, with the primary keys and indexes on the foreign
// keys and the dates the queries select by (clause 1.5.4 allows them).
var ddl = map[string]string{
	"part": `CREATE TABLE part (
  p_partkey BIGINT NOT NULL,
  p_name VARCHAR(55) NOT NULL,
  p_mfgr CHAR(25) NOT NULL,
  p_brand CHAR(10) NOT NULL,
  p_type VARCHAR(25) NOT NULL,
  p_size INT NOT NULL,
  p_container CHAR(10) NOT NULL,
  p_retailprice DECIMAL(15,2) NOT NULL,
  p_comment VARCHAR(23) NOT NULL,
  PRIMARY KEY (p_partkey)
)`,
	"partsupp": `CREATE TABLE partsupp (
  ps_partkey BIGINT NOT NULL,
  ps_suppkey BIGINT NOT NULL,
  ps_availqty INT NOT NULL,
  ps_supplycost DECIMAL(15,2) NOT NULL,
  ps_comment VARCHAR(199) NOT NULL,
  PRIMARY KEY (ps_partkey, ps_suppkey),
  KEY idx_ps_suppkey (ps_suppkey)
)`,
	"supplier": `CREATE TABLE supplier (
  s_suppkey BIGINT NOT NULL,
  s_name CHAR(25) NOT NULL,
  s_address VARCHAR(40) NOT NULL,
  s_nationkey BIGINT NOT NULL,
  s_phone CHAR(15) NOT NULL,
  s_acctbal DECIMAL(15,2) NOT NULL,
  s_comment VARCHAR(101) NOT NULL,
  PRIMARY KEY (s_suppkey),
  KEY idx_s_nationkey (s_nationkey)
)`,
	"customer": `CREATE TABLE customer (
  c_custkey BIGINT NOT NULL,
  c_name VARCHAR(25) NOT NULL,
  c_address VARCHAR(40) NOT NULL,
  c_nationkey BIGINT NOT NULL,
  c_phone CHAR(15) NOT NULL,
  c_acctbal DECIMAL(15,2) NOT NULL,
  c_mktsegment CHAR(10) NOT NULL,
  c_comment VARCHAR(117) NOT NULL,
  PRIMARY KEY (c_custkey),
  KEY idx_c_nationkey (c_nationkey)
)`,
	"orders": `CREATE TABLE orders (
  o_orderkey BIGINT NOT NULL,
  o_custkey BIGINT NOT NULL,
  o_orderstatus CHAR(1) NOT NULL,
  o_totalprice DECIMAL(15,2) NOT NULL,
  o_orderdate DATE NOT NULL,
  o_orderpriority CHAR(15) NOT NULL,
  o_clerk CHAR(15) NOT NULL,
  o_shippriority INT NOT NULL,
  o_comment VARCHAR(79) NOT NULL,
  PRIMARY KEY (o_orderkey),
  KEY idx_o_custkey (o_custkey),
  KEY idx_o_orderdate (o_orderdate)
)`,
	"lineitem": `CREATE TABLE lineitem (
  l_orderkey BIGINT NOT NULL,
  l_partkey BIGINT NOT NULL,
  l_suppkey BIGINT NOT NULL,
  l_linenumber INT NOT NULL,
  l_quantity DECIMAL(15,2) NOT NULL,
  l_extendedprice DECIMAL(15,2) NOT NULL,
  l_discount DECIMAL(15,2) NOT NULL,
  l_tax DECIMAL(15,2) NOT NULL,
  l_returnflag CHAR(1) NOT NULL,
  l_linestatus CHAR(1) NOT NULL,
  l_shipdate DATE NOT NULL,
  l_commitdate DATE NOT NULL,
  l_receiptdate DATE NOT NULL,
  l_shipinstruct CHAR(25) NOT NULL,
  l_shipmode CHAR(10) NOT NULL,
  l_comment VARCHAR(44) NOT NULL,
  PRIMARY KEY (l_orderkey, l_linenumber),
  KEY idx_l_partkey_suppkey (l_partkey, l_suppkey),
  KEY idx_l_suppkey (l_suppkey),
  KEY idx_l_shipdate (l_shipdate)
)`,
	"nation": `CREATE TABLE nation (
  n_nationkey BIGINT NOT NULL,
  n_name CHAR(25) NOT NULL,
  n_regionkey BIGINT NOT NULL,
  n_comment VARCHAR(152) NOT NULL,
  PRIMARY KEY (n_nationkey),
  KEY idx_n_regionkey (n_regionkey)
)`,
	"region": `CREATE TABLE region (
  r_regionkey BIGINT NOT NULL,
  r_name CHAR(25) NOT NULL,
  r_comment VARCHAR(152) NOT NULL,
  PRIMARY KEY (r_regionkey)
)`,
}

// Dataset is the eight tables; lineitem's chunks are orders' (an order's
// lines in the chunk of its order).
func (w *tpch) Dataset() dataset.Dataset {
	s := w.scale
	if s == nil {
		s, _ = dbgen.NewScale(1)
	}
	ds := dataset.Dataset{Workload: "tpch", Meta: w.Sizes()}
	for _, t := range dbgen.Tables {
		name := t.Name
		chunk := int64(20000)
		if t.PerIndex > 1 {
			chunk = 5000
		}
		ds.Tables = append(ds.Tables, dataset.Table{
			Name: name, DDL: ddl[name], Columns: t.Columns, Rows: s.Indexes(name), ChunkRows: chunk,
			RowsPerIndex: t.PerIndex,
			Gen: func(_ *random.Rand, first, n int64, rw dataset.RowWriter) error {
				return s.Gen(name, first, n, &rowWriter{w: rw})
			},
			KeyColumn: t.Key,
			KeyOf:     func(i int64) int64 { return dbgen.KeyOf(name, i) },
		})
	}
	return ds
}

// rowWriter writes dbgen's values to the loader's encoders.
// rowWriter is dbgen's Writer on a dataset's: money formatted in buf,
// one buffer a chunk (a local array escapes through the interface call,
// one allocation a value).
type rowWriter struct {
	w   dataset.RowWriter
	buf [24]byte
}

func (r *rowWriter) Int(v int64)   { r.w.Int(v) }
func (r *rowWriter) Money(c int64) { r.w.Plain(dbgen.AppendMoney(r.buf[:0], c)) }
func (r *rowWriter) Str(b []byte)  { r.w.Bytes(b) }
func (r *rowWriter) EndRow() error { return r.w.EndRow() }

func (w *tpch) Hooks() workload.Hooks {
	h := workload.Hooks{Validate: w.validate, Restore: w.restore, Check: w.checkCommand}
	if w.refreshes() {
		h.Extra = func(co conn.Options) (workload.ExtraThreads, error) {
			return workload.ExtraThreads{N: 1, Conn: co}, nil
		}
	}
	if w.tiflash > 0 {
		h.AfterLoad = func(ctx context.Context, db *sql.DB, out io.Writer) error {
			var names []string
			for _, t := range dbgen.Tables {
				names = append(names, t.Name)
			}
			return conn.SetTiFlashReplicas(ctx, db, names, w.tiflash, out)
		}
	}
	return h
}

// validate finds the tables at this scale factor.
func (w *tpch) validate(ctx context.Context, db *sql.DB, schema string) error {
	var names []string
	for _, t := range dbgen.Tables {
		names = append(names, t.Name)
	}
	missing, err := conn.MissingTables(ctx, db, schema, names)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s missing in database %q: run oltpbench tpch prepare --sf=%s first",
			strings.Join(missing, ", "), schema, strconv.FormatFloat(w.sf, 'f', -1, 64))
	}
	ctx, cancel := w.bound(ctx)
	defer cancel()
	var maxSupp sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT MAX(s_suppkey) FROM supplier").Scan(&maxSupp); err != nil {
		return err
	}
	if maxSupp.Int64 != w.scale.Suppliers() {
		return fmt.Errorf("the tables in %q hold %d suppliers, and --sf=%s has %d: run with the --sf they were prepared with, or prepare again",
			schema, maxSupp.Int64, strconv.FormatFloat(w.sf, 'f', -1, 64), w.scale.Suppliers())
	}
	return nil
}

// restore puts back the orders an earlier run's refresh functions changed.
func (w *tpch) restore(ctx context.Context, db *sql.DB, schema string) error {
	if w.first > 1 {
		return nil // the client of stream 1 puts the orders back
	}
	ctx, cancel := w.bound(ctx)
	defer cancel()
	_, err := restore(ctx, db, w.scale)
	return err
}

// bound limits what ctx allows to --query-timeout and a grace (the
// restore and check's reads beside runs), when it is set.
func (w *tpch) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if w.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, w.timeout+clientGrace)
}

// rowsOf is what a table holds at a scale factor, as dbgen makes it.
func rowsOf(s *dbgen.Scale, table string) int64 {
	if table == "lineitem" {
		return s.LineItems()
	}
	if table == "partsupp" {
		return s.Parts() * 4
	}
	return s.Indexes(table)
}
