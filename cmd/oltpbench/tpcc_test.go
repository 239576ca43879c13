package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

func tp(t *testing.T, db string, args ...string) res {
	t.Helper()
	return ob(t, nil, append(append([]string{"tpcc"}, args...), "--mysql-host="+testHost, "--mysql-port="+testPort, "--mysql-user=root", "--db="+db, "--progress=off")...)
}

func checksPass(t *testing.T, r res, want int) {
	t.Helper()
	mustOK(t, r, "check")
	if n := strings.Count(r.stdout, " PASS "); n != want || strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("%d conditions passed, want %d:\n%s", n, want, r.stdout)
	}
}

// Prepare in each load mode, all twelve checks right after, a run with
// several threads, then every check but 11 again.
func TestTPCCLoadRunCheck(t *testing.T) {
	needServer(t)
	for _, c := range []struct {
		mode string
		w    string
	}{{"local", "2"}, {"insert", "1"}, {"import", "1"}} {
		t.Run(c.mode, func(t *testing.T) {
			db := "tpcc_" + c.mode
			freshDB(t, db)
			args := []string{"prepare", "--warehouses=" + c.w, "--threads=2", "--load-mode=" + c.mode}
			if c.mode == "import" {
				args = append(args, "--dir="+t.TempDir())
			}
			mustOK(t, tp(t, db, args...), "prepare")
			checksPass(t, tp(t, db, "check", "--warehouses="+c.w, "--checks=all"), 12)
			out := filepath.Join(t.TempDir(), "r.json")
			r := tp(t, db, "run", "--warehouses="+c.w, "--threads=6", "--txns-per-terminal=60", "--report-interval=1s", "--result-file="+out)
			mustOK(t, r, "run")
			if !regexp.MustCompile(`tpmC: [1-9][\d.]*, tpmTotal: [\d.]+, efficiency: n/a \(no keying or think times: it applies with --wait\)`).MatchString(r.stdout) {
				t.Fatalf("no tpmC, or an efficiency without --wait:\n%s", r.stdout)
			}
			if res, err := result.Read(out); err != nil || res.NotApplicable["efficiency"] == "" || res.Figures["tpmTotal"] == 0 {
				t.Errorf("result without --wait: figures %v, not applicable %v (%v)", res.Figures, res.NotApplicable, err)
			} else if _, ok := res.Figures["efficiency"]; ok {
				t.Errorf("efficiency %v recorded without --wait", res.Figures["efficiency"])
			}
			for _, name := range []string{"new_order", "payment", "order_status", "delivery", "stock_level"} {
				if !regexp.MustCompile(`(?m)^` + name + ` +[1-9]\d* `).MatchString(r.stdout) {
					t.Errorf("no %s in the final table:\n%s", name, r.stdout)
				}
			}
			if !strings.Contains(r.stdout, "Run-time audit:") || !strings.Contains(r.stdout, "average lines per New-Order") {
				t.Errorf("no audit:\n%s", r.stdout)
			}
			if strings.Contains(r.stdout, "FAIL") { // a short correct run is "too few samples" where it cannot tell
				t.Errorf("a short correct run fails the audit:\n%s", r.stdout)
			}
			b, _ := os.ReadFile(out)
			if !bytes.Contains(b, []byte(`"name": "stock_level"`)) || !bytes.Contains(b, []byte(`"workload": "tpcc"`)) {
				t.Errorf("result file lacks the per-type histograms:\n%.400s", b)
			}
			checksPass(t, tp(t, db, "check", "--warehouses="+c.w), 11)
			stockMatchesOrderLines(t, db)
		})
	}
}

// stockMatchesOrderLines checks what New-Order did to stock, which no
// consistency condition covers: the load leaves the counters at zero, so
// they must sum to the run's order lines (orders past the loaded 3,000), and
// the quantity rule keeps every S_QUANTITY within [10, 100] (clause 2.4.2.2).
func stockMatchesOrderLines(t *testing.T, db string, prefix ...string) {
	t.Helper()
	d := openDB(t, db)
	p := strings.Join(prefix, "")
	var ytd, cnt, remote, lo, hi, olQty, olCnt, olRemote int64
	if err := d.QueryRow("SELECT SUM(s_ytd), SUM(s_order_cnt), SUM(s_remote_cnt), MIN(s_quantity), MAX(s_quantity) FROM "+p+"stock").Scan(&ytd, &cnt, &remote, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if err := d.QueryRow("SELECT COALESCE(SUM(ol_quantity), 0), COUNT(*), COALESCE(SUM(ol_supply_w_id <> ol_w_id), 0) FROM "+p+"order_line WHERE ol_o_id > 3000").Scan(&olQty, &olCnt, &olRemote); err != nil {
		t.Fatal(err)
	}
	if olCnt == 0 {
		t.Fatal("the run added no order lines")
	}
	if ytd != olQty || cnt != olCnt || remote != olRemote {
		t.Errorf("stock counters: s_ytd %d, s_order_cnt %d, s_remote_cnt %d; the run's order lines: quantity %d, count %d, remote %d",
			ytd, cnt, remote, olQty, olCnt, olRemote)
	}
	if lo < 10 || hi > 100 {
		t.Errorf("S_QUANTITY spans [%d, %d], outside [10, 100]", lo, hi)
	}
}

// A corrupted row makes the matching condition fail, naming the row.
func TestTPCCCheckCatchesCorruption(t *testing.T) {
	needServer(t)
	db := "tpcc_corrupt"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	d := openDB(t, db)
	for _, c := range []struct {
		cond        string
		break_, fix string
	}{
		{"1", "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1", "UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1"},
		{"2", "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 3", "UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 3"},
		{"3", "DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 2 AND no_o_id = 2500", "INSERT INTO new_order VALUES (2500, 2, 1)"},
		{"4", "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = 7", "UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = 7"},
		{"7", "UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 5 AND ol_number = 1", "UPDATE order_line SET ol_delivery_d = '2026-01-01 00:00:00' WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 5 AND ol_number = 1"},
		{"9", "UPDATE history SET h_amount = 11 WHERE h_w_id = 1 AND h_d_id = 5 AND h_c_id = 9", "UPDATE history SET h_amount = 10 WHERE h_w_id = 1 AND h_d_id = 5 AND h_c_id = 9"},
		{"12", "UPDATE customer SET c_ytd_payment = 11 WHERE c_w_id = 1 AND c_d_id = 6 AND c_id = 42", "UPDATE customer SET c_ytd_payment = 10 WHERE c_w_id = 1 AND c_d_id = 6 AND c_id = 42"},
	} {
		if _, err := d.Exec(c.break_); err != nil {
			t.Fatal(err)
		}
		r := tp(t, db, "check", "--warehouses=1", "--checks="+c.cond)
		if r.code == 0 || !regexp.MustCompile(`condition +`+c.cond+` .* FAIL`).MatchString(r.stdout) || !strings.Contains(r.stdout, "    w=1: ") {
			t.Errorf("condition %s not caught:\n%s%s", c.cond, r.stdout, r.stderr)
		}
		if _, err := d.Exec(c.fix); err != nil {
			t.Fatal(err)
		}
	}
	checksPass(t, tp(t, db, "check", "--warehouses=1", "--checks=all"), 12)
}

func TestTPCCBadInput(t *testing.T) {
	needServer(t)
	db := "tpcc_bad"
	freshDB(t, db)
	if r := tp(t, db, "run", "--warehouses=1"); r.code == 0 || !strings.Contains(r.stderr, "run prepare first") {
		t.Errorf("no database: %q", r.stderr)
	}
	openDB(t, "").Exec("CREATE DATABASE " + db)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prepare", "--warehouses=0"}, "--warehouses=0"},
		{[]string{"run", "--warehouses=1"}, "missing"},
		{[]string{"check", "--checks=13"}, "--checks=13"},
		{[]string{"run", "--weights=1,2"}, "--weights"},
		{[]string{"bogus"}, "unknown command"},
	} {
		r := tp(t, db, c.args...)
		if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q, want one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	r := tp(t, db, "run", "--warehouses=3", "--time=1s")
	if r.code == 0 || !strings.Contains(r.stderr, "has 1 warehouses, not --warehouses=3") {
		t.Errorf("other warehouse count: exit %d stderr %q", r.code, r.stderr)
	}
}

// A server restart during a run: the run goes on after reconnecting, and the data stays consistent.
func TestTPCCServerRestart(t *testing.T) {
	needServer(t)
	scripts, dir := os.Getenv("OLTPBENCH_TEST_SCRIPTS"), os.Getenv("OLTPBENCH_TEST_DIR")
	if scripts == "" {
		t.Skip("needs scripts/test.sh")
	}
	db := "tpcc_restart"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	// A long run, ended by Ctrl-C once New-Orders are done again after the
	// restart: a fixed 10 s ran out before a busy machine's server had
	// closed the connections.
	cmd, so, se := startBackground(t, "tpcc", "run", "--warehouses=1", "--threads=4", "--time=120s", "--report-interval=1s",
		"--mysql-host="+testHost, "--mysql-port="+testPort, "--mysql-user=root", "--db="+db)
	waitFor(t, so, "[   2s]")
	restartServer(t, scripts, dir)
	after := len(so.String())
	// The first interval printed after the restart may have begun before
	// it (a restart takes a quarter of a second): New-Orders in a later
	// one were made on connections made again.
	newOrders := regexp.MustCompile(`(?m)^\[ *\d+s\] new_order +count +(\d+)`)
	eventually(t, 90*time.Second, "New-Orders in an interval after the restart", func() bool {
		ms := newOrders.FindAllStringSubmatch(so.String()[after:], -1)
		return len(ms) > 1 && slices.ContainsFunc(ms[1:], func(m []string) bool { return m[1] != "0" })
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run failed: %v\n%s\n%s", err, se.String(), so.String())
	}
	if m := regexp.MustCompile(`reconnects (\d+)`).FindStringSubmatch(so.String()); m == nil || m[1] == "0" {
		t.Errorf("no reconnects reported:\n%s", so.String())
	}
	checksPass(t, tp(t, db, "check", "--warehouses=1"), 11)
}

// TPC-C CSV files are the same at any thread count.
func TestTPCCCSVDeterministic(t *testing.T) {
	needServer(t)
	d1, d4 := t.TempDir(), t.TempDir()
	mustOK(t, tp(t, "tpcc_csv", "prepare", "--load-mode=csv", "--warehouses=2", "--threads=1", "--dir="+d1, "--csv-file-size=16MiB"), "csv 1")
	// The csv command needs no server at all.
	mustOK(t, ob(t, nil, "csv", "tpcc", "--warehouses=2", "--threads=4", "--dir="+d4, "--csv-file-size=16MiB", "--db=tpcc_csv", "--progress=off"), "csv 4")
	ents, _ := os.ReadDir(d1)
	n := 0
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".csv") {
			continue
		}
		a, _ := os.ReadFile(filepath.Join(d1, e.Name()))
		b, _ := os.ReadFile(filepath.Join(d4, e.Name()))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 4 threads", e.Name())
		}
		n++
	}
	if n < 9 {
		t.Errorf("%d data files", n)
	}
	// The files import, and the data is consistent.
	db := "tpcc_csv"
	freshDB(t, db)
	mustOK(t, ob(t, nil, "import", "--dir="+d4, "--mysql-host="+testHost, "--mysql-port="+testPort, "--mysql-user=root", "--progress=off"), "import")
	checksPass(t, tp(t, db, "check", "--warehouses=2", "--checks=all"), 12)
}

// Hash partitions by warehouse load and check like plain tables.
func TestTPCCPartitions(t *testing.T) {
	needServer(t)
	db := "tpcc_part"
	freshDB(t, db)
	mustOK(t, tp(t, db, "prepare", "--warehouses=2", "--threads=2", "--partitions=2"), "prepare")
	var n int
	openDB(t, db).QueryRow("SELECT COUNT(*) FROM information_schema.partitions WHERE table_schema = ? AND table_name = 'stock' AND partition_name IS NOT NULL", db).Scan(&n)
	if n != 2 {
		t.Errorf("stock has %d partitions, want 2", n)
	}
	checksPass(t, tp(t, db, "check", "--warehouses=2", "--checks=all"), 12)
}

// --wait: ten terminals per warehouse with keying and think times; a short
// run completes few transactions and says efficiency is meaningful.
func TestTPCCWaitMode(t *testing.T) {
	needServer(t)
	db := "tpcc_wait"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	r := tp(t, db, "run", "--warehouses=1", "--wait", "--time=4s", "--report-interval=0")
	mustOK(t, r, "run")
	if !strings.Contains(r.stdout, "1 warehouses, 10 threads") || !strings.Contains(r.stdout, "waits on (the spec's)") || !regexp.MustCompile(`efficiency: [\d.]+% \(`).MatchString(r.stdout) {
		t.Errorf("wait mode header:\n%s", r.stdout)
	}
	// The audit's lines pass; the run's own verdict (efficiency over 4 s of
	// 2-18 s keying times is chance) is one line, PASS or FAIL.
	verdict := regexp.MustCompile(`(?m)^TPC-C run: (PASS|FAIL) \(.+\)$`)
	if strings.Contains(verdict.ReplaceAllString(r.stdout, ""), "FAIL") || !verdict.MatchString(r.stdout) {
		t.Errorf("a short correct --wait run fails the audit, or has no verdict:\n%s", r.stdout)
	}
	// Keying times are 2-18 s: in 4 s no terminal finishes more than one transaction.
	m := regexp.MustCompile(`tpmC: ([\d.]+)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no tpmC:\n%s", r.stdout)
	}
	if v, _ := strconv.ParseFloat(m[1], 64); v > 10*60/4 {
		t.Errorf("tpmC %v: more New-Orders than terminals in 4 s", v)
	}
	// --wait=0.05: a twentieth of the waits, marked wherever a verdict is.
	f := filepath.Join(t.TempDir(), "r.json")
	r = tp(t, db, "run", "--warehouses=1", "--wait=0.05", "--time=8s", "--report-interval=0", "--result-file="+f)
	mustOK(t, r, "run --wait=0.05")
	if !strings.Contains(r.stdout, "waits x0.05 (not the spec's)") || !regexp.MustCompile(`efficiency: [\d.]+% of the ceiling at these waits, not at the spec's waits \(x0.05\)`).MatchString(r.stdout) ||
		!regexp.MustCompile(`(?m)^TPC-C run: (PASS|FAIL), not at the spec's waits \(x0.05\) \(`).MatchString(r.stdout) {
		t.Errorf("--wait=0.05 not marked:\n%s", r.stdout)
	}
	// More New-Orders than the spec's waits allow (at most one a terminal
	// in 18 s): in 8 s a terminal does about eight transactions (keying
	// 0.1-0.9 s, think 0.25-0.6 s), three or four of them New-Orders (ten
	// terminals 35-38 on an idle machine; in 4 s on a busy one they once
	// did only ten).
	if m := regexp.MustCompile(`tpmC: ([\d.]+)`).FindStringSubmatch(r.stdout); m == nil {
		t.Errorf("no tpmC")
	} else if v, _ := strconv.ParseFloat(m[1], 64); v <= 10*60/8 {
		t.Errorf("--wait=0.05: tpmC %v, no more than the spec's waits allow", v)
	}
	res, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Figures["wait"] != 0.05 || res.NotApplicable["spec_waits"] != "not at the spec's waits (x0.05)" || res.Figures["efficiency"] <= 0 {
		t.Errorf("the result of --wait=0.05: figures %v, not applicable %v", res.Figures, res.NotApplicable)
	}
	for _, bad := range []string{"--wait=-1", "--wait=soon"} {
		r := tp(t, db, "run", "--warehouses=1", bad, "--time=1s")
		if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "is not on, off or a multiplier of the keying and think times") {
			t.Errorf("%s: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}

// tpcc run honours --mysql-ignore-errors: a Payment that waits on a row the
// test holds locked times out (1205); by default it is rolled back, counted
// and redone, and with the list empty the run stops naming the error.
func TestTPCCIgnoreErrors(t *testing.T) {
	needServer(t)
	db := "tpcc_ignore"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	tx, err := openDB(t, db).Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("SELECT * FROM warehouse WHERE w_id = 1 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) res {
		return tp(t, db, append([]string{"run", "--warehouses=1", "--threads=2", "--time=3", "--weights=0,1,0,0,0",
			"--init-sql=SET SESSION innodb_lock_wait_timeout=1"}, extra...)...)
	}
	r := run("--mysql-ignore-errors=none")
	if r.code == 0 || !strings.Contains(r.stderr, "add 1205 to ignore it") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("empty ignore list: exit %d, stderr %q", r.code, r.stderr)
	}
	r = run()
	mustOK(t, r, "run with the default list")
	m := regexp.MustCompile(`(?m)^payment +(\d+) +(\d+) +(\d+) `).FindStringSubmatch(r.stdout)
	if m == nil || m[2] == "0" {
		t.Errorf("default list: no payment errors counted:\n%s", r.stdout)
	}
}

// With few prepared statements allowed on the server, the statements past
// the limit go as text and the run works.
func TestTPCCFewPreparedStatements(t *testing.T) {
	needServer(t)
	db := "tpcc_fewps"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	d := openDB(t, "")
	var old string
	if err := d.QueryRow("SELECT @@GLOBAL.max_prepared_stmt_count").Scan(&old); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec("SET GLOBAL max_prepared_stmt_count = 20"); err != nil {
		t.Fatal(err)
	}
	defer d.Exec("SET GLOBAL max_prepared_stmt_count = " + old)
	r := tp(t, db, "run", "--warehouses=1", "--threads=2", "--time=2")
	mustOK(t, r, "run")
	if !regexp.MustCompile(`tpmC: [1-9]`).MatchString(r.stdout) {
		t.Errorf("no New-Orders:\n%s", r.stdout)
	}
}

// --stock-update=per-line sends one UPDATE per order line: the stock
// counters end as the run's order lines say, the checks pass, and the
// result file and the header say which mode ran.
func TestTPCCStockUpdatePerLine(t *testing.T) {
	needServer(t)
	db := "tpcc_perline"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=2")
	out := filepath.Join(t.TempDir(), "r.json")
	r := tp(t, db, "run", "--warehouses=2", "--threads=4", "--txns-per-terminal=50", "--stock-update=per-line", "--result-file="+out)
	mustOK(t, r, "run")
	if !strings.Contains(r.stdout, "stock update per-line") {
		t.Errorf("the header does not name the mode:\n%s", r.stdout)
	}
	if b, _ := os.ReadFile(out); !bytes.Contains(b, []byte(`"stock-update": "per-line"`)) {
		t.Errorf("the result file does not record the mode:\n%.600s", b)
	}
	stockMatchesOrderLines(t, db)
	checksPass(t, tp(t, db, "check", "--warehouses=2"), 11)
	if r := tp(t, db, "run", "--warehouses=2", "--stock-update=batch"); r.code == 0 || !strings.Contains(r.stderr, "invalid --stock-update=batch") {
		t.Errorf("bad --stock-update: exit %d, %q", r.code, r.stderr)
	}
}

// TestTPCCResponseTimeConstraint: Delivery held up 6.5 s at a time by a
// lock another connection keeps on the new orders fails clause 5.2.5.4's
// 5 s at the 90th percentile; the same run without the lock passes.
func TestTPCCResponseTimeConstraint(t *testing.T) {
	needServer(t)
	db := "tpcc_rt"
	freshDB(t, db)
	prepared(t, db, "tpcc", "prepare", "--warehouses=1")
	line := regexp.MustCompile(`(?m)^  90th percentile response delivery\s+([\d.]+)s\s+\[0\.00, 5\.00\]\s+(PASS|FAIL)`)
	args := []string{"run", "--warehouses=1", "--threads=1", "--weights=0,0,0,100,0", "--time=15"}
	r := tp(t, db, append(args[:4:4], "--time=3")...)
	mustOK(t, r, "run")
	if m := line.FindStringSubmatch(r.stdout); m == nil || m[2] != "PASS" {
		t.Fatalf("a free run's Delivery constraint: %v\n%s", m, r.stdout)
	}
	// The lock is taken again as soon as it is let go, from before the run
	// to its end: a Delivery gets through only between two holds.
	hold := openDB(t, db)
	stop, stopped := make(chan struct{}), make(chan struct{})
	locked := make(chan struct{}, 1)
	go func() {
		defer close(stopped)
		for {
			tx, err := hold.Begin()
			if err != nil {
				t.Error(err)
				return
			}
			rows, err := tx.Query("SELECT no_o_id FROM new_order WHERE no_w_id = 1 FOR UPDATE")
			if err == nil {
				for rows.Next() {
				}
				rows.Close()
			}
			select {
			case locked <- struct{}{}:
			default:
			}
			select {
			case <-time.After(6500 * time.Millisecond):
				tx.Rollback()
			case <-stop:
				tx.Rollback()
				return
			}
		}
	}()
	<-locked
	r = tp(t, db, args...)
	close(stop)
	<-stopped
	mustOK(t, r, "run under the lock")
	if m := line.FindStringSubmatch(r.stdout); m == nil || m[2] != "FAIL" {
		t.Errorf("Delivery held 6.5 s at a time: %v\n%s", m, r.stdout)
	}
}
