package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The drop-in cases below run one command line under the real sysbench
// 1.0.20 and under `oltpbench sysbench`, each in a folder of its own with
// the case's files, with stdout and stderr on one pipe (in the order a
// terminal shows them), and compare every line, numbers and the version
// suffix masked, and the exit code. Nothing is left out of the comparison.
// The scripts are written here from what sysbench's documentation and its
// behaviour show; each case names what it is about.

// dropinCase is one command line for both tools: files written to its
// folder first, args after the tool's name ("$DB" stands for the test
// server's options), stdin if any.
type dropinCase struct {
	name  string
	files map[string]string
	args  string
	stdin string
	quiet bool // sysbench prints nothing for it
	// threads print at once: their lines come in any order, their texts
	// and newlines apart (anyInterleaving)
	threads bool
}

// merged runs bin with args in dir, stdout and stderr on one pipe.
func merged(t *testing.T, dir, stdin string, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LUA_PATH=") { // as a user's shell has it: unset
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // one pipe: os/exec gives both the same descriptor
	code := exitCode(t, cmd.Run())      // before the buffer is read
	return out.String(), code
}

var (
	hexAddr = regexp.MustCompile(`0x[0-9a-f]+`)
	// A histogram's bars are counts drawn: their lengths are masked as
	// the numbers are.
	bars = regexp.MustCompile(`\|\*+ *`)
)

// maskedAll masks what differs between runs and tools and nothing else:
// the banner's suffix, addresses, the case's folder, numbers and the
// width of the runs of spaces that follow numbers.
func maskedAll(s, dir string) []string {
	s = strings.ReplaceAll(s, dir, "DIR")
	s = versionSuffix.ReplaceAllString(s, "(VERSION)")
	s = hexAddr.ReplaceAllString(s, "ADDR")
	s = bars.ReplaceAllString(s, "|BAR ")
	s = numbers.ReplaceAllString(s, "N")
	s = spaces.ReplaceAllString(s, " ")
	if !strings.HasSuffix(s, "\n") && s != "" { // a missing newline at the end is a difference too
		s += " (no newline at the end)"
	}
	return strings.Split(s, "\n")
}

// runDropin runs the cases side by side.
func runDropin(t *testing.T, cases []dropinCase) {
	t.Helper()
	needSysbench(t)
	dbArgs := "--mysql-host=" + testHost + " --mysql-port=" + testPort + " --mysql-user=root --mysql-db=dropin"
	for _, c := range cases {
		if strings.Contains(c.args, "$DB") {
			freshDB(t, "dropin")
			if _, err := openDB(t, "").Exec("CREATE DATABASE dropin"); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := strings.Fields(strings.ReplaceAll(c.args, "$DB", dbArgs))
			var outs [2]string
			var codes [2]int
			var dirs [2]string
			tools := []struct {
				bin  string
				args []string
			}{{"sysbench", args}, {binPath, append([]string{"sysbench"}, args...)}}
			run := func(i int) {
				dirs[i] = t.TempDir()
				for name, text := range c.files {
					if err := os.WriteFile(filepath.Join(dirs[i], name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				outs[i], codes[i] = merged(t, dirs[i], c.stdin, tools[i].bin, tools[i].args...)
			}
			compared := func() (theirs, mine []string) {
				theirs, mine = maskedAll(outs[0], dirs[0]), maskedAll(outs[1], dirs[1])
				if c.threads {
					theirs, mine = anyInterleaving(theirs), anyInterleaving(mine)
				}
				return theirs, mine
			}
			run(0)
			run(1)
			// sysbench's own output varies on a busy machine (its FATAL
			// line of a full queue is lost when it exits first): ours must
			// be one of its outputs, so sysbench is asked again, twice at
			// most, when they differ.
			for try := 0; try < 2; try++ {
				if theirs, mine := compared(); slices.Equal(theirs, mine) && codes[0] == codes[1] {
					break
				}
				run(0)
			}
			if !c.quiet && (outs[0] == "" || outs[1] == "") { // two empty outputs prove nothing
				t.Fatalf("nothing printed: sysbench %q, oltpbench %q", outs[0], outs[1])
			}
			if codes[0] != codes[1] {
				t.Errorf("exit %d, sysbench %d\n--- sysbench\n%s\n--- oltpbench\n%s", codes[1], codes[0], outs[0], outs[1])
			}
			theirs, mine := compared()
			sameLines(t, c.name, theirs, mine)
		})
	}
}

// TestDropInScripts: scripts that send no SQL run with no server; the Lua
// API where scripts meet it first; sysbench's own answers to a script's
// commands.
func TestDropInScripts(t *testing.T) {
	usleep := "ffi.cdef[[int usleep(unsigned int);]]\n"
	noServer := "--mysql-host=127.0.0.1 --mysql-port=1"
	runDropin(t, []dropinCase{
		{name: "usleep event, no server", files: map[string]string{"s.lua": usleep + "function event() ffi.C.usleep(1000) end\n"},
			args: noServer + " s.lua --events=3 run"},
		{name: "usleep not declared", files: map[string]string{"s.lua": "function event() ffi.C.usleep(1000) end\n"},
			args: "s.lua --events=3 run"},
		{name: "custom command that prints", files: map[string]string{"s.lua": `sysbench.cmdline.commands = {
  hello = {function() print("hello from " .. sysbench.tid) end},
  each = {function() print("each") end, sysbench.cmdline.PARALLEL_COMMAND},
}`}, args: noServer + " s.lua hello"},
		{name: "parallel command", files: map[string]string{"s.lua": `sysbench.cmdline.commands = {
  each = {function() print("each") end, sysbench.cmdline.PARALLEL_COMMAND},
}`}, args: "--threads=2 s.lua each", threads: true},
		{name: "own help", files: map[string]string{"s.lua": "sysbench.cmdline.options = {a = {'a', 1}}\nfunction help() print('my help', sysbench.opt.a) sysbench.cmdline.print_test_options() end\n"},
			args: "s.lua help"},
		{name: "help from options", files: map[string]string{"s.lua": `sysbench.cmdline.options = {
  b = {"b", nil, sysbench.cmdline.ARG_BOOL}, i = {"i", nil, sysbench.cmdline.ARG_INT}, s = {"s"},
  l = {"l", {"x", "y"}}, z = {"z", "1M", sysbench.cmdline.ARG_SIZE}, f = {"f", 0.5},
}`}, args: "s.lua help"},
		{name: "no help", files: map[string]string{"s.lua": "x = 1\n"}, args: "s.lua help"},
		{name: "no prepare", files: map[string]string{"s.lua": "function event() end\n"}, args: "s.lua prepare"},
		{name: "no command: the body only", files: map[string]string{"s.lua": "print('body')\nfunction event() print('event') end\n"}, args: "--events=1 s.lua"},
		{name: "thread ids and thread_run", files: map[string]string{"s.lua": `function thread_init(id) print(string.format("init %d", id)) end
function thread_run(id) print(string.format("thread_run %d", id)) end
function event() print("event") end
function thread_done(id) print(string.format("done %d", id)) end`}, args: "--verbosity=0 s.lua --threads=1 run"},
		{name: "thread id to event", files: map[string]string{"s.lua": `function event(id) print(string.format("event %d", id)) return true end`}, args: "--verbosity=1 s.lua run"},
		{name: "option values", files: map[string]string{"s.lua": `sysbench.cmdline.options = {
  b = {"b", nil, sysbench.cmdline.ARG_BOOL}, i = {"i", nil, sysbench.cmdline.ARG_INT}, s = {"s"},
  z = {"z", "1M", sysbench.cmdline.ARG_SIZE}, f = {"f", 0.5}, on = {"on", true},
}
function event()
  for _, k in ipairs({"b", "i", "s", "z", "f", "on"}) do print(k, type(sysbench.opt[k]), tostring(sysbench.opt[k])) end
  return true
end`}, args: "--verbosity=0 s.lua --z=2K --on=off run"},
		{name: "bad boolean", files: map[string]string{"s.lua": "sysbench.cmdline.options = {on = {'on', true}}\nfunction event() end\n"}, args: "s.lua --on=5 run"},
		{name: "bad number", files: map[string]string{"s.lua": "sysbench.cmdline.options = {n = {'n', 1, sysbench.cmdline.ARG_INT}}\nfunction event() end\n"}, args: "s.lua --n=x run"},
		{name: "unknown option, declared options", files: map[string]string{"s.lua": "sysbench.cmdline.options = {n = {'n', 1}}\nfunction event() end\n"}, args: "--foo=1 s.lua run"},
		{name: "legacy option globals", files: map[string]string{"s.lua": "function event() print(oltp_table_size, test, mysql_table_engine) return true end\n"},
			args: "--verbosity=0 --oltp-table-size=77 s.lua run"},
		{name: "wrong options table", files: map[string]string{"s.lua": "sysbench.cmdline.options = {{}}\nfunction help() end\n"}, args: "s.lua help"},
		{name: "syntax error", files: map[string]string{"s.lua": "function event()\n  x = 1\n"}, args: "s.lua run"},
		{name: "runtime error in event", files: map[string]string{"s.lua": "function event()\n  error('boom')\nend\n"}, args: "s.lua --events=1 run"},
		{name: "script on stdin", stdin: "print('from stdin')\n", args: ""},
		{name: "script on stdin as -", stdin: "function prepare() print('p') end\nprint('global')\n", args: "- prepare"},
		{name: "--test and --max-requests", files: map[string]string{"s.lua": "function event() print('e') end\n"},
			args: "--verbosity=0 --max-requests=2 --test=s.lua run"},
		{name: "deprecated aliases", files: map[string]string{"s.lua": "function event() end\n"},
			args: "--num-threads=2 --tx-rate=5 --max-time=1 s.lua help"},
		{name: "math.random wide ranges", files: map[string]string{"s.lua": `function event()
  local a = math.random(-4611686018427387904, 4611686018427387903)
  local b = math.random(0, 9223372036854775807)
  local c = math.random(10)
  print(a >= -4611686018427387904 and a <= 4611686018427387903, b >= 0, c >= 1 and c <= 10)
  return true
end`}, args: "--verbosity=0 s.lua run"},
		{name: "histogram on a script that sleeps", files: map[string]string{"s.lua": usleep + "function event() ffi.C.usleep(2000) end\n"},
			args: "--histogram --events=1 s.lua run"}, // one value: more land in one bucket or two as the sleeps vary
		{name: "report hooks csv", files: map[string]string{"s.lua": usleep + "function event() ffi.C.usleep(1000) end\nsysbench.hooks.report_intermediate = sysbench.report_csv\n"},
			args: "--verbosity=1 --time=4 --report-interval=3 s.lua run"}, // the end 1 s after the last interval: no line races it
		{name: "not found", args: "nosuch run"},
		{name: "unknown command", files: map[string]string{"s.lua": "function event() end\n"}, args: "s.lua frobnicate"},
		{name: "bad driver, cleanup", args: "--db-driver=foo /usr/share/sysbench/oltp_read_write.lua cleanup"},
		{name: "bad driver, run", args: "--db-driver=foo /usr/share/sysbench/oltp_read_write.lua run"},
	})
}

// TestDropInSQL: the legacy API with and without db_connect, connect
// failures, and sysbench.sql where a script misuses it.
func TestDropInSQL(t *testing.T) {
	runDropin(t, []dropinCase{
		{name: "legacy without db_connect", files: map[string]string{"s.lua": "function event() db_query('SELECT 1') end\n"}, args: "$DB --events=10 --threads=2 s.lua run"},
		{name: "legacy with db_connect", files: map[string]string{"s.lua": "function thread_init() db_connect() end\nfunction event() db_query('SELECT 1') end\n"}, args: "$DB --events=4 s.lua run"},
		{name: "legacy, server down", files: map[string]string{"s.lua": "function event() db_query('SELECT 1') end\n"}, args: "--mysql-host=127.0.0.1 --mysql-port=1 --events=1 s.lua run"},
		{name: "connect fails in thread_init", files: map[string]string{"s.lua": "function thread_init() con = sysbench.sql.driver():connect() end\nfunction event() con:query('SELECT 1') end\n"},
			args: "--mysql-host=127.0.0.1 --mysql-port=1 --events=1 s.lua run"},
		{name: "host does not resolve", files: map[string]string{"s.lua": "function event() local d = sysbench.sql.driver() print(select(2, pcall(d.connect, d))) return true end\n"},
			args: "--mysql-host=non-existing.invalid --events=1 --verbosity=1 s.lua run"},
		{name: "misuse", files: map[string]string{"s.lua": `function thread_init() drv = sysbench.sql.driver() con = drv:connect() end
function event()
  print(select(2, pcall(sysbench.sql.driver, "non-existing")))
  con:query("DROP TABLE IF EXISTS t")
  con:query("CREATE TABLE t(a INT, b CHAR(10))")
  con:query("INSERT INTO t VALUES (1, 'x')")
  local rs = con:query("SELECT * FROM t")
  print(rs.nrows, rs.nfields)
  con:query("SELECT 1")
  print(select(2, pcall(rs.free, rs)))
  print(select(2, pcall(con.prepare, con, "SELECT * FROM nonexisting")))
  local stmt = con:prepare("UPDATE t SET a = a + ?, b = ?")
  local a, b = stmt:bind_create(sysbench.sql.type.INT), stmt:bind_create(sysbench.sql.type.CHAR, 10)
  print(select(2, pcall(stmt.bind_create, stmt, sysbench.sql.type.DATE)))
  print(stmt:bind_param(a, b))
  a:set(100) b:set("01234567890")
  stmt:execute()
  print(con:query_row("SELECT a, b FROM t"))
  print(con:query_row("SELECT NULL, 1"))
  con:disconnect()
  print(select(2, pcall(con.query, con, "SELECT 1")))
  con:disconnect()
  con = drv:connect()
  con:query("DROP TABLE t")
  return true
end`}, args: "$DB --verbosity=1 s.lua run"},
		{name: "many connections", files: map[string]string{"s.lua": `function thread_init() drv = sysbench.sql.driver() con = {} for i = 1, 5 do con[i] = drv:connect() end end
function event()
  con[1]:query("DROP TABLE IF EXISTS m")
  con[2]:query("CREATE TABLE m(a INT)")
  for i = 1, 5 do con[i]:query("INSERT INTO m VALUES (" .. i .. ")") end
  local rs = con[3]:query("SELECT * FROM m ORDER BY a")
  for i = 1, rs.nrows do print(unpack(rs:fetch_row(), 1, rs.nfields)) end
  con[1]:query("DROP TABLE m")
end`}, args: "$DB --verbosity=1 --events=1 s.lua run"},
		{name: "errors not ignored", files: map[string]string{"s.lua": `function event()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS e")
  con:query("CREATE TABLE e(a CHAR(1) NOT NULL)")
  for _, q in ipairs({"INSERT INTO e VALUES (NULL)", "DROP TABLE e", "DROP TABLE e"}) do
    local ok, m = pcall(function() con:query(q) end)
    if not ok then print(m) end
  end
end`}, args: "$DB --verbosity=1 --events=1 s.lua run"},
	})
}

// TestDropInCompiledTests: sysbench's cpu, memory, threads and mutex tests,
// and every option of its general section on the cpu test, as sysbench's
// own option tests show them.
func TestDropInCompiledTests(t *testing.T) {
	cpu := "cpu --cpu-max-prime=2000 "
	runDropin(t, []dropinCase{
		{name: "cpu help", args: "cpu help"},
		{name: "cpu prepare", args: "cpu prepare"},
		{name: "cpu cleanup", args: "cpu cleanup"},
		{name: "cpu events", args: cpu + "--events=100 --threads=2 run"},
		{name: "cpu time", args: cpu + "--time=1 run"},
		{name: "cpu report-interval", args: cpu + "--time=4 --report-interval=3 run"}, // the end 1 s after the last interval: no line races it
		{name: "cpu report-checkpoints", args: cpu + "--time=2 --report-checkpoints=1 run"},
		{name: "cpu percentile", args: cpu + "--events=50 --percentile=99 run"},
		{name: "cpu percentile off", args: cpu + "--events=50 --percentile=0 run"},
		{name: "cpu histogram", args: "cpu --cpu-max-prime=100000 --events=1 --histogram run"},
		{name: "cpu verbosity", args: cpu + "--events=10 --verbosity=1 run", quiet: true},
		{name: "cpu rate", args: cpu + "--events=20 --rate=100 run"},
		{name: "cpu rate queue full", args: "--rate=2000000000 cpu run --verbosity=1"},
		{name: "cpu bad option", args: "cpu --cpu-max-prime=x run"},
		{name: "memory help", args: "memory help"},
		{name: "memory run", args: "memory --memory-block-size=4K --memory-total-size=256M --events=1 --time=0 --threads=2 run"},
		{name: "memory read local", args: "memory --memory-block-size=4K --memory-total-size=64M --memory-oper=read --memory-scope=local run"},
		{name: "memory bad block", args: "memory --memory-block-size=3 run"},
		{name: "memory report-interval", args: "memory --memory-total-size=100G --time=4 --report-interval=3 run"},
		{name: "threads help", args: "threads help"},
		{name: "threads run", args: "threads --events=100 --threads=2 run"},
		{name: "mutex help", args: "mutex help"},
		{name: "mutex run", args: "mutex --events=10 --threads=2 --mutex-locks=1000 run"},
		{name: "mutex prepare", args: "mutex prepare"},
		{name: "no command", args: "cpu"},
		{name: "unknown command", args: "cpu frobnicate"},
		{name: "unknown test", args: "foo bar"},
		{name: "unknown option", args: "cpu --unknown-opt=1 run"},
		{name: "extra argument", args: "foo bar baz"},
		{name: "bad threads", args: "--threads=x cpu run"},
	})
}
