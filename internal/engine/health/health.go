// Package health measures the benchmark client itself over a window: the
// CPU it used against the CPUs it may use, its peak memory, the garbage
// collector's share and pauses, how long runnable goroutines waited for a
// CPU (the Go scheduler's latency), and how busy those CPUs were with
// anything. A client that used nearly all its CPUs, or whose goroutines
// waited long to run while it was most of what ran, measured itself as much
// as the server: such a run is client-bound. Goroutines that waited for
// CPUs something else kept busy (a server on the same machine) are that:
// the host was busy.
//
// It reads the OS (getrusage, the CPU affinity mask) and runtime/metrics at
// the window's ends and at report intervals, never per event.
package health

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
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
	// HostBusy and HostTotal are the usable CPUs' busy and total time so
	// far (/proc/stat), whoever ran on them; zero where it cannot be read.
	HostBusy, HostTotal time.Duration
}

var names = []string{"/cpu/classes/gc/total:cpu-seconds", "/cpu/classes/total:cpu-seconds",
	"/sched/pauses/total/gc:seconds", "/sched/latencies:seconds"}

// Take samples the client now.
func Take() Sample {
	s := Sample{At: time.Now(), UsableCPUs: usableCPUs()}
	s.HostBusy, s.HostTotal = HostCPU()
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

// HostCPU is the busy and total time of the CPUs this process may run on,
// from /proc/stat's per-CPU lines (USER_HZ ticks: 100 a second on Linux).
func HostCPU() (busy, total time.Duration) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	var set unix.CPUSet
	pinned := unix.SchedGetaffinity(0, &set) == nil
	const tick = 10 * time.Millisecond
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		cpu, err := strconv.Atoi(f[0][3:])
		if err != nil || pinned && !set.IsSet(cpu) {
			continue
		}
		for i, v := range f[1:] {
			if i >= 8 { // guest time is counted in user already
				break
			}
			n, _ := strconv.ParseInt(v, 10, 64)
			total += time.Duration(n) * tick
			if i != 3 && i != 4 { // idle, iowait
				busy += time.Duration(n) * tick
			}
		}
	}
	return busy, total
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
	if t := b.HostTotal - a.HostTotal; t > 0 {
		h.HostCPUShare = float64(b.HostBusy-a.HostBusy) / float64(t)
	}
	judge(&h, lim)
	return h
}

// A wait for a CPU is the host's, not the client's, when the client's CPUs
// were hostBusy busy and the client did at most hostClientPart of that (the
// rest others' work: a server beside it). A client pinned to a CPU that
// others share gets a third of it and more: still client-bound.
const hostBusy, hostClientPart = 0.9, 0.25

// judge says whether the window was client-bound, and why.
func judge(h *Health, lim Limits) {
	switch {
	case lim.CPUShare > 0 && h.CPUShare >= lim.CPUShare:
		h.ClientBound = true
		h.ClientBoundWhy = fmt.Sprintf("the client used %.0f%% of its %d CPU(s) (the limit: %.0f%%)", 100*h.CPUShare, h.CPUs, 100*lim.CPUShare)
	case lim.SchedLatency > 0 && h.SchedLatP99Ms >= float64(lim.SchedLatency)/float64(time.Millisecond) &&
		h.HostCPUShare >= hostBusy && h.CPUShare < hostClientPart*h.HostCPUShare:
		// The CPUs were busy, and mostly not with the client.
		h.HostBusy = true
		h.HostBusyWhy = fmt.Sprintf("the host's CPUs were %.0f%% busy and the client used %.0f%% of them (its goroutines waited %.2f ms (p99) for a CPU): is the server on this machine?",
			100*h.HostCPUShare, 100*h.CPUShare, h.SchedLatP99Ms)
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
