package conn

import (
	"runtime"
	"testing"
)

func TestPlanNetIO(t *testing.T) {
	cpus := runtime.NumCPU()
	few, many := blockingPerCPU*cpus, blockingPerCPU*cpus+1
	blocking, procs := NetIOBlocking, few
	if !blockingSupported {
		blocking, procs = NetIOPoller, 0
	}
	for _, c := range []struct {
		mode      string
		conns     int
		model     string
		procs     int
		wantError bool
	}{
		{"auto", few, blocking, procs, false},
		{"auto", 1, blocking, map[bool]int{true: max(cpus, 2), false: 0}[blockingSupported], false}, // never a lone P
		{"blocking", 1, NetIOBlocking, max(cpus, 2), !blockingSupported},
		{"auto", many, NetIOPoller, 0, false},
		{"poller", 1, NetIOPoller, 0, false},
		{"blocking", many, NetIOBlocking, many, !blockingSupported},
		{"epoll", 1, "", 0, true},
	} {
		model, procs, err := PlanNetIO(c.mode, c.conns)
		if (err != nil) != c.wantError {
			t.Errorf("%s, %d connections: error %v", c.mode, c.conns, err)
			continue
		}
		if !c.wantError && (model != c.model || procs != c.procs) {
			t.Errorf("%s, %d connections: %s with GOMAXPROCS %d, want %s with %d", c.mode, c.conns, model, procs, c.model, c.procs)
		}
	}
}

// A client on one CPU (taskset): blocking up to 8 connections, and never
// on a lone P.
func TestPlanNetIOOneCPU(t *testing.T) {
	if !blockingSupported {
		t.Skip("blocking is Linux only")
	}
	for _, c := range []struct {
		conns, procs int
		model        string
	}{{1, 2, NetIOBlocking}, {2, 2, NetIOBlocking}, {8, 8, NetIOBlocking}, {9, 0, NetIOPoller}} {
		model, procs, err := planNetIO("auto", c.conns, 1)
		if err != nil || model != c.model || procs != c.procs {
			t.Errorf("%d connections on one CPU: %s with GOMAXPROCS %d (%v), want %s with %d", c.conns, model, procs, err, c.model, c.procs)
		}
	}
}
