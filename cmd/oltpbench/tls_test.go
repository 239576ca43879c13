package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func opensslRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("openssl", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("openssl %v: %v\n%s", args, err, out)
	}
}

// makeCerts writes ca.pem, server-cert.pem, server-key.pem, client-cert.pem,
// client-key.pem and other-ca.pem (an unrelated CA) into dir.
func makeCerts(t *testing.T, dir string) {
	opensslRun(t, dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=oltpbench test CA", "-keyout", "ca-key.pem", "-out", "ca.pem")
	opensslRun(t, dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=other CA", "-keyout", "other-key.pem", "-out", "other-ca.pem")
	os.WriteFile(filepath.Join(dir, "san.cnf"), []byte("subjectAltName=IP:127.0.0.1,DNS:localhost\n"), 0o644)
	for _, who := range []string{"server", "client"} {
		opensslRun(t, dir, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", who+"-key.pem", "-out", who+".csr")
		opensslRun(t, dir, "x509", "-req", "-in", who+".csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-days", "2", "-extfile", "san.cnf", "-out", who+"-cert.pem")
	}
}

func TestTLS(t *testing.T) {
	needServer(t)
	scripts := os.Getenv("OLTPBENCH_TEST_SCRIPTS")
	if scripts == "" {
		t.Skip("needs scripts/test.sh")
	}
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	certs := t.TempDir()
	makeCerts(t, certs)
	dir := filepath.Join(t.TempDir(), "tlsdb")
	start := exec.Command(filepath.Join(scripts, "mariadb-start.sh"), dir)
	start.Env = append(os.Environ(), "MARIADB_BUFFER_POOL=128M", "MARIADB_EXTRA_ARGS=--ssl-ca="+certs+"/ca.pem --ssl-cert="+certs+"/server-cert.pem --ssl-key="+certs+"/server-key.pem")
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("start TLS server: %v\n%s", err, out)
	}
	defer exec.Command(filepath.Join(scripts, "mariadb-stop.sh"), dir, "--wipe").Run()
	port, _ := os.ReadFile(filepath.Join(dir, "port"))
	p := strings.TrimSpace(string(port))
	base := []string{"--mysql-host=127.0.0.1", "--mysql-port=" + p, "--mysql-user=sbtest", "--mysql-password=sbtest-secret", "--table-size=1000"}
	with := func(args ...string) res { return ob(t, nil, append(append([]string{"sysbench"}, args...), base...)...) }

	mustOK(t, with("oltp_common", "prepare", "--mysql-ssl=required"), "prepare over TLS")
	for _, mode := range [][]string{
		{"--mysql-ssl"}, // bare: on
		{"--mysql-ssl=verify_ca", "--mysql-ssl-ca=" + certs + "/ca.pem"},
		{"--mysql-ssl=verify_identity", "--mysql-ssl-ca=" + certs + "/ca.pem", "--mysql-ssl-cert=" + certs + "/client-cert.pem", "--mysql-ssl-key=" + certs + "/client-key.pem"},
	} {
		r := with(append([]string{"oltp_point_select", "run", "--time=1"}, mode...)...)
		mustOK(t, r, strings.Join(mode, " "))
		checkReport(t, r.stdout)
	}
	// The server saw TLS connections.
	out, err := exec.Command("mariadb", "--no-defaults", "-uroot", "-S", filepath.Join(dir, "mysqld.sock"), "-N", "-e", "SHOW GLOBAL STATUS LIKE 'Ssl_accepts'").CombinedOutput()
	if err != nil || strings.HasSuffix(strings.TrimSpace(string(out)), "\t0") {
		t.Errorf("no TLS handshakes on the server: %s %v", out, err)
	}
	// --mysql-ssl-cipher: the suite the server agreed to on the script's
	// connection is the one asked for.
	script := filepath.Join(t.TempDir(), "cipher.lua")
	os.WriteFile(script, []byte(`function prepare()
  local con = sysbench.sql.driver():connect()
  local row = con:query("SHOW SESSION STATUS LIKE 'Ssl_cipher'"):fetch_row()
  print("cipher " .. row[2])
end
`), 0o644)
	for _, c := range []string{"ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305"} {
		r := with(script, "prepare", "--mysql-ssl", "--mysql-ssl-cipher="+c)
		mustOK(t, r, c)
		if !strings.Contains(r.stdout, "cipher "+c+"\n") {
			t.Errorf("--mysql-ssl-cipher=%s: the server agreed to another\n%s", c, r.stdout)
		}
	}
	if r := with("oltp_point_select", "run", "--time=1", "--mysql-ssl", "--mysql-ssl-cipher=NO-SUCH-CIPHER"); r.code == 0 || !strings.Contains(r.stderr, "--mysql-ssl-cipher") {
		t.Errorf("an unknown cipher: exit %d %s", r.code, r.stderr)
	}
	// A CA that did not sign the server's certificate is refused, in one line.
	r := with("oltp_point_select", "run", "--time=1", "--mysql-ssl=verify_ca", "--mysql-ssl-ca="+certs+"/other-ca.pem")
	if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "certificate") {
		t.Errorf("wrong CA: exit %d stderr %q", r.code, r.stderr)
	}
	// TLS required of a server without it: a clear refusal.
	r = ob(t, nil, append([]string{"sysbench", "oltp_point_select", "run", "--time=1", "--mysql-ssl=required"}, connArgs("mysql")...)...)
	if r.code == 0 || !strings.Contains(strings.ToLower(r.stderr), "tls") {
		t.Errorf("TLS against a plain server: exit %d stderr %q", r.code, r.stderr)
	}
}

// --warmup-time and --report-checkpoints behave as in sysbench.
func TestWarmupAndCheckpoints(t *testing.T) {
	needServer(t)
	db := "warmcp"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_common", "prepare", "--table-size=1000"), "prepare")
	r := sb(t, db, "oltp_point_select", "run", "--time=3", "--warmup-time=1", "--report-checkpoints=1,2", "--table-size=1000")
	mustOK(t, r, "run")
	if strings.Count(r.stdout, "Checkpoint report:") != 2 || strings.Count(r.stdout, "SQL statistics:") != 3 {
		t.Errorf("want 2 checkpoint reports and a final one:\n%s", r.stdout)
	}
	checkReport(t, r.stdout)
	// As sysbench: checkpoints stamped with the time since the start, each
	// report's total time since the start too, its counts since the last one.
	if !strings.Contains(r.stdout, "[ 1s ] Checkpoint report:") || !strings.Contains(r.stdout, "[ 2s ] Checkpoint report:") {
		t.Errorf("checkpoint stamps:\n%s", r.stdout)
	}
	m := finalRE.FindStringSubmatch(r.stdout[strings.LastIndex(r.stdout, "SQL statistics:"):])
	if m == nil || !strings.HasPrefix(m[13], "3.0") && !strings.HasPrefix(m[13], "2.9") {
		t.Errorf("final total time should be the ~3 s since the start:\n%s", r.stdout)
	}
	ev, _ := strconv.ParseFloat(m[5], 64)
	tps, _ := strconv.ParseFloat(m[6], 64)
	if r := ev / tps; r < 0.9 || r > 1.1 {
		t.Errorf("final rate from %v events at %v/s covers %.2f s, want the ~1 s since the last checkpoint", ev, tps, r)
	}
}
