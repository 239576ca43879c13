package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serverBytes is the server's Bytes_received and Bytes_sent.
func serverBytes(t *testing.T) (recv, sent float64) {
	t.Helper()
	rows, err := openDB(t, "").Query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Bytes_received', 'Bytes_sent')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v float64
		rows.Scan(&k, &v)
		if k == "Bytes_received" {
			recv = v
		} else {
			sent = v
		}
	}
	return recv, sent
}

var queriesRE = regexp.MustCompile(`queries: +(\d+)`)

// TestMySQLCompression: --mysql-compression=on compresses the protocol:
// oltp_read_only's replies (random strings of digits) take about half the
// bytes per query on the wire, as the server counts them.
func TestMySQLCompression(t *testing.T) {
	needServer(t)
	db := "opt_compress"
	freshDB(t, db)
	size := []string{"--tables=1", "--table-size=10000"}
	mustOK(t, sb(t, db, append([]string{"oltp_common", "prepare"}, size...)...), "prepare")
	perQuery := func(c string) (recv, sent float64) {
		r0, s0 := serverBytes(t)
		r := sb(t, db, append([]string{"oltp_read_only", "run", "--events=200", "--threads=1", "--mysql-compression=" + c}, size...)...)
		mustOK(t, r, "run")
		r1, s1 := serverBytes(t)
		m := queriesRE.FindStringSubmatch(r.stdout)
		q, _ := strconv.ParseFloat(m[1], 64)
		return (r1 - r0) / q, (s1 - s0) / q
	}
	offR, offS := perQuery("off")
	onR, onS := perQuery("on")
	t.Logf("bytes per query: received %.1f -> %.1f, sent %.1f -> %.1f, on the wire %.2fx", offR, onR, offS, onS, (onR+onS)/(offR+offS))
	if onS > 0.7*offS || onR+onS > 0.75*(offR+offS) {
		t.Errorf("with compression %.0f+%.0f bytes a query, without %.0f+%.0f", onR, onS, offR, offS)
	}
}

// TestMySQLDebug: --mysql-debug prints each client call as sysbench's trace
// of its driver: the connection (no password), each statement prepared
// once, each execution, and the text statements in --db-ps-mode=disable.
func TestMySQLDebug(t *testing.T) {
	needServer(t)
	db := "opt_debug"
	freshDB(t, db)
	size := []string{"--tables=1", "--table-size=100"}
	mustOK(t, sb(t, db, append([]string{"oltp_common", "prepare"}, size...)...), "prepare")
	r := ob(t, nil, append([]string{"sysbench", "oltp_read_write", "run", "--events=1", "--threads=1", "--mysql-debug=on", "--mysql-host=" + testHost,
		"--mysql-port=" + testPort, "--mysql-user=sbtest", "--mysql-password=sbtest-secret", "--mysql-db=" + db}, size...)...)
	mustOK(t, r, "run")
	connect := regexp.MustCompile(`DEBUG: mysql_real_connect\(0x[0-9a-f]+, "` + regexp.QuoteMeta(testHost) + `", "sbtest", "\*\*\*\*", "` + db + `", ` + testPort + `, "\(null\)", CLIENT_MULTI_STATEMENTS\)`)
	if !connect.MatchString(r.stdout) || strings.Contains(r.stdout+r.stderr, "sbtest-secret") {
		t.Errorf("the connection line, without the password:\n%s", r.stdout)
	}
	m := queriesRE.FindStringSubmatch(r.stdout)
	if prep, exec := strings.Count(r.stdout, "DEBUG: mysql_stmt_prepare("), strings.Count(r.stdout, "DEBUG: mysql_stmt_execute("); prep != 11 || m == nil || strconv.Itoa(exec) != m[1] {
		t.Errorf("%d statements prepared (want read_write's 11), %d executed for %v queries:\n%s", prep, exec, m, r.stdout)
	}
	r = sb(t, db, append([]string{"oltp_read_write", "run", "--events=1", "--threads=1", "--mysql-debug", "--db-ps-mode=disable"}, size...)...)
	mustOK(t, r, "run")
	m = queriesRE.FindStringSubmatch(r.stdout)
	if n := strings.Count(r.stdout, "DEBUG: mysql_real_query("); m == nil || strconv.Itoa(n) != m[1] || !strings.Contains(r.stdout, `DEBUG: mysql_real_query(`) ||
		!regexp.MustCompile(`mysql_real_query\(0x[0-9a-f]+, "SELECT c FROM sbtest1 WHERE id=\d+", \d+\) = 0`).MatchString(r.stdout) {
		t.Errorf("text statements traced %d times for %v queries:\n%s", n, m, r.stdout)
	}
	// Off by default: nothing traced.
	r = sb(t, db, append([]string{"oltp_point_select", "run", "--events=5"}, size...)...)
	if strings.Contains(r.stdout, "DEBUG:") {
		t.Errorf("traced without --mysql-debug:\n%s", r.stdout)
	}
}

// TestThreadInitTimeout: a script whose thread_init takes two seconds
// runs under the default bound (30 s, sysbench's) and stops, in sysbench's
// words, under --thread-init-timeout=1.
func TestThreadInitTimeout(t *testing.T) {
	needServer(t)
	script := filepath.Join("testdata", "lua", "slowinit.lua")
	start := time.Now()
	r := ob(t, nil, "sysbench", script, "--thread-init-timeout=1", "--time=5", "run")
	if r.code == 0 || !strings.Contains(r.stderr, "FATAL: Worker threads failed to initialize within 1 seconds!") || time.Since(start) > 4*time.Second {
		t.Errorf("--thread-init-timeout=1: exit %d after %v\n%s%s", r.code, time.Since(start), r.stdout, r.stderr)
	}
	mustOK(t, ob(t, nil, "sysbench", script, "--time=1", "run"), "the default bound")
}

// TestDebugHeader: --debug says so in the header, as sysbench does.
func TestDebugHeader(t *testing.T) {
	needServer(t)
	r := ob(t, nil, "sysbench", "oltp_read_write", "run", "--mysql-dry-run", "--time=1", "--debug", "--mysql-port=1")
	if mustOK(t, r, "dry run"); !strings.Contains(r.stdout, "Number of threads: 1\nDebug mode enabled.\n\nInitializing") {
		t.Errorf("--debug:\n%s", r.stdout)
	}
}

// TestSoak runs make soak scaled down: two client processes through a
// server restart, sampled, checked for growth and for events lost.
func TestSoak(t *testing.T) {
	needServer(t)
	if testing.Short() {
		t.Skip("a soak")
	}
	dir := t.TempDir()
	cmd := exec.Command("make", "-C", "../..", "soak")
	cmd.Env = append(os.Environ(), "SOAK_MIN=6", "SOAK_SAMPLE_S=3", "SOAK_RESTART_MIN=3", "SOAK_SB_THREADS=4", "SOAK_TPCC_THREADS=2",
		"SOAK_TABLE_SIZE=2000", "SOAK_WAREHOUSES=1", "SOAK_SB_RATE=50", "SOAK_TPCC_TPM=1200", "TMPDIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "soak: PASS") || strings.Count(string(out), "server restarted") != 1 {
		t.Fatalf("make soak: %v\n%s", err, out)
	}
	// SOAK_SB_RATE paces sysbench (50 events a second: its arrivals over
	// the run stand within 10%); SOAK_TPCC_TPM paces TPC-C (unthrottled,
	// its 42 s took both cores from the other shards' tests).
	if m := regexp.MustCompile(`soak: sysbench: +transactions: +\d+ +\(([\d.]+) per sec\.\)`).FindStringSubmatch(string(out)); m == nil || mustFloat(m[1]) > 55 {
		t.Errorf("sysbench not paced at SOAK_SB_RATE=50:\n%s", out)
	}
	// At 20 transactions a second for 42 s, New-Orders (10 of the deck's
	// 23) are at most 420.
	if m := regexp.MustCompile(`soak: TPC-C: (\d+) New-Orders committed`).FindStringSubmatch(string(out)); m == nil || mustFloat(m[1]) < 1 || mustFloat(m[1]) > 420 {
		t.Errorf("TPC-C not paced at SOAK_TPCC_TPM=1200:\n%s", out)
	}
	samples, _ := filepath.Glob(filepath.Join(dir, "oltpbench-soak.*", "samples.csv"))
	if len(samples) != 1 {
		t.Fatalf("samples: %v", samples)
	}
	b, _ := os.ReadFile(samples[0])
	if !regexp.MustCompile(`(?m)^6,sb,[1-9]\d+,[1-9]\d*,[1-9]\d*$`).Match(b) || !regexp.MustCompile(`(?m)^6,tpcc,[1-9]\d+,`).Match(b) {
		t.Errorf("samples.csv:\n%s", b)
	}
}

func mustFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return f
}
