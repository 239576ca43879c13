// Package worker is what a benchmark thread runs: the Worker a workload
// implements, the Thread with its counters, and the Session that runs its
// statements on one pinned driver connection.
package worker

import (
	"errors"
	"sync/atomic"

	"github.com/oltpbench/oltpbench/internal/measure"
)

// Thread is what a worker sees of its benchmark thread: its id, its counters,
// and a place for state that survives reconnects.
type Thread struct {
	ID    int
	State any
	// Sampler, when set, keeps the first execution of each of the
	// thread's statements (one thread of a run: their plans).
	Sampler *Sampler
	// Clock, when set, times the thread's named statements.
	Clock *Clock
	// Trace, when set, prints the thread's calls (--mysql-debug).
	Trace  *Trace
	traced bool // its first connection was traced
	Ctr    [measure.NumCounters]atomic.Int64
	_      [64]byte // counters of different threads on different cache lines
}

// Add counts n statements (or events) of kind c.
func (t *Thread) Add(c measure.Counter, n int64) { t.Ctr[c].Add(n) }

// Worker runs events on one connection; a new one is made after a reconnect.
type Worker interface {
	// Event runs one event and returns the operation (histogram) it belongs to.
	Event() (op int, err error)
	// Rollback ends a transaction left open by a failed event.
	Rollback() error
	Close() error
}

// Waiter is a Worker that pauses between events (TPC-C keying and think
// times). The runner calls Wait before it starts timing an event, so pauses
// are not latency; Wait returns false when stop closes first.
type Waiter interface {
	Wait(stop <-chan struct{}) bool
}

// ErrEnd is what a Worker's Event returns to end its thread (a sysbench
// script's event returned true); that event is not counted.
var ErrEnd = errors.New("the thread's work is done")

// ErrCounted is what a Worker's Event returns for an event that failed in
// a way the worker keeps account of (an analytical query that timed out):
// the runner counts an error and goes on with the next event, without
// measuring its latency or retrying it.
var ErrCounted = errors.New("the event failed and was counted")

// Ender is a Worker with work to do once its thread ends, after its last
// Close (a sysbench script's thread_done).
type Ender interface {
	End()
}

// EndTrace prints the thread's last traced call, once it has connected.
func (t *Thread) EndTrace() {
	if t.Trace != nil && t.traced {
		t.Trace.ThreadEnd()
	}
}
