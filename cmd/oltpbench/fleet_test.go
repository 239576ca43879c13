package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2/client"

	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/testenv/toxitest"
)

// freePort is a loopback port nothing listens on (now).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// client is one client process of a plan on several.
type client struct {
	cmd      *exec.Cmd
	out, err output
}

func startClient(t *testing.T, args ...string) *client {
	t.Helper()
	c := &client{cmd: exec.Command(binPath, args...)}
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.err
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	return c
}

// clientArgs is plan run's command line for client index of n.
func clientArgs(planFile, dir, port, db string, n, index int, more ...string) []string {
	args := []string{"plan", "run", planFile, "--result-dir", dir, "--clients=" + strconv.Itoa(n), "--client-index=" + strconv.Itoa(index),
		"--leader=127.0.0.1:" + port, "--join-timeout=20s"}
	return append(append(append(args, more...), "--"), connArgs(db)...)
}

const fleetPlan = `[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 2000 }
[[step]]
name = "ps"
test = "oltp_point_select"
threads = [3, 6]
repeats = 2
time = "3s"
[[step]]
name = "best"
test = "oltp_point_select"
threads = [3, 12]
p95_limit = "500ms"
search_steps = 2
time = "2s"
`

// TestPlanClients: a plan of a thread sweep (2 levels x 2 repeats) and a
// p95 search run by three client processes: every cell's result is the
// exact merge of the three parts (their events summed, kept in .parts/),
// within 1% of the server's own count of statements over the window (and
// the clients' spread); the clients' windows start within 100 ms of each
// other (on two busy cores once 58 ms, a timer waiting for a CPU; a few ms
// on a quiet machine); the search's levels
// are merged results too; the followers exit when the plan is done.
// Alone: how close the clients start is the machine's.
func TestPlanClients(t *testing.T) {
	needServer(t)
	freshDB(t, "fleet")
	alone(t) // its clients' start within 100 ms and its 1% are the machine's
	p := writePlan(t, fleetPlan)
	dir, port := t.TempDir(), freePort(t)
	f1 := startClient(t, clientArgs(p, dir, port, "fleet", 3, 1)...)
	f2 := startClient(t, clientArgs(p, dir, port, "fleet", 3, 2)...)
	r := ob(t, nil, clientArgs(p, dir, port, "fleet", 3, 0)...)
	mustOK(t, r, "the leader")
	for i, f := range []*client{f1, f2} {
		if err := f.cmd.Wait(); err != nil || !strings.Contains(f.out.String(), "The leader's plan is done") {
			t.Errorf("follower %d: %v\n%s%s", i+1, err, f.out.String(), f.err.String())
		}
	}
	sweep := []string{"ps-3threads-r1.json", "ps-3threads-r2.json", "ps-6threads-r1.json", "ps-6threads-r2.json"}
	if got := resultFiles(t, dir); !slices.Equal(got, sweep) {
		t.Fatalf("the folder holds %v, want %v", got, sweep)
	}
	for _, f := range sweep {
		m, err := result.Read(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		threads, _ := strconv.Atoi(strings.TrimSuffix(strings.Split(f, "-")[1], "threads"))
		if m.Threads != threads || len(m.Parts) != 3 || m.Cell == nil || m.Cell.Key == nil || m.Cell.Key.Threads != threads {
			t.Errorf("%s: threads %d, parts %+v, cell %+v", f, m.Threads, m.Parts, m.Cell)
			continue
		}
		var offsets []float64
		for _, s := range m.Parts {
			offsets = append(offsets, s.OffsetMs)
		}
		spread := slices.Max(offsets) - slices.Min(offsets)
		if spread > 100 || slices.Min(offsets) < 0 {
			t.Errorf("%s: the clients' windows started %v ms after the instant (%.1f ms apart)", f, offsets, spread)
		}
		parts, _ := filepath.Glob(filepath.Join(dir, ".parts", "*-"+strings.TrimSuffix(f, ".json")+"-"+strconv.Itoa(threads)+"-client*.json"))
		var sum int64
		for _, pf := range parts {
			pr, err := result.Read(pf)
			if err != nil {
				t.Fatal(err)
			}
			sum += pr.Totals["events"]
		}
		events := m.Totals["events"]
		server := m.Evidence.Counters["Com_select"]
		// The server counts over the leader's window; a client whose
		// window started later counts its events over its own: 1%, and
		// the spread's share of the window.
		if len(parts) != 3 || sum != events || server == 0 || abs(float64(events)-server)/server > 0.01+spread/1000/m.Seconds {
			t.Errorf("%s: %d parts with %d events, merged %d, the server's selects over the window %.0f", f, len(parts), sum, events, server)
		}
	}
	levels, _ := filepath.Glob(filepath.Join(dir, "best-p95search", "*.json"))
	if len(levels) == 0 {
		t.Fatalf("the p95 search ran no level:\n%s", r.stdout)
	}
	for _, f := range levels {
		m, err := result.Read(f)
		if err != nil || len(m.Parts) != 3 {
			t.Errorf("%s: %v, parts %+v", f, err, m.Parts)
		}
	}
	if !regexp.MustCompile(`(?m)^Clients' windows started at \+[\d.]+ ms, \+[\d.]+ ms, \+[\d.]+ ms from the instant; merged: 6 threads$`).MatchString(r.stdout) {
		t.Errorf("the leader does not say when the clients started:\n%s", r.stdout)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestPlanClientsKilled: a follower killed during a cell, then the leader
// killed during a cell: each time the cell is not kept, and the same
// commands run again finish the plan; the folder then holds the cells an
// uninterrupted plan writes, each measured once. The cells are paced
// (1,000 events a second, split among the clients): what is asserted is
// files and parts, and unthrottled cells took both cores.
func TestPlanClientsKilled(t *testing.T) {
	needServer(t)
	freshDB(t, "fleet_kill")
	p := writePlan(t, `[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 2000 }
[[step]]
name = "ps"
test = "oltp_point_select"
threads = [2, 4, 6]
time = "3s"
options = { rate = 1000 }
`)
	dir, port := t.TempDir(), freePort(t)
	args := func(i int) []string { return clientArgs(p, dir, port, "fleet_kill", 2, i) }
	// A follower killed in the first cell: the leader stops, naming it.
	f := startClient(t, args(1)...)
	leader := startClient(t, args(0)...)
	waitFor(t, &f.out, "threads (this client's share)")
	f.cmd.Process.Signal(syscall.SIGKILL)
	f.cmd.Wait()
	if err := leader.cmd.Wait(); err == nil || !strings.Contains(leader.err.String(), "client 1 was lost during the cell") {
		t.Fatalf("the leader after its follower was killed: %v\n%s", err, leader.err.String())
	}
	if files := resultFiles(t, dir); len(files) != 0 {
		t.Errorf("a cell whose follower was lost was kept: %v", files)
	}
	// The same commands again, the leader killed in the second cell: the
	// follower waits for it to come back.
	f = startClient(t, args(1)...)
	leader = startClient(t, args(0)...)
	waitFor(t, &leader.out, "Clients: 2, threads 2+2")
	leader.cmd.Process.Signal(syscall.SIGKILL)
	leader.cmd.Wait()
	if files := resultFiles(t, dir); !slices.Equal(files, []string{"ps-2threads-r1.json"}) {
		t.Errorf("after the leader was killed in the second cell: %v", files)
	}
	r := ob(t, nil, args(0)...)
	mustOK(t, r, "the leader run again")
	if err := f.cmd.Wait(); err != nil || !strings.Contains(f.out.String(), "The leader's plan is done") {
		t.Errorf("the follower that outlived its leader: %v\n%s%s", err, f.out.String(), f.err.String())
	}
	want := []string{"ps-2threads-r1.json", "ps-4threads-r1.json", "ps-6threads-r1.json"}
	if files := resultFiles(t, dir); !slices.Equal(files, want) || !strings.Contains(r.stdout, "2 run now, 1 done before") {
		t.Errorf("the folder %v, want %v\n%s", files, want, r.stdout)
	}
	for _, name := range want {
		if m, err := result.Read(filepath.Join(dir, name)); err != nil || len(m.Parts) != 2 {
			t.Errorf("%s: %v, %v", name, err, m)
		}
	}
	// Each cell was kept under its own key: the plan run again finds
	// every one done.
	f = startClient(t, args(1)...)
	again := ob(t, nil, args(0)...)
	if f.cmd.Wait(); again.code != 0 || !strings.Contains(again.stdout, "All 3 cells of the plan are done") {
		t.Errorf("the plan run again: exit %d\n%s%s", again.code, again.stdout, again.stderr)
	}
}

// TestPlanClientsArgs: what cannot make a plan on several clients is one
// line each: a follower whose leader is not there, a second client of one
// index, --clients=0, --clients without --leader, a follower with another
// plan file.
func TestPlanClientsArgs(t *testing.T) {
	needServer(t)
	freshDB(t, "fleet_args")
	p := writePlan(t, fleetPlan)
	other := writePlan(t, strings.Replace(fleetPlan, `time = "3s"`, `time = "6s"`, 1))
	dir, port := t.TempDir(), freePort(t)
	oneLine := func(r res, want string) {
		t.Helper()
		if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d, stderr %q, want one line with %q", r.code, r.stderr, want)
		}
	}
	oneLine(ob(t, nil, append(clientArgs(p, dir, port, "fleet_args", 3, 1)[:8], "--join-timeout=1s", "--", "--mysql-port=1")...),
		"cannot reach the leader at 127.0.0.1:"+port+" within --join-timeout=1s")
	oneLine(ob(t, nil, "plan", "run", p, "--result-dir", dir, "--clients=0"), "invalid --clients=0: at least 1")
	oneLine(ob(t, nil, "plan", "run", p, "--result-dir", dir, "--clients=3"), "--clients=3 needs --leader=HOST:PORT")
	oneLine(ob(t, nil, "plan", "run", p, "--result-dir", dir, "--clients=3", "--client-index=3", "--leader=127.0.0.1:"+port), "invalid --client-index=3: 0 (the leader) to 2")
	// A leader waiting for its followers.
	leader := startClient(t, clientArgs(p, dir, port, "fleet_args", 3, 0)...)
	waitFor(t, &leader.out, "waiting for clients 1..2 to join")
	f1 := startClient(t, clientArgs(p, dir, port, "fleet_args", 3, 1)...)
	waitFor(t, &f1.out, "Client 1 of 3: joined the leader")
	oneLine(ob(t, nil, clientArgs(p, dir, port, "fleet_args", 3, 1)...), "client index 1 has joined already: give each client its own --client-index")
	oneLine(ob(t, nil, clientArgs(other, dir, port, "fleet_args", 3, 2)...), "client 2's plan differs from the leader's")
	if leader.cmd.ProcessState != nil {
		t.Errorf("the leader ended: %s", leader.err.String())
	}
}

// TestPlanClientsMergedP95: a p95 search decides on the clients' merged
// latency: client 2 reaches the server through a proxy that delays every
// answer by 100 ms, at a rate that gives it a third of the events, so the
// merged p95 breaks the 60 ms limit at the search's first level (which
// stops the plan, and the followers with it) where the leader's own part
// alone would have gone on: well under 1 ms on a quiet machine, 121 ms
// once with more tests run beside make test's shards (against a 20 ms
// limit and 30 ms of delay then). A delay of 300 ms is too much: client
// 2's checks before its run, each through the proxy, start its window
// after the leader's has ended.
func TestPlanClientsMergedP95(t *testing.T) {
	needServer(t)
	freshDB(t, "fleet_p95")
	proxy := toxitest.New(t, testHost+":"+testPort)
	proxy.Add(t, "latency", "downstream", 1, toxiproxy.Attributes{"latency": 100})
	p := writePlan(t, `[dataset]
workload = "sysbench"
options = { tables = 1, table-size = 1000 }
[[step]]
name = "best"
test = "oltp_point_select"
threads = [3, 12]
p95_limit = "60ms"
search_steps = 3
time = "3s"
options = { rate = 60 }
`)
	dir, port := t.TempDir(), freePort(t)
	slow := []string{"--mysql-host=" + proxy.Host, "--mysql-port=" + strconv.Itoa(proxy.Port), "--mysql-user=root", "--mysql-db=fleet_p95"}
	f1 := startClient(t, clientArgs(p, dir, port, "fleet_p95", 3, 1)...)
	f2 := startClient(t, append(clientArgs(p, dir, port, "fleet_p95", 3, 2)[:9], append([]string{"--"}, slow...)...)...)
	r := ob(t, nil, clientArgs(p, dir, port, "fleet_p95", 3, 0)...)
	if r.code != 1 || !strings.Contains(r.stderr, "even 3 threads exceed the p95 limit of 60ms") {
		t.Errorf("the leader: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, f := range []*client{f1, f2} {
		if err := f.cmd.Wait(); err == nil || !strings.Contains(f.err.String(), "the leader stopped the plan: cell 1/1 (best, p95 search up to 12 threads) failed: even 3 threads exceed") {
			t.Errorf("a follower: %v\n%s", err, f.err.String())
		}
	}
	levels, _ := filepath.Glob(filepath.Join(dir, "best-p95search", "*.json"))
	if len(levels) == 0 {
		t.Fatalf("no level measured:\n%s", r.stdout)
	}
	for _, f := range levels {
		m, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		own, _ := filepath.Glob(filepath.Join(dir, ".parts", "*-best-p95search-"+strconv.Itoa(m.Threads)+"-client0.json"))
		if len(own) != 1 {
			t.Fatalf("the leader's part of %s: %v", f, own)
		}
		leader, err := result.Read(own[0])
		if err != nil {
			t.Fatal(err)
		}
		if m.Latency("95") <= 60 || leader.Latency("95") >= 60 {
			t.Errorf("%s: merged p95 %.2f ms, the leader's own %.2f ms: want the merged over the 60 ms limit and the leader's under it", f, m.Latency("95"), leader.Latency("95"))
		}
	}
	if len(levels) != 1 {
		t.Errorf("the search went on past a level whose merged p95 broke the limit: %v", levels)
	}
}

// TestRotateServers: each client starts its server lists at its own turn.
func TestRotateServers(t *testing.T) {
	for _, tc := range []struct {
		extra []string
		index int
		want  []string
	}{
		{[]string{"--mysql-host=a,b,c", "--mysql-port=4000", "--mysql-user=root"}, 1, []string{"--mysql-host=b,c,a", "--mysql-port=4000", "--mysql-user=root"}},
		{[]string{"--mysql-host", "a,b", "--mysql-port", "1,2"}, 3, []string{"--mysql-host", "b,a", "--mysql-port", "2,1"}},
		{[]string{"--mysql-socket=/x,/y,/z"}, 2, []string{"--mysql-socket=/z,/x,/y"}},
		{[]string{"--mysql-host=a,b"}, 0, []string{"--mysql-host=a,b"}},
	} {
		if got := rotateServers(tc.extra, tc.index); !slices.Equal(got, tc.want) {
			t.Errorf("%v at %d: %v, want %v", tc.extra, tc.index, got, tc.want)
		}
	}
}

// TestPlanClientsMetrics: every client of a plan serves its own metrics,
// labelled by its index, while it runs its share.
func TestPlanClientsMetrics(t *testing.T) {
	needServer(t)
	freshDB(t, "fleet_metrics")
	p := writePlan(t, "[dataset]\nworkload = \"sysbench\"\noptions = { tables = 1, table-size = 1000 }\n[[step]]\nname = \"ps\"\ntest = \"oltp_point_select\"\nthreads = [2]\ntime = \"4s\"\n")
	dir, port, mport := t.TempDir(), freePort(t), freePort(t)
	f1 := startClient(t, clientArgs(p, dir, port, "fleet_metrics", 2, 1, "--metrics-addr=127.0.0.1:"+mport)...)
	leader := startClient(t, clientArgs(p, dir, port, "fleet_metrics", 2, 0)...)
	host, _ := os.Hostname()
	want := `client="` + host + `-client1"`
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://127.0.0.1:" + mport + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(b), "oltpbench_run_") && strings.Contains(string(b), want) {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("client 1's metrics never had a run labelled %s", want)
		}
		time.Sleep(100 * time.Millisecond) // polling an endpoint, not hiding a race
	}
	if err := leader.cmd.Wait(); err != nil {
		t.Errorf("the leader: %v\n%s", err, leader.err.String())
	}
	f1.cmd.Wait()
}
