package tpcc

import (
	"fmt"
	"strconv"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// BenchmarkSQL 5.0's layout (its MySQL tableCreates.sql, written here from
// the documented facts): bmsql_* tables with orders as bmsql_oorder, the TPC-C
// column names in its order, timestamp dates, an auto-increment hist_id in
// history, and bmsql_config holding the load's NURand C constants.
var SchemaBenchmarkSQL = &Schema{
	Name: "benchmarksql",
	names: map[string]string{"warehouse": "bmsql_warehouse", "district": "bmsql_district", "customer": "bmsql_customer",
		"history": "bmsql_history", "new_order": "bmsql_new_order", "orders": "bmsql_oorder", "order_line": "bmsql_order_line",
		"item": "bmsql_item", "stock": "bmsql_stock"},
	ddl:    bmsqlDDL,
	config: true,
}

// ConfigTable is BenchmarkSQL's table of the load's settings.
const ConfigTable = "bmsql_config"

func bmsqlDDL(l Layout) map[string]string {
	part, clustered := l.partition, l.clustered()
	fk := func(name, cols, ref string) string {
		if !l.ForeignKeys {
			return ""
		}
		return ",\n  CONSTRAINT " + name + " FOREIGN KEY (" + cols + ") REFERENCES " + ref
	}
	return map[string]string{
		"warehouse": `CREATE TABLE bmsql_warehouse (
  w_id INTEGER NOT NULL, w_ytd DECIMAL(12,2), w_tax DECIMAL(4,4), w_name VARCHAR(10), w_street_1 VARCHAR(20),
  w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9),
  PRIMARY KEY (w_id)` + clustered + `)` + part("w_id"),
		"district": `CREATE TABLE bmsql_district (
  d_w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, d_ytd DECIMAL(12,2), d_tax DECIMAL(4,4), d_next_o_id INTEGER,
  d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9),
  PRIMARY KEY (d_w_id, d_id)` + clustered + fk("d_warehouse_fkey", "d_w_id", "bmsql_warehouse (w_id)") + `)` + part("d_w_id"),
		"customer": `CREATE TABLE bmsql_customer (
  c_w_id INTEGER NOT NULL, c_d_id INTEGER NOT NULL, c_id INTEGER NOT NULL, c_discount DECIMAL(4,4), c_credit CHAR(2),
  c_last VARCHAR(16), c_first VARCHAR(16), c_credit_lim DECIMAL(12,2), c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2),
  c_payment_cnt INTEGER, c_delivery_cnt INTEGER, c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20),
  c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), c_since TIMESTAMP NULL, c_middle CHAR(2), c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id)` + clustered + `,
  KEY bmsql_customer_idx1 (c_w_id, c_d_id, c_last, c_first)` + fk("c_district_fkey", "c_w_id, c_d_id", "bmsql_district (d_w_id, d_id)") + `)` + part("c_w_id"),
		// The index by customer is oltpbench's: without it condition 10
		// cannot finish on MySQL or MariaDB. BenchmarkSQL runs with or without it.
		"history": `CREATE TABLE bmsql_history (
  hist_id INTEGER NOT NULL AUTO_INCREMENT, h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, h_w_id INTEGER,
  h_date TIMESTAMP NULL, h_amount DECIMAL(6,2), h_data VARCHAR(24),
  PRIMARY KEY (hist_id` + historyPKExtra(l.Partitions) + `),
  KEY bmsql_history_idx_c (h_c_w_id, h_c_d_id, h_c_id)` +
			fk("h_customer_fkey", "h_c_w_id, h_c_d_id, h_c_id", "bmsql_customer (c_w_id, c_d_id, c_id)") +
			fk("h_district_fkey", "h_w_id, h_d_id", "bmsql_district (d_w_id, d_id)") + `)` + part("h_w_id"),
		"new_order": `CREATE TABLE bmsql_new_order (
  no_w_id INTEGER NOT NULL, no_d_id INTEGER NOT NULL, no_o_id INTEGER NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)` + clustered + fk("no_order_fkey", "no_w_id, no_d_id, no_o_id", "bmsql_oorder (o_w_id, o_d_id, o_id)") + `)` + part("no_w_id"),
		"orders": `CREATE TABLE bmsql_oorder (
  o_w_id INTEGER NOT NULL, o_d_id INTEGER NOT NULL, o_id INTEGER NOT NULL, o_c_id INTEGER, o_carrier_id INTEGER,
  o_ol_cnt INTEGER, o_all_local INTEGER, o_entry_d TIMESTAMP NULL,
  PRIMARY KEY (o_w_id, o_d_id, o_id)` + clustered + `,
  UNIQUE KEY bmsql_oorder_idx1 (o_w_id, o_d_id, o_c_id, o_id)` + fk("o_customer_fkey", "o_w_id, o_d_id, o_c_id", "bmsql_customer (c_w_id, c_d_id, c_id)") + `)` + part("o_w_id"),
		"order_line": `CREATE TABLE bmsql_order_line (
  ol_w_id INTEGER NOT NULL, ol_d_id INTEGER NOT NULL, ol_o_id INTEGER NOT NULL, ol_number INTEGER NOT NULL, ol_i_id INTEGER NOT NULL,
  ol_delivery_d TIMESTAMP NULL, ol_amount DECIMAL(6,2), ol_supply_w_id INTEGER, ol_quantity INTEGER, ol_dist_info CHAR(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)` + clustered +
			fk("ol_order_fkey", "ol_w_id, ol_d_id, ol_o_id", "bmsql_oorder (o_w_id, o_d_id, o_id)") +
			fk("ol_stock_fkey", "ol_supply_w_id, ol_i_id", "bmsql_stock (s_w_id, s_i_id)") + `)` + part("ol_w_id"),
		"item": `CREATE TABLE bmsql_item (
  i_id INTEGER NOT NULL, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50), i_im_id INTEGER,
  PRIMARY KEY (i_id)` + clustered + `)`,
		"stock": `CREATE TABLE bmsql_stock (
  s_w_id INTEGER NOT NULL, s_i_id INTEGER NOT NULL, s_quantity INTEGER, s_ytd INTEGER, s_order_cnt INTEGER, s_remote_cnt INTEGER,
  s_data VARCHAR(50), s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24),
  s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24),
  PRIMARY KEY (s_w_id, s_i_id)` + clustered +
			fk("s_warehouse_fkey", "s_w_id", "bmsql_warehouse (w_id)") +
			fk("s_item_fkey", "s_i_id", "bmsql_item (i_id)") + `)` + part("s_w_id"),
	}
}

// historyPKExtra: a partitioned table's primary key must hold the
// partitioning column.
func historyPKExtra(partitions int) string {
	if partitions > 0 {
		return ", h_w_id"
	}
	return ""
}

// configTable is bmsql_config: the warehouse count and the load's C
// constants, which BenchmarkSQL's runs (and oltpbench's) read back.
func configTable(w int64, c NURandC) dataset.Table {
	rows := [][2]string{
		{"nURandCC_ID", strconv.FormatInt(c.ID, 10)},
		{"nURandCI_ID", strconv.FormatInt(c.Item, 10)},
		{"nURandCLast", strconv.FormatInt(c.Last, 10)},
		{"warehouses", strconv.FormatInt(w, 10)},
	}
	return dataset.Table{Name: ConfigTable, DDL: "CREATE TABLE " + ConfigTable + " (\n  cfg_name VARCHAR(30) NOT NULL, cfg_value VARCHAR(50),\n  PRIMARY KEY (cfg_name))",
		Columns: []string{"cfg_name", "cfg_value"}, Rows: int64(len(rows)), ChunkRows: int64(len(rows)),
		Gen: func(_ *random.Rand, first, n int64, wr dataset.RowWriter) error {
			for _, r := range rows[first : first+n] {
				wr.Str(r[0])
				wr.Str(r[1])
				if err := wr.EndRow(); err != nil {
					return err
				}
			}
			return nil
		}}
}

// runConstant picks the run's C for C_LAST from the load's by the delta
// rule (clause 2.1.6.1): 65 <= |run - load| <= 119, and not 96 or 112.
func runConstant(load int64, seed uint64) int64 {
	r := random.NewRand(seed, 0x6c617374)
	for {
		if c := r.Uniform(0, 255); deltaOK(load, c) == nil {
			return c
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// deltaOK says whether run and load C_LAST constants keep the delta rule.
func deltaOK(load, run int64) error {
	if d := abs(run - load); d < 65 || d > 119 || d == 96 || d == 112 {
		return fmt.Errorf("C_LAST constants %d (load) and %d (run) differ by %d, outside 65..119 (or 96, 112)", load, run, d)
	}
	return nil
}
