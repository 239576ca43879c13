package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/testenv/s3test"
)

// dataFiles maps each CSV data file to its SHA-256, for a local folder.
func dataFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".csv") && !strings.HasPrefix(e.Name(), ".") {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			h := sha256.Sum256(b)
			out[e.Name()] = hex.EncodeToString(h[:])
		}
	}
	return out
}

// objectFiles is dataFiles for the objects under bucket/prefix.
func objectFiles(t *testing.T, srv s3test.Server, bucket, prefix string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k := range srv.Objects(t, bucket, prefix+"/") {
		n := strings.TrimPrefix(k, prefix+"/")
		if strings.HasSuffix(n, ".csv") && !strings.Contains(n, "/") && !strings.HasPrefix(n, ".") {
			h := sha256.Sum256(srv.Get(t, bucket, k))
			out[n] = hex.EncodeToString(h[:])
		}
	}
	return out
}

func sameFiles(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: no reference files", what)
	}
	var diff []string
	for n, h := range want {
		if got[n] != h {
			diff = append(diff, n)
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			diff = append(diff, n+" (extra)")
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Errorf("%s: %d files differ from the one-machine generation: %v", what, len(diff), diff)
	}
}

// noSecret fails if the secret shows in any output or any file under the
// folders (local CSV folders and the S3 server's backing folder).
func noSecret(t *testing.T, secret string, outputs []string, dirs ...string) {
	t.Helper()
	for i, o := range outputs {
		if strings.Contains(o, secret) {
			t.Errorf("output %d shows the secret key:\n%s", i, o)
		}
	}
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret key", p)
			}
			return nil
		})
	}
}

// tableNames lists db's tables, sorted, but those LIKE except.
func tableNames(t *testing.T, db, except string) []string {
	t.Helper()
	rows, err := openDB(t, db).Query("SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_name NOT LIKE ? ORDER BY 1", db, except)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	return names
}

func tableChecksums(t *testing.T, db string) string {
	t.Helper()
	d := openDB(t, db)
	names := tableNames(t, db, "oltpbench%")
	var parts []string
	for _, n := range names {
		var name string
		var sum sql.NullInt64
		if err := d.QueryRow("CHECKSUM TABLE "+n).Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, fmt.Sprintf("%s=%d", n, sum.Int64))
	}
	if len(parts) == 0 {
		t.Fatalf("no tables in %s", db)
	}
	return strings.Join(parts, ",")
}

// CSV to s3:// in 2 and 3 shards: the union of the shards' objects is the
// one-machine local generation byte for byte; import refuses an incomplete
// set by shard, then loads the whole set into MariaDB with the checksums of
// a load from the local folder; the secret key shows nowhere.
func TestCSVToS3Shards(t *testing.T) {
	needServer(t)
	srv := s3test.Need(t)
	var outputs []string
	run := func(what string, args ...string) res {
		t.Helper()
		r := ob(t, nil, args...)
		outputs = append(outputs, r.stdout, r.stderr)
		mustOK(t, r, what)
		return r
	}
	for _, w := range []struct {
		name string
		args []string
		db   string
	}{
		{"sysbench", []string{"csv", "sysbench", "--tables=3", "--table-size=30000", "--csv-file-size=1MiB"}, "s3_sb"},
		{"tpcc", []string{"csv", "tpcc", "--warehouses=1", "--csv-file-size=4MiB"}, "s3_tp"},
	} {
		t.Run(w.name, func(t *testing.T) {
			local := filepath.Join(t.TempDir(), "one")
			gen := func(dir string, extra ...string) []string {
				return append(append(append([]string(nil), w.args...), "--mysql-db="+w.db, "--threads=2", "--progress=off", "--dir="+dir), extra...)
			}
			run("local csv", gen(local)...)
			want := dataFiles(t, local)
			b := srv.Bucket(t)
			for _, n := range []int{2, 3} {
				prefix := fmt.Sprintf("ds/%d-shards", n)
				url := srv.URL(b, prefix)
				for i := n; i >= 1; i-- {
					r := run("csv shard", gen(url, fmt.Sprintf("--shard=%d/%d", i, n))...)
					if !strings.Contains(r.stdout, "s3://"+b+"/"+prefix) {
						t.Errorf("shard output does not name the place:\n%s", r.stdout)
					}
					if i == 2 {
						r := ob(t, nil, append([]string{"import", "--dir=" + url, "--progress=off"}, connArgs(w.db)...)...)
						outputs = append(outputs, r.stdout, r.stderr)
						if r.code == 0 || !strings.Contains(r.stderr, fmt.Sprintf("shard(s) 1/%d", n)) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
							t.Errorf("import of an incomplete set: exit %d, stderr %q", r.code, r.stderr)
						}
					}
				}
				sameFiles(t, fmt.Sprintf("%d shards", n), want, objectFiles(t, srv, b, prefix))
				if open := srv.OpenUploads(t, b); len(open) > 0 {
					t.Errorf("uploads left open: %v", open)
				}
			}
			// Import from the object store and from the local folder: the same tables.
			freshDB(t, w.db)
			run("import from s3", append([]string{"import", "--dir=" + srv.URL(b, "ds/3-shards"), "--progress=off", "--threads=3"}, connArgs(w.db)...)...)
			fromS3 := tableChecksums(t, w.db)
			freshDB(t, w.db)
			run("import from the folder", append([]string{"import", "--dir=" + local, "--progress=off", "--threads=3"}, connArgs(w.db)...)...)
			if got := tableChecksums(t, w.db); got != fromS3 {
				t.Errorf("checksums: from s3 %s, from the folder %s", fromS3, got)
			}
			imp, _ := os.ReadFile(filepath.Join(srv.Data, b, "ds/3-shards", w.db+"-import.sql"))
			if !strings.Contains(string(imp), "FROM 's3://"+b+"/ds/3-shards/"+w.db+".") || !strings.Contains(string(imp), "endpoint="+srv.Endpoint) {
				t.Errorf("import SQL does not read the bucket:\n%s", imp)
			}
		})
	}
	noSecret(t, srv.SecretKey, outputs, srv.Data)
}

// SIGKILL while writing to s3://, then --resume: the complete objects are
// kept, the open multipart upload is aborted, and the set is byte for byte
// a clean generation's.
func TestCSVToS3ResumeAfterKill(t *testing.T) {
	needServer(t)
	srv := s3test.Need(t)
	b := srv.Bucket(t)
	url := srv.URL(b, "k")
	// 12 MiB files: each is a multipart upload of three parts.
	args := []string{"csv", "sysbench", "--tables=2", "--table-size=400000", "--csv-file-size=12MiB", "--mysql-db=s3_kill", "--progress=off", "--dir=" + url}
	local := t.TempDir()
	mustOK(t, ob(t, nil, append(args[:len(args)-1:len(args)-1], "--threads=2", "--dir="+local)...), "local csv")
	want := dataFiles(t, local)

	cmd := exec.Command(binPath, append(args, "--threads=1")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once a file is complete and the next one's upload is open.
	deadline := time.Now().Add(60 * time.Second)
	for {
		done := 0
		for k := range srv.Objects(t, b, "k/") {
			if strings.HasSuffix(k, ".csv") {
				done++
			}
		}
		if done >= 1 && len(srv.OpenUploads(t, b)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the generator never had a file done and an upload open")
		}
		time.Sleep(5 * time.Millisecond) // polling the server, not hiding a race
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := srv.Objects(t, b, "k/")
	kept := map[string]time.Time{}
	for k := range before {
		if strings.HasSuffix(k, ".csv") {
			st, err := os.Stat(filepath.Join(srv.Data, b, k))
			if err != nil {
				t.Fatal(err)
			}
			kept[k] = st.ModTime()
		}
	}
	if len(srv.OpenUploads(t, b)) == 0 {
		t.Fatal("no upload open after the kill: the test did not catch one in flight")
	}
	if len(kept) == len(want) {
		t.Fatal("all files were done before the kill")
	}
	r := ob(t, nil, append(args, "--threads=2")...)
	if r.code == 0 || !strings.Contains(r.stderr, "--resume") {
		t.Fatalf("csv again without --resume: exit %d, stderr %q", r.code, r.stderr)
	}
	r = ob(t, nil, append(args, "--threads=2", "--resume")...)
	mustOK(t, r, "resume")
	if !strings.Contains(r.stdout+r.stderr, "incomplete file(s)") {
		t.Errorf("resume did not say it removed the open upload:\n%s%s", r.stdout, r.stderr)
	}
	if open := srv.OpenUploads(t, b); len(open) > 0 {
		t.Errorf("uploads left open after resume: %v", open)
	}
	sameFiles(t, "after resume", want, objectFiles(t, srv, b, "k"))
	for k, mt := range kept {
		st, _ := os.Stat(filepath.Join(srv.Data, b, k))
		if !st.ModTime().Equal(mt) {
			t.Errorf("%s was written again", k)
		}
	}
	noSecret(t, srv.SecretKey, []string{r.stdout, r.stderr}, srv.Data)
}

// Bad places for --dir give one line each and a non-zero exit.
func TestCSVToS3BadInput(t *testing.T) {
	needServer(t)
	srv := s3test.Need(t)
	b := srv.Bucket(t)
	srv.GrantRead(t, b)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"csv", "sysbench", "--dir=" + srv.URL(b+"-missing", "p")}, "does not exist"},
		{[]string{"csv", "sysbench", "--dir=" + srv.URLWith(b, "p", srv.AccessKey, "wrong"+srv.SecretKey)}, "refused the credentials"},
		{[]string{"csv", "sysbench", "--dir=" + srv.URLWith(b, "p", srv.ReaderKey, srv.ReaderSecret)}, "denied PutObject"},
		{[]string{"csv", "sysbench", "--dir=s3://" + b + "/p?endpoint=" + srv.Endpoint + "&secret-key=" + srv.SecretKey}, `unknown parameter "secret-key"`},
		{[]string{"csv", "sysbench", "--dir=" + srv.URL(b, "p"), "--shard=4/3"}, "--shard=4/3"},
		{[]string{"csv", "sysbench", "--dir=" + srv.URL(b, "p"), "--shard=0/3"}, "--shard=0/3"},
		{append([]string{"import", "--dir=" + srv.URL(b, "empty")}, connArgs("s3_bad")...), "no s3_bad-manifest.json in s3://" + b + "/empty"},
	} {
		r := ob(t, nil, c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args[:2], r.code, r.stderr, c.want)
		}
		if strings.Contains(r.stderr+r.stdout, srv.SecretKey) {
			t.Errorf("%v shows the secret: %s", c.args[:2], r.stderr)
		}
	}
	if objs := srv.Objects(t, b, ""); len(objs) != 0 {
		t.Errorf("bad input left objects: %v", objs)
	}
}

// prepare --load-mode=import --dir s3://... writes the files to the bucket
// and loads them from there: the rows of a direct load.
func TestPrepareImportModeFromS3(t *testing.T) {
	needServer(t)
	srv := s3test.Need(t)
	want := reference(t)
	db := "s3_prep"
	freshDB(t, db)
	r := ldPrepare(t, db, "--load-mode=import", "--dir="+srv.URL(srv.Bucket(t), "prep"), "--threads=2")
	mustOK(t, r, "prepare --load-mode=import to s3")
	if got := checksum(t, db, 3); got != want {
		t.Errorf("loaded %s, reference %s", got, want)
	}
	noSecret(t, srv.SecretKey, []string{r.stdout, r.stderr})
}

// A result file records the options of the run: a --dir with keys is kept
// without them.
func TestResultFileHoldsNoStorageKey(t *testing.T) {
	needServer(t)
	db := "s3_result"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_common", "prepare", "--tables=1", "--table-size=1000"), "prepare")
	out := filepath.Join(t.TempDir(), "r.json")
	r := sb(t, db, "oltp_point_select", "run", "--events=50", "--time=0", "--tables=1", "--table-size=1000", "--result-file="+out,
		"--dir=s3://b/p?access-key=AKIDKEEPOUT&secret-access-key=SECRETKEEPOUT")
	mustOK(t, r, "run")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "KEEPOUT") || strings.Contains(r.stdout+r.stderr, "KEEPOUT") {
		t.Errorf("a storage key is in the result or the output:\n%s", b)
	}
	if !strings.Contains(string(b), "secret-access-key=****") {
		t.Errorf("the result does not record --dir at all:\n%s", b)
	}
}
