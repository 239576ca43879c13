// Package health measures the benchmark client itself over a window: the
// CPU it used against the CPUs it may use, its peak memory, the garbage
// collector's share and pauses, and how long runnable goroutines waited for
// a CPU (the Go scheduler's latency). A client that used nearly all its
// CPUs, or whose goroutines waited long to run, measured itself as much as
// the server: such a run is client-bound.
//
// It reads the OS (getrusage, the CPU affinity mask) and runtime/metrics at
// the window's ends and at report intervals, never per event.
package health

import (
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Limits say when a run is client-bound.
type Limits struct {
	CPUShare     float64       // of the usable CPUs over the window, 0..1 (0.9)
	SchedLatency time.Duration // the scheduler latency p99 (1 ms)
}

// DefaultLimits are 90% of the CPUs and a 1 ms scheduling latency p99.
var DefaultLimits = Limits{CPUShare: 0.9, SchedLatency: time.Millisecond}

// Sample is the client's state at one moment.
type Sample struct {
	At         time.Time
	User, Sys  time.Duration // process CPU time so far
	MaxRSS     int64         // bytes, the peak so far
	GCCPU, CPU float64       // runtime/metrics: GC's and all CPU seconds so far
	GCPauses   *metrics.Float64Histogram
	SchedLat   *metrics.Float64Histogram
	UsableCPUs int
}

var names = []string{"/cpu/classes/gc/total:cpu-seconds", "/cpu/classes/total:cpu-seconds",
	"/sched/pauses/total/gc:seconds", "/sched/latencies:seconds"}

// Take samples the client now.
func Take() Sample {
	s := Sample{At: time.Now(), UsableCPUs: usableCPUs()}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.User = time.Duration(ru.Utime.Nano())
		s.Sys = time.Duration(ru.Stime.Nano())
		s.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	ms := make([]metrics.Sample, len(names))
	for i, n := range names {
		ms[i].Name = n
	}
	metrics.Read(ms)
	if ms[0].Value.Kind() == metrics.KindFloat64 {
		s.GCCPU = ms[0].Value.Float64()
	}
	if ms[1].Value.Kind() == metrics.KindFloat64 {
		s.CPU = ms[1].Value.Float64()
	}
	if ms[2].Value.Kind() == metrics.KindFloat64Histogram {
		s.GCPauses = copyHist(ms[2].Value.Float64Histogram())
	}
	if ms[3].Value.Kind() == metrics.KindFloat64Histogram {
		s.SchedLat = copyHist(ms[3].Value.Float64Histogram())
	}
	return s
}

// usableCPUs is how many CPUs the process may run on (taskset, cgroups'
// cpusets), at most GOMAXPROCS' view of the machine.
func usableCPUs() int {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		if n := set.Count(); n > 0 {
			return n
		}
	}
	return runtime.NumCPU()
}

func copyHist(h *metrics.Float64Histogram) *metrics.Float64Histogram {
	return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

// Health is the client over a window, as results record it.
type Health = result.ClientHealth

// Between is the client from a to b, judged against lim.
func Between(a, b Sample, lim Limits) Health {
	wall := b.At.Sub(a.At).Seconds()
	h := Health{Seconds: wall, UserSeconds: (b.User - a.User).Seconds(), SysSeconds: (b.Sys - a.Sys).Seconds(),
		CPUs: b.UsableCPUs, PeakRSSBytes: b.MaxRSS}
	if wall > 0 && h.CPUs > 0 {
		h.CPUShare = (h.UserSeconds + h.SysSeconds) / wall / float64(h.CPUs)
	}
	if cpu := b.CPU - a.CPU; cpu > 0 {
		h.GCShare = (b.GCCPU - a.GCCPU) / cpu
	}
	h.GCPauseP99Ms, h.GCPauseMaxMs = quantiles(a.GCPauses, b.GCPauses)
	h.SchedLatP99Ms, _ = quantiles(a.SchedLat, b.SchedLat)
	judge(&h, lim)
	return h
}

// judge says whether the window was client-bound, and why.
func judge(h *Health, lim Limits) {
	switch {
	case lim.CPUShare > 0 && h.CPUShare >= lim.CPUShare:
		h.ClientBound = true
		h.ClientBoundWhy = fmt.Sprintf("the client used %.0f%% of its %d CPU(s) (the limit: %.0f%%)", 100*h.CPUShare, h.CPUs, 100*lim.CPUShare)
	case lim.SchedLatency > 0 && h.SchedLatP99Ms >= float64(lim.SchedLatency)/float64(time.Millisecond):
		h.ClientBound = true
		h.ClientBoundWhy = fmt.Sprintf("the client's goroutines waited %.2f ms (p99) for a CPU (the limit: %s)", h.SchedLatP99Ms, lim.SchedLatency)
	}
}

// quantiles are the p99 and the max (ms) of the samples added between two
// readings of one runtime histogram; 0 when none.
func quantiles(a, b *metrics.Float64Histogram) (p99, maxMs float64) {
	if b == nil {
		return 0, 0
	}
	d := make([]uint64, len(b.Counts))
	var total uint64
	for i, c := range b.Counts {
		d[i] = c
		if a != nil && i < len(a.Counts) {
			d[i] -= a.Counts[i]
		}
		total += d[i]
	}
	if total == 0 {
		return 0, 0
	}
	upper := func(i int) float64 { // a bucket's upper bound, its lower when unbounded
		if v := b.Buckets[i+1]; !math.IsInf(v, 1) {
			return v
		}
		return b.Buckets[i]
	}
	want := uint64(math.Ceil(0.99 * float64(total)))
	var seen uint64
	for i, c := range d {
		seen += c
		if seen >= want && p99 == 0 {
			p99 = upper(i) * 1000
		}
		if c > 0 {
			maxMs = upper(i) * 1000
		}
	}
	return p99, maxMs
}
