package cells

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

// fakeResult is a run whose p95 grows with the threads, so a search's
// limit falls between two levels.
func fakeResult(threads int) *result.Result {
	ms := float64(threads)
	return &result.Result{Format: result.Format, Workload: "w", Threads: threads, Seconds: 1, Metric: result.QPS,
		Totals: map[string]int64{"events": int64(100 * threads), "reads": int64(100 * threads)},
		Ops:    []result.Op{{Name: "op", Count: int64(100 * threads), MeanMs: ms, Percentiles: map[string]float64{"95": ms}}}}
}

// recorder measures fake runs and remembers the levels it ran.
type recorder struct {
	mu     sync.Mutex
	levels []int
	after  func(threads int) // called after each measurement
}

func (r *recorder) measure(ctx context.Context, c *Cell, threads int, out io.Writer) (*result.Result, error) {
	r.mu.Lock()
	r.levels = append(r.levels, threads)
	r.mu.Unlock()
	fmt.Fprintf(out, "ran %d\n", threads)
	if r.after != nil {
		r.after(threads)
	}
	return fakeResult(threads), nil
}

func TestExpandNamesAndAlternates(t *testing.T) {
	cmdline := &Series{Prefix: "sysbench/oltp_point_select", Numbered: true, Threads: []int{4, 16}, Repeats: 2, Run: 10 * time.Second, Cooldown: time.Second}
	single := &Series{Prefix: "tpcc", Threads: []int{8}, Repeats: 1}
	search := &Series{Step: "rw", Prefix: "rw", Threads: []int{8, 1024}, Repeats: 1, Run: 20 * time.Second,
		Search: &Search{Limit: "105ms", Steps: 6, Folder: "rw-p95search"}, Args: []string{"tpcc", "--time=20"}}
	var got []string
	for _, c := range Expand([]*Series{cmdline, single, search}) {
		got = append(got, fmt.Sprintf("%d/%d %s %s %s", c.Index, c.Of, c.File, c.Expected, strings.Join(c.Args(), " ")))
	}
	want := []string{
		"1/6 sysbench-oltp_point_select-4threads-r1.json 11s --threads=4",
		"2/6 sysbench-oltp_point_select-16threads-r1.json 11s --threads=16",
		"3/6 sysbench-oltp_point_select-4threads-r2.json 11s --threads=4",
		"4/6 sysbench-oltp_point_select-16threads-r2.json 11s --threads=16",
		"5/6 tpcc-8threads.json 0s --threads=8",
		"6/6 rw-p95search 2m0s tpcc --time=20 --threads=8-1024 --p95-slo=105ms --slo-steps=6",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cells:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseThreads(t *testing.T) {
	for _, c := range []struct {
		spec   string
		search bool
		levels []int
		lo, hi int
		err    string
	}{
		{"16", false, []int{16}, 0, 0, ""},
		{"150, 300,600", false, []int{150, 300, 600}, 0, 0, ""},
		{"8-1024", true, nil, 8, 1024, ""},
		{"64", true, nil, 1, 64, ""},
		{"8-1024", false, nil, 0, 0, "is a range: give --p95-slo"},
		{"0", false, nil, 0, 0, "must be at least 1"},
		{"x", false, nil, 0, 0, "a number, a list"},
		{"4,8", true, nil, 0, 0, "searches a range"},
	} {
		levels, lo, hi, err := ParseThreads(c.spec, c.search)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(levels, c.levels) || lo != c.lo || hi != c.hi {
			t.Errorf("%q: %v %d %d %v", c.spec, levels, lo, hi, err)
		}
	}
}

func planSearch(args ...string) *Series {
	return &Series{Plan: "p", Step: "ps", Prefix: "ps", Numbered: true, Threads: []int{1, 64}, Repeats: 1,
		Search: &Search{Limit: "3ms", Steps: 10, Folder: "ps-p95search"}, Args: append([]string{"w"}, args...)}
}

// A plan's search resumed unedited takes the levels it measured; edited,
// it measures every level again.
func TestSearchResumesOnlyUnderTheSameArgs(t *testing.T) {
	dir := t.TempDir()
	first := &recorder{}
	ex := &Executor{Dir: dir, Plan: true, Out: io.Discard, Measure: first.measure}
	if err := ex.Execute(context.Background(), Expand([]*Series{planSearch("--x=1")})); err != nil {
		t.Fatal(err)
	}
	// p95 = threads ms, limit 3 ms: 1, 2 and 4 break it; the bisection tries 3.
	if !slices.Equal(first.levels, []int{1, 2, 4, 3}) {
		t.Fatalf("first search ran %v", first.levels)
	}
	// Killed while measuring 3 threads: its result and the search's end are gone.
	os.Remove(filepath.Join(dir, "ps-p95search", ".done"))
	os.Remove(filepath.Join(dir, "ps-p95search", "ps-3threads.json"))

	resumed := &recorder{}
	var out bytes.Buffer
	ex = &Executor{Dir: dir, Plan: true, Out: &out, Measure: resumed.measure}
	cells := Expand([]*Series{planSearch("--x=1")})
	if todo, _, _ := ex.Pending(cells); len(todo) != 1 {
		t.Fatalf("the cut search is not pending: %v", todo)
	}
	if err := ex.Execute(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resumed.levels, []int{3}) || strings.Count(out.String(), "measured before:") != 3 {
		t.Errorf("resumed search ran %v:\n%s", resumed.levels, out.String())
	}
	if todo, done, _ := ex.Pending(cells); len(todo) != 0 || len(done) != 1 {
		t.Errorf("finished search still pending")
	}

	edited := &recorder{}
	out.Reset()
	ex = &Executor{Dir: dir, Plan: true, Out: &out, Measure: edited.measure}
	cells = Expand([]*Series{planSearch("--x=2")})
	todo, _, notes := ex.Pending(cells)
	if len(todo) != 1 || len(notes) != 1 || !strings.Contains(notes[0], "the plan changed since its search ran") {
		t.Fatalf("edited search: todo %d, notes %q", len(todo), notes)
	}
	if err := ex.Execute(context.Background(), todo); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(edited.levels, []int{1, 2, 4, 3}) || strings.Contains(out.String(), "measured before:") {
		t.Errorf("edited search ran %v:\n%s", edited.levels, out.String())
	}
	r, err := result.Read(filepath.Join(dir, "ps-p95search", "ps-1threads.json"))
	if err != nil || r.Cell == nil || !slices.Equal(r.Cell.Args, []string{"w", "--x=2", "--threads=1"}) {
		t.Errorf("level result records %+v (%v)", r.Cell, err)
	}
}

// Ctrl-C during a cooldown ends it at once: a search's, a sweep's and a
// plan's.
func TestCooldownEndsOnInterrupt(t *testing.T) {
	for _, c := range []struct {
		name   string
		plan   bool
		series *Series
	}{
		{"search", false, &Series{Prefix: "w", Threads: []int{1, 64}, Repeats: 1, Cooldown: time.Hour, Search: &Search{Limit: "100ms", Steps: 5}}},
		{"sweep", false, &Series{Prefix: "w", Threads: []int{1, 2}, Repeats: 1, Cooldown: time.Hour}},
		{"plan", true, &Series{Step: "s", Prefix: "s", Numbered: true, Threads: []int{1, 2}, Repeats: 1, Cooldown: time.Hour}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := &recorder{after: func(int) { time.AfterFunc(50*time.Millisecond, cancel) }}
			ex := &Executor{Dir: t.TempDir(), Plan: c.plan, Out: io.Discard, Measure: rec.measure}
			start := time.Now()
			err := ex.Execute(ctx, Expand([]*Series{c.series}))
			if took := time.Since(start); took > time.Second {
				t.Fatalf("Run returned %s after the interrupt, in an hour's cooldown", took)
			}
			if len(rec.levels) != 1 {
				t.Errorf("ran %v after the interrupt", rec.levels)
			}
			if c.plan && (err == nil || !strings.Contains(err.Error(), "interrupted after cell 1/2")) {
				t.Errorf("plan: %v", err)
			}
		})
	}
}

// A plan keeps no result of an interrupted run; a command line keeps what
// it measured, as its report shows it.
func TestInterruptedRunsKeptOnlyOnACommandLine(t *testing.T) {
	for _, plan := range []bool{false, true} {
		dir := t.TempDir()
		measure := func(ctx context.Context, c *Cell, threads int, out io.Writer) (*result.Result, error) {
			r := fakeResult(threads)
			r.Interrupted = true
			return r, nil
		}
		s := &Series{Step: "s", Prefix: "s", Numbered: plan, Threads: []int{2}, Repeats: 1}
		ex := &Executor{Dir: dir, Plan: plan, Out: io.Discard, Measure: measure}
		err := ex.Execute(context.Background(), Expand([]*Series{s}))
		_, statErr := os.Stat(filepath.Join(dir, Expand([]*Series{s})[0].File))
		if plan && (err == nil || statErr == nil) {
			t.Errorf("plan: err %v, result kept %v", err, statErr == nil)
		}
		if !plan && (err != nil || statErr != nil) {
			t.Errorf("command line: err %v, result %v", err, statErr)
		}
	}
}
