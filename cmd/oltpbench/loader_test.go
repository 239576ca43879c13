package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const ldSize = "--table-size=100000"

func ldPrepare(t *testing.T, db string, extra ...string) res {
	t.Helper()
	// --notes: the loader's own lines (mode, timing, resume, shards) come after sysbench's.
	return sb(t, db, append([]string{"oltp_common", "prepare", "--tables=3", ldSize, "--progress=off", "--notes=on"}, extra...)...)
}

func reference(t *testing.T) string {
	t.Helper()
	db := "ld_ref"
	freshDB(t, db)
	mustOK(t, ldPrepare(t, db, "--threads=2"), "reference prepare")
	return checksum(t, db, 3)
}

func indexNames(t *testing.T, db string) string {
	t.Helper()
	rows, err := openDB(t, db).Query("SELECT table_name, index_name FROM information_schema.statistics WHERE table_schema = ? ORDER BY 1, 2", db)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b string
		rows.Scan(&a, &b)
		if strings.HasPrefix(a, "sbtest") {
			out = append(out, a+"."+b)
		}
	}
	return strings.Join(out, ",")
}

// Every server mode with both index timings loads the same rows and indexes.
func TestLoadModesAndIndexTimings(t *testing.T) {
	needServer(t)
	want := reference(t)
	wantIx := indexNames(t, "ld_ref")
	dir := t.TempDir()
	for i, v := range [][]string{
		{"--load-mode=insert", "--index-timing=after"},
		{"--load-mode=insert", "--index-timing=before"},
		{"--load-mode=local", "--index-timing=after"},
		{"--load-mode=local", "--index-timing=before"},
		{"--load-mode=import", "--index-timing=after", "--dir=" + filepath.Join(dir, "imp"), "--csv-file-size=4MiB"},
		{"--load-mode=import", "--index-timing=before", "--dir=" + filepath.Join(dir, "imp2")},
	} {
		t.Run(strings.Join(v, " "), func(t *testing.T) {
			db := fmt.Sprintf("ld_mode_%d", i)
			freshDB(t, db)
			r := ldPrepare(t, db, append(v, "--threads=3")...)
			mustOK(t, r, "prepare")
			if got := checksum(t, db, 3); got != want {
				t.Errorf("checksums %s, reference %s", got, want)
			}
			if got := indexNames(t, db); got != wantIx {
				t.Errorf("indexes %s, reference %s", got, wantIx)
			}
			timing := strings.TrimPrefix(v[1], "--index-timing=")
			if !strings.Contains(r.stdout, "indexes: "+timing) {
				t.Errorf("index timing not printed:\n%s", r.stdout)
			}
			// The dataset record carries the choice to result files.
			out := filepath.Join(t.TempDir(), "r.json")
			mustOK(t, sb(t, db, "oltp_point_select", "run", "--tables=3", ldSize, "--time=1", "--result-file="+out), "run")
			b, _ := os.ReadFile(out)
			if !strings.Contains(string(b), `"index_timing": "`+timing+`"`) || !strings.Contains(string(b), `"seed": "20201"`) {
				t.Errorf("result file lacks the dataset record:\n%s", b)
			}
		})
	}
}

// CSV files written without a database load into MariaDB through oltpbench import.
func TestCSVThenImport(t *testing.T) {
	needServer(t)
	want := reference(t)
	dir := filepath.Join(t.TempDir(), "csv")
	r := ob(t, nil, "csv", "sysbench", "--dir="+dir, "--tables=3", ldSize, "--mysql-db=ld_imp", "--threads=4", "--csv-file-size=3MiB", "--progress=off")
	mustOK(t, r, "csv")
	db := "ld_imp"
	freshDB(t, db)
	mustOK(t, ob(t, nil, "import", "--dir="+dir, "--mysql-host="+testHost, "--mysql-port="+testPort, "--mysql-user=root", "--progress=off"), "import")
	if got := checksum(t, db, 3); got != want {
		t.Errorf("imported %s, reference %s", got, want)
	}
	// A file changed after the manifest was written is refused, naming it.
	dir2 := filepath.Join(t.TempDir(), "csv2")
	mustOK(t, ob(t, nil, "csv", "sysbench", "--dir="+dir2, "--tables=1", "--table-size=1000", "--mysql-db=ld_imp2", "--progress=off"), "csv")
	f := filepath.Join(dir2, "ld_imp2.sbtest1.000001.csv")
	b, _ := os.ReadFile(f)
	os.WriteFile(f, bytes.Replace(b, []byte("1,"), []byte("2,"), 1), 0o644)
	freshDB(t, "ld_imp2")
	r = ob(t, nil, "import", "--dir="+dir2, "--mysql-host="+testHost, "--mysql-port="+testPort, "--mysql-user=root", "--progress=off")
	if r.code == 0 || !strings.Contains(r.stderr, "SHA-256") {
		t.Errorf("changed file: exit %d stderr %q", r.code, r.stderr)
	}
}

// CSV written as three shards (as three machines would, into one place):
// import refuses the set while a shard is missing, and loads the whole set
// to the rows of a one-machine load.
func TestCSVShardsThenImport(t *testing.T) {
	needServer(t)
	want := reference(t)
	dir := filepath.Join(t.TempDir(), "csv")
	db := "ld_shards"
	freshDB(t, db)
	imp := func() res {
		return ob(t, nil, "import", "--dir="+dir, "--mysql-host="+testHost, "--mysql-port="+testPort, "--mysql-user=root", "--progress=off")
	}
	for _, i := range []string{"3", "1", "2"} {
		mustOK(t, ob(t, nil, "csv", "sysbench", "--dir="+dir, "--tables=3", ldSize, "--mysql-db="+db, "--threads=2",
			"--csv-file-size=1MiB", "--progress=off", "--shard="+i+"/3"), "csv shard "+i)
		if i == "1" {
			if r := imp(); r.code == 0 || !strings.Contains(r.stderr, "shard(s) 2/3") {
				t.Fatalf("import of an incomplete set: exit %d, stderr %q", r.code, r.stderr)
			}
		}
	}
	mustOK(t, imp(), "import")
	if got := checksum(t, db, 3); got != want {
		t.Errorf("imported %s, reference %s", got, want)
	}
}

// startPrepare starts a slow prepare (one thread, insert mode) and returns once some units are in.
func startPrepare(t *testing.T, db string, extra ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	args := append([]string{"sysbench", "oltp_common", "prepare", "--tables=3", ldSize, "--progress=off", "--threads=1", "--load-mode=insert"}, extra...)
	cmd := exec.Command(binPath, append(args, connArgs(db)...)...)
	var se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	d := openDB(t, "")
	eventually(t, 30*time.Second, "the load progressing", func() bool {
		var n int
		d.QueryRow("SELECT COUNT(*) FROM " + db + ".oltpbench_progress").Scan(&n)
		return n >= 3
	})
	return cmd, &se
}

// SIGKILL in the middle of a load, then --resume: the same rows as a clean load.
func TestResumeAfterKill(t *testing.T) {
	needServer(t)
	want := reference(t)
	db := "ld_kill"
	freshDB(t, db)
	cmd, _ := startPrepare(t, db)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	r := ldPrepare(t, db)
	if r.code == 0 || !strings.Contains(r.stderr, "--resume") {
		t.Fatalf("prepare over a half load: exit %d stderr %q", r.code, r.stderr)
	}
	r = ldPrepare(t, db, "--resume", "--threads=2")
	mustOK(t, r, "resume")
	if !strings.Contains(r.stdout, "done earlier") {
		t.Errorf("resume reloaded everything:\n%s", r.stdout)
	}
	if got := checksum(t, db, 3); got != want {
		t.Errorf("after resume %s, reference %s", got, want)
	}
}

// The server restarted in the middle of a load: the loader fails cleanly, --resume completes it exactly.
func TestResumeAfterServerRestart(t *testing.T) {
	needServer(t)
	scripts, dir := os.Getenv("OLTPBENCH_TEST_SCRIPTS"), os.Getenv("OLTPBENCH_TEST_DIR")
	if scripts == "" {
		t.Skip("needs scripts/test.sh")
	}
	want := reference(t)
	db := "ld_restart"
	freshDB(t, db)
	cmd, se := startPrepare(t, db)
	if o, err := exec.Command(filepath.Join(scripts, "mariadb-stop.sh"), dir).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v %s", err, o)
	}
	err := cmd.Wait()
	if o, err := exec.Command(filepath.Join(scripts, "mariadb-start.sh"), dir).CombinedOutput(); err != nil {
		t.Fatalf("start: %v %s", err, o)
	}
	if err == nil {
		t.Log("the load finished before the server went down")
	} else if n := strings.Count(strings.TrimSpace(se.String()), "\n"); n != 0 {
		t.Errorf("failure not reported in one line: %q", se.String())
	}
	mustOK(t, ldPrepare(t, db, "--resume", "--threads=2"), "resume")
	if got := checksum(t, db, 3); got != want {
		t.Errorf("after resume %s, reference %s", got, want)
	}
}

// Chunks spread over every endpoint (here the same port twice, so two
// endpoint pools): the rows are those of a one-endpoint load.
func TestLoadOverSeveralEndpoints(t *testing.T) {
	needServer(t)
	want := reference(t)
	db := "ld_eps"
	freshDB(t, db)
	r := ob(t, nil, "sysbench", "oltp_common", "prepare", "--tables=3", ldSize, "--progress=off", "--threads=2",
		"--mysql-host="+testHost, "--mysql-port="+testPort+","+testPort, "--mysql-user=root", "--mysql-db="+db)
	mustOK(t, r, "prepare")
	if got := checksum(t, db, 3); got != want {
		t.Errorf("checksums %s, reference %s", got, want)
	}
}

// Two client machines loading halves of one dataset make the whole of it.
func TestShards(t *testing.T) {
	needServer(t)
	want := reference(t)
	wantIx := indexNames(t, "ld_ref")
	db := "ld_shard"
	freshDB(t, db)
	r1 := ldPrepare(t, db, "--shard=1/2")
	mustOK(t, r1, "shard 1")
	if !strings.Contains(r1.stdout, "not complete yet") {
		t.Errorf("shard 1 did not say the dataset is incomplete:\n%s", r1.stdout)
	}
	mustOK(t, ldPrepare(t, db, "--shard=2/2"), "shard 2")
	if got := checksum(t, db, 3); got != want {
		t.Errorf("sharded %s, reference %s", got, want)
	}
	if got := indexNames(t, db); got != wantIx {
		t.Errorf("indexes %s, want %s", got, wantIx)
	}
	// Loading a shard again adds nothing.
	mustOK(t, ldPrepare(t, db, "--shard=1/2"), "shard 1 again")
	if got := checksum(t, db, 3); got != want {
		t.Errorf("after a repeated shard %s, reference %s", got, want)
	}
}

// With local_infile off the loader falls back to INSERT and says how to enable it.
func TestLocalInfileOffFallsBack(t *testing.T) {
	needServer(t)
	admin := openDB(t, "")
	if _, err := admin.Exec("SET GLOBAL local_infile = 0"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec("SET GLOBAL local_infile = 1")
	db := "ld_noinfile"
	freshDB(t, db)
	r := sb(t, db, "oltp_common", "prepare", "--table-size=1000", "--load-mode=local", "--progress=off", "--notes=on")
	mustOK(t, r, "prepare")
	if !strings.Contains(r.stdout, "Load mode: insert") || !strings.Contains(r.stdout, "local_infile=1") {
		t.Errorf("no fallback explained:\n%s", r.stdout)
	}
}

// A full disk: a clear error, and no partial file under a final name.
func TestCSVDiskFull(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "small")
	os.MkdirAll(dir, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	r := ob(t, nil, "csv", "sysbench", "--dir="+dir, "--tables=1", "--table-size=100000", "--mysql-db=full", "--progress=off")
	if r.code == 0 || !strings.Contains(r.stderr, "disk full") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".csv") || strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("file left behind: %s", e.Name())
		}
	}
}
