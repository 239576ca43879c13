package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/plan"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

func planCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "plan", Short: "run a whole qualification from a plan file: dataset, warm-up, steps x levels x repeats, resumable"}
	var scale float64
	var resultDir string
	show := &cobra.Command{
		Use:   "show PLAN [--scale=X]",
		Short: "print the cells of a plan and its total time, without running anything",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, cells, err := loadPlan(args[0], scale)
			if err != nil {
				return err
			}
			showPlan(cmd.OutOrStdout(), p, cells)
			return nil
		},
	}
	show.Flags().Float64Var(&scale, "scale", 0, "multiply the plan's durations and scaled sizes by this (0: the plan's own scale)")
	runCmd := &cobra.Command{
		Use:   "run PLAN --result-dir DIR [--scale=X] [-- options for every command, e.g. --mysql-host=...]",
		Short: "run every cell of a plan, one result file each; run it again to finish an interrupted plan",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			extra := args[1:]
			if d := cmd.ArgsLenAtDash(); d != 1 && len(args) > 1 {
				return fmt.Errorf("unexpected %q: options for every command go after --, e.g. plan run PLAN --result-dir DIR -- --mysql-port=3306", args[1])
			}
			if resultDir == "" {
				return errors.New("plan run needs --result-dir DIR: its cells' results go there, and a second run resumes from it")
			}
			p, cells, err := loadPlan(args[0], scale)
			if err != nil {
				return err
			}
			for _, a := range extra {
				if plan.Reserved(optionName(a)) {
					return fmt.Errorf("%s after -- is the plan's to set: change the plan instead", a)
				}
			}
			ctx, stop := interruptible()
			defer stop()
			pr := &planRunner{p: p, cells: cells, dir: resultDir, extra: extra, out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr()}
			return pr.run(ctx)
		},
	}
	runCmd.Flags().Float64Var(&scale, "scale", 0, "multiply the plan's durations and scaled sizes by this (0: the plan's own scale)")
	runCmd.Flags().StringVar(&resultDir, "result-dir", "", "folder for the cells' result files; running the plan again into it redoes only the unfinished cells")
	cmd.AddCommand(show, runCmd)
	return cmd
}

func optionName(a string) string {
	a = strings.TrimLeft(a, "-")
	if i := strings.IndexByte(a, '='); i >= 0 {
		a = a[:i]
	}
	return strings.ReplaceAll(a, "_", "-")
}

// loadPlan reads a plan and checks every step's command line with its
// workload's own option checks, so a bad option is named before hours of
// running, with its line.
func loadPlan(path string, scale float64) (*plan.Plan, []plan.Cell, error) {
	known := plan.Workloads{}
	for _, s := range workload.All() {
		known[s.Name] = s.Args
	}
	p, err := plan.Read(path, scale, known)
	if err != nil {
		return nil, nil, err
	}
	// A step's own options, then the dataset's, then both together, so
	// that an error names the right part of the plan.
	for i, st := range p.Steps {
		if _, err := configure(p.StepArgs(i), "run"); err != nil {
			return nil, nil, p.ErrAt(fmt.Sprintf("step.%d.options", i), fmt.Errorf("step %q: %v", st.Name, err))
		}
	}
	dp, err := configure(p.DatasetArgs(true), "prepare")
	if err != nil {
		return nil, nil, p.ErrAt("dataset.options", fmt.Errorf("[dataset]: %v", err))
	}
	if p.Warmup.Prewarm && dp.w.Hooks().Prewarm == nil {
		return nil, nil, p.ErrAt("warmup.prewarm", fmt.Errorf("%s has no prewarm: remove prewarm", p.Dataset.Workload))
	}
	cells := p.Cells(timingFlags)
	checked := map[int]bool{}
	for _, c := range cells {
		if checked[c.StepIndex] {
			continue
		}
		checked[c.StepIndex] = true
		if _, err := configure(c.Args, "run"); err != nil {
			return nil, nil, p.ErrAt(fmt.Sprintf("step.%d.options", c.StepIndex), fmt.Errorf("step %q with the dataset's options: %v", c.Step, err))
		}
	}
	return p, cells, nil
}

// configure parses a workload command line (workload [test] options) as
// its command would, and runs the workload's checks, without a server.
func configure(args []string, command string) (*pipeline, error) {
	spec, ok := workload.Lookup(args[0])
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", args[0])
	}
	fs := pflag.NewFlagSet(spec.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	p := newPipeline(spec, fs)
	p.out, p.warn = io.Discard, io.Discard
	if err := fs.Parse(args[1:]); err != nil {
		msg := strings.Replace(err.Error(), "unknown flag", "unknown option", 1)
		return nil, fmt.Errorf("%s (see oltpbench %s --help)", msg, spec.Name)
	}
	if err := p.setup(command, fs.Args()); err != nil {
		return nil, oneLine(err)
	}
	return p, nil
}

// oneLine is an error as one line: a workload's message in another tool's
// words (sysbench's FATAL line and our hint) keeps the hint.
func oneLine(err error) error {
	var m *workload.Message
	if errors.As(err, &m) {
		if m.Hint != "" {
			return errors.New(strings.TrimPrefix(m.Hint, "oltpbench: "))
		}
		return errors.New(strings.ReplaceAll(m.Text, "\n", "; "))
	}
	return err
}

// timingFlags names the flags a workload binds to the run's time and
// warm-up (--time, and --warmup-time or --ramp).
func timingFlags(name string) (timeFlag, warmupFlag string) {
	spec, _ := workload.Lookup(name)
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	p := newPipeline(spec, fs)
	fs.VisitAll(func(f *pflag.Flag) {
		if s, ok := f.Value.(workload.Seconds); ok {
			switch s.P {
			case &p.ro.Time:
				timeFlag = f.Name
			case &p.ro.Warmup:
				warmupFlag = f.Name
			}
		}
	})
	return timeFlag, warmupFlag
}

func showPlan(w io.Writer, p *plan.Plan, cells []plan.Cell) {
	name := p.Name
	if name == "" {
		name = filepath.Base(p.Path())
	}
	fmt.Fprintf(w, "Plan %q at scale %g\n", name, p.Scale)
	fmt.Fprintf(w, "Dataset: oltpbench %s prepare (when missing; verified when present)\n", strings.Join(p.DatasetArgs(true), " "))
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
	fmt.Fprintln(w)
	var total time.Duration
	for _, c := range cells {
		fmt.Fprintf(w, "cell %d/%d  %-44s %8s  oltpbench %s run\n", c.Index, c.Of, c.String(), c.Expected, strings.Join(c.Args, " "))
		total += c.Expected
	}
	fmt.Fprintf(w, "\n%d cells, %s of runs (time + warm-up + cooldown; a search at its most steps), before the dataset's load\n", len(cells), total)
}

// planRunner runs a plan's cells in order, skipping those whose result is
// already in the folder.
type planRunner struct {
	p     *plan.Plan
	cells []plan.Cell
	dir   string
	extra []string // options for every command (the connection)
	out   io.Writer
	errw  io.Writer
}

// sub runs one oltpbench command line in this process, its output also
// into log when given.
func (pr *planRunner) sub(args []string, log io.Writer) error {
	out, errw := pr.out, pr.errw
	if log != nil {
		out, errw = io.MultiWriter(pr.out, log), io.MultiWriter(pr.errw, log)
	}
	if code := run(args, out, errw); code != 0 {
		return fmt.Errorf("%s %s exited %d (its error is above)", args[0], args[len(args)-1], code)
	}
	return nil
}

func (pr *planRunner) run(ctx context.Context) error {
	if err := os.MkdirAll(pr.dir, 0o755); err != nil {
		return fmt.Errorf("cannot create --result-dir: %v", err)
	}
	// One plan run per folder: two would run the same cells twice.
	lock, err := os.OpenFile(filepath.Join(pr.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("cannot write to --result-dir: %v", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fmt.Errorf("another plan run is using %s: wait for it, or give another --result-dir", pr.dir)
	}
	if err := pr.p.WriteCopy(pr.dir); err != nil {
		return fmt.Errorf("cannot write to --result-dir: %v", err)
	}
	var todo []plan.Cell
	var done []int
	for _, c := range pr.cells {
		ok, why := pr.finished(c)
		if ok {
			done = append(done, c.Index)
			continue
		}
		if why != "" {
			fmt.Fprintf(pr.out, "cell %d/%d (%s): %s: running it again\n", c.Index, c.Of, c, why)
		}
		todo = append(todo, c)
	}
	switch {
	case len(todo) == 0:
		fmt.Fprintf(pr.out, "All %d cells of the plan are done in %s: nothing to run (a new --result-dir runs it again)\n", len(pr.cells), pr.dir)
		return nil
	case len(done) > 0:
		fmt.Fprintf(pr.out, "Resuming: %d of %d cells are done in %s (%s); running the other %d\n", len(done), len(pr.cells), pr.dir, compactList(done), len(todo))
	default:
		fmt.Fprintf(pr.out, "Running %d cells into %s\n", len(pr.cells), pr.dir)
	}
	if err := pr.dataset(ctx); err != nil {
		return err
	}
	if err := pr.warmup(ctx); err != nil {
		return err
	}
	var planned, took time.Duration
	for i, c := range todo {
		left := time.Duration(0)
		for _, r := range todo[i:] {
			left += r.Expected
		}
		if planned > 0 {
			// The cells so far show how long a planned second takes here
			// (connecting, reports, the server's pace).
			left = time.Duration(float64(left) * float64(took) / float64(planned))
		}
		fmt.Fprintf(pr.out, "\n== cell %d/%d: %s; ETA %s (%d to run)\n", c.Index, c.Of, c, left.Round(time.Second), len(todo)-i)
		start := time.Now()
		if err := pr.cell(ctx, c); err != nil {
			return err
		}
		planned += c.Expected - c.Cooldown
		took += time.Since(start)
		if c.Cooldown > 0 && i < len(todo)-1 {
			fmt.Fprintf(pr.out, "Cooldown %s\n", c.Cooldown)
			select {
			case <-time.After(c.Cooldown):
			case <-ctx.Done():
				return pr.interrupted(c, false)
			}
			planned += c.Cooldown
			took += c.Cooldown
		}
	}
	fmt.Fprintf(pr.out, "\nPlan done: %d cells in %s (%d run now, %d done before). Compare two versions with: oltpbench report compare --baseline DIR_A --candidate DIR_B\n",
		len(pr.cells), pr.dir, len(todo), len(done))
	return nil
}

func (pr *planRunner) interrupted(c plan.Cell, during bool) error {
	where := "after"
	if during {
		where = "during"
	}
	return fmt.Errorf("interrupted %s cell %d/%d (%s): run the same plan run command again to finish the plan", where, c.Index, c.Of, c)
}

func (pr *planRunner) failed(c plan.Cell, err error) error {
	return fmt.Errorf("cell %d/%d (%s) failed: %v; the same plan run command redoes it and the rest", c.Index, c.Of, c, err)
}

// finished says whether the cell's result is in the folder and is this
// cell's (the same command line); else why not, when there is something.
func (pr *planRunner) finished(c plan.Cell) (bool, string) {
	path := filepath.Join(pr.dir, c.File)
	if c.Search {
		b, err := os.ReadFile(filepath.Join(path, ".done"))
		if err != nil {
			return false, ""
		}
		var args []string
		if json.Unmarshal(b, &args) != nil || !slices.Equal(args, c.Args) {
			return false, "the plan changed since its search ran"
		}
		return true, ""
	}
	r, err := result.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, ""
	}
	if err != nil {
		return false, fmt.Sprintf("%s is unreadable (%v)", c.File, err)
	}
	if r.Cell == nil || !slices.Equal(r.Cell.Args, c.Args) || r.Interrupted {
		return false, fmt.Sprintf("%s holds another command's result (the plan changed)", c.File)
	}
	return true, ""
}

// cell runs one cell. Its result is written under a temporary name and
// renamed once complete, so an interrupted or failed cell leaves nothing
// that a resumed plan would take for done.
func (pr *planRunner) cell(ctx context.Context, c plan.Cell) error {
	final := filepath.Join(pr.dir, c.File)
	log, err := os.Create(strings.TrimSuffix(final, ".json") + ".log")
	if err != nil {
		return fmt.Errorf("cannot write to --result-dir: %v", err)
	}
	defer log.Close()
	args := append(append([]string(nil), c.Args...), pr.extra...)
	if c.Search {
		args = append(args, "--result-dir="+final, "--reuse-results", "run")
		if err := pr.sub(args, log); err != nil {
			return pr.failed(c, err)
		}
		if ctx.Err() != nil {
			return pr.interrupted(c, true)
		}
		b, _ := json.Marshal(c.Args)
		return os.WriteFile(filepath.Join(final, ".done"), b, 0o644)
	}
	tmp := filepath.Join(pr.dir, "."+c.File+".part")
	defer os.Remove(tmp)
	if err := pr.sub(append(args, "--result-file="+tmp, "run"), log); err != nil {
		return pr.failed(c, err)
	}
	if ctx.Err() != nil {
		return pr.interrupted(c, true)
	}
	r, err := result.Read(tmp)
	if err != nil {
		return fmt.Errorf("cell %d/%d wrote no result: %v", c.Index, c.Of, err)
	}
	if r.Interrupted {
		return pr.interrupted(c, true)
	}
	r.Cell = &result.Cell{Plan: pr.p.Name, Step: c.Step, Repeat: c.Repeat, Args: c.Args}
	return r.Write(final)
}

// datasetArgs is the dataset's command line with the options for every command.
func (pr *planRunner) datasetArgs() []string {
	return append(pr.p.DatasetArgs(true), pr.extra...)
}

// datasetPool configures the dataset's command line and opens n
// connections to its database.
func (pr *planRunner) datasetPool(n int) (*pipeline, conn.Options, *conn.Pool, error) {
	p, err := configure(pr.datasetArgs(), "prepare")
	if err != nil {
		return nil, conn.Options{}, nil, err
	}
	co, err := p.f.connOptions(p.fs)
	if err != nil {
		return nil, conn.Options{}, nil, err
	}
	pool, err := conn.Open(co, n)
	if err != nil {
		return nil, conn.Options{}, nil, err
	}
	return p, co, pool, nil
}

// dataset prepares the plan's dataset when the database has none, resumes
// a load that was interrupted, and otherwise checks that the database holds
// the dataset the plan asks for.
func (pr *planRunner) dataset(ctx context.Context) error {
	args := pr.datasetArgs()
	p, co, pool, err := pr.datasetPool(1)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		if conn.Number(err) != 1049 { // unknown database: prepare makes it
			return err
		}
		fmt.Fprintf(pr.out, "Dataset: no database %s yet: preparing it\n", co.DB)
		return pr.sub(append(args, "prepare"), nil)
	}
	have, err := loader.ReadDataset(ctx, pool.DB(0))
	if err != nil {
		return fmt.Errorf("reading the dataset record: %v", err)
	}
	ds := p.w.Dataset()
	switch {
	case len(have) == 0:
		fmt.Fprintf(pr.out, "Dataset: %s holds none: preparing it\n", co.DB)
		return pr.sub(append(args, "prepare"), nil)
	case have["state"] != "complete":
		fmt.Fprintf(pr.out, "Dataset: a load into %s was interrupted: resuming it\n", co.DB)
		return pr.sub(append(args, "--resume", "prepare"), nil)
	}
	var diff []string
	if have["workload"] != ds.Workload {
		diff = append(diff, fmt.Sprintf("workload %s (the plan: %s)", have["workload"], ds.Workload))
	}
	for k, v := range ds.Meta {
		if have[k] != v {
			diff = append(diff, fmt.Sprintf("%s=%s (the plan: %s)", k, have[k], v))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		return fmt.Errorf("the dataset in %s is not the plan's: %s; run cleanup, or point the plan at another database", co.DB, strings.Join(diff, ", "))
	}
	fmt.Fprintf(pr.out, "Dataset: verified against its record in %s (%s rows)\n", co.DB, have["load_rows"])
	return nil
}

func (pr *planRunner) warmup(ctx context.Context) error {
	if pr.p.Warmup.Prewarm {
		if err := pr.sub(append(pr.datasetArgs(), "prewarm"), nil); err != nil {
			return err
		}
	}
	if !pr.p.Warmup.Analyze {
		return nil
	}
	p, _, pool, err := pr.datasetPool(2)
	if err != nil {
		return err
	}
	defer pool.Close()
	var names []string
	for _, t := range p.w.Dataset().Tables {
		names = append(names, t.Name)
	}
	start := time.Now()
	if err := loader.Analyze(ctx, pool, names, 2); err != nil {
		return err
	}
	fmt.Fprintf(pr.out, "Warm-up: ANALYZE TABLE on %d tables in %s\n", len(names), time.Since(start).Round(time.Millisecond))
	return nil
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
