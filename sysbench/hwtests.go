package sysbench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/sysbench/hw"
)

// sysbench's compiled-in tests (cpu, memory, threads, mutex: package hw)
// run on the same runner and report as the OLTP tests, with no server.

// hwTest is a compiled-in test bound to the suite's options.
type hwTest struct {
	*suite
	t *hw.Test
}

// declareHW adds a compiled-in test's options, when the command line names
// one, and makes it the suite's kind.
func (s *suite) declareHW(test string, fs *pflag.FlagSet) bool {
	t := hw.Lookup(test)
	if t == nil {
		return false
	}
	s.kind = &hwTest{suite: s, t: t}
	for _, o := range t.Options {
		if fs.Lookup(o.Name) == nil {
			fs.String(o.Name, o.Default, o.Help)
			if o.Type == "[=on|off]" {
				fs.Lookup(o.Name).NoOptDefVal = "on"
			}
		}
	}
	return true
}

func (h *hwTest) setup(st *workload.Setup, _, _ string) error {
	if err := h.check(); err != nil {
		return err
	}
	st.Verbosity = h.level()
	h.o.Threads = st.Threads
	return h.setupRun()
}

func (h *hwTest) name() string { return h.t.Name }

// dataset and sizes are the sysbench tables' (a compiled-in test uses none),
// so that its results carry the figures every sysbench result does.
func (h *hwTest) dataset() dataset.Dataset { return h.nativeDataset(&Test{Name: h.t.Name}) }
func (h *hwTest) sizes() map[string]string { return h.tableSizes() }
func (h *hwTest) hooks() workload.Hooks {
	return workload.Hooks{Peer: workload.PeerHooks{OwnConnections: true}}
}

// hwValues are the test's options as given or defaulted.
func (h *hwTest) values() hw.Values {
	v := h.t.Defaults()
	for name := range v {
		if f := h.fs.Lookup(name); f != nil {
			v[name] = f.Value.String()
		}
	}
	return v
}

// front answers what sysbench answers for a compiled-in test before it
// runs: help, and the commands the test does not have.
func (h *hwTest) front(args []string, out io.Writer) (bool, error) {
	name := args[0]
	if len(args) == 1 {
		return false, &workload.Message{Text: fmt.Sprintf("The '%s' test requires a command argument. See 'sysbench %s help'", name, name)}
	}
	switch args[1] {
	case "help":
		h.t.PrintHelp(out)
		return true, nil
	case "run", "prepare", "cleanup":
		if h.t.Refused != "" {
			return false, &workload.Message{Text: h.t.Refused}
		}
	}
	switch args[1] {
	case "run":
		return false, nil
	case "prepare", "cleanup", "prewarm", "warmup":
		return false, &workload.Message{Text: fmt.Sprintf("'%s' test does not implement the '%s' command.", name, args[1])}
	}
	return false, &workload.Message{Text: "Unknown command: " + args[1]}
}

// check checks the test's options; a test that moves a set amount (the
// memory test's total size) runs that many events, as sysbench does.
func (h *hwTest) check() error {
	v := h.values()
	for _, o := range h.t.Options {
		if _, err := strconv.ParseInt(v[o.Name], 10, 64); o.Type == "N" && err != nil {
			return &workload.Message{Text: fmt.Sprintf("Invalid value for the '%s' option: '%s'", strings.ReplaceAll(o.Name, "-", "_"), v[o.Name])}
		}
	}
	if h.t.Check != nil {
		if err := h.t.Check(v); err != nil {
			return &workload.Message{Text: err.Error()}
		}
	}
	if h.t.Events != nil {
		h.ro.Events = h.t.Events(v)
	}
	return nil
}

// hwRun reports a compiled-in test's run as sysbench does: its preamble
// after the options, its interval line, its summary before the general
// statistics.
type hwRun struct {
	*suiteRun
	t *hw.Test
	v hw.Values
}

func (r *hwRun) Header() {
	var pre strings.Builder
	if r.t.Preamble != nil {
		r.t.Preamble(&pre, r.v)
	}
	r.header(Header{Preamble: pre.String()})
}

func (r *hwRun) Interval(iv measure.Interval) {
	st := r.rep.Stat(iv)
	at := elapsed(time.Duration(st["time_total"] * float64(time.Second)))
	if r.t.BytesPerEvent != nil {
		fmt.Fprintf(r.c.Out, "[ %ss ] %4.2f MiB/sec\n", at, st["events"]/st["time_interval"]*r.t.BytesPerEvent(r.v)/(1<<20))
		return
	}
	fmt.Fprintf(r.c.Out, "[ %ss ] thds: %d eps: %4.2f lat (ms,%s%%): %4.2f\n", at, int(st["threads_running"]),
		st["events"]/st["time_interval"], pctName(r.rep.Percentile), st["latency_pct"])
}

func (r *hwRun) Final(f *measure.Final) (map[string]float64, map[string]string) {
	r.rep.Final(f)
	return nil, nil
}

// newRun binds a compiled-in test to a run and its report.
func (h *hwTest) newRun(sr *suiteRun, c workload.RunConfig) (workload.Run, error) {
	v := h.values()
	sr.events, sr.rep.NoSQL = h.t.NewRun(v, c.Threads), true
	if t := h.t; t.Summary != nil {
		sr.rep.Summary = func(w io.Writer, f *measure.Final) {
			t.Summary(w, v, f.Counts.Get(measure.Events), max(f.Elapsed.Seconds(), 1e-9))
		}
	}
	return &hwRun{suiteRun: sr, t: h.t, v: v}, nil
}
