// Command testshards runs one Go package's tests as shards in parallel,
// each shard a process of its own against a server of its own (the env
// files, one a shard, as scripts/mariadb-start.sh writes them), then the
// tests that need the machine alone, one by one. Integration tests mostly
// wait on time (runs of fixed length, toxics, restarts), so shards on
// their own databases overlap that waiting; a test whose assertions are
// about speed or timing says so by calling alone(t) and runs that part by
// itself: with -alone-env it starts beside the shards on a server of its
// own and waits at alone(t) until the shards are done (see gated).
//
//	go run ./scripts/testshards -pkg ./cmd/oltpbench -env a/env -env b/env -env c/env
//
// The shards take the tests from one queue, longest first by their last
// measured seconds (-times, a file of "name seconds" lines; -update-times
// rewrites it), each test in a process of its own as a shard becomes free:
// the shards end within about one short test of each other, however wrong
// the seconds are. -pin names tests that must run on the first shard (a
// singleton service only its env names); it takes them before the queue. A
// failing test fails the run; its output is printed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/oltpbench/oltpbench/internal/engine/health"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var envs listFlag
	pkg := flag.String("pkg", "./cmd/oltpbench", "the package whose tests are sharded")
	flag.Var(&envs, "env", "an env file (KEY=VALUE lines) for one shard; one a shard")
	times := flag.String("times", "", "a file of \"TestName seconds\" lines, to balance the shards (default: PKG/testdata/test-seconds.txt)")
	update := flag.Bool("update-times", false, "rewrite -times with the seconds measured")
	pin := flag.String("pin", "", "a regexp of tests that run in the first shard")
	timeout := flag.Duration("timeout", 30*time.Minute, "the bound of each test's process")
	only := flag.String("run", "", "a regexp: run only the tests it matches")
	testBin := flag.String("test-bin", "", "the package's test binary, built already (default: built here)")
	toolBin := flag.String("tool", "", "the package's command, built already (default: built here)")
	aloneEnv := flag.String("alone-env", "", "an env file for the tests that run alone: they start beside the shards on it and wait at alone(t) (default: after the shards, on the first env)")
	after := flag.String("after", "", "a file that the tests that run alone wait for (at most -timeout) after the shards: the other work beside the shards is done when it exists")
	flag.StringVar(&cpuFile, "cpu", "", "a file to write, for each test a shard ran, its name, seconds, the CPU-seconds of its processes and of its shard's server")
	flag.Parse()
	if len(envs) == 0 {
		fail("testshards: give one -env file a shard")
	}
	if *times == "" {
		*times = filepath.Join(*pkg, "testdata", "test-seconds.txt")
	}
	tmp, err := os.MkdirTemp("", "testshards")
	if err != nil {
		fail("testshards: %v", err)
	}
	defer os.RemoveAll(tmp)
	test2json = filepath.Join(tmp, "test2json")
	run("go", "build", "-o", test2json, "cmd/test2json")
	bin, tool := *testBin, *toolBin
	if bin == "" {
		bin = filepath.Join(tmp, "pkg.test")
		run("go", "test", "-c", "-o", bin, *pkg)
	}
	if tool == "" {
		tool = filepath.Join(tmp, "oltpbench")
		run("go", "build", "-o", tool, *pkg)
	}

	names := list(bin, *pkg)
	all := slices.Clone(names)
	if *only != "" {
		re := regexp.MustCompile(*only)
		names = slices.DeleteFunc(names, func(n string) bool { return !re.MatchString(n) })
	}
	alone := aloneTests(*pkg)
	secs := readTimes(*times)
	var pinRe *regexp.Regexp
	if *pin != "" {
		pinRe = regexp.MustCompile(*pin)
	}
	q, last := queue(names, alone, pinRe, secs)

	measured, failed := runAll(bin, *pkg, tool, envs, *aloneEnv, *after, q, last, secs, *timeout)
	if cpuFile != "" {
		if err := os.WriteFile(cpuFile, []byte(strings.Join(cpuLines, "\n")+"\n"), 0o644); err != nil {
			fail("testshards: %v", err)
		}
	}
	if *update {
		// The tests not run (-run, skipped) keep their seconds.
		for _, n := range all {
			if _, ok := measured[n]; !ok {
				if v, ok := secs[n]; ok {
					measured[n] = v
				}
			}
		}
		writeTimes(*times, measured)
	}
	if failed {
		os.Exit(1)
	}
}

// runAll runs the shards at once, each taking tests from q on its env,
// then the tests that run alone one by one; it returns the seconds each
// test took and whether any failed. With aloneEnv the tests that run
// alone start with the shards, on it, and wait at their gates (see gated).
func runAll(bin, pkg, tool string, envs []string, aloneEnv, after string, q *tests, last []string, secs seconds, timeout time.Duration) (map[string]float64, bool) {
	start := time.Now()
	measured := map[string]float64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	failed := false
	var gates []*gated
	if aloneEnv != "" {
		for _, n := range last {
			// Twice the bound: a gated test's time includes its wait for the shards.
			gates = append(gates, startGated(bin, pkg, n, append(readEnv(aloneEnv), "OLTPBENCH_TEST_BIN="+tool), 2*timeout))
		}
	}
	for i := range envs {
		wg.Go(func() {
			env := append(readEnv(envs[i]), "OLTPBENCH_TEST_BIN="+tool, "OLTPBENCH_TEST_SHARED=1")
			var ran []string
			var planned float64
			var took time.Duration
			shardOK := true
			for {
				name, ok := q.next(i == 0)
				if !ok {
					break
				}
				pid0, server0 := serverCPU(env)
				out, ok, d, cpu := runTests(bin, pkg, []string{name}, env, timeout)
				pid, server := serverCPU(env)
				if pid == pid0 {
					server -= server0 // else restarted: the new server's, the old one's last seconds lost
				}
				mu.Lock()
				cpuLines = append(cpuLines, fmt.Sprintf("%s %.1f %.1f %.1f", name, d.Seconds(), cpu, server))
				failed = !report(fmt.Sprintf("shard %d/%d", i+1, len(envs)), false, []string{name}, out, ok, d, secs.of(name), measured) || failed
				mu.Unlock()
				ran, planned, took = append(ran, name), planned+secs.of(name), took+d
				shardOK = shardOK && ok
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Printf("testshards: %-12s %3d tests %6.0f s (planned %4.0f s)  %s\n", fmt.Sprintf("shard %d/%d", i+1, len(envs)), len(ran), took.Seconds(), planned, verdict(shardOK))
		})
	}
	wg.Wait()
	fmt.Printf("testshards: %s: %d shards in %.0f s\n", pkg, len(envs), time.Since(start).Seconds())
	if w := waitFile(after, timeout); w > time.Second {
		fmt.Printf("testshards: waited %.0f s for the work beside the shards (%s)\n", w.Seconds(), filepath.Base(after))
	}
	if gates != nil {
		// None goes on while another still loads its data beside it.
		for _, g := range gates {
			g.waitReady()
		}
		for _, g := range gates {
			waitQuiet()
			out, ok, took, setup := g.release()
			cpuLines = append(cpuLines, fmt.Sprintf("%s %.1f %.1f alone", g.name, took.Seconds(), g.cpu))
			if setup >= time.Second {
				fmt.Printf("testshards: %s: its first %.0f s beside the shards, then alone:\n", g.name, setup.Seconds())
			}
			failed = !report("alone", true, []string{g.name}, out, ok, took, secs.of(g.name), measured) || failed
			measured[g.name] = took.Seconds() // its time alone, not its wait at the gate
		}
	} else {
		for _, n := range last {
			waitQuiet()
			env := append(readEnv(envs[0]), "OLTPBENCH_TEST_BIN="+tool)
			out, ok, took, _ := runTests(bin, pkg, []string{n}, env, timeout)
			failed = !report("alone", true, []string{n}, out, ok, took, secs.of(n), measured) || failed
		}
	}
	fmt.Printf("testshards: %s: %d tests in %.0f s\n", pkg, len(measured), time.Since(start).Seconds())
	return measured, failed
}

func waitQuiet() {
	if w := quiet(0.85, 30*time.Second); w > time.Second {
		fmt.Printf("testshards: waited %.0f s for the machine to be quiet\n", w.Seconds())
	}
}

// gated is a test that runs alone, started beside the shards: what it
// does before alone(t) (its data) shares the machine; at alone(t) it
// writes GATE.ready and opens the named pipe GATE for reading, which
// waits until release opens it for writing and says "go".
type gated struct {
	name, gate string
	started    time.Time
	done       chan struct{}
	out        string
	ok         bool
	cpu        float64   // the CPU-seconds of its process and children
	ready      time.Time // when it reached its gate (zero: it ended before)
}

func startGated(bin, pkg, name string, env []string, timeout time.Duration) *gated {
	dir, err := os.MkdirTemp("", "testshards-gate")
	if err != nil {
		fail("testshards: %v", err)
	}
	g := &gated{name: name, gate: filepath.Join(dir, "gate"), started: time.Now(), done: make(chan struct{})}
	if err := syscall.Mkfifo(g.gate, 0o600); err != nil {
		fail("testshards: the gate of %s: %v", name, err)
	}
	go func() {
		defer close(g.done)
		defer os.RemoveAll(dir)
		// runTests bounds the process by timeout (and the test binary
		// itself by -test.timeout): a test that never reaches its gate
		// or never ends is killed, and done closes.
		g.out, g.ok, _, g.cpu = runTests(bin, pkg, []string{name}, append(env, "OLTPBENCH_TEST_GATE="+g.gate), timeout)
	}()
	return g
}

// waitReady waits until the test is at its gate or has ended. Polling a
// file's presence, each wait bounded by the test process's own timeout.
func (g *gated) waitReady() {
	for {
		if fi, err := os.Stat(g.gate + ".ready"); err == nil {
			g.ready = fi.ModTime() // written as the test reached its gate
			return
		}
		select {
		case <-g.done:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// release lets the test go on alone and waits for its end: its output,
// whether it passed, how long it ran alone and what it did before.
func (g *gated) release() (string, bool, time.Duration, time.Duration) {
	at := time.Now()
	if !g.ready.IsZero() {
		g.open()
	}
	<-g.done
	if g.ready.IsZero() {
		return g.out, g.ok, 0, 0 // it ended (skipped, failed) before its gate: beside the shards
	}
	return g.out, g.ok, time.Since(at), g.ready.Sub(g.started)
}

// open says "go" on the gate once the test has it open for reading
// (O_NONBLOCK: ENXIO until then; it writes GATE.ready just before), or
// returns when the test ends first.
func (g *gated) open() {
	for {
		f, err := os.OpenFile(g.gate, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			f.WriteString("go\n")
			f.Close()
			return
		}
		if !errors.Is(err, syscall.ENXIO) {
			fail("testshards: the gate of %s: %v", g.name, err)
		}
		select {
		case <-g.done:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitFile waits, at most max, until the file path exists (at once for
// no path). It returns how long it waited.
func waitFile(path string, max time.Duration) time.Duration {
	start := time.Now()
	for path != "" && time.Since(start) < max {
		if _, err := os.Stat(path); err == nil {
			break
		}
		time.Sleep(250 * time.Millisecond) // polling the file, not waiting on a race
	}
	return time.Since(start)
}

// quiet waits, at most max, until the machine's CPUs were idle for at
// least the share idle of a quarter of a second (health.HostCPU, /proc/stat): a
// test that needs the machine alone does not start while the shards'
// servers still flush what the shards wrote. It returns how long it waited.
func quiet(idle float64, max time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < max {
		b0, t0 := health.HostCPU()
		time.Sleep(250 * time.Millisecond) // sampling the CPUs, not waiting on a race
		b1, t1 := health.HostCPU()
		if t1 <= t0 || 1-float64(b1-b0)/float64(t1-t0) >= idle {
			break
		}
	}
	return time.Since(start)
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

// tests is the shards' queue: the pinned tests, for the first shard only,
// then the rest, each list longest first.
type tests struct {
	mu          sync.Mutex
	pinned, all []string
}

// next is the next test for a shard (first: the first shard), and false
// when none is left for it.
func (q *tests) next(first bool) (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, l := range []*[]string{&q.pinned, &q.all} {
		if l == &q.pinned && !first || len(*l) == 0 {
			continue
		}
		name := (*l)[0]
		*l = (*l)[1:]
		return name, true
	}
	return "", false
}

// queue orders the tests longest first, the pinned ones apart, and leaves
// out those that run alone, returned last.
func queue(names []string, alone map[string]bool, pin *regexp.Regexp, secs seconds) (q *tests, last []string) {
	q = &tests{}
	sort.SliceStable(names, func(i, j int) bool { return secs.of(names[i]) > secs.of(names[j]) })
	for _, name := range names {
		switch {
		case alone[name]:
			last = append(last, name)
		case pin != nil && pin.MatchString(name):
			q.pinned = append(q.pinned, name)
		default:
			q.all = append(q.all, name)
		}
	}
	return q, last
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(2)
}

func run(name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fail("testshards: %s %s: %v", name, strings.Join(args, " "), err)
	}
}

// list is the package's top-level tests.
func list(bin, dir string) []string {
	cmd := exec.Command(bin, "-test.list", "^Test")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		fail("testshards: listing the tests: %v", err)
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, "Test") {
			names = append(names, l)
		}
	}
	return names
}

// aloneTests are the tests whose function calls alone(t).
func aloneTests(dir string) map[string]bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	fn := regexp.MustCompile(`^func (Test\w+)\(`)
	out := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fail("testshards: %v", err)
		}
		cur := ""
		for _, l := range strings.Split(string(b), "\n") {
			if m := fn.FindStringSubmatch(l); m != nil {
				cur = m[1]
			} else if strings.HasPrefix(l, "func ") {
				cur = ""
			}
			if cur != "" && strings.HasPrefix(strings.TrimSpace(l), "alone(t)") {
				out[cur] = true
			}
		}
	}
	return out
}

type seconds map[string]float64

func (s seconds) of(name string) float64 {
	if v, ok := s[name]; ok {
		return v
	}
	return 3 // a new test: a few seconds, until measured
}

func readTimes(path string) seconds {
	s := seconds{}
	b, err := os.ReadFile(path)
	if err != nil {
		return s
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 {
			if v, err := strconv.ParseFloat(f[1], 64); err == nil {
				s[f[0]] = v
			}
		}
	}
	return s
}

func writeTimes(path string, m map[string]float64) {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString("# seconds each test took, for scripts/testshards to balance its shards (-update-times)\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%s %.1f\n", n, m[n])
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		fail("testshards: %v", err)
	}
}

// readEnv is the process's environment with an env file's lines over it.
func readEnv(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		fail("testshards: %v", err)
	}
	env := os.Environ()
	for _, l := range strings.Split(string(b), "\n") {
		if k, _, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(k, "#") {
			env = append(env, strings.TrimSpace(l))
		}
	}
	return env
}

// runTests runs the tests named in one process under test2json, and
// returns its events.
func runTests(bin, dir string, tests []string, env []string, timeout time.Duration) (string, bool, time.Duration, float64) {
	if len(tests) == 0 {
		return "", true, 0, 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, test2json, "-t", bin, "-test.run", "^("+strings.Join(tests, "|")+")$",
		"-test.count=1", "-test.v", "-test.timeout="+timeout.String())
	cmd.Dir, cmd.Env = dir, env
	t0 := time.Now()
	out, err := cmd.Output()
	var cpu float64
	if ps := cmd.ProcessState; ps != nil {
		// The process's and its waited-for children's: the test binary and the commands it ran.
		cpu = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	return string(out), err == nil, time.Since(t0), cpu
}

// cpuFile and cpuLines: -cpu's file and its lines (under runAll's lock
// while the shards run).
var (
	cpuFile  string
	cpuLines []string
)

// serverCPU is the process ID and CPU-seconds of the MariaDB whose folder
// an env names (OLTPBENCH_TEST_DIR, its mysqld.pid), or zeros when none
// runs there or no -cpu file is asked for. The same reading as
// cmd/oltpbench's cost log (costlog_test.go), which a tool cannot import.
func serverCPU(env []string) (string, float64) {
	var dir string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "OLTPBENCH_TEST_DIR="); ok {
			dir = v
		}
	}
	if dir == "" || cpuFile == "" {
		return "", 0
	}
	b, err := os.ReadFile(filepath.Join(dir, "mysqld.pid"))
	if err != nil {
		return "", 0
	}
	pid := strings.TrimSpace(string(b))
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "", 0
	}
	// Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return "", 0
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return pid, (u + s) / 100 // clock ticks (USER_HZ, 100 on Linux)
}

// test2json is Go's test2json, built once into the run's folder (go tool
// costs a third of a CPU-second a call, and a test is a call).
var test2json string

// event is one line of test2json.
type event struct {
	Action, Test, Output string
	Elapsed              float64
}

// report prints one line for a run of tests (always, or when it failed)
// and, when it failed, the output of each test that failed (or of the
// process, when no test did); it records the seconds of each test and
// says whether the run passed.
func report(what string, always bool, tests []string, out string, ok bool, took time.Duration, planned float64, measured map[string]float64) bool {
	outputs := map[string]*strings.Builder{}
	var failed []string
	var rest strings.Builder
	for _, l := range strings.Split(out, "\n") {
		var e event
		if json.Unmarshal([]byte(l), &e) != nil {
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		switch {
		case e.Action == "output" && top != "":
			if outputs[top] == nil {
				outputs[top] = &strings.Builder{}
			}
			outputs[top].WriteString(e.Output)
		case e.Action == "output":
			rest.WriteString(e.Output)
		case (e.Action == "pass" || e.Action == "fail") && e.Test != "" && e.Test == top:
			measured[top] = e.Elapsed
			if e.Action == "fail" {
				failed = append(failed, top)
			}
		}
	}
	v := "ok"
	if !ok {
		v = "FAIL " + strings.Join(append(failed, tests...)[:max(len(failed), 1)], " ")
	}
	if always || !ok {
		fmt.Printf("testshards: %-12s %3d tests %6.0f s (planned %4.0f s)  %s\n", what, len(tests), took.Seconds(), planned, v)
	}
	for _, name := range failed {
		fmt.Print(outputs[name].String())
	}
	if !ok && len(failed) == 0 {
		fmt.Print(rest.String())
	}
	return ok
}
