package plan

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/result"
)

// Hooks are what running a plan needs of its workload: the dataset made
// or verified, the warm-up, and one cell's measurement.
type Hooks struct {
	Dataset  func(ctx context.Context) error
	Warmup   func(ctx context.Context, out io.Writer) error
	Measure  cells.Measure
	Capacity func(ctx context.Context, c *cells.Cell, dir string, out io.Writer) error                   // a step's search
	Headroom func(ctx context.Context, c *cells.Cell, dir string, out io.Writer) (*result.Result, error) // a step's headroom
	Progress func(done, total int, c *cells.Cell, eta time.Duration)                                     // optional: live metrics
	Reset    ResetHooks                                                                                  // for steps with a reset
	Versions VersionHooks                                                                                // for a plan with [versions]
}

// Execute runs the plan's cells into dir: one plan run per folder at a time,
// the plan kept beside its results, the cells done before skipped (and
// said so), then the dataset, the warm-up and the other cells.
func Execute(ctx context.Context, p *Plan, cs []*cells.Cell, dir string, out io.Writer, h Hooks) error {
	lock, err := claim(p, dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	rs := &resets{p: p, h: h.Reset, warmup: h.Warmup, done: map[string]*result.Reset{}}
	ex := &cells.Executor{Dir: dir, Plan: true, Out: out, Measure: rs.measure(h.Measure), Capacity: h.Capacity, Headroom: h.Headroom, Progress: h.Progress}
	todo, done, notes := ex.Pending(cs)
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
	switch {
	case len(todo) == 0:
		fmt.Fprintf(out, "All %d cells of the plan are done in %s: nothing to run (a new --result-dir runs it again)\n", len(cs), dir)
		return nil
	case len(done) > 0:
		fmt.Fprintf(out, "Resuming: %d of %d cells are done in %s (%s); running the other %d\n", len(done), len(cs), dir, compactList(done), len(todo))
	default:
		fmt.Fprintf(out, "Running %d cells into %s\n", len(cs), dir)
	}
	if first := todo[0]; rs.resetsBefore(first) {
		// The reset makes the dataset, whatever state it is in, and the
		// warm-up follows it.
		fmt.Fprintf(out, "Dataset: made by the reset before cell %d/%d\n", first.Index, first.Of)
	} else {
		if err := h.Dataset(ctx); err != nil {
			return err
		}
		if err := h.Warmup(ctx, out); err != nil {
			return err
		}
	}
	if err := ex.Execute(ctx, todo); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nPlan done: %d cells in %s (%d run now, %d done before). Compare two versions with: oltpbench report compare --baseline DIR_A --candidate DIR_B\n",
		len(cs), dir, len(todo), len(done))
	return nil
}

// claim makes dir the plan run's own: created, locked (two plan runs in
// one folder would run the same cells twice) until the returned file is
// closed, and the plan copied into it.
func claim(p *Plan, dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create --result-dir: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot write to --result-dir: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("another plan run is using %s: wait for it, or give another --result-dir", dir)
	}
	if err := p.WriteCopy(dir); err != nil {
		lock.Close()
		return nil, fmt.Errorf("cannot write to --result-dir: %w", err)
	}
	return lock, nil
}

// Show prints the plan's cells with their command lines, and its total time.
func Show(w io.Writer, p *Plan, cs []*cells.Cell) {
	name := p.Name
	if name == "" {
		name = filepath.Base(p.Path())
	}
	fmt.Fprintf(w, "Plan %q at scale %g\n", name, p.Scale)
	for _, ds := range p.Datasets() {
		fmt.Fprintf(w, "Dataset: oltpbench %s prepare (when missing; verified when present)\n", strings.Join(p.ArgsOf(ds), " "))
	}
	var warm []string
	if p.Warmup.Prewarm {
		warm = append(warm, "prewarm")
	}
	if p.Warmup.Analyze {
		warm = append(warm, "ANALYZE TABLE")
	}
	if len(warm) > 0 {
		fmt.Fprintf(w, "Warm-up: %s\n", strings.Join(warm, ", "))
	}
	for _, s := range p.Steps {
		if s.Reset != "" {
			fmt.Fprintln(w, s.describeReset())
		}
	}
	fmt.Fprintln(w)
	var total time.Duration
	for _, c := range cs {
		command := "run"
		if c.Series.Capacity != "" {
			command = "search --result-dir=" + c.Series.Capacity
		}
		fmt.Fprintf(w, "cell %d/%d  %-44s %8s  oltpbench %s %s\n", c.Index, c.Of, c.String(), c.Expected, strings.Join(c.Args(), " "), command)
		total += c.Expected
	}
	fmt.Fprintf(w, "\n%d cells, %s of runs (time + warm-up + cooldown; a search at its most steps), before the dataset's load\n", len(cs), total)
}

// compactList writes 1,2,3,5 as "cells 1-3, 5".
func compactList(s []int) string {
	var out []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j > i {
			out = append(out, fmt.Sprintf("%d-%d", s[i], s[j]))
		} else {
			out = append(out, fmt.Sprint(s[i]))
		}
		i = j + 1
	}
	return "cells " + strings.Join(out, ", ")
}
