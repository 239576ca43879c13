package tpcc

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/random"
)

func writeProps(t *testing.T, text string) *props {
	t.Helper()
	path := filepath.Join(t.TempDir(), "props.mysql")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := readProps(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Every key of BenchmarkSQL's props.mysql becomes an oltpbench option, per
// command; what oltpbench does not implement is listed, not dropped.
func TestPropsKeys(t *testing.T) {
	p := writeProps(t, `db=mysql
driver=com.mysql.jdbc.Driver
// a comment, as in run/props.mysql
conn=jdbc:mysql://db1:4000,db2:4000/tpcc?useSSL=true&useServerPrepStmts=true&sessionVariables=tidb_batch_commit=1
user=root
password=s3cret
warehouses=1000
loadWorkers=32
terminals=128
runTxnsPerTerminal=0
runMins=10
limitTxnsPerMin=0
terminalWarehouseFixed=false
newOrderWeight=45
paymentWeight=43
orderStatusWeight=4
deliveryWeight=4
stockLevelWeight=4
resultDirectory=my_result_%tY-%tm-%td_%tH%tM%tS
osCollectorScript=./misc/os_collector_linux.py
osCollectorInterval=1
# another comment
long=a\
b
`)
	got, ignored, err := p.flags("run")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"mysql-host": "db1,db2", "mysql-port": "4000", "mysql-db": "tpcc", "mysql-ssl": "on",
		"mysql-session-vars": "tidb_batch_commit=1", "mysql-user": "root", "mysql-password": "s3cret", "warehouses": "1000",
		"threads": "128", "time": "10m", "limit-tpm": "0", "home-warehouse": "random", "weights": "45,43,4,4,4",
		"result-directory": "my_result_%tY-%tm-%td_%tH%tM%tS"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("run options:\n got %v\nwant %v", got, want)
	}
	if strings.Join(ignored, ",") != "conn parameter useServerPrepStmts,long,osCollectorInterval,osCollectorScript" {
		t.Errorf("ignored: %v", ignored)
	}
	if p.kv["long"] != "ab" {
		t.Errorf("continued line: %q", p.kv["long"])
	}
	prep, _, _ := p.flags("prepare")
	if prep["threads"] != "32" || prep["result-directory"] != "" {
		t.Errorf("prepare takes loadWorkers and no result directory: %v", prep)
	}
	p2 := writeProps(t, "runTxnsPerTerminal=500\nrunMins=0\nterminalWarehouseFixed=true\nfileLocation=/data/csv\nconn=jdbc:mysql://h/db\n")
	got, _, _ = p2.flags("run")
	if got["txns-per-terminal"] != "500" || got["time"] != "" || got["home-warehouse"] != "fixed" || got["mysql-port"] != "3306" {
		t.Errorf("count mode: %v", got)
	}
	got, _, _ = p2.flags("prepare")
	if got["dir"] != "/data/csv" || got["load-mode"] != "csv" {
		t.Errorf("fileLocation: %v", got)
	}
}

func TestPropsBadInput(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"runMins=5\nrunTxnsPerTerminal=100\n", "set one of them to 0"},
		{"newOrderWeight=50\npaymentWeight=43\n", "add up to 105"},
		{"db=postgres\n", "db=postgres"},
		{"conn=jdbc:postgresql://h/db\n", "not a jdbc:mysql"},
		{"warehouses=many\n", "warehouses=many is not a count"},
		{"terminalWarehouseFixed=maybe\n", "true or false"},
		{"conn=jdbc:mysql://a:1,b:2,c:3,d/x\n", "different ports"},
	} {
		_, _, err := writeProps(t, c.text).flags("run")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := readProps(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "cannot read --props") {
		t.Errorf("missing file: %v", err)
	}
}

// terminalWarehouseFixed=false: one terminal's transactions go to every
// warehouse; fixed, to its own.
func TestRandomHomeWarehouse(t *testing.T) {
	for _, randomHome := range []bool{false, true} {
		r := NewRun(Config{Warehouses: 5, Threads: 10, Weights: DefaultWeights, RandomHome: randomHome, RunSeed: 3})
		st := &threadState{rand: nil, pending: -1, next: -1, last: -1}
		w := &terminal{r: r, st: st}
		for tx, x := range transactions {
			w.tx[tx] = x.new()
		}
		st.rand = random.NewRand(3)
		st.deck = append([]int(nil), r.deck...)
		st.pos = len(st.deck)
		st.homes = []int64{2}
		seen := map[int64]bool{}
		for i := 0; i < 500; i++ {
			w.Wait(nil)
			seen[st.in.w] = true
			st.next = -1
		}
		if randomHome && len(seen) != 5 || !randomHome && (len(seen) != 1 || !seen[2]) {
			t.Errorf("random home %v: warehouses used %v", randomHome, seen)
		}
	}
}
