// Package measure is what a run measured: counter totals, the interval
// reports and the final figures. The runner fills them, workloads print
// them, result files record them; it needs no server or driver.
package measure

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Counter indexes a thread's counters.
type Counter int

const (
	Events Counter = iota
	Reads
	Writes
	Others
	Errors     // ignored errors
	Reconnects // connections re-established after a loss
	Retries    // transactions retried after a conflict
	NumCounters
)

// Totals are counter sums.
type Totals [NumCounters]int64

// Get returns one counter.
func (t Totals) Get(c Counter) int64 { return t[c] }

// Sub returns t - o.
func (t Totals) Sub(o Totals) Totals {
	for i := range t {
		t[i] -= o[i]
	}
	return t
}

// Interval is what a reporter receives every report interval.
type Interval struct {
	Elapsed     time.Duration // since the measured start
	Length      time.Duration // of this interval
	Running     int           // threads still running
	Counts      Totals        // during the interval
	Hists       []*hdr.Histogram
	QueueLength int64 // --rate only
	Concurrency int64 // --rate only
}

// Final is the run's outcome since its measured start, or since the last
// report checkpoint: counts, histograms and Elapsed cover that period;
// SinceStart is the time since the measured start (sysbench's "total time").
type Final struct {
	Elapsed     time.Duration
	SinceStart  time.Duration
	Counts      Totals
	Hists       []*hdr.Histogram
	MinUs       int64
	MaxUs       int64
	SumUs       int64
	PerThread   []ThreadStat
	Interrupted bool
	Start, End  time.Time
	// ErrorCodes break the errors and reconnects down by operation, code and
	// outcome; they sum to Counts' Errors and Reconnects.
	ErrorCodes []ErrorCount
	// Statements are the client's latency of each named statement over the
	// measured window (not cut at checkpoints); nil when not timed.
	Statements []StmtHist
	// Connect is the main threads' connects' latency over the measured
	// window, and Refreshes the connections they closed on purpose to
	// make new ones (--conn-refresh, --reconnect=event), apart from the
	// reconnects after a fault.
	Connect   *hdr.Histogram
	Refreshes int64
}

// StmtHist is one statement's client latency (microseconds): Event is the
// operation it runs in, Name its own.
type StmtHist struct {
	Event, Name string
	Hist        *hdr.Histogram
}

// ThreadStat feeds "Threads fairness".
type ThreadStat struct {
	Events       int64
	Busy         time.Duration
	MinUs, MaxUs int64 // its events' latencies (0 when it had none)
}

// Reporter receives reports; calls come from one goroutine.
type Reporter interface {
	Interval(iv Interval)
	Checkpoint(f Final)
}

// Outcomes of an error a run survived.
const (
	Ignored     = "ignored"     // in --mysql-ignore-errors: rolled back, counted, the event redone
	Reconnected = "reconnected" // the connection was lost and made again; the event redone
	Counted     = "counted"     // an error the worker keeps account of (a query killed by its timeout)
)

// ErrorCount is how many errors of one code one operation met with one
// outcome. Code is the server's error number ("1213"), or a named class
// for the driver's own ("2013 broken pipe"); Op indexes the run's
// operations (-1: none known).
type ErrorCount struct {
	Op      int
	Code    string
	Outcome string
	Count   int64
}
