package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// props writes a BenchmarkSQL props file for db on the test server, with
// the password-protected test account.
func propsFile(t *testing.T, db string, extra string) string {
	t.Helper()
	text := `db=mysql
driver=com.mysql.jdbc.Driver
conn=jdbc:mysql://` + testHost + `:` + testPort + `/` + db + `?useSSL=false&useServerPrepStmts=true&sessionVariables=sql_mode=STRICT_TRANS_TABLES
user=sbtest
password=sbtest-secret
warehouses=2
loadWorkers=3
terminals=3
//To run specified transactions per terminal- runMins must equal zero
runTxnsPerTerminal=150
runMins=0
limitTxnsPerMin=0
terminalWarehouseFixed=true
newOrderWeight=45
paymentWeight=43
orderStatusWeight=4
deliveryWeight=4
stockLevelWeight=4
osCollectorScript=./misc/os_collector_linux.py
osCollectorInterval=1
` + extra
	path := filepath.Join(t.TempDir(), "props.mysql")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func bmsqlLine(t *testing.T, out, what string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d,\d{3} \[main\] INFO   jTPCC : Term-00, ` + regexp.QuoteMeta(what) + ` = (\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q line:\n%s", what, out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// A BenchmarkSQL user's props file drives prepare and run: connection,
// account, sizes, counts per terminal, the result directory, BenchmarkSQL's
// end-of-run lines; the command line wins; unimplemented keys are named
// once; the password shows nowhere.
func TestTPCCProps(t *testing.T) {
	needServer(t)
	db := "bm_props"
	freshDB(t, db)
	dir := t.TempDir()
	props := propsFile(t, db, "resultDirectory="+dir+"/my_result_%tY-%tm-%td_%tH%tM%tS\n")
	var outputs []string
	run := func(args ...string) res {
		t.Helper()
		r := ob(t, nil, append([]string{"tpcc"}, args...)...)
		outputs = append(outputs, r.stdout, r.stderr)
		mustOK(t, r, strings.Join(args, " "))
		return r
	}
	r := run("prepare", "--props="+props, "--schema=benchmarksql", "--progress=off")
	if n := strings.Count(r.stderr, "osCollectorScript"); n != 1 || !strings.Contains(r.stderr, "not implemented, ignored") {
		t.Errorf("unimplemented keys named %d times:\n%s", n, r.stderr)
	}
	r = run("run", "--props="+props, "--schema=benchmarksql")
	if got := bmsqlLine(t, r.stdout, "Transaction Count"); got != 450 {
		t.Errorf("Transaction Count = %v, want 3 terminals x 150", got)
	}
	tpmC, total := bmsqlLine(t, r.stdout, "Measured tpmC (NewOrders)"), bmsqlLine(t, r.stdout, "Measured tpmTOTAL")
	if tpmC <= 0 || total <= tpmC {
		t.Errorf("tpmC %v, tpmTOTAL %v", tpmC, total)
	}
	for _, l := range []string{"Session Start     = 20", "Session End       = 20", "C value for C_LAST during load: ", "C value for C_LAST this run: "} {
		if !strings.Contains(r.stdout, "INFO   jTPCC : Term-00, "+l) {
			t.Errorf("no %q line", l)
		}
	}
	runDelta(t, regexp.MustCompile(`(?m)^.*INFO   jTPCC : Term-00, `).ReplaceAllString(r.stdout, ""))
	// The result directory, column by column.
	dirs, _ := filepath.Glob(filepath.Join(dir, "my_result_20*"))
	if len(dirs) != 1 || !regexp.MustCompile(`my_result_\d{4}-\d\d-\d\d_\d{6}$`).MatchString(dirs[0]) {
		t.Fatalf("result directories: %v", dirs)
	}
	rows := readCSV(t, filepath.Join(dirs[0], "data", "result.csv"))
	if strings.Join(rows[0], ",") != "run,elapsed,latency,dblatency,ttype,rbk,dskipped,error" {
		t.Errorf("result.csv header %v", rows[0])
	}
	types := map[string]int{}
	lastElapsed := map[string]int{}
	for _, row := range rows[1:] {
		if len(row) != 8 || row[0] != "1" || row[5] != "0" && row[5] != "1" || row[7] != "0" && row[7] != "1" {
			t.Fatalf("bad row %v", row)
		}
		el, err1 := strconv.Atoi(row[1])
		lat, err2 := strconv.Atoi(row[2])
		sk, err3 := strconv.Atoi(row[6])
		if err1 != nil || err2 != nil || err3 != nil || lat < 0 || lat > el || sk < 0 || sk > 10 || row[2] != row[3] {
			t.Fatalf("bad numbers %v", row)
		}
		types[row[4]]++
		lastElapsed[row[4]] = el
	}
	if len(rows)-1 != 450 || types["NEW_ORDER"] == 0 || types["PAYMENT"] == 0 || types["ORDER_STATUS"] == 0 || types["DELIVERY"] == 0 || types["STOCK_LEVEL"] == 0 {
		t.Errorf("%d rows, types %v", len(rows)-1, types)
	}
	if float64(types["NEW_ORDER"]) < 0.40*450 || float64(types["NEW_ORDER"]) > 0.50*450 {
		t.Errorf("NEW_ORDER rows %d of 450", types["NEW_ORDER"])
	}
	info := readCSV(t, filepath.Join(dirs[0], "data", "runInfo.csv"))
	if strings.Join(info[0], ",") != "run,driver,driverVersion,db,sessionStart,runMins,loadWarehouses,runWarehouses,numSUTThreads,limitTxnsPerMin,thinkTimeMultiplier,keyingTimeMultiplier" ||
		len(info) != 2 || info[1][0] != "1" || info[1][3] != "mysql" || info[1][6] != "2" || info[1][7] != "2" || info[1][8] != "3" || info[1][9] != "0" {
		t.Errorf("runInfo.csv: %v", info)
	}
	rp, _ := os.ReadFile(filepath.Join(dirs[0], "run.properties"))
	if !strings.Contains(string(rp), "terminals=3") || !strings.Contains(string(rp), "password=****") {
		t.Errorf("run.properties is not the props file with the password hidden:\n%s", rp)
	}
	// The command line wins: 2 terminals.
	r = run("run", "--props="+props, "--schema=benchmarksql", "--threads=2", "--result-directory=")
	if got := bmsqlLine(t, r.stdout, "Transaction Count"); got != 300 {
		t.Errorf("with --threads=2: Transaction Count = %v, want 300", got)
	}
	for i, o := range outputs {
		if strings.Contains(o, "sbtest-secret") {
			t.Errorf("output %d shows the password", i)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dirs[0], "run.properties")); strings.Contains(string(b), "sbtest-secret") {
		t.Error("run.properties holds the password")
	}
	// A result directory that exists is refused, as BenchmarkSQL does.
	fixed := filepath.Join(t.TempDir(), "same")
	run("run", "--props="+props, "--schema=benchmarksql", "--result-directory="+fixed)
	if r := ob(t, nil, "tpcc", "run", "--props="+props, "--schema=benchmarksql", "--result-directory="+fixed); r.code == 0 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("existing result directory: exit %d, %q", r.code, r.stderr)
	}
}

// limitTxnsPerMin (--limit-tpm) paces the run to its rate; a count per
// terminal (--txns-per-terminal) ends it at the count.
func TestTPCCThrottleAndCount(t *testing.T) {
	needServer(t)
	db := "tpcc_throttle"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=2")
	// 100 transactions a second on 16 terminals: each may take 160 ms and
	// the pace still holds (12,000 a minute on 8 fell 4% behind beside
	// make test's other shards). The seed fixes the arrivals.
	r := tp(t, db, "run", "--warehouses=2", "--threads=16", "--time=8s", "--limit-tpm=6000", "--rand-seed=7", "--output=benchmarksql")
	mustOK(t, r, "throttled run")
	if got := bmsqlLine(t, r.stdout, "Measured tpmTOTAL"); got < 6000*0.98 || got > 6000*1.02 {
		t.Errorf("tpmTOTAL %.0f, limit 6000: off by more than 2%%", got)
	}
	r = tp(t, db, "run", "--warehouses=2", "--threads=5", "--txns-per-terminal=123", "--output=benchmarksql")
	mustOK(t, r, "count run")
	if got := bmsqlLine(t, r.stdout, "Transaction Count"); got != 5*123 {
		t.Errorf("Transaction Count %v, want %d", got, 5*123)
	}
	if r := tp(t, db, "run", "--warehouses=2", "--result-directory="+t.TempDir()+"/x"); r.code == 0 || !strings.Contains(r.stderr, "--output=benchmarksql") {
		t.Errorf("--result-directory without the output: exit %d, %q", r.code, r.stderr)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
