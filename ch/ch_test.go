package ch

import (
	"github.com/oltpbench/oltpbench/internal/conn"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// The 22 queries, the view and the TiFlash statements parse as TiDB reads
// them (no TiDB server here), in both layouts.
func TestSQLParsesForTiDB(t *testing.T) {
	if len(Queries) != 22 {
		t.Fatalf("%d queries, want 22", len(Queries))
	}
	bmsql := map[string]string{"orders": "bmsql_oorder", "order_line": "bmsql_order_line", "stock": "bmsql_stock",
		"customer": "bmsql_customer", "item": "bmsql_item", "new_order": "bmsql_new_order"}
	ds := dataset.Dataset{Tables: Tables()}
	var names []string
	for _, t := range ds.Tables {
		names = append(names, t.Name)
	}
	stmts := append(conn.TiFlashSQL(names, 2), revenue1, renamed(revenue1, bmsql), conn.TiFlashPending)
	for _, q := range Queries {
		stmts = append(stmts, q.SQL, renamed(q.SQL, bmsql), "EXPLAIN ANALYZE "+q.SQL)
	}
	for _, s := range stmts {
		if _, _, err := parser.New().Parse(s, "", ""); err != nil {
			t.Errorf("TiDB's parser refuses %q: %v", s, err)
		}
	}
	if q := renamed(Queries[2].SQL, bmsql); !strings.Contains(q, "bmsql_oorder") || strings.Contains(q, " orders") || !strings.Contains(q, "o_entry_d") {
		t.Errorf("renamed Q3 for BenchmarkSQL's layout:\n%s", q)
	}
}

func TestSelectQueries(t *testing.T) {
	qs, err := SelectQueries("q1, Q14,q22")
	if err != nil || len(qs) != 3 || qs[1].Name != "q14" || qs[2].Name != "q22" {
		t.Errorf("q1,q14,q22: %v %v", qs, err)
	}
	for _, bad := range []string{"q0", "q23", "x1", "q1,,q2"} {
		if _, err := SelectQueries(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// nation holds the spec's 62 nations keyed by the ASCII codes of
// [0-9A-Za-z], every name once, every region used.
func TestNations(t *testing.T) {
	names, regions, keys := map[string]bool{}, map[int64]bool{}, map[int64]bool{}
	for i, n := range nations {
		names[n.name], regions[n.region], keys[nationKeys[i]] = true, true, true
	}
	if len(names) != Nations || len(regions) != Regions || len(keys) != Nations {
		t.Errorf("%d names, %d regions, %d keys", len(names), len(regions), len(keys))
	}
	for _, c := range "09AZaz" {
		if !keys[int64(c)] {
			t.Errorf("no nation keyed %d (%c)", c, c)
		}
	}
	for _, n := range []string{"CHINA", "JAPAN", "INDIA", "GERMANY"} {
		if !names[n] {
			t.Errorf("no %s, which the queries name", n)
		}
	}
}

type rows struct{ n, bad int }

func (r *rows) Int(int64)          {}
func (r *rows) Float(float64, int) {}
func (r *rows) Str(s string) {
	if s == "" {
		r.bad++
	}
}
func (r *rows) Bytes([]byte)   {}
func (r *rows) Plain(b []byte) { r.Str(string(b)) }
func (r *rows) Null()          { r.bad++ }
func (r *rows) EndRow() error  { r.n++; return nil }

// The tables write their rows in full, no empty or NULL values.
func TestTablesGenerate(t *testing.T) {
	for _, tb := range Tables() {
		var w rows
		var r random.Rand
		r.Seed(1, 2)
		if err := tb.Gen(&r, 0, tb.Rows, &w); err != nil || int64(w.n) != tb.Rows || w.bad > 0 {
			t.Errorf("%s: %d rows (want %d), %d empty values, %v", tb.Name, w.n, tb.Rows, w.bad, err)
		}
	}
}
