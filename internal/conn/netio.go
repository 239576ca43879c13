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

// PlanNetIO chooses the I/O model for a run on conns connections: mode is
// auto, blocking or poller. procs, when not 0, is the GOMAXPROCS the model
// needs: blocking wants a P per connection, so that a thread coming back from
// a read never waits for one.
func PlanNetIO(mode string, conns int) (model string, procs int, err error) {
	switch mode {
	case "auto":
		if !blockingSupported || conns > blockingPerCPU*runtime.NumCPU() {
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
	return NetIOBlocking, max(conns, runtime.NumCPU()), nil
}
