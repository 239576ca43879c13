package evidence

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// TestQueriesParse: every evidence query parses with the TiDB parser (the
// TiDB one is run on TiDB only, which cannot be had here), and they read
// only what they name.
func TestQueriesParse(t *testing.T) {
	for _, q := range []string{summaryQuery, digestQuery, preparedQuery, "SHOW GLOBAL STATUS", "SELECT @@tidb_enable_stmt_summary"} {
		if _, _, err := parser.New().Parse(q, "", ""); err != nil {
			t.Errorf("%s: %v", q, err)
		}
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
