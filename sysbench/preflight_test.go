package sysbench

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/workload"
)

// TestPreflightWarnings: --rand-type=special warns on TiDB only, and the
// prepared statements a run needs are counted against the server's limit.
func TestPreflightWarnings(t *testing.T) {
	s := &suite{}
	fs := pflag.NewFlagSet("sysbench", pflag.ContinueOnError)
	s.Flags(fs, &workload.RunOptions{})
	if err := fs.Parse([]string{"--tables=2"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Setup(&workload.Setup{Command: "run", Args: []string{"oltp_read_write"}, Threads: 4}); err != nil {
		t.Fatal(err)
	}
	n := s.kind.(*native)
	per := n.test.preparedPerThread(&n.o)
	if per < 10 {
		t.Fatalf("read_write on 2 tables prepares %d statements per thread", per)
	}
	vars := map[string]string{"max_prepared_stmt_count": "16382"}
	if w := n.preflight(workload.Server{Version: "10.11.6-MariaDB", Variables: vars}, 4); len(w) != 0 {
		t.Errorf("MariaDB, room for statements: %v", w)
	}
	w := n.preflight(workload.Server{Version: "8.0.11-TiDB-v8.1.0", TiDB: true, Variables: map[string]string{"max_prepared_stmt_count": "20"}}, 4)
	if len(w) != 2 || !strings.Contains(w[0], "max_prepared_stmt_count is 20") || !strings.Contains(w[1], "--rand-type=uniform") {
		t.Errorf("TiDB, 20 statements at most: %v", w)
	}
}
