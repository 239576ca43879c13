package cells

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/engine/slo"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Measure runs a cell at one thread count (a search's level, or the cell's
// own) with its report on out, and returns the result; a run that failed
// returns an error and no result.
type Measure func(ctx context.Context, c *Cell, threads int, out io.Writer) (*result.Result, error)

// Executor runs cells in order and writes their results.
type Executor struct {
	Dir  string // the result folder; "" keeps results only in File
	File string // the result file of a command line's single run
	// Plan: the cells are a plan's. Each result records its cell; a cell
	// whose result is already in Dir with the same Args is done; an
	// interrupted run leaves no result; each cell's output is also kept in
	// a .log beside its result; progress lines carry the plan's ETA.
	Plan    bool
	Out     io.Writer
	Measure Measure
	// Headroom runs a headroom cell: the level its series asks for, then
	// the workload's checks; dir is the result folder.
	Headroom func(ctx context.Context, c *Cell, dir string, out io.Writer) (*result.Result, error)
	// Capacity runs a capacity search's cell, its probes' results in dir.
	Capacity func(ctx context.Context, c *Cell, dir string, out io.Writer) error
	// Progress, if set, hears of each cell as it starts (done of total
	// before it, with the time left) and of the end (c nil, done == total).
	Progress func(done, total int, c *Cell, eta time.Duration)
}

// Pending splits cells into those still to run and the indexes of those
// done; notes say why a cell with a result in the folder runs again.
func (e *Executor) Pending(cells []*Cell) (todo []*Cell, done []int, notes []string) {
	for _, c := range cells {
		ok, why := e.done(c)
		switch {
		case ok:
			done = append(done, c.Index)
			continue
		case why != "":
			notes = append(notes, fmt.Sprintf("cell %d/%d (%s): %s: running it again", c.Index, c.Of, c, why))
		}
		todo = append(todo, c)
	}
	return todo, done, notes
}

// done says whether the cell's result is in the folder under the cell's
// own Key; else why not, when something is there.
func (e *Executor) done(c *Cell) (bool, string) {
	path := join(e.Dir, c.File)
	key, err := c.Key()
	if err != nil {
		return false, ""
	}
	if c.Series.Search != nil || c.Series.Capacity != "" {
		b, err := os.ReadFile(filepath.Join(path, ".done"))
		if err != nil {
			return false, ""
		}
		if k, err := c.Series.doneKey(b); err != nil || !k.Equal(key) {
			return false, "the plan changed since its search ran"
		}
		return true, ""
	}
	ok, why := c.Series.measured(path, key)
	if why != "" {
		why = c.File + " " + why
	}
	return ok, why
}

// doneKey reads a search's .done: its key, or (written before keys) its
// command line.
func (s *Series) doneKey(b []byte) (result.Key, error) {
	var k result.Key
	if err := json.Unmarshal(b, &k); err == nil {
		return k, nil
	}
	var args []string
	if err := json.Unmarshal(b, &args); err != nil {
		return result.Key{}, err
	}
	return s.key(args)
}

// measured says whether path holds a complete result measured under key.
func (s *Series) measured(path string, key result.Key) (bool, string) {
	r, err := result.ReadWith(path, workload.Upgrade)
	if errors.Is(err, os.ErrNotExist) {
		return false, ""
	}
	if err != nil {
		return false, fmt.Sprintf("is unreadable (%v)", err)
	}
	if r.Cell == nil || r.Interrupted || !s.resultKey(r.Cell).Equal(key) {
		return false, "holds another command's result (the plan changed)"
	}
	return true, ""
}

// resultKey is the key a result was measured under: the one it records,
// or its command line's (results written before keys).
func (s *Series) resultKey(c *result.Cell) result.Key {
	if c.Key != nil {
		return *c.Key
	}
	k, err := s.key(c.Args)
	if err != nil {
		return result.Key{}
	}
	return k
}

// Execute runs the cells in order, with each series' cooldown between two
// runs. Ctrl-C (ctx) ends a command line's cells quietly after the run in
// progress has reported; a plan's with an error that says how to finish.
func (e *Executor) Execute(ctx context.Context, cells []*Cell) error {
	if e.Dir != "" {
		if err := os.MkdirAll(e.Dir, 0o755); err != nil {
			return fmt.Errorf("cannot create --result-dir: %w", err)
		}
	}
	var planned, took time.Duration
	for i, c := range cells {
		e.announce(c, cells[i:], planned, took)
		start := time.Now()
		if err := e.cell(ctx, c); err != nil || ctx.Err() != nil {
			return err
		}
		planned += c.Expected - c.Series.Cooldown
		took += time.Since(start)
		if cool := c.Series.Cooldown; cool > 0 && i < len(cells)-1 {
			if e.Plan {
				fmt.Fprintf(e.Out, "Cooldown %s\n", cool)
			}
			if !sleep(ctx, cool) {
				return e.interrupted(c, false)
			}
			planned += cool
			took += cool
		}
	}
	if e.Progress != nil && len(cells) > 0 {
		e.Progress(cells[0].Of, cells[0].Of, nil, 0)
	}
	return nil
}

// announce prints the line before a cell: a plan's with its ETA (the
// planned time left, corrected by how long the cells so far took against
// their plan), a sweep's with its level and repeat.
func (e *Executor) announce(c *Cell, left []*Cell, planned, took time.Duration) {
	s := c.Series
	switch {
	case e.Plan:
		eta := time.Duration(0)
		for _, r := range left {
			eta += r.Expected
		}
		if planned > 0 {
			eta = time.Duration(float64(eta) * float64(took) / float64(planned))
		}
		fmt.Fprintf(e.Out, "\n== cell %d/%d: %s; ETA %s (%d to run)\n", c.Index, c.Of, c, eta.Round(time.Second), len(left))
		if e.Progress != nil {
			e.Progress(c.Of-len(left), c.Of, c, eta)
		}
	case s.Search != nil:
	case s.Repeats > 1:
		fmt.Fprintf(e.Out, "\n== %s, repeat %d of %d (run %d of %d)\n", c.ThreadsLabel(), c.Repeat, s.Repeats, c.Index, c.Of)
	case c.Of > 1:
		fmt.Fprintf(e.Out, "\n== %s (level %d of %d)\n", c.ThreadsLabel(), c.Index, c.Of)
	}
}

// cell runs one cell: a run, or a whole search.
func (e *Executor) cell(ctx context.Context, c *Cell) error {
	out := e.Out
	var log *os.File
	if e.Plan {
		var err error
		log, err = os.Create(strings.TrimSuffix(join(e.Dir, c.File), ".json") + ".log")
		if err != nil {
			return fmt.Errorf("cannot write to --result-dir: %w", err)
		}
		defer log.Close()
		out = io.MultiWriter(e.Out, log)
	}
	fail := func(err error) error {
		if log != nil {
			fmt.Fprintf(log, "oltpbench: %v\n", err)
		}
		if !e.Plan {
			return err
		}
		return fmt.Errorf("cell %d/%d (%s) failed: %w; the same plan run command redoes it and the rest", c.Index, c.Of, c, err)
	}
	if c.Series.Search != nil || c.Series.Capacity != "" {
		run := e.search
		if c.Series.Capacity != "" {
			run = func(ctx context.Context, c *Cell, out io.Writer) error {
				if e.Capacity == nil {
					return errors.New("this command runs no capacity search")
				}
				return e.Capacity(ctx, c, join(e.Dir, c.Series.Capacity), out)
			}
		}
		if err := run(ctx, c, out); err != nil {
			if ctx.Err() != nil && e.Plan {
				return e.interrupted(c, true)
			}
			return fail(err)
		}
		if !e.Plan || ctx.Err() != nil {
			return nil
		}
		key, err := c.Key()
		if err != nil {
			return err
		}
		b, _ := json.Marshal(key)
		return os.WriteFile(filepath.Join(e.Dir, c.File, ".done"), b, 0o644)
	}
	var r *result.Result
	var err error
	if c.Series.Headroom != nil {
		if e.Headroom == nil {
			return fail(errors.New("this command runs no headroom"))
		}
		r, err = e.Headroom(ctx, c, e.Dir, out)
	} else {
		r, err = e.Measure(ctx, c, c.Threads, out)
	}
	if err == nil && r == nil {
		err = errors.New("the run returned no result")
	}
	if err != nil && ctx.Err() != nil && e.Plan { // Ctrl-C before the run reported (a plan's reset)
		return e.interrupted(c, true)
	}
	if err != nil {
		return fail(err)
	}
	return e.keep(ctx, c, r, c.Args(), e.file(c))
}

// file is where a sweep cell's result goes.
func (e *Executor) file(c *Cell) string {
	if e.Dir != "" {
		return filepath.Join(e.Dir, c.File)
	}
	if c.Of == 1 && !c.Series.Numbered {
		return e.File
	}
	return ""
}

// keep writes a run's result. A plan keeps only complete runs, with their
// cell, so that an interrupted cell is redone; a command line keeps what an
// interrupted run measured, as its report shows it.
func (e *Executor) keep(ctx context.Context, c *Cell, r *result.Result, args []string, path string) error {
	if e.Plan {
		if r.Interrupted || ctx.Err() != nil {
			return e.interrupted(c, true)
		}
		key, err := c.Series.key(args)
		if err != nil {
			return err
		}
		r.Cell = &result.Cell{Plan: c.Series.Plan, Step: c.Series.Step, Repeat: c.Repeat, Args: args, Key: &key}
	}
	if path == "" {
		return nil
	}
	return r.Write(path)
}

func (e *Executor) interrupted(c *Cell, during bool) error {
	if !e.Plan {
		return nil
	}
	where := "after"
	if during {
		where = "during"
	}
	return fmt.Errorf("interrupted %s cell %d/%d (%s): run the same plan run command again to finish the plan", where, c.Index, c.Of, c)
}

// search runs a p95-limit search: a plan's takes the levels it measured
// before under the same Args, so a resumed search goes on where it stopped
// and an edited one measures every level again.
func (e *Executor) search(ctx context.Context, c *Cell, out io.Writer) error {
	s := c.Series
	limit, err := time.ParseDuration(s.Search.Limit)
	if err != nil || limit <= 0 {
		return fmt.Errorf("invalid --p95-slo=%s: a duration like 105ms", s.Search.Limit)
	}
	dir := join(e.Dir, c.File)
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("cannot create --result-dir: %w", err)
		}
	}
	limitMs := float64(limit) / float64(time.Millisecond)
	step := 0
	best, tried, err := slo.Search(s.Threads[0], s.Threads[1], limitMs, s.Search.Steps, func(th int) (slo.Point, error) {
		step++
		fmt.Fprintf(out, "\n== p95 search, step %d: %d threads\n", step, th)
		path := join(dir, FileName(s.Prefix, th, 0, false))
		if dir == "" {
			path = ""
		}
		r := e.measuredBefore(s, path, s.LevelArgs(th))
		if r != nil {
			fmt.Fprintf(out, "measured before: %s\n", path)
		} else {
			if step > 1 && s.Cooldown > 0 && !sleep(ctx, s.Cooldown) {
				return slo.Point{}, ctx.Err()
			}
			if r, err = e.Measure(ctx, c, th, out); err != nil {
				return slo.Point{}, err
			}
			if err := e.keep(ctx, c, r, s.LevelArgs(th), path); err != nil {
				return slo.Point{}, err
			}
		}
		if ctx.Err() != nil {
			return slo.Point{}, ctx.Err()
		}
		t, _ := r.Throughput()
		return slo.Point{Threads: th, Throughput: t, TPS: r.TPS(), MeanMs: r.MeanLatency(), P95Ms: r.Latency("95")}, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\np95 limit %s, threads %d-%d, %d runs:\n\n| Threads | QPS | TPS | Average latency (ms) | P95 latency (ms) | within limit |\n|---|---|---|---|---|---|\n", limit, s.Threads[0], s.Threads[1], len(tried))
	for _, p := range tried {
		fmt.Fprintf(out, "| %d | %.2f | %.2f | %.2f | %.2f | %v |\n", p.Threads, p.Throughput, p.TPS, p.MeanMs, p.P95Ms, p.P95Ms <= limitMs)
	}
	if best == nil {
		return fmt.Errorf("even %d threads exceed the p95 limit of %s: lower the range or raise the limit", s.Threads[0], limit)
	}
	fmt.Fprintf(out, "\nBest within p95 <= %s: %s\n| %d | %.2f | %.2f | %.2f | %.2f |\n", limit, s.Name, best.Threads, best.Throughput, best.TPS, best.MeanMs, best.P95Ms)
	return nil
}

// measuredBefore is a plan's level result at path when it was measured
// under args and completed.
func (e *Executor) measuredBefore(s *Series, path string, args []string) *result.Result {
	if !e.Plan || path == "" {
		return nil
	}
	key, err := s.key(args)
	if err != nil {
		return nil
	}
	if ok, _ := s.measured(path, key); !ok {
		return nil
	}
	r, err := result.ReadWith(path, workload.Upgrade)
	if err != nil {
		return nil
	}
	return r
}

// sleep waits d, or until ctx ends (then false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Wait waits until the time at, or until ctx ends: --start-at, so that
// clients started separately begin together.
func Wait(ctx context.Context, out io.Writer, at time.Time, given string) error {
	wait := time.Until(at)
	if wait < 0 {
		return fmt.Errorf("--start-at=%s passed %s ago: start every client before that time", given, (-wait).Round(time.Millisecond))
	}
	fmt.Fprintf(out, "Waiting %s for --start-at=%s\n", wait.Round(time.Millisecond), at.Format(time.RFC3339Nano))
	if !sleep(ctx, wait) {
		return ctx.Err()
	}
	return nil
}

// ParseStartAt reads --start-at: an RFC 3339 time (2026-12-01T08:00:00Z)
// or Unix seconds.
func ParseStartAt(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		return time.Unix(0, int64(f*1e9)), nil
	}
	return time.Time{}, fmt.Errorf("invalid --start-at=%s: an RFC 3339 time like 2026-12-01T08:00:00Z, or Unix seconds", s)
}
