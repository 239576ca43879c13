package tpcc

import (
	"fmt"
	"regexp"
	"strings"
)

// Schema is a table layout the workload runs on: the statements, checks and
// generators are written once with TPC-C's table names, and a Schema names
// the tables and writes their DDL. Columns keep the spec's names in every
// layout, so loads name their columns and order does not matter.
type Schema struct {
	Name   string
	names  map[string]string // spec name -> table name; nil: the spec's
	ddl    func(l Layout) map[string]string
	config bool // a bmsql_config table with the load's constants
}

// SchemaTPCC is oltpbench's own layout: the spec's table names.
var SchemaTPCC = &Schema{Name: "tpcc", ddl: ddl}

// Schemas are the layouts --schema offers.
var Schemas = []*Schema{SchemaTPCC, SchemaBenchmarkSQL}

// SchemaNamed returns the layout called name.
func SchemaNamed(name string) (*Schema, error) {
	var names []string
	for _, s := range Schemas {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("invalid --schema=%s: use %s", name, strings.Join(names, " or "))
}

// Table is the name of the spec's table t in this layout.
func (s *Schema) Table(t string) string {
	if n, ok := s.names[t]; ok {
		return n
	}
	return t
}

// TableNames are the layout's tables, in load order.
func (s *Schema) TableNames() []string {
	out := make([]string, 0, len(TableNames)+1)
	for _, t := range TableNames {
		out = append(out, s.Table(t))
	}
	if s.config {
		out = append(out, ConfigTable)
	}
	return out
}

// tableWord matches a spec table name as a whole word; column names
// (w_id, s_order_cnt, ...) never do.
var tableWord = regexp.MustCompile(`\b(warehouse|district|customer|history|new_order|orders|order_line|item|stock)\b`)

// SQL renames the spec's tables in a statement to this layout's.
func (s *Schema) SQL(q string) string {
	if s.names == nil {
		return q
	}
	return tableWord.ReplaceAllStringFunc(q, s.Table)
}

// Partition types (--partition-type), go-tpc's kinds of warehouse
// partitioning: by hash, by range of warehouses, or by lists of them (the
// same contiguous groups, as TiDB Cloud's TPC-C reports run them).
const (
	PartitionHash  = "hash"
	PartitionRange = "range"
	PartitionList  = "list"
)

// Layout is how a dataset's tables are laid out beyond their names: their
// partitioning by warehouse, clustered primary keys on TiDB, foreign keys.
type Layout struct {
	Warehouses    int64
	Partitions    int    // 0: none
	PartitionType string // hash (""), range or list
	Nonclustered  bool   // TiDB: primary keys NONCLUSTERED (--clustered=off)
	ForeignKeys   bool
}

// partition partitions a warehouse-keyed table by its warehouse column col.
// Range and list partitions hold contiguous groups of warehouses, the last
// group the rest.
func (l Layout) partition(col string) string {
	n := int64(l.Partitions)
	if n <= 0 {
		return ""
	}
	per := (l.Warehouses + n - 1) / n
	var parts []string
	switch l.PartitionType {
	case PartitionRange:
		for i := int64(0); i < n; i++ {
			bound := "MAXVALUE"
			if i < n-1 {
				bound = fmt.Sprint(1 + (i+1)*per)
			}
			parts = append(parts, fmt.Sprintf("PARTITION p%d VALUES LESS THAN (%s)", i, bound))
		}
		return fmt.Sprintf(" PARTITION BY RANGE (%s) (%s)", col, strings.Join(parts, ", "))
	case PartitionList:
		for i := int64(0); i < n; i++ {
			var ws []string
			for w := 1 + i*per; w <= min((i+1)*per, l.Warehouses); w++ {
				ws = append(ws, fmt.Sprint(w))
			}
			parts = append(parts, fmt.Sprintf("PARTITION p%d VALUES IN (%s)", i, strings.Join(ws, ",")))
		}
		return fmt.Sprintf(" PARTITION BY LIST (%s) (%s)", col, strings.Join(parts, ", "))
	}
	return fmt.Sprintf(" PARTITION BY HASH(%s) PARTITIONS %d", col, n)
}

// CheckPartitions says whether the layout's partitioning can hold its
// warehouses: a list or range partition of none is refused by the server.
func (l Layout) CheckPartitions() error {
	switch l.PartitionType {
	case "", PartitionHash:
	case PartitionRange, PartitionList:
		if l.Partitions > 0 && int64(l.Partitions) > l.Warehouses {
			return fmt.Errorf("--partitions=%d with --partition-type=%s: at most one partition per warehouse (%d)", l.Partitions, l.PartitionType, l.Warehouses)
		}
		if per := (l.Warehouses + int64(l.Partitions) - 1) / max(int64(l.Partitions), 1); l.Partitions > 0 && int64(l.Partitions-1)*per >= l.Warehouses {
			return fmt.Errorf("--partitions=%d with --partition-type=%s over %d warehouses leaves a partition empty: fewer partitions", l.Partitions, l.PartitionType, l.Warehouses)
		}
	default:
		return fmt.Errorf("invalid --partition-type=%s: %s, %s or %s", l.PartitionType, PartitionHash, PartitionRange, PartitionList)
	}
	return nil
}

// clustered marks a primary key clustered on TiDB (or, off, not); MySQL and
// MariaDB read it as a comment.
func (l Layout) clustered() string {
	if l.Nonclustered {
		return " /*T![clustered_index] NONCLUSTERED */"
	}
	return " /*T![clustered_index] CLUSTERED */"
}

// ddl returns the CREATE TABLE of every table, with the secondary indexes the
// transactions and checks need (history by customer: without it condition 10
// cannot finish on MySQL or MariaDB). partitions > 0 hashes the warehouse-keyed
// tables by warehouse.
// Foreign keys are BenchmarkSQL's (bmsql.go); this layout has none.
func ddl(l Layout) map[string]string {
	part, clustered := l.partition, l.clustered()
	return map[string]string{
		"warehouse": `CREATE TABLE warehouse (
  w_id INT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20), w_city VARCHAR(20),
  w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2),
  PRIMARY KEY (w_id)` + clustered + `)` + part("w_id"),
		"district": `CREATE TABLE district (
  d_id INT NOT NULL, d_w_id INT NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20),
  d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT,
  PRIMARY KEY (d_w_id, d_id)` + clustered + `)` + part("d_w_id"),
		"customer": `CREATE TABLE customer (
  c_id INT NOT NULL, c_d_id INT NOT NULL, c_w_id INT NOT NULL, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16),
  c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16),
  c_since DATETIME, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2),
  c_ytd_payment DECIMAL(12,2), c_payment_cnt INT, c_delivery_cnt INT, c_data VARCHAR(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id)` + clustered + `,
  KEY idx_customer (c_w_id, c_d_id, c_last, c_first))` + part("c_w_id"),
		"history": `CREATE TABLE history (
  h_c_id INT NOT NULL, h_c_d_id INT NOT NULL, h_c_w_id INT NOT NULL, h_d_id INT NOT NULL, h_w_id INT NOT NULL,
  h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24),
  KEY idx_h_w_id (h_w_id, h_d_id),
  KEY idx_h_c_w_id (h_c_w_id, h_c_d_id, h_c_id))` + part("h_w_id"),
		"new_order": `CREATE TABLE new_order (
  no_o_id INT NOT NULL, no_d_id INT NOT NULL, no_w_id INT NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)` + clustered + `)` + part("no_w_id"),
		"orders": `CREATE TABLE orders (
  o_id INT NOT NULL, o_d_id INT NOT NULL, o_w_id INT NOT NULL, o_c_id INT, o_entry_d DATETIME, o_carrier_id INT,
  o_ol_cnt INT, o_all_local INT,
  PRIMARY KEY (o_w_id, o_d_id, o_id)` + clustered + `,
  KEY idx_order (o_w_id, o_d_id, o_c_id, o_id))` + part("o_w_id"),
		"order_line": `CREATE TABLE order_line (
  ol_o_id INT NOT NULL, ol_d_id INT NOT NULL, ol_w_id INT NOT NULL, ol_number INT NOT NULL, ol_i_id INT NOT NULL,
  ol_supply_w_id INT, ol_delivery_d DATETIME, ol_quantity INT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24),
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)` + clustered + `)` + part("ol_w_id"),
		"item": `CREATE TABLE item (
  i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50),
  PRIMARY KEY (i_id)` + clustered + `)`,
		"stock": `CREATE TABLE stock (
  s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, s_dist_01 CHAR(24), s_dist_02 CHAR(24), s_dist_03 CHAR(24),
  s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24),
  s_dist_10 CHAR(24), s_ytd INT, s_order_cnt INT, s_remote_cnt INT, s_data VARCHAR(50),
  PRIMARY KEY (s_w_id, s_i_id)` + clustered + `)` + part("s_w_id"),
	}
}

// TableNames lists the nine tables, in load order (small first).
var TableNames = []string{"item", "warehouse", "district", "customer", "history", "orders", "new_order", "order_line", "stock"}
