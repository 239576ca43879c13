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
		{"auto", 1, blocking, map[bool]int{true: cpus, false: 0}[blockingSupported], false},
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
