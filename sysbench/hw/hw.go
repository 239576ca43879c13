// Package hw is sysbench 1.0.20's compiled-in tests of the client and
// server machines themselves: cpu, memory, threads and mutex, which teams
// run before a benchmark to check the hardware. Each is a Test: its options
// as sysbench's help lists them, the lines it prints before the threads
// start and after they end, and its event, written from sysbench's
// documented behaviour. The sysbench package runs them on the same runner
// and report as the OLTP tests; they need no server.
package hw

import (
	"database/sql/driver"
	"fmt"
	"io"
	"strconv"

	"github.com/oltpbench/oltpbench/internal/worker"
)

// Option is one of a test's options: name, how help spells its value, the
// help text and the default, as sysbench's `<test> help` prints them.
type Option struct {
	Name, Type, Help, Default string
	NoDefault                 bool // help shows no [default]
}

// Values are a run's option values by name, as given or defaulted.
type Values map[string]string

// Int is an integer option's value.
func (v Values) Int(name string) int64 {
	n, _ := strconv.ParseInt(v[name], 10, 64)
	return n
}

// Test is one compiled-in test.
type Test struct {
	Name, Desc string
	Options    []Option // in sysbench's help order
	// Check refuses option values the test cannot run with, in sysbench's
	// words; nil accepts any.
	Check func(v Values) error
	// Events caps a run's events (the memory test: the total size in
	// blocks); 0 leaves --events as given.
	Events func(v Values) int64
	// Preamble is printed before "Initializing worker threads...".
	Preamble func(w io.Writer, v Values)
	// BytesPerEvent, if set, makes intervals say MiB/sec (memory) instead of
	// events per second: how many bytes one event moves.
	BytesPerEvent func(v Values) float64
	// Summary is printed before "General statistics:": events is the
	// measured events over secs.
	Summary func(w io.Writer, v Values, events int64, secs float64)
	// Refused, if set, is the line a command of the test gets instead of
	// running (fileio).
	Refused string
	// newRun makes the run's shared state and each thread's event.
	newRun func(v Values, threads int) func(tid int) event
}

// event runs one event; done ends the thread (mutex: one event each).
type event func() (done bool)

// Tests are the compiled-in tests, in sysbench's --help order.
var Tests = []*Test{fileioTest, cpuTest, memoryTest, threadsTest, mutexTest}

// Lookup finds a test by name.
func Lookup(name string) *Test {
	for _, t := range Tests {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Defaults are the test's option defaults.
func (t *Test) Defaults() Values {
	v := Values{}
	for _, o := range t.Options {
		v[o.Name] = o.Default
	}
	return v
}

// Run is one run of a test: its workers for the runner.
type Run struct {
	t     *Test
	event func(tid int) event
}

// NewRun binds the test to a run of threads.
func (t *Test) NewRun(v Values, threads int) *Run {
	return &Run{t: t, event: t.newRun(v, threads)}
}

// Ops names the measured operation: the test's events.
func (r *Run) Ops() []string { return []string{r.t.Name} }

// NewWorker gives a thread its event; the tests use no connection.
func (r *Run) NewWorker(_ driver.Conn, th *worker.Thread) (worker.Worker, error) {
	return &hwWorker{ev: r.event(th.ID)}, nil
}

type hwWorker struct {
	ev   event
	done bool
}

// Event runs the test's event; after an event that ends the thread (it is
// counted), the next call ends it.
func (w *hwWorker) Event() (int, error) {
	if w.done {
		return 0, worker.ErrEnd
	}
	w.done = w.ev()
	return 0, nil
}
func (w *hwWorker) Rollback() error { return nil }
func (w *hwWorker) Close() error    { return nil }

// PrintHelp is `sysbench <test> help`: the options padded to the longest.
func (t *Test) PrintHelp(w io.Writer) {
	fmt.Fprintf(w, "%s options:\n", t.Name)
	width := 0
	for _, o := range t.Options {
		width = max(width, len(o.spelled()))
	}
	for _, o := range t.Options {
		line := fmt.Sprintf("  %-*s %s", width, o.spelled(), o.Help)
		if !o.NoDefault {
			line += " [" + o.Default + "]"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
}

func (o Option) spelled() string {
	if o.Type == "[=on|off]" {
		return "--" + o.Name + o.Type
	}
	return "--" + o.Name + "=" + o.Type
}
