package evidence

import (
	"encoding/json"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// TestQueriesParse: every evidence query parses with the TiDB parser (the
// TiDB one is run on TiDB only, which cannot be had here), and they read
// only what they name.
func TestQueriesParse(t *testing.T) {
	for _, q := range []string{summaryQuery, digestQuery, preparedQuery, "SHOW GLOBAL STATUS", "SELECT @@tidb_enable_stmt_summary",
		metricsQuery("2026-12-04 08:00:00", "2026-12-04 08:05:00"), "SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s')"} {
		stmts, warns, err := parser.New().Parse(q, "", "")
		if err != nil || len(warns) > 0 || len(stmts) != 1 {
			t.Errorf("%s: %v %v", q, err, warns)
		}
	}
	// The window reaches TiDB as its time_range hint, not as a comment
	// the parser drops.
	stmts, _, _ := parser.New().Parse(metricsQuery("2026-12-04 08:00:00", "2026-12-04 08:05:00"), "", "")
	sel, ok := stmts[0].(*ast.SelectStmt)
	if !ok || len(sel.TableHints) != 1 || sel.TableHints[0].HintName.L != "time_range" {
		t.Errorf("hints of the metrics query: %+v", sel)
	}
}

// TestOwnQueries: the evidence queries, and oltpbench's own tables, are not
// the workload's statements.
func TestOwnQueries(t *testing.T) {
	for q, own := range map[string]bool{summaryQuery: true, digestQuery: true, "SHOW GLOBAL STATUS": true,
		"SELECT `k` , `v` FROM `oltpbench_dataset`": true, "SELECT c FROM sbtest1 WHERE id=?": false} {
		if ownQuery(q) != own {
			t.Errorf("ownQuery(%q) = %v", q, !own)
		}
	}
}

// TestShapes: a plan's shape keeps tables, access types, indexes and the
// operations around them, and drops estimates, costs and conditions, so a
// plan that only estimates differently is the same plan.
func TestShapes(t *testing.T) {
	plan := func(rows, access, key string) any {
		var doc any
		src := `{"query_block":{"select_id":1,"cost":12.5,"filesort":{"sort_key":"c","table":{"table_name":"sbtest1","access_type":"` + access +
			`","possible_keys":["PRIMARY"],` + key + `"rows":` + rows + `,"filtered":100,"attached_condition":"id between 5 and 104"}}}}`
		if err := json.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	a, b := JSONShape(plan("100", "range", `"key":"PRIMARY",`)), JSONShape(plan("97", "range", `"key":"PRIMARY",`))
	if a != "filesort; sbtest1 range PRIMARY" || a != b {
		t.Errorf("shapes %q, %q", a, b)
	}
	if c := JSONShape(plan("10000", "ALL", "")); c != "filesort; sbtest1 ALL" {
		t.Errorf("a full scan's shape %q", c)
	}
	brief := [][]string{{"StreamAgg", "1.00", "root", "", "funcs:count(1)"}, {"└─IndexReader", "9.00", "root", "", "index:StreamAgg"},
		{"  └─IndexRangeScan", "250.00", "cop[tikv]", "table:sbtest1, index:k_1(k)", "range:[5,104]"}}
	if s := BriefShape(brief); s != "StreamAgg root; └─IndexReader root;   └─IndexRangeScan cop[tikv] table:sbtest1, index:k_1(k)" {
		t.Errorf("brief shape %q", s)
	}
}
