package loader

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/testenv/s3test"
)

// The store contract, on a folder and on the S3 server: an object appears
// under its name only when committed (small objects and multipart ones),
// an aborted one leaves nothing, the log reads back what was added, and
// Sweep clears what a killed writer left.
func TestStoreContract(t *testing.T) {
	for name, open := range contractStores() {
		t.Run(name, func(t *testing.T) {
			st, open := open(t)
			if err := st.Check(true); err != nil {
				t.Fatal(err)
			}
			storeRoundTrip(t, st)
			storeAbortAndSweep(t, st, open)
			storeLog(t, st)
		})
	}
}

// contractStores open each store with a function listing what unfinished
// writes left (temporary files, open multipart uploads).
func contractStores() map[string]func(t *testing.T) (Store, func() []string) {
	return map[string]func(t *testing.T) (Store, func() []string){
		"dir": func(t *testing.T) (Store, func() []string) {
			dir := t.TempDir()
			st, _ := OpenStore(dir, 0)
			return st, func() []string {
				var left []string
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if strings.Contains(e.Name(), ".tmp-") {
						left = append(left, e.Name())
					}
				}
				return left
			}
		},
		"s3": func(t *testing.T) (Store, func() []string) {
			srv := s3test.Need(t)
			b := srv.Bucket(t)
			st, err := OpenStore(srv.URL(b, "some/prefix"), 0)
			if err != nil {
				t.Fatal(err)
			}
			return st, func() []string { return srv.OpenUploads(t, b) }
		},
	}
}

// storeRoundTrip: objects of every size appear only on Commit and read back
// as written.
func storeRoundTrip(t *testing.T, st Store) {
	for _, size := range []int{0, 1000, 3*minPartSize + 12345} {
		data := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		obj, err := st.Create("db.t.000001.csv")
		if err != nil {
			t.Fatal(err)
		}
		// Written in pieces that straddle part boundaries.
		for p := data; len(p) > 0; {
			n := min(len(p), 777777)
			if _, err := obj.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if st.Size("db.t.000001.csv") != -1 && size == 0 {
			t.Errorf("size %d: object visible before Commit", size)
		}
		if err := obj.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := st.Size("db.t.000001.csv"); got != int64(size) {
			t.Errorf("size %d: Size says %d", size, got)
		}
		r, err := st.Open("db.t.000001.csv")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(r)
		r.Close()
		if !bytes.Equal(got, data) {
			t.Errorf("size %d: read back %d bytes, differing", size, len(got))
		}
	}
}

// storeAbortAndSweep: an aborted object leaves nothing; Sweep clears what a
// killed writer left, for its names only.
func storeAbortAndSweep(t *testing.T, st Store, open func() []string) {
	ab, _ := st.Create("db.t.000002.csv")
	ab.Write(make([]byte, 2*minPartSize+5)) // a multipart upload is open
	ab.Abort()
	if st.Size("db.t.000002.csv") != -1 {
		t.Error("aborted object is visible")
	}
	if left := open(); len(left) != 0 {
		t.Errorf("Abort left %v", left)
	}
	if names, _ := st.List(".csv"); strings.Join(names, ",") != "db.t.000001.csv" {
		t.Errorf("List: %v", names)
	}
	killed, _ := st.Create("db.t.000003.csv")
	killed.Write(make([]byte, minPartSize+1))
	other, _ := st.Create("db.u.000001.csv")
	other.Write(make([]byte, minPartSize+1))
	if o, ok := killed.(*s3Object); ok {
		o.wg.Wait() // the part is on the server, as when the process dies
		other.(*s3Object).wg.Wait()
	} else {
		killed.(*dirObject).w.f.Close()
		other.(*dirObject).w.f.Close()
	}
	if n, err := st.Sweep([]string{"db.t.000003.csv", "db.t.000004.csv"}); err != nil || n != 1 {
		t.Errorf("Sweep: %d, %v; want 1", n, err)
	}
	if left := open(); len(left) != 1 || !strings.Contains(left[0], "db.u.000001.csv") {
		t.Errorf("after Sweep: %v, want only the other name's", left)
	}
	other.Abort()
}

// storeLog: the progress log reads back what was added, and listings skip it.
func storeLog(t *testing.T, st Store) {
	lg, err := st.Log(".db-progress.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lg.Add("a.json", []byte(`{"name":"a"}`))
	lg.Add("b.json", []byte(`{"name":"b"}`))
	lg.Close()
	entries, err := st.ReadLog(".db-progress.jsonl")
	if err != nil || len(entries) != 2 {
		t.Fatalf("ReadLog: %q, %v", entries, err)
	}
	if names, _ := st.List(".jsonl"); len(names) != 0 {
		t.Errorf("List shows the log: %v", names)
	}
	if none, err := st.ReadLog(".other-progress.jsonl"); err != nil || len(none) != 0 {
		t.Errorf("ReadLog of no log: %q, %v", none, err)
	}
}

// Parts come from the store's pool, so memory is bounded by it whatever
// the object size: writing 10 parts' worth makes at most the pool's parts.
func TestS3PartsBounded(t *testing.T) {
	srv := s3test.Need(t)
	st, err := openS3(srv.URL(srv.Bucket(t), ""), 0)
	if err != nil {
		t.Fatal(err)
	}
	st.pool.max = 3
	obj, _ := st.Create("big.csv")
	chunk := make([]byte, 1<<20)
	for i := 0; i < 10*minPartSize/len(chunk); i++ {
		if _, err := obj.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := obj.Commit(); err != nil {
		t.Fatal(err)
	}
	if st.pool.made > 3 {
		t.Errorf("%d part buffers made, the pool allows 3", st.pool.made)
	}
	if got := st.Size("big.csv"); got != 10*minPartSize {
		t.Errorf("size %d", got)
	}
}

// URLs take TiDB's parameter names; what is shown never holds a key.
func TestS3URL(t *testing.T) {
	good := "s3://bkt/a/b?endpoint=http://127.0.0.1:9&force-path-style=false&region=eu-west-1&access-key=AKID123&secret-access-key=SECRET456&session-token=TOKEN789"
	st, err := OpenStore(good, 0)
	if err != nil {
		t.Fatal(err)
	}
	loc := st.Location()
	if loc != "s3://bkt/a/b?endpoint=http://127.0.0.1:9&force-path-style=false&region=eu-west-1" {
		t.Errorf("Location: %s", loc)
	}
	for _, bad := range []struct{ url, want string }{
		{"s3://bkt/p?acces-key=x", `unknown parameter "acces-key"`},
		{"s3://bkt/p?force-path-style=maybe", "invalid force-path-style=maybe"},
		{"s3://bkt/p?access-key=AKID123", "give both"},
		{"s3://bkt/p?endpoint=127.0.0.1:9000", "invalid endpoint"},
		{"s3:///p?secret-access-key=SECRET456", "cannot parse --dir"},
		{"gs://bkt/p", "not supported"},
		{"ftp://bkt/p?secret-access-key=SECRET456", `unknown storage scheme "ftp"`},
	} {
		_, err := OpenStore(bad.url, 0)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.url, err, bad.want)
		}
		if err != nil && (strings.Contains(err.Error(), "SECRET456") || strings.Contains(err.Error(), "AKID123")) {
			t.Errorf("%s: error shows a key: %v", bad.url, err)
		}
	}
	if got := RedactURL("--dir=s3://b/p?access-key=AK&secret-access-key=SK&session-token=T&secret_key=S2&region=r x"); got != "--dir=s3://b/p?access-key=****&secret-access-key=****&session-token=****&secret_key=****&region=r x" {
		t.Errorf("RedactURL: %s", got)
	}
	// A password before the bucket (found by FuzzOpenStore), and a line
	// break in the URL kept out of the one-line error.
	if got := RedactURL("s3://AK:SK@b/p x http://u:pw@h:1/"); got != "s3://AK:****@b/p x http://u:****@h:1/" {
		t.Errorf("RedactURL: %s", got)
	}
	if _, err := OpenStore("s3://0/?\n&access-key=00000000", 0); err == nil || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "00000000") {
		t.Errorf("a URL with a line break: %v", err)
	}
}

// Each bad place gets one line naming the fix, without the keys.
func TestS3BadInput(t *testing.T) {
	srv := s3test.Need(t)
	b := srv.Bucket(t)
	srv.GrantRead(t, b)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().String()
	l.Close()
	for _, c := range []struct {
		name, url, want string
		write           bool
	}{
		{"unreachable", "s3://" + b + "?endpoint=http://" + closed + "&access-key=x&secret-access-key=" + srv.SecretKey, "cannot reach http://" + closed, true},
		{"wrong keys", srv.URLWith(b, "", srv.AccessKey, srv.SecretKey+"x"), "refused the credentials", true},
		{"unknown key", srv.URLWith(b, "", "nobody", srv.SecretKey), "refused the credentials", true},
		{"missing bucket", srv.URL(b+"-none", "p"), `bucket "` + b + `-none" does not exist`, true},
		{"forbidden write", srv.URLWith(b, "p", srv.ReaderKey, srv.ReaderSecret), "denied PutObject", true},
		{"reader may read", srv.URLWith(b, "p", srv.ReaderKey, srv.ReaderSecret), "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := OpenStore(c.url, 0)
			if err == nil {
				err = st.Check(c.write)
			}
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), srv.SecretKey) || strings.Contains(err.Error(), srv.ReaderSecret) {
				t.Errorf("not one clean line: %q", err)
			}
		})
	}
	if objs := srv.Objects(t, b, ""); len(objs) != 0 {
		t.Errorf("left objects: %v", objs)
	}
}

// On TiDB, IMPORT INTO reads the objects itself: the statements that run
// carry the credentials (from the URL, else role-arn, else the AWS chain),
// parse with TiDB's parser, and put the file pattern in the path.
func TestImportIntoS3Credentials(t *testing.T) {
	_, m := writeDir(t, 2, 1<<20)
	t.Setenv("AWS_ACCESS_KEY_ID", "ENVAKID")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "ENVSECRET")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	for _, c := range []struct {
		url        string
		want, none []string
	}{
		{"s3://bkt/pre/fix?endpoint=http://10.0.0.1:9000&access-key=URLAK&secret-access-key=URLSECRET",
			[]string{"access-key=URLAK", "secret-access-key=URLSECRET", "endpoint=http://10.0.0.1:9000"}, []string{"ENV"}},
		{"s3://bkt/pre/fix?region=eu-west-1", []string{"access-key=ENVAKID", "secret-access-key=ENVSECRET", "region=eu-west-1"}, []string{"URL"}},
		{"s3://bkt/pre/fix?role-arn=arn:aws:iam::1:role/r&external-id=EXT", []string{"role-arn=arn:aws:iam::1:role/r", "external-id=EXT"}, []string{"ENV", "access-key"}},
	} {
		st, err := openS3(c.url, 0)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(st.Location(), "SECRET") || strings.Contains(st.Location(), "EXT") {
			t.Errorf("Location shows a secret: %s", st.Location())
		}
		loc, err := st.importLocation(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		stmts, _, err := parser.New().Parse(ImportSQL(m, loc, 4), "", "")
		if err != nil || len(stmts) != 2 {
			t.Fatalf("%s: %d statements, %v", c.url, len(stmts), err)
		}
		from := stmts[0].(*ast.ImportIntoStmt).Path
		u, err := url.Parse(from)
		if err != nil || u.Host != "bkt" || u.Path != "/pre/fix/"+m.DB+".a.*.csv" {
			t.Errorf("FROM %s: not the table's files in the bucket", from)
		}
		for _, w := range c.want {
			if !strings.Contains(from, w) {
				t.Errorf("FROM %s lacks %s", from, w)
			}
		}
		for _, n := range c.none {
			if strings.Contains(from, n) {
				t.Errorf("FROM %s has %s", from, n)
			}
		}
		if shown := st.redact("IMPORT INTO failed for " + from); strings.Contains(shown, "SECRET") || strings.Contains(shown, "EXT") {
			t.Errorf("redact left a secret: %s", shown)
		}
	}
}

// WriteCSV into s3:// (under -race in make test): the objects are the
// folder's files byte for byte, the manifest the same, and a failing
// generator leaves no object under a data file's name and no open upload.
func TestWriteCSVToS3(t *testing.T) {
	srv := s3test.Need(t)
	dir, want := writeDir(t, 3, 32<<10)
	b := srv.Bucket(t)
	ds := Dataset{Workload: "test", Tables: []dataset.Table{testTable("a", 25500, -1), testTable("b", 3000, -1), testTable("empty", 0, -1)}}
	m, err := WriteCSV(t.Context(), "db1", ds, Options{Dir: srv.URL(b, "w"), Threads: 4, Seed: 7, FileSize: 32 << 10, Progress: "off"})
	if err != nil {
		t.Fatal(err)
	}
	files := listFiles(t, dir)
	objs := srv.Objects(t, b, "w/")
	for name, data := range files {
		if got := srv.Get(t, b, "w/"+name); name != "db1-import.sql" && !bytes.Equal(got, data) {
			t.Errorf("%s differs from the folder's", name)
		}
	}
	if len(m.Tables[0].Files) != len(want.Tables[0].Files) || m.Tables[0].Files[3].SHA256 != want.Tables[0].Files[3].SHA256 {
		t.Errorf("manifests differ")
	}
	top := 0
	for k := range objs {
		if !strings.Contains(strings.TrimPrefix(k, "w/"), "/") {
			top++
		}
	}
	if top != len(files) {
		t.Errorf("%d objects, the folder has %d files", top, len(files))
	}

	ds.Tables[0] = testTable("a", 25500, 20000)
	_, err = WriteCSV(t.Context(), "db2", ds, Options{Dir: srv.URL(b, "fail"), Threads: 2, Seed: 7, FileSize: 8 << 20, Progress: "off"})
	if err == nil || !strings.Contains(err.Error(), "generator failed") {
		t.Fatalf("want the generator's error, got %v", err)
	}
	for k := range srv.Objects(t, b, "fail/") {
		if strings.HasSuffix(k, "db2.a.000001.csv") {
			t.Errorf("failed file visible: %s", k)
		}
	}
	if open := srv.OpenUploads(t, b); len(open) != 0 {
		t.Errorf("open uploads: %v", open)
	}
}
