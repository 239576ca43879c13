// Package sysbench is the sysbench 1.0.20 OLTP suite: the eleven tests with
// sysbench's schema, statements, per-event mix, options and defaults, and its
// text report. Statements and options are declared as data, events as lists of
// steps, after sysbench's oltp_common.lua.
package sysbench

// Options are the test options of oltp_common.lua and the per-test scripts.
type Options struct {
	Tables          int
	TableSize       int64
	RangeSize       int64
	PointSelects    int
	SimpleRanges    int
	SumRanges       int
	OrderRanges     int
	DistinctRanges  int
	IndexUpdates    int
	NonIndexUpdates int
	DeleteInserts   int
	RangeSelects    bool
	AutoInc         bool
	SkipTrx         bool
	Secondary       bool
	CreateSecondary bool
	StorageEngine   string
	TableOptions    string // --create-table-options (sysbench's mysql_table_options)
	RandomPoints    int    // select_random_points
	NumberOfRanges  int    // select_random_ranges
	Delta           int64  // select_random_ranges
	PreparedStmts   bool   // --db-ps-mode=auto
	Threads         int    // bulk_insert makes one table per thread; random points split by thread
}

// Defaults returns sysbench 1.0.20's defaults.
func Defaults() Options {
	return Options{Tables: 1, TableSize: 10000, RangeSize: 100, PointSelects: 10, SimpleRanges: 1,
		SumRanges: 1, OrderRanges: 1, DistinctRanges: 1, IndexUpdates: 1, NonIndexUpdates: 1,
		DeleteInserts: 1, RangeSelects: true, AutoInc: true, CreateSecondary: true,
		StorageEngine: "innodb", RandomPoints: 10, NumberOfRanges: 10, Delta: 5, PreparedStmts: true, Threads: 1}
}

// OptKind is how an option's value is spelled.
type OptKind int

const (
	OptInt OptKind = iota
	OptBool
	OptString
)

// Opt declares one test option: sysbench's name (with '_'), help, and where
// its value goes; the default is the value there (Defaults).
type Opt struct {
	Name   string
	Help   string
	Kind   OptKind
	Int    *int64
	IntP   *int
	Bool   *bool
	String *string
	Tests  []string // nil: every OLTP test
}

// Decl lists the options bound to o, in sysbench's help order.
func Decl(o *Options) []Opt {
	i := func(name, help string, p *int) Opt { return Opt{Name: name, Help: help, Kind: OptInt, IntP: p} }
	i64 := func(name, help string, p *int64) Opt { return Opt{Name: name, Help: help, Kind: OptInt, Int: p} }
	b := func(name, help string, p *bool) Opt { return Opt{Name: name, Help: help, Kind: OptBool, Bool: p} }
	s := func(name, help string, p *string) Opt { return Opt{Name: name, Help: help, Kind: OptString, String: p} }
	opts := []Opt{
		b("auto_inc", "Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs", &o.AutoInc),
		b("create_secondary", "Create a secondary index in addition to the PRIMARY KEY", &o.CreateSecondary),
		s("create_table_options", "Extra table options appended to CREATE TABLE, e.g. 'COLLATE latin1_bin' (sysbench's mysql_table_options)", &o.TableOptions),
		i("delete_inserts", "Number of DELETE/INSERT combinations per transaction", &o.DeleteInserts),
		i("distinct_ranges", "Number of SELECT DISTINCT queries per transaction", &o.DistinctRanges),
		i("index_updates", "Number of UPDATE index queries per transaction", &o.IndexUpdates),
		s("mysql_storage_engine", "Storage engine, if MySQL is used", &o.StorageEngine),
		i("non_index_updates", "Number of UPDATE non-index queries per transaction", &o.NonIndexUpdates),
		i("order_ranges", "Number of SELECT ORDER BY queries per transaction", &o.OrderRanges),
		i("point_selects", "Number of point SELECT queries per transaction", &o.PointSelects),
		b("range_selects", "Enable/disable all range SELECT queries", &o.RangeSelects),
		i64("range_size", "Range size for range SELECT queries", &o.RangeSize),
		b("secondary", "Use a secondary index in place of the PRIMARY KEY", &o.Secondary),
		i("simple_ranges", "Number of simple range SELECT queries per transaction", &o.SimpleRanges),
		b("skip_trx", "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode", &o.SkipTrx),
		i("sum_ranges", "Number of SELECT SUM() queries per transaction", &o.SumRanges),
		i64("table_size", "Number of rows per table", &o.TableSize),
		i("tables", "Number of tables", &o.Tables),
	}
	rp := i("random_points", "Number of random points in the IN() clause in generated SELECTs", &o.RandomPoints)
	rp.Tests = []string{"select_random_points"}
	nr := i("number_of_ranges", "Number of random BETWEEN ranges per SELECT", &o.NumberOfRanges)
	nr.Tests = []string{"select_random_ranges"}
	de := i64("delta", "Size of BETWEEN ranges", &o.Delta)
	de.Tests = []string{"select_random_ranges"}
	return append(opts, rp, nr, de)
}
