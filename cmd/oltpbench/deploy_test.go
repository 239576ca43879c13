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

	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/testenv/s3test"
)

// jobScript is the shell command of a Job manifest in deploy/kubernetes
// (the folded `args: - >-` block).
func jobScript(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", file))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "- >-\n")
	if !ok {
		t.Fatalf("%s: no folded args block", file)
	}
	var words []string
	for _, l := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(l, "              ") {
			break
		}
		words = append(words, strings.TrimSpace(l))
	}
	return strings.Join(words, " ")
}

// The Kubernetes example runs as written, scaled down: the Indexed Job's
// command for every completion index writes its shard to the S3 server with
// keys from the AWS variables and the endpoint from AWS_ENDPOINT_URL_S3
// (none in the URL), then the import Job's command loads the whole set.
func TestKubernetesExample(t *testing.T) {
	needServer(t)
	srv := s3test.Need(t)
	b := srv.Bucket(t)
	csv := jobScript(t, "csv-job.yaml")
	imp := jobScript(t, "import-job.yaml")
	job, _ := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", "csv-job.yaml"))
	if m := regexp.MustCompile(`completions: (\d+)`).FindSubmatch(job); m == nil || !strings.Contains(string(job), "value: \""+string(m[1])+"\"") {
		t.Errorf("csv-job.yaml: completions and SHARDS differ")
	}
	csv = strings.Replace(csv, "--warehouses=1000", "--warehouses=1 --csv-file-size=4MiB --mysql-db=k8s_tpcc", 1)
	imp = strings.Replace(imp, "--mysql-host=tidb.example --mysql-port=4000 --mysql-user=root", strings.Join(connArgs("k8s_tpcc"), " "), 1)
	if csv == jobScript(t, "csv-job.yaml") || imp == jobScript(t, "import-job.yaml") {
		t.Fatal("the example's command lines changed: update this test")
	}
	freshDB(t, "k8s_tpcc")
	env := append(os.Environ(), "PATH="+filepath.Dir(binPath)+":"+os.Getenv("PATH"), "BUCKET="+b, "REGION=us-east-1", "SHARDS=3",
		"AWS_ACCESS_KEY_ID="+srv.AccessKey, "AWS_SECRET_ACCESS_KEY="+srv.SecretKey, "AWS_ENDPOINT_URL_S3="+srv.Endpoint,
		"AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "MYSQL_PASSWORD=")
	sh := func(script string, extra ...string) string {
		t.Helper()
		c := exec.Command("/bin/sh", "-c", script)
		c.Env = append(env, extra...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	var outputs []string
	for _, k := range []string{"2", "0", "1"} {
		outputs = append(outputs, sh(csv, "JOB_COMPLETION_INDEX="+k))
	}
	outputs = append(outputs, sh(imp))
	var n int
	if err := openDB(t, "k8s_tpcc").QueryRow("SELECT COUNT(*) FROM warehouse").Scan(&n); err != nil || n != 1 {
		t.Errorf("warehouses loaded: %d, %v\n%s", n, err, strings.Join(outputs, "\n"))
	}
	noSecret(t, srv.SecretKey, outputs, srv.Data)
}

// The run Job as written, scaled down: two clients started a second apart
// with one --start-at measure the same window, and the merge Job combines
// them. A --start-at in the past is refused.
func TestKubernetesRunAndMerge(t *testing.T) {
	needServer(t)
	db := "k8s_run"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_common", "prepare", "--tables=1", "--table-size=1000"), "prepare")
	dir := t.TempDir()
	run := jobScript(t, "run-job.yaml")
	merge := jobScript(t, "merge-job.yaml")
	for _, r := range [][2]string{
		{"--tables=32 --table-size=10000000", "--tables=1 --table-size=1000"},
		{"--threads=64 --time=300 --warmup-time=30", "--threads=2 --time=2 --warmup-time=0"},
		{"--mysql-host=tidb.example --mysql-port=4000 --mysql-user=root", strings.Join(connArgs(db), " ")},
		{"--metrics-addr=:9100", "--metrics-addr=127.0.0.1:0"}, // two pods here share one host
	} {
		if !strings.Contains(run, r[0]) {
			t.Fatalf("run-job.yaml changed (%q): update this test", r[0])
		}
		run = strings.Replace(run, r[0], r[1], 1)
	}
	run = strings.ReplaceAll(run, "/results/", dir+"/")
	merge = strings.ReplaceAll(merge, "/results/", dir+"/")
	// Time for both clients to reach the barrier, the second a second
	// later, on a machine busy with other tests (3 s was short of it).
	start := time.Now().Add(6 * time.Second).UTC().Format(time.RFC3339Nano)
	env := append(os.Environ(), "PATH="+filepath.Dir(binPath)+":"+os.Getenv("PATH"), "START="+start, "MYSQL_PASSWORD=")
	var cmds []*exec.Cmd
	for k := range 2 {
		c := exec.Command("/bin/sh", "-c", run)
		c.Env = append(env, "JOB_COMPLETION_INDEX="+strconv.Itoa(k))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
		time.Sleep(time.Second) // the second client starts later, as pods do
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("client: %v", err)
		}
	}
	var starts []time.Time
	for k := range 2 {
		r, err := result.Read(filepath.Join(dir, "client-"+strconv.Itoa(k)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, r.Start)
	}
	at, _ := time.Parse(time.RFC3339Nano, start)
	if d := starts[0].Sub(starts[1]).Abs(); d > 300*time.Millisecond || starts[0].Before(at) {
		t.Errorf("clients started %s apart (%v, %v), --start-at %v", d, starts[0], starts[1], at)
	}
	c := exec.Command("/bin/sh", "-c", merge)
	c.Env = env
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "oltp_point_select") {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	if r := sb(t, db, "oltp_point_select", "run", "--tables=1", "--table-size=1000", "--time=1", "--start-at="+past); r.code == 0 || !strings.Contains(r.stderr, "passed") {
		t.Errorf("a past --start-at: exit %d, %q", r.code, r.stderr)
	}
}

// TestManifestCommandsParse: the command of every Job under
// deploy/kubernetes is one oltpbench reads: run as its pod would (index 1,
// a password in the environment, none of the pod's files or servers), it
// stops on what the pod would have and this machine has not, never on an
// option oltpbench does not know.
func TestManifestCommandsParse(t *testing.T) {
	needServer(t) // the built binary
	bin := t.TempDir()
	if err := os.Symlink(binPath, filepath.Join(bin, "oltpbench")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{"plan-job.yaml", "/plan/plan.toml"},
		{"run-job.yaml", "--start-at"},
		{"merge-job.yaml", "/results/"},
	} {
		script := jobScript(t, tc.file)
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "JOB_COMPLETION_INDEX=1", "MYSQL_PWD=secret",
			"START=2020-01-01T00:00:00Z", "MYSQL_PASSWORD=secret")
		timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
		out, err := cmd.CombinedOutput()
		timer.Stop()
		s := string(out)
		if err == nil || !strings.Contains(s, tc.want) || strings.Contains(s, "unknown flag") || strings.Contains(s, "unknown shorthand") ||
			strings.Contains(s, "unexpected ") || strings.Contains(s, "secret") {
			t.Errorf("%s: %v\n%s", tc.file, err, s)
		}
	}
}
