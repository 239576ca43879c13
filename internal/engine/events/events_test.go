package events

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// TestParse: a spec's keys in any order, sql= or command= last taking the
// rest (semicolons included), and one clear error for each bad spec; Spec
// writes what Parse reads back.
func TestParse(t *testing.T) {
	e, err := Parse("at=20s;timeout=5m;on_error=stop;sql=ALTER TABLE sbtest1 ADD INDEX c_1 (c); SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	want := Event{Name: "ALTER TABLE sbtest1 ADD INDEX c_1 (c), SELECT 1", At: 20 * time.Second, SQL: "ALTER TABLE sbtest1 ADD INDEX c_1 (c); SELECT 1",
		Timeout: 5 * time.Minute, OnError: OnErrorStop}
	if e != want {
		t.Errorf("got %+v\nwant %+v", e, want)
	}
	if back, err := Parse(e.Spec()); err != nil || back != e {
		t.Errorf("round trip: %+v %v", back, err)
	}
	c, err := Parse("name=restart;at=1.5;command=scripts/restart.sh a=b")
	if err != nil || c.Name != "restart" || c.At != 1500*time.Millisecond || c.Command != "scripts/restart.sh a=b" || c.Timeout != DefaultTimeout ||
		c.OnError != OnErrorRecord || c.Kind() != "command" {
		t.Errorf("%+v %v", c, err)
	}
	for spec, msg := range map[string]string{
		"sql=SELECT 1":                  "no at=",
		"at=5s":                         "no sql= or command=",
		"at=5s;sql=":                    "sql is empty",
		"at=soon;sql=SELECT 1":          "at: \"soon\" is not seconds",
		"at=5s;at=6s;sql=SELECT 1":      "at given twice",
		"at=5s;on_error=ignore;sql=x":   "on_error is record or stop",
		"at=5s;timeout=0;sql=x":         "timeout must be more than 0",
		"at=5s;when=now;sql=x":          "unknown key \"when\"",
		"at=5s;SELECT 1":                "is not key=value",
		"at=-1s;command=true":           "is negative",
		"name=a;b;at=1s;command=true":   "is not key=value",
		"at=1s;timeout=1h;command=true": "",
	} {
		_, err := Parse(spec)
		if msg == "" {
			if err != nil {
				t.Errorf("%s: %v", spec, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "invalid --event=") {
			t.Errorf("%s: %v, want %q", spec, err, msg)
		}
	}
}

// series is a run of 1 s intervals at the rates given.
func series(before int, rates ...float64) []Point {
	var out []Point
	for i, r := range rates {
		w := "during x"
		if i < before {
			w = Before
		}
		out = append(out, Point{From: float64(i), To: float64(i + 1), PerS: r, Window: w})
	}
	return out
}

// TestImpact: depth, time below 90% and recovery from the intervals, as
// their definitions say; no impact without a before-window.
func TestImpact(t *testing.T) {
	for _, c := range []struct {
		name       string
		s          []Point
		start, end float64
		want       *result.Impact
	}{
		{"down, then back 2 s after its end", series(4, 100, 102, 98, 100, 80, 50, 60, 85, 99, 100), 4.2, 6.5,
			&result.Impact{BeforePerS: 100, LowestPerS: 50, Depth: -0.5, BelowSeconds: 4, Recovered: true, RecoverySeconds: 1.5}},
		{"never down", series(3, 100, 100, 100, 99, 100, 100), 3.1, 3.4,
			&result.Impact{BeforePerS: 100, LowestPerS: 99, Depth: -0.01, Recovered: true, RecoverySeconds: 0}},
		{"did not recover", series(2, 100, 100, 70, 40, 80), 2.5, 3.5,
			&result.Impact{BeforePerS: 100, LowestPerS: 40, Depth: -0.6, BelowSeconds: 3}},
		{"no before", series(0, 100, 50, 100), 0.1, 1.2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ImpactOf(c.s, BeforeRate(c.s), result.Event{Start: c.start, End: c.end, Outcome: OK})
			if (got == nil) != (c.want == nil) || got != nil && (*got != *c.want && math.Abs(got.Depth-c.want.Depth) > 1e-9) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
	if ImpactOf(series(2, 100, 100, 50), 100, result.Event{Outcome: NotStarted}) != nil {
		t.Error("an event that did not start has an impact")
	}
}

// TestExecAndWindows: events run at their times on their own (an SQL event
// without a server fails and is recorded; a command's output kept, secrets
// redacted; one that outlives its timeout is killed; one with on_error =
// stop stops the run; one after the run's end never starts), and report
// intervals fall into the window they overlap most.
func TestExecAndWindows(t *testing.T) {
	var log bytes.Buffer
	var mu sync.Mutex
	var stopped error
	evs := []Event{
		{Name: "echo", At: 100 * time.Millisecond, Command: "echo secret-pw; sleep 0.3", Timeout: time.Minute, OnError: OnErrorRecord},
		{Name: "stuck", At: 0, Command: "sleep 30", Timeout: 150 * time.Millisecond, OnError: OnErrorRecord},
		{Name: "ddl", At: 0, SQL: "ALTER TABLE t ADD INDEX x (c)", Timeout: time.Minute, OnError: OnErrorRecord},
		{Name: "fails", At: 50 * time.Millisecond, Command: "exit 3", Timeout: time.Minute, OnError: OnErrorStop},
		{Name: "late", At: time.Hour, Command: "true", Timeout: time.Minute, OnError: OnErrorRecord},
	}
	x := NewExec(evs, Config{Log: &syncWriter{w: &log, mu: &mu}, Redact: func(s string) string { return strings.ReplaceAll(s, "secret-pw", "****") },
		Stop: func(err error) { mu.Lock(); stopped = err; mu.Unlock() }})
	x.Start(context.Background())
	waitEnded(t, x, 4) // all but the late one
	recs := x.Finish()
	by := map[string]result.Event{}
	for _, r := range recs {
		by[r.Name] = r
	}
	if r := by["echo"]; r.Outcome != OK || r.Output != "****\n" || r.Start < 0.1 || r.Seconds < 0.3 || r.End < r.Start+0.3 {
		t.Errorf("echo: %+v", r)
	}
	if r := by["stuck"]; r.Outcome != TimedOut || r.Seconds > 5 {
		t.Errorf("stuck: %+v", r)
	}
	if r := by["ddl"]; r.Outcome != Failed || !strings.Contains(r.Error, "no server") {
		t.Errorf("ddl: %+v", r)
	}
	if r := by["fails"]; r.Outcome != Failed || !strings.Contains(r.Error, "exit status 3") {
		t.Errorf("fails: %+v", r)
	}
	if r := by["late"]; r.Outcome != NotStarted || recs[len(recs)-1].Name != "late" {
		t.Errorf("late: %+v (last %s)", r, recs[len(recs)-1].Name)
	}
	mu.Lock()
	if stopped == nil || !strings.Contains(stopped.Error(), `event "fails" failed (on_error = stop): exit status 3`) {
		t.Errorf("stop: %v", stopped)
	}
	if strings.Contains(log.String(), "secret-pw") || !strings.Contains(log.String(), `event "echo" ended at`) {
		t.Errorf("log:\n%s", log.String())
	}
	mu.Unlock()

	// Windows: a tracker over one event spanning [2, 4.5) s.
	one := NewExec([]Event{{Name: "e"}}, Config{})
	one.recs[0].Start, one.recs[0].End, one.recs[0].Outcome = 2, 4.5, OK
	tr := NewTracker(one, []string{"op"})
	errs := []measure.ErrorCount{{Op: 0, Code: "1213", Outcome: measure.Ignored}}
	for i, rate := range []int64{100, 100, 60, 40, 90, 100, 100} {
		errs[0].Count += int64(i) // the run's errors so far
		tr.Interval(time.Duration(i+1)*time.Second, time.Second, rate, nil, errs)
	}
	var got []string
	for _, p := range tr.Series() {
		got = append(got, p.Window)
	}
	// [4, 5) is half the event's, half after: the event's.
	if strings.Join(got, ",") != "before,before,during e,during e,during e,after,after" {
		t.Errorf("windows %v", got)
	}
	w := tr.Finish([]result.Event{one.recs[0]})
	if len(w) != 3 || w[1].Name != "during e" || w[1].Events != 190 || math.Abs(w[1].PerS-190.0/3) > 1e-9 || w[1].From != 2 || w[1].To != 5 ||
		len(w[1].Errors) != 1 || w[1].Errors[0].Count != 2+3+4 || w[1].Errors[0].Op != "op" || w[0].Errors[0].Count != 1 || w[2].Errors[0].Count != 5+6 {
		t.Errorf("windows %+v", w)
	}
}

type syncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// waitEnded waits until n of x's events have ended.
func waitEnded(t *testing.T, x *Exec, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		ended := 0
		x.mu.Lock()
		for _, r := range x.recs {
			if r.Outcome != NotStarted && r.End >= 0 {
				ended++
			}
		}
		x.mu.Unlock()
		if ended >= n {
			return
		}
	}
	t.Fatalf("fewer than %d events ended in 10 s", n)
}

// TestPhases: intervals fall into the schedule's segment their midpoint is
// in; a level met twice is two windows, named by their starts.
func TestPhases(t *testing.T) {
	segs := []workload.Segment{{From: 1, To: 1, Dur: 2 * time.Second}, {From: 4, To: 4, Dur: 2 * time.Second}, {From: 1, To: 1, Dur: 2 * time.Second}}
	tr := NewPhases("threads", "", segs, []string{"op"})
	for i := range 7 {
		tr.Interval(time.Duration(i+1)*time.Second, time.Second, 10*int64(i+1), nil, nil)
	}
	var got []string
	for _, w := range tr.Finish(nil) {
		got = append(got, fmt.Sprintf("%s:%d", w.Name, w.Events))
	}
	if strings.Join(got, ",") != "threads 1 from 0s:30,threads 4:70,threads 1 from 4s:180" {
		t.Errorf("windows %v", got)
	}
}
