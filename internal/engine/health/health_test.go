package health

import (
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// TestBetweenJudges: a window's CPU share, GC share and quantiles come from
// the two samples' differences; the limits decide client-bound, and why.
func TestBetweenJudges(t *testing.T) {
	at := time.Unix(1000, 0)
	buckets := []float64{0, 0.0001, 0.001, 0.01, 1}
	a := Sample{At: at, User: time.Second, CPU: 10, GCCPU: 1, UsableCPUs: 2,
		SchedLat: &metrics.Float64Histogram{Counts: []uint64{5, 5, 0, 0}, Buckets: buckets}}
	b := Sample{At: at.Add(10 * time.Second), User: 15 * time.Second, Sys: 4 * time.Second, CPU: 30, GCCPU: 3, UsableCPUs: 2, MaxRSS: 1 << 20,
		SchedLat: &metrics.Float64Histogram{Counts: []uint64{5, 105, 0, 0}, Buckets: buckets}}
	h := Between(a, b, DefaultLimits)
	if h.CPUShare != 0.9 || h.GCShare != 0.1 || h.CPUs != 2 || h.PeakRSSBytes != 1<<20 {
		t.Errorf("health %+v", h)
	}
	if !h.ClientBound || !strings.Contains(h.ClientBoundWhy, "90% of its 2 CPU(s)") {
		t.Errorf("90%% of 2 CPUs is client-bound: %+v", h)
	}
	// The 100 new scheduling samples all waited up to 1 ms: p99 1 ms.
	if h.SchedLatP99Ms != 1 {
		t.Errorf("scheduler latency p99 %v ms", h.SchedLatP99Ms)
	}
	h = Between(a, b, Limits{CPUShare: 0.95, SchedLatency: 2 * time.Millisecond})
	if h.ClientBound {
		t.Errorf("bound under higher limits: %+v", h)
	}
	h = Between(a, b, Limits{CPUShare: 0.95, SchedLatency: time.Millisecond})
	if !h.ClientBound || !strings.Contains(h.ClientBoundWhy, "waited 1.00 ms (p99)") {
		t.Errorf("a 1 ms p99 at a 1 ms limit: %+v", h)
	}
}

// TestTakeReadsTheProcess: a busy loop shows as CPU time of this process
// (it spins until the OS has counted 50 ms of it: on a loaded machine the
// wall time it takes is longer), and the host's CPUs as busy at least by it.
func TestTakeReadsTheProcess(t *testing.T) {
	a := Take()
	var b Sample
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if b = Take(); b.User+b.Sys-a.User-a.Sys >= 50*time.Millisecond {
			break
		}
	}
	h := Between(a, b, DefaultLimits)
	// The seconds are floats: 37.895 ms of user and 12.105 ms of system
	// time add up to 0.049999999999999996, so allow for the rounding.
	if h.UserSeconds+h.SysSeconds < 0.05-1e-9 || h.CPUs < 1 || h.PeakRSSBytes <= 0 || b.SchedLat == nil {
		t.Errorf("health of a busy 50 ms: %+v", h)
	}
	if b.HostTotal <= a.HostTotal || b.HostBusy <= a.HostBusy || h.HostCPUShare <= 0 || h.HostCPUShare > 1 {
		t.Errorf("the host's CPUs over a busy loop: busy %v -> %v of %v -> %v, share %v", a.HostBusy, b.HostBusy, a.HostTotal, b.HostTotal, h.HostCPUShare)
	}
}

// TestHostBusy: goroutines that waited for a CPU are the client's fault
// when the client was most of what ran (client-bound), the host's when its
// CPUs were busy with something else (a server beside it).
func TestHostBusy(t *testing.T) {
	at := time.Unix(1000, 0)
	buckets := []float64{0, 0.0001, 0.001, 0.01, 1}
	waited := func(user time.Duration, hostBusy float64) Health {
		a := Sample{At: at, UsableCPUs: 2, HostTotal: 0, SchedLat: &metrics.Float64Histogram{Counts: []uint64{0, 0, 0, 0}, Buckets: buckets}}
		b := Sample{At: at.Add(10 * time.Second), User: user, UsableCPUs: 2, HostTotal: 20 * time.Second,
			HostBusy: time.Duration(hostBusy * float64(20*time.Second)), SchedLat: &metrics.Float64Histogram{Counts: []uint64{0, 0, 100, 0}, Buckets: buckets}}
		return Between(a, b, DefaultLimits)
	}
	for _, c := range []struct {
		name         string
		user         time.Duration
		host         float64
		bound, busy  bool
		why, hostWhy string
	}{
		{"the server took the CPUs", 3 * time.Second, 1, false, true, "", "the host's CPUs were 100% busy and the client used 15% of them (its goroutines waited 10.00 ms (p99) for a CPU): is the server on this machine?"},
		{"the client took them", 15 * time.Second, 1, true, false, "the client's goroutines waited 10.00 ms (p99) for a CPU (the limit: 1ms)", ""},
		{"the CPUs were not busy", 3 * time.Second, 0.5, true, false, "the client's goroutines waited 10.00 ms (p99) for a CPU (the limit: 1ms)", ""},
		{"no host figures (not Linux)", 3 * time.Second, 0, true, false, "the client's goroutines waited 10.00 ms (p99) for a CPU (the limit: 1ms)", ""},
	} {
		h := waited(c.user, c.host)
		if c.host == 0 {
			h = func() Health { // no /proc/stat: both samples zero
				a := Sample{At: at, UsableCPUs: 2, SchedLat: &metrics.Float64Histogram{Counts: []uint64{0, 0, 0, 0}, Buckets: buckets}}
				b := Sample{At: at.Add(10 * time.Second), User: c.user, UsableCPUs: 2, SchedLat: &metrics.Float64Histogram{Counts: []uint64{0, 0, 100, 0}, Buckets: buckets}}
				return Between(a, b, DefaultLimits)
			}()
		}
		if h.ClientBound != c.bound || h.HostBusy != c.busy || h.ClientBoundWhy != c.why || h.HostBusyWhy != c.hostWhy {
			t.Errorf("%s: bound %v (%q), host busy %v (%q)", c.name, h.ClientBound, h.ClientBoundWhy, h.HostBusy, h.HostBusyWhy)
		}
	}
}

// BenchmarkTake is one sample of the client: taken at a run's measured
// start and end and at each report interval, never per query.
func BenchmarkTake(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Take()
	}
}
