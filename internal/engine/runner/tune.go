package runner

import (
	"runtime"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/gcpace"
)

// Tune readies the process for a run of threads connections: it sets on co
// how the connections wait for replies (--net-io, conn.PlanNetIO), the
// GOMAXPROCS that model needs, and the garbage collector's headroom during
// the run; restore undoes the last two.
func Tune(co *conn.Options, netIO string, threads int) (restore func(), err error) {
	model, procs, err := conn.PlanNetIO(netIO, threads)
	if err != nil {
		return nil, err
	}
	co.NetIO = model
	prev := runtime.GOMAXPROCS(0)
	if procs != 0 {
		runtime.GOMAXPROCS(procs)
	}
	pacer := gcpace.Start(gcHeadroom)
	return func() {
		pacer.Stop()
		runtime.GOMAXPROCS(prev)
	}, nil
}

// gcHeadroom is the allocation between two collections during a run (unless
// GOGC is set): at 16 threads the live heap is about 3 MB, and collecting
// every 3 MB cost 3-8% of the client's CPU (internal/gcpace).
const gcHeadroom = 32 << 20
