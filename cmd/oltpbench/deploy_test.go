package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/s3test"
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
