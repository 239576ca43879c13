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

// Opt declares one test option: sysbench's name (with '_'), help and default,
// and where its value goes.
type Opt struct {
	Name    string
	Help    string
	Kind    OptKind
	Int     *int64
	IntP    *int
	Bool    *bool
	String  *string
	Default string
	Tests   []string // nil: every OLTP test
}

// Decl lists the options bound to o, in sysbench's help order.
func Decl(o *Options) []Opt {
	i := func(name, help string, p *int, def string) Opt {
		return Opt{Name: name, Help: help, Kind: OptInt, IntP: p, Default: def}
	}
	i64 := func(name, help string, p *int64, def string) Opt {
		return Opt{Name: name, Help: help, Kind: OptInt, Int: p, Default: def}
	}
	b := func(name, help string, p *bool, def string) Opt {
		return Opt{Name: name, Help: help, Kind: OptBool, Bool: p, Default: def}
	}
	s := func(name, help string, p *string, def string) Opt {
		return Opt{Name: name, Help: help, Kind: OptString, String: p, Default: def}
	}
	opts := []Opt{
		b("auto_inc", "Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs", &o.AutoInc, "on"),
		b("create_secondary", "Create a secondary index in addition to the PRIMARY KEY", &o.CreateSecondary, "on"),
		s("create_table_options", "Extra table options appended to CREATE TABLE, e.g. 'COLLATE latin1_bin' (sysbench's mysql_table_options)", &o.TableOptions, ""),
		i("delete_inserts", "Number of DELETE/INSERT combinations per transaction", &o.DeleteInserts, "1"),
		i("distinct_ranges", "Number of SELECT DISTINCT queries per transaction", &o.DistinctRanges, "1"),
		i("index_updates", "Number of UPDATE index queries per transaction", &o.IndexUpdates, "1"),
		s("mysql_storage_engine", "Storage engine, if MySQL is used", &o.StorageEngine, "innodb"),
		i("non_index_updates", "Number of UPDATE non-index queries per transaction", &o.NonIndexUpdates, "1"),
		i("order_ranges", "Number of SELECT ORDER BY queries per transaction", &o.OrderRanges, "1"),
		i("point_selects", "Number of point SELECT queries per transaction", &o.PointSelects, "10"),
		b("range_selects", "Enable/disable all range SELECT queries", &o.RangeSelects, "on"),
		i64("range_size", "Range size for range SELECT queries", &o.RangeSize, "100"),
		b("secondary", "Use a secondary index in place of the PRIMARY KEY", &o.Secondary, "off"),
		i("simple_ranges", "Number of simple range SELECT queries per transaction", &o.SimpleRanges, "1"),
		b("skip_trx", "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode", &o.SkipTrx, "off"),
		i("sum_ranges", "Number of SELECT SUM() queries per transaction", &o.SumRanges, "1"),
		i64("table_size", "Number of rows per table", &o.TableSize, "10000"),
		i("tables", "Number of tables", &o.Tables, "1"),
	}
	rp := i("random_points", "Number of random points in the IN() clause in generated SELECTs", &o.RandomPoints, "10")
	rp.Tests = []string{"select_random_points"}
	nr := i("number_of_ranges", "Number of random BETWEEN ranges per SELECT", &o.NumberOfRanges, "10")
	nr.Tests = []string{"select_random_ranges"}
	de := i64("delta", "Size of BETWEEN ranges", &o.Delta, "5")
	de.Tests = []string{"select_random_ranges"}
	return append(opts, rp, nr, de)
}
