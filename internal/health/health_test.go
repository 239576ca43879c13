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

// TestTakeReadsTheProcess: a busy loop shows as CPU time of this process.
func TestTakeReadsTheProcess(t *testing.T) {
	a := Take()
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	b := Take()
	h := Between(a, b, DefaultLimits)
	if h.UserSeconds+h.SysSeconds < 0.02 || h.CPUs < 1 || h.PeakRSSBytes <= 0 || b.SchedLat == nil {
		t.Errorf("health of a busy 50 ms: %+v", h)
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
