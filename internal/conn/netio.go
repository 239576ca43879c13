package conn

import (
	"fmt"
	"runtime"
)

// How a connection waits for the server's replies (Options.NetIO).
const (
	// NetIOPoller parks the goroutine on Go's network poller: one thread
	// serves many connections. Best with many connections per CPU.
	NetIOPoller = "poller"
	// NetIOBlocking gives every connection a thread that sleeps in read(2),
	// as sysbench does. Best with few connections per CPU.
	NetIOBlocking = "blocking"
)

// blockingPerCPU is the most connections per CPU that still run faster
// blocking: measured on 2 CPUs against MariaDB, blocking led at 16
// connections and the poller at 24 and beyond.
const blockingPerCPU = 8

// minBlockingProcs is the fewest Ps a blocking run gets (see PlanNetIO).
const minBlockingProcs = 2

// PlanNetIO chooses the I/O model for a run on conns connections: mode is
// auto, blocking or poller. procs, when not 0, is the GOMAXPROCS the model
// needs: blocking wants a P per connection, so that a thread coming back from
// a read never waits for one, and never a lone P: sysmon takes a P from a
// thread asleep in a system call once no other P is idle, so one connection
// on one CPU lost its P to every reply slower than sysmon's 20 us tick and
// won it back from the idle list (read_write pinned to one CPU: 30-53 us of
// client CPU per query, 30-32 us with a second P; sysbench 33-36 us).
func PlanNetIO(mode string, conns int) (model string, procs int, err error) {
	return planNetIO(mode, conns, runtime.NumCPU())
}

// planNetIO is PlanNetIO on cpus CPUs.
func planNetIO(mode string, conns, cpus int) (model string, procs int, err error) {
	switch mode {
	case "auto":
		if !blockingSupported || conns > blockingPerCPU*cpus {
			return NetIOPoller, 0, nil
		}
	case NetIOBlocking:
		if !blockingSupported {
			return "", 0, fmt.Errorf("--net-io=blocking is supported on Linux only: use poller")
		}
	case NetIOPoller:
		return NetIOPoller, 0, nil
	default:
		return "", 0, fmt.Errorf("invalid --net-io=%s: use auto, blocking or poller", mode)
	}
	return NetIOBlocking, max(conns, cpus, minBlockingProcs), nil
}
