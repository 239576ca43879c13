package pipeline

import (
	"bytes"
	"context"
	"database/sql/driver"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// probe is a workload of this test's own: one prepared statement an event
// on the dry connector (every statement a no-op, no server), the default
// text report. It is registered for these tests only.
type probe struct{}

func init() {
	workload.Register(workload.Spec{Name: "probe", Use: "run", Threads: "2", New: func() workload.Workload { return &probe{} }})
}

func (probe) Flags(fs *pflag.FlagSet, ro *workload.RunOptions) {
	ro.TimeVar(fs, "time", time.Second, "seconds")
	ro.WarmupVar(fs, "warmup", 0, "seconds")
	ro.RateVar(fs, "rate", "events per second, or a schedule")
	workload.SecondsVar(fs, &ro.ReportInterval, "report-interval", 0, "seconds")
	ro.DryRun = true
}
func (probe) Setup(*workload.Setup) error { return nil }
func (probe) Name() string                { return "probe" }
func (probe) Dataset() dataset.Dataset    { return dataset.Dataset{Workload: "probe"} }
func (probe) Sizes() map[string]string    { return nil }
func (probe) Hooks() workload.Hooks       { return workload.Hooks{} }
func (probe) Metric() result.Metric {
	return result.Metric{Name: "eps", Ops: []string{"probe"}, PerSeconds: 1}
}
func (probe) NewRun(c workload.RunConfig) (workload.Run, error) {
	probeMu.Lock()
	probeMeasured = c.Measured
	probeMu.Unlock()
	return &probeRun{TextReport: workload.TextReport{W: c.Out, Ops: []string{"probe"}}}, nil
}

// probeMeasured is the last run's RunConfig.Measured.
var (
	probeMu       sync.Mutex
	probeMeasured <-chan struct{}
)

func lastMeasured() <-chan struct{} {
	probeMu.Lock()
	defer probeMu.Unlock()
	return probeMeasured
}

type probeRun struct{ workload.TextReport }

func (*probeRun) Ops() []string { return []string{"probe"} }
func (*probeRun) NewWorker(dc driver.Conn, th *worker.Thread) (worker.Worker, error) {
	s := worker.NewSession(dc, true, th)
	st, err := s.PrepareNamed(worker.StmtName{Event: "probe", Name: "one"}, "SELECT 1")
	return &probeWorker{s: s, st: st, th: th}, err
}

type probeWorker struct {
	s  *worker.Session
	st *worker.Stmt
	th *worker.Thread
}

func (w *probeWorker) Event() (int, error) {
	if _, err := w.st.Query(); err != nil {
		return 0, err
	}
	w.th.Add(w.st.Counted(), 1)
	return 0, nil
}
func (w *probeWorker) Rollback() error { return nil }
func (w *probeWorker) Close() error    { return w.s.Close() }

// drive runs `probe run` with args through the pipeline, as the command
// does, and returns its output and result file.
func drive(t *testing.T, args ...string) (string, *result.Result) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "r.json")
	var out, warn bytes.Buffer
	p, err := Parse(append([]string{"probe", "--result-file=" + f}, args...), "run", &out, &warn, workload.Invocation{Tool: "oltpbench test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Drive(context.Background(), "run", nil); err != nil {
		t.Fatalf("run: %v\n%s%s", err, out.String(), warn.String())
	}
	r, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), r
}

// TestMeasureDryRun: a run through Describe and Measure on no server: the
// result counts what the workers did, the observers filled the intervals
// (the client's CPU) and the report printed each interval and the summary.
func TestMeasureDryRun(t *testing.T) {
	out, r := drive(t, "--time=1", "--report-interval=0.25", "--threads=2")
	events := r.Totals["events"]
	if events == 0 || r.Ops[0].Count != events || r.Totals["others"] != events || r.Threads != 2 {
		// a dry statement has no result set: other, as sysbench counts it
		t.Errorf("events %d, op count %d, others %d, threads %d", events, r.Ops[0].Count, r.Totals["others"], r.Threads)
	}
	if r.Server.Version != "dry run (no server)" || r.Workload != "probe" || r.Evidence != nil || r.Tool != "oltpbench test" {
		t.Errorf("server %q, workload %q, evidence %v, tool %q (the invocation's)", r.Server.Version, r.Workload, r.Evidence, r.Tool)
	}
	if len(r.Intervals) < 3 {
		t.Fatalf("%d intervals", len(r.Intervals))
	}
	cpu := 0.0
	for _, iv := range r.Intervals {
		cpu += iv.ClientCPU
	}
	if cpu <= 0 || r.ClientHealth == nil || r.ClientHealth.UserSeconds+r.ClientHealth.SysSeconds <= 0 {
		t.Errorf("the client observer kept no CPU: intervals %v, health %+v", cpu, r.ClientHealth)
	}
	if strings.Count(out, "] probe ") != len(r.Intervals) || !strings.Contains(out, "\nTotal: ") {
		t.Errorf("report:\n%s", out)
	}
}

// TestMeasuredAtWindowStart: RunConfig.Measured, which a run of fixed
// steps waits on, is open during the warm-up and closed once the measured
// window starts.
func TestMeasuredAtWindowStart(t *testing.T) {
	f := filepath.Join(t.TempDir(), "r.json")
	var out, warn bytes.Buffer
	p, err := Parse([]string{"probe", "--result-file=" + f, "--time=0.2", "--warmup=0.5"}, "run", &out, &warn, workload.Invocation{})
	if err != nil {
		t.Fatal(err)
	}
	probeMu.Lock()
	probeMeasured = nil // an earlier test's
	probeMu.Unlock()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- p.Drive(context.Background(), "run", nil) }()
	m := lastMeasured()
	for ; m == nil && time.Since(start) < 5*time.Second; m = lastMeasured() {
		time.Sleep(time.Millisecond) // polls for the run to begin, not for a result
	}
	if m == nil {
		t.Fatal("no RunConfig.Measured")
	}
	select {
	case <-m:
		t.Errorf("closed %s into a 0.5 s warm-up", time.Since(start))
	default:
	}
	select {
	case <-m:
		if took := time.Since(start); took < 450*time.Millisecond {
			t.Errorf("closed after %s, before the warm-up's end", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not closed 5 s into a 0.5 s warm-up")
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s%s", err, out.String(), warn.String())
	}
}

// TestMeasureRateSchedule: the events' observer makes a window of each
// segment of a --rate schedule, each near its rate, kept without printing
// the intervals it is made of.
func TestMeasureRateSchedule(t *testing.T) {
	out, r := drive(t, "--time=2", "--rate=200@1s,600@1s")
	if len(r.Windows) != 2 || !strings.HasPrefix(r.Windows[0].Name, "rate 200") || !strings.HasPrefix(r.Windows[1].Name, "rate 600") {
		t.Fatalf("windows %+v", r.Windows)
	}
	for i, want := range []float64{200, 600} {
		if got := r.Windows[i].PerS; got < want*0.8 || got > want*1.2 {
			t.Errorf("%s: %.0f events/s", r.Windows[i].Name, got)
		}
	}
	if strings.Contains(out, "] probe ") {
		t.Errorf("intervals printed without --report-interval:\n%s", out)
	}
}

// TestBeginRefuses: a command line that cannot run is refused before
// anything runs, in one line naming the fix.
func TestBeginRefuses(t *testing.T) {
	for _, c := range []struct {
		args    []string
		command string
		want    string
	}{
		{nil, "bogus", `unknown command "bogus": use `},
		{nil, "prepare", "--mysql-dry-run applies to run only: prepare needs a server"},
		{[]string{"--output=xml"}, "run", "invalid --output=xml: use text, json"},
		{[]string{"--threads=0"}, "run", "--threads"},
	} {
		p, err := Parse(append([]string{"probe"}, c.args...), c.command, &bytes.Buffer{}, &bytes.Buffer{}, workload.Invocation{})
		if err == nil {
			_, err = p.Begin(c.command, nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v %s: %v, want one line with %q", c.args, c.command, err, c.want)
		}
	}
}
