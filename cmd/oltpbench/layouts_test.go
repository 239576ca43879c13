package main

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/oltpbench/oltpbench/tpcc"
)

// TestTPCCLayoutsParse: every layout's DDL (each partition type, clustered
// or not, both schemas) parses with the TiDB parser, the partitions and
// the NONCLUSTERED keys where asked for.
func TestTPCCLayoutsParse(t *testing.T) {
	for _, s := range tpcc.Schemas {
		for _, l := range []tpcc.Layout{{}, {Partitions: 4, PartitionType: tpcc.PartitionHash}, {Partitions: 4, PartitionType: tpcc.PartitionRange},
			{Partitions: 4, PartitionType: tpcc.PartitionList}, {Partitions: 12, PartitionType: tpcc.PartitionList, Nonclustered: true}} {
			plain := tpcc.Tables(s, 100, 1, tpcc.Layout{})
			for i, tb := range tpcc.Tables(s, 100, 1, l) {
				if _, _, err := parser.New().Parse(tb.DDL, "", ""); err != nil {
					t.Errorf("%s %+v %s: %v\n%s", s.Name, l, tb.Name, err, tb.DDL)
				}
				// Every table keyed by warehouse is partitioned by it
				// (item and BenchmarkSQL's config are not).
				keyed := tb.Name != s.Table("item") && tb.Name != tpcc.ConfigTable
				if want := "PARTITION BY " + strings.ToUpper(l.PartitionType); l.Partitions > 0 && keyed && !strings.Contains(tb.DDL, want) {
					t.Errorf("%s %s: no %s:\n%s", s.Name, tb.Name, want, tb.DDL)
				}
				if l.Nonclustered && strings.Contains(plain[i].DDL, " CLUSTERED */") && !strings.Contains(tb.DDL, " NONCLUSTERED */") {
					t.Errorf("%s %s: clustered:\n%s", s.Name, tb.Name, tb.DDL)
				}
			}
		}
	}
	// Twelve list partitions of 100 warehouses: groups of 9, the last of 1.
	ddl := tpcc.Tables(tpcc.SchemaTPCC, 100, 1, tpcc.Layout{Partitions: 12, PartitionType: tpcc.PartitionList})[1].DDL
	if !strings.Contains(ddl, "PARTITION p0 VALUES IN (1,2,3,4,5,6,7,8,9), ") || !strings.Contains(ddl, "PARTITION p11 VALUES IN (100))") {
		t.Errorf("list groups:\n%s", ddl)
	}
}

// TestTPCCLayouts (issue 34's acceptance): each partition type loads, runs
// and passes the consistency checks on MariaDB; --active-warehouses runs
// on exactly those warehouses (checked from the data: no new order, line,
// payment or year-to-date on the others).
func TestTPCCLayouts(t *testing.T) {
	needServer(t)
	for _, layout := range [][]string{{"--partitions=2", "--partition-type=range"}, {"--partitions=2", "--partition-type=list", "--clustered=off"}, {"--partitions=2", "--partition-type=hash"}} {
		t.Run(strings.TrimPrefix(layout[1], "--partition-type="), func(t *testing.T) {
			db := "tpcc_layout_" + strings.TrimPrefix(layout[1], "--partition-type=")
			freshDB(t, db)
			mustOK(t, tp(t, db, append([]string{"prepare", "--warehouses=2", "--threads=2"}, layout...)...), "prepare")
			var parts int
			if err := openDB(t, db).QueryRow("SELECT COUNT(*) FROM information_schema.partitions WHERE table_schema = ? AND table_name = 'stock' AND partition_method = ?",
				db, strings.ToUpper(strings.TrimPrefix(layout[1], "--partition-type="))).Scan(&parts); err != nil || parts != 2 {
				t.Fatalf("stock has %d partitions of its type (%v)", parts, err)
			}
			mustOK(t, tp(t, db, "run", "--warehouses=2", "--threads=4", "--txns-per-terminal=50"), "run")
			checksPass(t, tp(t, db, "check", "--warehouses=2"), 11)
		})
	}
	t.Run("active-warehouses", func(t *testing.T) {
		db := "tpcc_active"
		freshDB(t, db)
		prepared(t, db, "tpcc", "prepare", "--warehouses=2")
		mustOK(t, tp(t, db, "run", "--warehouses=2", "--active-warehouses=1", "--threads=4", "--txns-per-terminal=50"), "run")
		d := openDB(t, db)
		for q, want := range map[string]string{
			"SELECT COUNT(*) > 0 FROM orders WHERE o_w_id = 1 AND o_id > 3000":                             "1",
			"SELECT COUNT(*) FROM orders WHERE o_w_id = 2 AND o_id > 3000":                                 "0",
			"SELECT COUNT(*) FROM order_line WHERE ol_o_id > 3000 AND (ol_w_id = 2 OR ol_supply_w_id = 2)": "0",
			"SELECT COUNT(*) FROM history WHERE h_w_id = 2 OR h_c_w_id = 2":                                "30000",
			"SELECT w_ytd FROM warehouse WHERE w_id = 2":                                                   "300000.00",
		} {
			var got string
			if err := d.QueryRow(q).Scan(&got); err != nil || got != want {
				t.Errorf("%s: %s (%v), want %s", q, got, err, want)
			}
		}
		checksPass(t, tp(t, db, "check", "--warehouses=2"), 11)
		r := tp(t, db, "run", "--warehouses=2", "--active-warehouses=3", "--time=1s")
		if r.code == 0 || !strings.Contains(r.stderr, "invalid --active-warehouses=3: 1 to --warehouses (2), or 0 for all") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	})
}
