package sysbench

import (
	"fmt"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// Templates of random digits: 10 groups of 11 (119 characters) and 5 groups (59).
const (
	cTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	padTemplate = "###########-###########-###########-###########-###########"
)

// ChunkRows is fixed so that a dataset is the same at any --threads.
const ChunkRows = 25000

// TableName returns sbtestN.
func TableName(n int) string { return fmt.Sprintf("sbtest%d", n) }

// DDL returns table n's CREATE TABLE and CREATE INDEX statements, as
// oltp_common.lua's create_table writes them.
func DDL(o *Options, n int) string {
	idDef := "INTEGER NOT NULL"
	if o.AutoInc {
		idDef += " AUTO_INCREMENT"
	}
	idIndex := "PRIMARY KEY"
	if o.Secondary {
		idIndex = "KEY xid"
	}
	ddl := fmt.Sprintf("CREATE TABLE sbtest%d(\n  id %s,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  %s (id)\n) /*! ENGINE = %s */ %s",
		n, idDef, idIndex, o.StorageEngine, o.TableOptions)
	if o.CreateSecondary {
		ddl += fmt.Sprintf(";\nCREATE INDEX k_%d ON sbtest%d(k)", n, n)
	}
	return ddl
}

// Tables returns the dataset of a prepare of test t. dist draws k as the run
// would (sysbench uses the default distribution for k).
func (t *Test) Tables(o *Options, dist *random.Dist) []dataset.Table {
	if t.custom == bulkInsertEvent {
		var out []dataset.Table
		for i := 1; i <= o.Threads; i++ {
			out = append(out, dataset.Table{Name: TableName(i), Columns: []string{"id", "k"}, ChunkRows: ChunkRows,
				DDL: fmt.Sprintf("CREATE TABLE IF NOT EXISTS sbtest%d (\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  PRIMARY KEY (id))", i)})
		}
		return out
	}
	rows := o.TableSize
	if t.custom == insertEvent && !o.AutoInc {
		// Empty tables: ids from prepare could collide with the unique sequence.
		rows = 0
	}
	size := o.TableSize
	var out []dataset.Table
	for i := 1; i <= o.Tables; i++ {
		out = append(out, dataset.Table{
			Name:      TableName(i),
			DDL:       DDL(o, i),
			Columns:   []string{"id", "k", "c", "pad"},
			Rows:      rows,
			ChunkRows: ChunkRows,
			KeyColumn: "id",
			KeyOf:     func(row int64) int64 { return row + 1 },
			Gen: func(r *random.Rand, first, n int64, w dataset.RowWriter) error {
				r.SetDist(dist)
				var c [len(cTemplate)]byte
				var pad [len(padTemplate)]byte
				for row := first; row < first+n; row++ {
					// Ids are written even with AUTO_INCREMENT so that a load is
					// the same whatever order chunks arrive in.
					w.Int(row + 1)
					w.Int(r.Default(1, max(size, 1)))
					r.Digits(c[:], cTemplate)
					w.Plain(c[:])
					r.Digits(pad[:], padTemplate)
					w.Plain(pad[:])
					if err := w.EndRow(); err != nil {
						return err
					}
				}
				return nil
			},
		})
	}
	return out
}

// TableNames lists the tables cleanup drops and run expects.
func (t *Test) TableNames(o *Options) []string {
	n := o.Tables
	if t.custom == bulkInsertEvent {
		n = o.Threads
	}
	var names []string
	for i := 1; i <= n; i++ {
		names = append(names, TableName(i))
	}
	return names
}

// ExpectsRows reports whether run needs table_size rows in each table.
func (t *Test) ExpectsRows(o *Options) bool {
	return t.custom != bulkInsertEvent && !(t.custom == insertEvent)
}

// PrewarmSQL returns the statements that read table n's data and index into
// the server's cache (sysbench's cmd_prewarm, plus the secondary index scan
// TiDB's guide recommends).
func PrewarmSQL(o *Options, n int) []string {
	t := TableName(n)
	q := []string{
		fmt.Sprintf("SELECT AVG(id) FROM (SELECT * FROM %s FORCE KEY (PRIMARY) LIMIT %d) t", t, o.TableSize),
		fmt.Sprintf("SELECT COUNT(*) FROM (SELECT * FROM %s WHERE k LIKE '%%0%%' LIMIT %d) t", t, o.TableSize),
	}
	if o.Secondary {
		q[0] = fmt.Sprintf("SELECT AVG(id) FROM (SELECT * FROM %s FORCE KEY (xid) LIMIT %d) t", t, o.TableSize)
	}
	if o.CreateSecondary {
		q = append(q, fmt.Sprintf("SELECT COUNT(pad) FROM %s USE INDEX (k_%d)", t, n))
	}
	return q
}
