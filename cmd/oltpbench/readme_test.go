package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/testenv/s3test"
)

// docPages are the pages whose commands the tests run: the README, then
// the guide's pages in name order.
func docPages(t *testing.T) []string {
	pages, err := filepath.Glob("../../docs/guide/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no guide pages in docs/guide: %v", err)
	}
	return append([]string{"../../README.md"}, pages...)
}

// docCommands are the commands of the pages' sh blocks, blocks numbered
// over all the pages.
func docCommands(t *testing.T, pages []string) []readmeCommand {
	var cmds []readmeCommand
	for i, p := range pages {
		cmds = append(cmds, readmeCommands(t, p, 1000*i)...)
	}
	return cmds
}

// TestDocCommandsCovered: every command the README and the guide show has
// an entry in readmeRuns, so a new example cannot go untested, and every
// entry is a command they show.
func TestDocCommandsCovered(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range docCommands(t, docPages(t)) {
		if _, ok := readmeRuns[c.text]; !ok {
			t.Errorf("%s:%d: %q is run by no test: add it to readmeRuns (readme_test.go)", c.file, c.line, c.text)
		}
		seen[c.text] = true
	}
	for text, run := range readmeRuns {
		if !seen[text] && run.skip != "gone" {
			t.Errorf("readmeRuns has %q, which the README and the guide no longer show: remove it", text)
		}
	}
}

// TestREADMECommands runs every oltpbench command the README shows, in its
// order, each block in a folder of its own, against the test server (and
// the test S3 server): the README is read, not copied, so a command that is
// changed, added or spelled another way there is run as it now reads.
// Sizes and times are scaled down by the substitutions below, and "..."
// (the README's "your connection options") becomes the test server's. The
// guide's pages are run the same way, in two tests that may run on other
// servers at once (TestGuideCommands).
func TestREADMECommands(t *testing.T) { runDocCommands(t, docPages(t)[:1]) }

// TestGuideCommands runs the commands of the guide's pages, as
// TestREADMECommands does the README's: its first half of the pages, and
// the other in TestGuideCommandsMore.
func TestGuideCommands(t *testing.T) {
	guide := docPages(t)[1:]
	runDocCommands(t, guide[:len(guide)/2])
}

// TestGuideCommandsMore runs the second half of the guide's pages.
func TestGuideCommandsMore(t *testing.T) {
	guide := docPages(t)[1:]
	runDocCommands(t, guide[len(guide)/2:])
}

// runDocCommands runs the commands of pages, each block in a folder of
// its own, against the test server.
func runDocCommands(t *testing.T, pages []string) {
	needServer(t)
	srv := s3test.Need(t)
	bucket := srv.Bucket(t)
	cmds := docCommands(t, pages)
	for _, db := range []string{"sbtest", "tpcc", "ch", "sb"} {
		freshDB(t, db)
		if _, err := openDB(t, "").Exec("CREATE DATABASE " + db); err != nil {
			t.Fatal(err)
		}
	}
	subst := readmeSubst()
	dirs := map[int]string{}
	for _, c := range cmds {
		run, ok := readmeRuns[c.text]
		if !ok || run.skip != "" {
			continue // TestDocCommandsCovered names a command with no entry
		}
		if run.custom != nil {
			run.custom(t)
			continue
		}
		dir, ok := dirs[c.block]
		if !ok {
			dir = t.TempDir()
			dirs[c.block] = dir
		}
		if run.before != nil {
			run.before(t, dir)
		}
		text := c.text + " " + run.add
		// $D, the README's storage URL: a prefix of the test bucket for each block
		text = strings.ReplaceAll(text, `"$D"`, srv.URL(bucket, "block"+strconv.Itoa(c.block)))
		text = strings.ReplaceAll(text, "$S3CH", srv.URL(bucket, "ch"))
		for _, s := range subst {
			text = s.re.ReplaceAllString(text, s.to)
		}
		if run.shell {
			readmeShell(t, c, dir, text, run.codes)
			continue
		}
		args := strings.Fields(text)[1:] // after "oltpbench"
		if readmeConnects(args) && !slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "--mysql-host") || strings.HasPrefix(a, "--props") || strings.HasPrefix(a, "--config-file")
		}) {
			args = append(args, readmeConn()...)
		}
		readmeRun(t, c, dir, args, run.codes)
	}
}

// readmeCommand is one command of a README code block: the text from
// "oltpbench" on, continuation lines joined, the comment cut, spaces folded.
type readmeCommand struct {
	text  string
	file  string // the page, from the repository's root
	line  int    // where it starts in the page
	block int    // which ```sh block, unique over the pages
}

// readmeCommands reads the oltpbench commands of the README's sh blocks;
// a line that holds two (the go-tpc table's) gives the one on the right.
func readmeCommands(t *testing.T, path string, firstBlock int) []readmeCommand {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeCommand
	sc := bufio.NewScanner(f)
	n, block, inSh, inOther := 0, firstBlock, false, false
	var cont string
	contLine := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "```sh"):
			inSh, block = true, block+1
			continue
		case strings.HasPrefix(l, "```") && (inSh || inOther):
			inSh, inOther = false, false
			continue
		case strings.HasPrefix(l, "```"):
			inOther = true
			continue
		}
		if !inSh {
			continue
		}
		if cont != "" {
			l, cont = cont+" "+strings.TrimSpace(l), ""
		} else {
			contLine = n
		}
		if strings.HasSuffix(l, "\\") {
			cont = strings.TrimSuffix(l, "\\")
			continue
		}
		text := strings.TrimSpace(l)
		if i := strings.Index(text, " #"); i >= 0 {
			text = strings.TrimSpace(text[:i])
		}
		if strings.HasPrefix(text, "#") || text == "" {
			continue
		}
		if i := strings.LastIndex(text, "oltpbench "); i > 0 && !strings.HasPrefix(text, "oltpbench ") {
			text = text[i:] // the go-tpc table's right column
		}
		out = append(out, readmeCommand{text: strings.Join(strings.Fields(text), " "), file: strings.TrimPrefix(path, "../../"), line: contLine, block: block})
	}
	return out
}

type readmeSub struct {
	re *regexp.Regexp
	to string
}

// readmeSubst scales the README's sizes, times and places down to the test
// servers: the whole of what differs between the README and what runs.
func readmeSubst() []readmeSub {
	h, p := testHost, testPort
	var subs []readmeSub
	for _, kv := range [][2]string{
		{`\$HOST1,\$HOST2`, h + "," + h},
		{`\$HOST\b`, h},
		{`--mysql-host=(\.\.\.|tidb|old-tidb|new-tidb)( |$)`, "--mysql-host=" + h + " "},
		{`--mysql-port=4000`, "--mysql-port=" + p},
		{`--ap-host=\S+`, "--ap-host=" + h},
		{`--ap-port=4000`, "--ap-port=" + p},
		{`--table-size=10000000`, "--table-size=200"},
		{`--keys=1000000`, "--keys=1000"},
		{`--tables=(4|16|32)\b`, "--tables=2"},
		{`--warehouses=(10|1000)\b`, "--warehouses=1"},
		{`--baseline-max=600\b`, "--baseline-max=1"},
		{`--threads=8-1024`, "--threads=1-2"},
		{`--threads=[0-9,]+`, "--threads=2"},
		{`--time=(10m|60|120|300)\b`, "--time=1"},
		{`-p (recordcount|operationcount)=1000000\b`, "-p ${1}=1000"},
		{`-p maxexecutiontime=60\b`, "-p maxexecutiontime=1"},
		{`--ramp=1m`, "--ramp=0"},
		{`--cooldown=30s`, "--cooldown=0"},
		{`--report-interval=10\b`, "--report-interval=1"},
		{`--metrics-addr=:9100`, "--metrics-addr=127.0.0.1:0"},
		{`--p95-slo=105ms`, "--p95-slo=1s"},
		{`/data/`, "data/"},
		{`~/scripts/`, "scripts/"},
		{`/tmp/try`, "try"},
		{`\$k/4`, "1/1"},
		{`plan run deploy/plans/sysbench-release\.toml`, "plan run small.toml"},
		{`plan run deploy/plans/durability-versions\.toml`, "plan run deploy/plans/durability-versions.toml --scale=0.02"},
		{`\$PORT\b`, p},
		{` \.\.\.( |$)`, " " + strings.Join(readmeConn(), " ") + " "},
	} {
		subs = append(subs, readmeSub{regexp.MustCompile(kv[0]), kv[1]})
	}
	return subs
}

// readmeConn are the test server's options, for commands that connect and
// name no server (the README's "...").
func readmeConn() []string {
	return []string{"--mysql-host=" + testHost, "--mysql-port=" + testPort, "--mysql-user=root"}
}

// readmeConnects says whether a command line talks to a server.
func readmeConnects(args []string) bool {
	switch args[0] {
	case "csv", "report":
		return false
	case "plan":
		return false // its server options come after "--"
	}
	return true
}

func readmeRun(t *testing.T, c readmeCommand, dir string, args []string, codes []int) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if code := exitCode(t, err); !slices.Contains(append([]int{0}, codes...), code) {
		t.Errorf("%s:%d: %s\nran as: oltpbench %s\nexit %d:\n%s", c.file, c.line, c.text, strings.Join(args, " "), code, out)
	}
}

// readmeShell runs a command with a shell's redirection (report merge > f).
func readmeShell(t *testing.T, c readmeCommand, dir, text string, codes []int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", strings.Replace(text, "oltpbench", binPath, 1))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if code := exitCode(t, err); !slices.Contains(append([]int{0}, codes...), code) {
		t.Errorf("%s:%d: %s\nran as: %s\nexit %d:\n%s", c.file, c.line, c.text, text, code, out)
	}
}

// readmeRun is how one README command runs here: skip says why it does not
// (another tool's command), add what is appended to it, before what the
// folder needs first, codes the exit codes taken besides 0.
type readmeEntry struct {
	skip   string
	add    string
	before func(t *testing.T, dir string)
	codes  []int
	shell  bool
	custom func(t *testing.T) // runs the command its own way
}

// writeIn writes files into dir.
func writeIn(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// obIn runs oltpbench in dir for a README command's setup, and must pass.
func obIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("setup: oltpbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func copyStock(t *testing.T, dir, name, to string) {
	t.Helper()
	src, err := os.ReadFile("/usr/share/sysbench/" + name)
	if err != nil {
		t.Skip("sysbench's scripts are not installed")
	}
	writeIn(t, dir, map[string]string{to: string(src)})
}

// smallPlan stands in for seed 004's plan in the commands that run a plan
// (its 60 cells are plan-examples' job): the same workload, one cell.
const smallPlan = `name = "readme"
[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 100 }
[[step]]
test = "oltp_point_select"
threads = [2]
time = "1s"
`

func sbRun(dir string, args ...string) []string {
	return append(append([]string{"sysbench", "oltp_point_select", "run", "--time=1", "--threads=2", "--tables=2", "--table-size=200"}, args...), readmeConn()...)
}

var readmeRuns = map[string]readmeEntry{
	"make build": {skip: "make test's first step (test: build)"},
	"go install ./cmd/oltpbench": {custom: func(t *testing.T) {
		bin := t.TempDir()
		cmd := exec.Command("go", "install", "./cmd/oltpbench")
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "GOBIN="+bin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go install ./cmd/oltpbench: %v\n%s", err, out)
		}
		if out, err := exec.Command(filepath.Join(bin, "oltpbench"), "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "oltpbench version ") {
			t.Errorf("the installed oltpbench --version: %v %q", err, out)
		}
	}},
	"oltpbench plan run deploy/plans/sysbench-release.toml --result-dir results/v6.1 -- --mysql-host=old-tidb --mysql-port=4000": {add: "--mysql-user=root", before: func(t *testing.T, dir string) {
		writeIn(t, dir, map[string]string{"small.toml": smallPlan})
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
	}},
	"oltpbench plan run deploy/plans/sysbench-release.toml --result-dir results/v6.5 -- --mysql-host=new-tidb --mysql-port=4000": {add: "--mysql-user=root"},
	"oltpbench report compare results/v6.1 results/v6.5 --format=markdown --fail-on=regression:5%": {
		codes: []int{1}}, // two runs of one server differ by noise: the gate may fail them
	"oltpbench kv prepare --keys=1000000 --mysql-host=$HOST --mysql-port=4000 --mysql-user=root": {before: func(t *testing.T, dir string) {
		freshDB(t, "kv")
	}},
	"oltpbench kv run --keys=1000000 --read-percent=95 --dist=zipfian --threads=64 --time=300 --mysql-host=$HOST --mysql-port=4000 --mysql-user=root": {},
	"make demo":                           {skip: "run by .ci/run after make test (scripts/demo.sh starts a MariaDB of its own)"},
	"make fuzz FUZZTIME=10m":              {skip: "run by scripts/test.sh (make test) with FUZZTIME=1s on two targets"},
	"make soak":                           {skip: "run by TestSoak, scaled down (SOAK_MIN and the sizes)"},
	"make test":                           {skip: "the command .ci/run runs: these tests"},
	"tiup tidb-lightning -d /data/sb ...": {skip: "TiDB Lightning's command: no TiDB here; the files it reads are the csv command's, checked by the loader's tests"},
	"D='s3://my-bucket/tpcc-1000?region=us-west-2'":                                                             {skip: "an assignment: the test sets $D to its S3 server's bucket"},
	"D='s3://bench/tpcc?endpoint=http://minio:9000&force-path-style=true&access-key=...&secret-access-key=...'": {skip: "an assignment: the test sets $D to its S3 server's bucket"},
	"oltpbench sysbench oltp_common --threads=16 --rand-type=uniform --mysql-host=$HOST --mysql-port=4000 --mysql-user=root --mysql-db=sbtest prepare --tables=16 --table-size=10000000": {before: func(t *testing.T, dir string) {
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
	}},
	"oltpbench sysbench oltp_read_write --threads=256 --time=300 --report-interval=10 --rand-type=uniform --mysql-host=$HOST1,$HOST2 --mysql-port=4000 --mysql-user=root run --tables=16 --table-size=10000000": {},
	"oltpbench sysbench --config-file=sb.conf oltp_read_only run --tables=16 --table-size=10000000": {before: func(t *testing.T, dir string) {
		writeIn(t, dir, map[string]string{"sb.conf": "mysql-host=" + testHost + "\nmysql-port=" + testPort + "\nmysql-user=root\nmysql-db=sbtest\nthreads=2\ntime=1\n"})
	}},
	"oltpbench sysbench ./my_test.lua --tables=4 prepare": {add: "--table-size=100", before: func(t *testing.T, dir string) {
		copyStock(t, dir, "oltp_point_select.lua", "my_test.lua")
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
	}},
	"oltpbench sysbench ./my_test.lua --threads=16 --time=60 --report-interval=10 run": {add: "--table-size=100"},
	"oltpbench sysbench ~/scripts/oltp_read_write.lua --threads=64 run": {add: "--time=1 --tables=2 --table-size=100", before: func(t *testing.T, dir string) {
		copyStock(t, dir, "oltp_read_write.lua", "scripts/oltp_read_write.lua")
	}},
	"oltpbench csv sysbench --dir /data/sb --mysql-db=sbtest --tables=32 --table-size=10000000 --threads=16": {},
	"oltpbench csv tpcc --dir /data/tpcc --warehouses=1000 --threads=16":                                     {},
	"oltpbench import --dir /data/sb --mysql-host=... --mysql-user=root --threads=8": {add: "--mysql-port=" + "$PORT", before: func(t *testing.T, dir string) {
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
	}},
	"oltpbench csv tpcc --warehouses=1000 --threads=16 --dir \"$D\"": {},
	"oltpbench import --dir \"$D\" --mysql-host=tidb --mysql-port=4000 --mysql-user=root": {before: func(t *testing.T, dir string) {
		freshDB(t, "tpcc")
		openDB(t, "").Exec("CREATE DATABASE tpcc")
	}},
	"oltpbench csv tpcc --warehouses=1000 --threads=16 --shard=$k/4 --resume --dir \"$D\"": {},
	"oltpbench import --dir \"$D\" --mysql-host=tidb --mysql-port=4000 --mysql-user=root --threads=16": {before: func(t *testing.T, dir string) {
		freshDB(t, "tpcc")
		openDB(t, "").Exec("CREATE DATABASE tpcc")
	}},
	"oltpbench tpcc prepare --warehouses=1000 --threads=16 --mysql-host=$HOST --mysql-port=4000 --mysql-user=root": {before: func(t *testing.T, dir string) {
		freshDB(t, "tpcc")
	}},
	"oltpbench tpcc check --warehouses=1000 --checks=all":                                                       {},
	"oltpbench tpcc run --warehouses=1000 --threads=128,256,512 --time=10m --ramp=1m --result-dir=results/v7.5": {},
	"oltpbench tpcc check --warehouses=1000":                                                                    {},
	"oltpbench tpcc run --props=props.mysql --schema=benchmarksql": {add: "--time=1", before: func(t *testing.T, dir string) {
		writeIn(t, dir, map[string]string{"props.mysql": "db=mysql\ndriver=com.mysql.cj.jdbc.Driver\nconn=jdbc:mysql://" + testHost + ":" + testPort + "/bmsql\nuser=root\npassword=\nwarehouses=1\nloadWorkers=2\nterminals=2\nrunTxnsPerTerminal=0\nrunMins=1\nlimitTxnsPerMin=0\nterminalWarehouseFixed=true\nnewOrderWeight=45\npaymentWeight=43\norderStatusWeight=4\ndeliveryWeight=4\nstockLevelWeight=4\n"})
		freshDB(t, "bmsql")
		openDB(t, "").Exec("CREATE DATABASE bmsql")
		obIn(t, dir, "tpcc", "prepare", "--props=props.mysql", "--schema=benchmarksql")
	}},
	"oltpbench tpcc prepare --props=props.mysql --schema=benchmarksql --foreign-keys=on": {before: func(t *testing.T, dir string) {
		freshDB(t, "bmsql")
		openDB(t, "").Exec("CREATE DATABASE bmsql")
	}},
	"oltpbench tpcc check --props=props.mysql --schema=benchmarksql":                  {},
	"oltpbench ch prepare --warehouses=10 --threads=8 --db=ch":                        {},
	"oltpbench ch run --warehouses=10 --threads=16 --ap-threads=2 --time=10m --db=ch": {},
	"oltpbench ch run ... --queries=q1,q6,q14":                                        {add: "--warehouses=1 --db=ch --time=1"},
	"oltpbench ch run ... --ap-host=tidb-ap --ap-port=4000 --ap-session-vars=tidb_isolation_read_engines=tiflash": {add: "--warehouses=1 --db=ch --time=1 --ap-user=root",
		codes: []int{1}}, // MariaDB has no tidb_isolation_read_engines: the streams' session variable fails the run, in one line
	"oltpbench ch prepare ... --tiflash-replica=1":            {add: "--warehouses=1 --db=ch", codes: []int{1}}, // TiDB only: refused on MariaDB in one line
	"oltpbench ch run ... --explain-analyze":                  {add: "--warehouses=1 --db=ch --time=1"},
	"oltpbench ch check --warehouses=10":                      {add: "--db=ch"},
	"oltpbench ch cleanup":                                    {add: "--db=ch"},
	"oltpbench csv ch --warehouses=1000 --dir=s3://bucket/ch": {add: "--dir=$S3CH"}, // the last --dir wins: the test bucket
	"oltpbench plan show deploy/plans/sysbench-release.toml": {before: func(t *testing.T, dir string) {
		writeIn(t, dir, map[string]string{"small.toml": smallPlan})
		os.MkdirAll(filepath.Join(dir, "deploy/plans"), 0o755)
		src, _ := os.ReadFile("../../deploy/plans/sysbench-release.toml")
		writeIn(t, dir, map[string]string{"deploy/plans/sysbench-release.toml": string(src)})
	}},
	"oltpbench plan run deploy/plans/sysbench-release.toml --result-dir results/v6.5 -- --mysql-host=... --mysql-port=4000": {add: "--mysql-user=root", before: func(t *testing.T, dir string) {
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
		obIn(t, dir, append([]string{"plan", "run", "small.toml", "--result-dir", "results/v6.1", "--"}, readmeConn()...)...)
	}},
	"oltpbench plan run deploy/plans/sysbench-release.toml --scale=0.001 --result-dir /tmp/try -- ...":   {},
	"oltpbench tpcc search --warehouses=1000 --wait --time=10m --ramp=1m --result-dir=capacity/v7.5 ...": {add: "--db=tpcc"},
	"oltpbench tpcc search --warehouses=1000 --wait=0.05 --time=300 --result-dir=capacity/small ...":     {add: "--db=tpcc"},
	"oltpbench report compare capacity/v7.5 capacity/v7.6": {before: func(t *testing.T, dir string) {
		for _, v := range []string{"v7.5", "v7.6"} {
			obIn(t, dir, append([]string{"tpcc", "search", "--warehouses=1", "--wait=0.05", "--time=1", "--db=tpcc", "--result-dir=capacity/" + v}, readmeConn()...)...)
		}
	}},
	// One warehouse for 1 s at the spec's waits is a handful of New-Orders:
	// the gate may pass or fail it.
	"oltpbench tpcc search --warehouses=1000 --wait --time=10m --ramp=1m --baseline-max=600 --result-dir=gate/v7.6 ...": {add: "--db=tpcc", codes: []int{1}},
	"oltpbench plan show deploy/plans/durability-versions.toml": {before: func(t *testing.T, dir string) {
		for _, f := range []string{"durability-versions.toml", "durability.sh"} {
			src, err := os.ReadFile("../../deploy/plans/" + f)
			if err != nil {
				t.Fatal(err)
			}
			writeIn(t, dir, map[string]string{"deploy/plans/" + f: string(src)})
		}
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
	}},
	"oltpbench plan run deploy/plans/durability-versions.toml --result-dir results/durability -- ...":                                              {},
	"oltpbench plan run deploy/plans/durability-versions.toml --versions=durable,relaxed --fail-on=regression:5% --result-dir results/gate -- ...": {},
	"oltpbench bisect nightly.toml --versions-file builds.txt --result-dir results/bisect -- --mysql-host=127.0.0.1 --mysql-port=4000": {custom: func(t *testing.T) {
		// nightly.toml: builds deployed by the tests' deploy script on a
		// server of their own, the regression from b2 on.
		srv, conn := versionServer(t)
		dir := t.TempDir()
		p := versionsPlan(t, srv, `list = ["b1", "b4"]`, "[[step]]\ntest = \"oltp_write_only\"\nthreads = [2]\ntime = \"1s\"\nrepeats = 5\n")
		b, _ := os.ReadFile(p)
		writeIn(t, dir, map[string]string{"nightly.toml": strings.Replace(string(b), "MDB_DIR=", "BAD_FROM=2 MDB_DIR=", 1), "builds.txt": "b1\nb2\nb3\n"})
		cmd := exec.Command(binPath, append([]string{"bisect", "nightly.toml", "--versions-file", "builds.txt", "--result-dir", "results/bisect", "--"}, conn...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Last good: b1\nFirst bad: b2\n") {
			t.Errorf("bisect of b1..b3, bad from b2: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "results/bisect/bisect.md")); err != nil {
			t.Error(err)
		}
	}},
	"oltpbench plan run release.toml --result-dir results/v8.5 --clients=3 --client-index=0 --leader=10.0.0.5:7070 -- ...": {custom: func(t *testing.T) {
		// The three clients as shown, on loopback, a small plan.
		dir, port := t.TempDir(), freePort(t)
		freshDB(t, "guide_fleet")
		writeIn(t, dir, map[string]string{"release.toml": "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1, table-size = 1000 }\n[[step]]\ntest = \"oltp_point_select\"\nthreads = [3]\ntime = \"1s\"\n"})
		run := func(i int) *exec.Cmd {
			cmd := exec.Command(binPath, append([]string{"plan", "run", "release.toml", "--result-dir", "results/v8.5", "--clients=3", "--client-index=" + strconv.Itoa(i),
				"--leader=127.0.0.1:" + port, "--"}, connArgs("guide_fleet")...)...)
			cmd.Dir = dir
			return cmd
		}
		f1, f2 := run(1), run(2)
		if err := f1.Start(); err != nil {
			t.Fatal(err)
		}
		if err := f2.Start(); err != nil {
			t.Fatal(err)
		}
		out, err := run(0).CombinedOutput()
		if err1, err2 := f1.Wait(), f2.Wait(); err != nil || err1 != nil || err2 != nil || !strings.Contains(string(out), "merged: 3 threads") {
			t.Errorf("the three clients: %v %v %v\n%s", err, err1, err2, out)
		}
	}},
	"oltpbench plan run release.toml --result-dir results/v8.5 --clients=3 --client-index=1 --leader=10.0.0.5:7070 -- ...": {skip: "run beside client 0's (its entry starts all three)"},
	"oltpbench plan run release.toml --result-dir results/v8.5 --clients=3 --client-index=2 --leader=10.0.0.5:7070 -- ...": {skip: "run beside client 0's (its entry starts all three)"},
	"oltpbench report compare --baseline results/v6.1 --candidate results/v6.5 --format=markdown --fail-on=regression:5%": {
		codes: []int{1}}, // two runs of one server differ by noise: the gate may fail them
	"oltpbench sysbench oltp_point_select run --threads=150,300,600,900 --time=300 --cooldown=30s --result-dir=results/v3.0 ...": {add: "--tables=2 --table-size=200", before: func(t *testing.T, dir string) {
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
		obIn(t, dir, append([]string{"sysbench", "oltp_common", "prepare", "--tables=2", "--table-size=200", "--mysql-db=sbtest"}, readmeConn()...)...)
		obIn(t, dir, sbRun(dir, "--result-dir=results/v2.1")...)
	}},
	"oltpbench report compare --baseline results/v2.1 --candidate results/v3.0 --format markdown": {},
	"oltpbench report compare results/v6.1 results/v6.5 results/v7.1 results/v7.5 results/nightly": {before: func(t *testing.T, dir string) {
		for _, v := range []string{"v6.1", "v6.5", "v7.1", "v7.5", "nightly"} {
			obIn(t, dir, sbRun(dir, "--result-dir=results/"+v)...)
		}
	}},
	"oltpbench sysbench oltp_read_write --threads=64 --time=60 --tables=16 --table-size=10000000 ... --event='at=20s;name=add c_1;sql=ALTER TABLE sbtest1 ADD INDEX c_1 (c)' run": {shell: true, before: func(t *testing.T, dir string) {
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
		obIn(t, dir, append([]string{"sysbench", "oltp_common", "prepare", "--tables=2", "--table-size=200", "--mysql-db=sbtest"}, readmeConn()...)...)
	}},
	"oltpbench report merge client1.json client2.json client3.json > merged.json": {shell: true, before: func(t *testing.T, dir string) {
		// three clients of one run: at the same time
		var cmds []*exec.Cmd
		for _, c := range []string{"client1", "client2", "client3"} {
			cmd := exec.Command(binPath, sbRun(dir, "--result-file="+c+".json")...)
			cmd.Dir = dir
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		for _, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("setup: a client: %v", err)
			}
		}
	}},
	"oltpbench report show merged.json": {},
	"oltpbench ycsb load mysql -P workloads/workloada -p recordcount=1000000 -p threadcount=16 ...": {add: "--mysql-db=ycsb", before: func(t *testing.T, dir string) {
		freshDB(t, "ycsb")
	}},
	"oltpbench ycsb run mysql -P workloads/workloada -p operationcount=1000000 -p threadcount=16 ...":                   {add: "--mysql-db=ycsb -p recordcount=1000"},
	"oltpbench ycsb run mysql -P workloads/workloade -p maxexecutiontime=60 -p threadcount=64 --result-file=e.json ...": {add: "--mysql-db=ycsb -p recordcount=1000"},
	"oltpbench tpch prepare --sf=1 ...": {add: "--mysql-db=tpch --sf=0.01", before: func(t *testing.T, dir string) {
		freshDB(t, "tpch")
	}},
	"oltpbench tpch run --sf=1 --result-file=tpch.json ...": {add: "--mysql-db=tpch --sf=0.01"},
	"oltpbench tpch check --sf=1 ...":                       {add: "--mysql-db=tpch --sf=0.01"},
	"oltpbench csv tpch --sf=10 --dir=tpch10 ...":           {add: "--sf=0.01 --mysql-db=tpch"},
	"oltpbench report history nightly/": {before: func(t *testing.T, dir string) {
		// Four builds' runs of one day: the fixtures of report compare.
		for _, v := range []string{"v1", "v2", "v3", "v4"} {
			files, _ := filepath.Glob(filepath.Join(history, v, "*.json"))
			os.MkdirAll(filepath.Join(dir, "nightly", v), 0o755)
			for _, f := range files {
				b, _ := os.ReadFile(f)
				os.WriteFile(filepath.Join(dir, "nightly", v, filepath.Base(f)), b, 0o644)
			}
		}
	}},
	"oltpbench report history nightly/ --format markdown > changes.md":                       {shell: true},
	"oltpbench report history nightly/ --since 2026-01-01 --fail-on change:5%":               {codes: []int{1}}, // v3 fell 21%
	"oltpbench report history nightly/ --order version --format html > history.html":         {shell: true},
	"oltpbench sysbench oltp_read_write run --threads=8-1024 --p95-slo=105ms --time=120 ...": {add: "--tables=2 --table-size=200"},
	"oltpbench sysbench oltp_read_write --threads=64 --time=300 --metrics-addr=:9100 --client-id=client-a run": {add: "--tables=2 --table-size=200", before: func(t *testing.T, dir string) {
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
		obIn(t, dir, append([]string{"sysbench", "oltp_common", "prepare", "--tables=2", "--table-size=200", "--mysql-db=sbtest"}, readmeConn()...)...)
	}},
	"oltpbench sysbench oltp_read_write --threads=64 --time=300 --metrics-addr=:9100 --client-id=client-b run": {add: "--tables=2 --table-size=200"},
	"oltpbench plan run deploy/plans/sysbench-release.toml --result-dir out/v8.1 --metrics-addr=:9100 -- --mysql-host=tidb": {add: "--mysql-port=$PORT --mysql-user=root", before: func(t *testing.T, dir string) {
		writeIn(t, dir, map[string]string{"small.toml": smallPlan})
		freshDB(t, "sbtest")
		openDB(t, "").Exec("CREATE DATABASE sbtest")
	}},
}

// TestREADMEPlans: every plan the README and the guide show in a toml
// block is one that plan show accepts; a block of steps only is checked
// under a TPC-C dataset.
func TestREADMEPlans(t *testing.T) {
	var b []byte
	for _, p := range docPages(t) {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, page...)
	}
	blocks := regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	n := 0
	for _, m := range blocks {
		src := m[1]
		if !strings.Contains(src, "[[step]]") {
			continue
		}
		if !strings.Contains(src, "[dataset]") {
			src = "[dataset]\nworkload = \"tpcc\"\n" + src
		}
		n++
		if r := inProcess("plan", "show", writePlan(t, src)); r.code != 0 {
			t.Errorf("README plan %d: exit %d: %s\n%s", n, r.code, r.stderr, src)
		}
	}
	if n < 2 {
		t.Errorf("found %d plans in the README's toml blocks", n)
	}
}
