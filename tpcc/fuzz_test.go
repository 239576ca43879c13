package tpcc

import (
	"strings"
	"testing"
)

// FuzzProps: a BenchmarkSQL props file gives oltpbench options for each
// command, or one error line.
func FuzzProps(f *testing.F) {
	f.Add([]byte("db=mysql\ndriver=com.mysql.jdbc.Driver\nconn=jdbc:mysql://db1:4000,db2:4000/tpcc?useSSL=true&useServerPrepStmts=true&sessionVariables=tidb_batch_commit=1\n" +
		"user=root\npassword=secret\nwarehouses=1000\nloadWorkers=16\nterminals=64\nrunTxnsPerTerminal=0\nrunMins=10\nlimitTxnsPerMin=0\n" +
		"terminalWarehouseFixed=true\nnewOrderWeight=45\npaymentWeight=43\norderStatusWeight=4\ndeliveryWeight=4\nstockLevelWeight=4\n" +
		"resultDirectory=my_result_%tY-%tm-%td_%tH%tM%tS\nosCollectorScript=./misc/os_collector_linux.py\n"))
	f.Add([]byte("conn=jdbc:postgresql://h/db\n"))
	f.Add([]byte("warehouses=many\nrunMins=\\\n5\n! comment\nkey:value\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := parseProps("p.props", b)
		for _, cmd := range []string{"prepare", "run", "check", "cleanup"} {
			if _, _, err := p.flags(cmd); err != nil {
				if m := err.Error(); m == "" || strings.Contains(m, "\n") {
					t.Fatalf("%s: want one error line, got %q", cmd, m)
				}
			}
		}
	})
}
