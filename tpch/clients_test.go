package tpch

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// TestWholeRun: only the throughput test alone is split among clients.
func TestWholeRun(t *testing.T) {
	for _, c := range []struct {
		args  []string
		whole bool
	}{
		{[]string{"tpch", "run"}, true},
		{[]string{"tpch", "run", "--test=both"}, true},
		{[]string{"tpch", "run", "--test=power"}, true},
		{[]string{"tpch", "run", "--test=throughput"}, false},
		{[]string{"tpch", "run", "--test", "throughput"}, false},
		// Other options beside it, the connection's too, and with values apart.
		{[]string{"tpch", "run", "--mysql-host", "h", "--sf=0.01", "--threads=3", "--test=throughput"}, false},
		{[]string{"tpch", "run", "--mysql-port", "3306", "--test", "power", "--params=random"}, true},
		{[]string{"tpch", "run", "--refresh=false", "--test=throughput", "--queries", "q1,q6"}, false},
	} {
		if got := wholeRun(c.args); got != c.whole {
			t.Errorf("%v: whole %v, want %v", c.args, got, c.whole)
		}
	}
}

// TestMergeFigures: two clients' throughput tests, one started 1 s later
// and ending last, make one test whose Ts spans both and whose
// Throughput@Size counts every stream's queries.
func TestMergeFigures(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)
	// 2 streams x 22 queries x 3600 x SF 1 in 100 s; 1 stream in 50 s.
	a := &result.Result{Start: t0, Figures: map[string]float64{"Ts": 100, "Throughput": 2 * 22 * 3600 / 100.0, "GeoMeanThroughput": 2}}
	b := &result.Result{Start: t0.Add(time.Second), Share: &result.Share{Index: 1}, Figures: map[string]float64{"Ts": 120, "Throughput": 22 * 3600 / 120.0, "GeoMeanThroughput": 8}}
	fig, na := mergeFigures([]*result.Result{a, b})
	if fig["Ts"] != 121 {
		t.Errorf("Ts %v, want 121 (client 1 started 1 s later and ran 120 s)", fig["Ts"])
	}
	if want := 3 * 22 * 3600 / 121.0; math.Abs(fig["Throughput"]-want) > 1e-9 {
		t.Errorf("Throughput %v, want %v", fig["Throughput"], want)
	}
	// Twice as many queries at a mean of 2 s as at 8 s: (2*2*8)^(1/3).
	if want := math.Cbrt(2 * 2 * 8); math.Abs(fig["GeoMeanThroughput"]-want) > 1e-9 {
		t.Errorf("GeoMeanThroughput %v, want %v", fig["GeoMeanThroughput"], want)
	}
	if !strings.Contains(na["QphH"], "one test ran") {
		t.Errorf("QphH: %q", na["QphH"])
	}
	b.Figures = nil
	b.NotApplicable = map[string]string{"Throughput": "the throughput test did not end (0 of 1 streams)"}
	fig, na = mergeFigures([]*result.Result{a, b})
	if _, ok := fig["Throughput"]; ok || na["Throughput"] != "client 1: the throughput test did not end (0 of 1 streams)" {
		t.Errorf("a part that did not end: figures %v, not applicable %v", fig, na)
	}
}

// TestStreamShare: each client's streams follow the ones before, and
// Setup refuses a share that does not fit.
func TestStreamShare(t *testing.T) {
	if got := strings.Join(streamShare(2, 1, 3), " "); got != "--first-stream=3 --all-streams=3" {
		t.Errorf("the third of three streams: %s", got)
	}
	for _, c := range []struct {
		test       string
		first, all int
		threads    int
		err        string
	}{
		{"throughput", 3, 3, 1, ""},
		{"throughput", 1, 0, 2, ""},
		{"throughput", 0, 0, 1, "invalid --first-stream=0"},
		{"both", 2, 3, 1, "add --test=throughput"},
		{"throughput", 2, 2, 2, "invalid --all-streams=2: this client runs streams 2 to 3, so at least 3"},
	} {
		w := &tpch{sf: 1, queryList: "all", paramKind: "default", test: c.test, refresh: true, first: c.first, all: c.all}
		err := w.Setup(&workload.Setup{Command: "run", Threads: c.threads, ThreadsSet: true})
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: %v, want %q", c, err, c.err)
		}
	}
}
