// Package dataset is what a workload loads: tables as DDL plus a chunked,
// deterministic row source, and the typed row writers the loader's encoders
// implement.
package dataset

import "github.com/oltpbench/oltpbench/internal/random"

// RowWriter receives generated rows value by value. It is implemented by the
// INSERT encoder, the LOAD DATA stream and the CSV encoder; typed methods keep
// the per-value path free of interface boxing.
type RowWriter interface {
	Int(v int64)
	// Float writes v with a fixed number of decimals.
	Float(v float64, decimals int)
	// Str writes a string value; Bytes is the same without a conversion.
	Str(s string)
	Bytes(b []byte)
	// Plain writes a string the caller knows holds no quote, separator,
	// backslash or line break (generated alphanumerics), skipping the scan.
	Plain(b []byte)
	Null()
	// EndRow closes the row; an error aborts the chunk.
	EndRow() error
}

// Table is DDL text plus a row source that can produce any chunk from its
// index alone, so output is the same at any parallelism.
type Table struct {
	Name    string
	DDL     string   // CREATE TABLE ... as the user would see it, secondary indexes included
	Columns []string // columns in the order Gen writes them
	Rows    int64    // total rows
	// ChunkRows is fixed by the workload, never derived from --threads.
	ChunkRows int64
	// Gen writes rows [first, first+n) (0-based row numbers). r is seeded from
	// (dataset seed, table, chunk) by the caller.
	Gen func(r *random.Rand, first, n int64, w RowWriter) error
	// KeyColumn is the leading primary-key column and KeyOf maps a row number
	// to its value, so a half-loaded chunk can be deleted by key range. A
	// chunk's rows must be exactly those whose key is in [KeyOf(first),
	// KeyOf(last)]: chunks never share a key value.
	KeyColumn string
	KeyOf     func(row int64) int64
	// RowsPerIndex is how many rows Gen writes per row number on average
	// (order lines per order); 0 means 1. Only estimates use it.
	RowsPerIndex float64
}

// EstimatedRows is the expected number of rows Gen writes in all.
func (t *Table) EstimatedRows() int64 { return t.EstimatedRowsOf(t.Rows) }

// EstimatedRowsOf is the expected number of rows Gen writes for n row numbers.
func (t *Table) EstimatedRowsOf(n int64) int64 {
	if t.RowsPerIndex == 0 {
		return n
	}
	return int64(float64(n) * t.RowsPerIndex)
}

// Chunks returns the number of chunks of t.
func (t *Table) Chunks() int64 {
	if t.Rows == 0 {
		return 0
	}
	return (t.Rows + t.ChunkRows - 1) / t.ChunkRows
}

// ChunkRange returns the first row and row count of chunk c.
func (t *Table) ChunkRange(c int64) (first, n int64) {
	first = c * t.ChunkRows
	n = t.ChunkRows
	if first+n > t.Rows {
		n = t.Rows - first
	}
	return first, n
}

// Dataset is what a load makes: tables, and the options that define their
// rows (recorded with the data and checked when resuming).
type Dataset struct {
	Workload string
	Meta     map[string]string
	// Extends names the workload whose complete dataset this one adds
	// tables to (CH-benCHmark on TPC-C's): a database holding that one,
	// made with the same options, is extended rather than refused.
	Extends string
	// Views are made once the tables are complete, and dropped with them.
	Views  []View
	Tables []Table
	// Names are the tables by the names of the benchmark's standard (TPC-C's
	// spec: "warehouse") -> their names in this dataset's layout
	// ("bmsql_warehouse"), every one of them: what a workload built on this
	// dataset (CH's queries) writes its statements with.
	Names map[string]string
}

// View is a view over the dataset's tables; DDL is CREATE OR REPLACE VIEW.
type View struct {
	Name string
	DDL  string
}
