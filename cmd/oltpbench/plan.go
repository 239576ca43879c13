package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/cells"
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
			p, cs, err := loadPlan(args[0], scale)
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
			pr := &planRunner{p: p, cells: cs, dir: resultDir, extra: extra, out: cmd.OutOrStdout(), errw: cmd.ErrOrStderr()}
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
func loadPlan(path string, scale float64) (*plan.Plan, []*cells.Cell, error) {
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
	series := p.Series(timingFlags)
	for i, s := range series {
		if _, err := configure(cells.Expand(series[i : i+1])[0].Args(), "run"); err != nil {
			return nil, nil, p.ErrAt(fmt.Sprintf("step.%d.options", i), fmt.Errorf("step %q with the dataset's options: %v", s.Step, err))
		}
	}
	return p, cells.Expand(series), nil
}

// parse reads a workload command line (workload [test] options) into a
// pipeline as its command would, writing to out and warn.
func parse(args []string, out, warn io.Writer) (*pipeline, error) {
	spec, ok := workload.Lookup(args[0])
	if !ok {
		return nil, fmt.Errorf("unknown workload %q", args[0])
	}
	fs := pflag.NewFlagSet(spec.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	p := newPipeline(spec, fs)
	p.out, p.warn = out, warn
	if err := fs.Parse(args[1:]); err != nil {
		msg := strings.Replace(err.Error(), "unknown flag", "unknown option", 1)
		return nil, fmt.Errorf("%s (see oltpbench %s --help)", msg, spec.Name)
	}
	return p, nil
}

// configure parses a workload command line and runs the workload's checks,
// without a server.
func configure(args []string, command string) (*pipeline, error) {
	p, err := parse(args, io.Discard, io.Discard)
	if err != nil {
		return nil, err
	}
	if err := p.setup(command, p.fs.Args()); err != nil {
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
// warm-up (--time, and --warmup-time or --ramp), as its Flags declared them.
func timingFlags(name string) (timeFlag, warmupFlag string) {
	spec, _ := workload.Lookup(name)
	p := newPipeline(spec, pflag.NewFlagSet(name, pflag.ContinueOnError))
	return p.ro.TimeFlag, p.ro.WarmupFlag
}

func showPlan(w io.Writer, p *plan.Plan, cs []*cells.Cell) {
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
	for _, c := range cs {
		fmt.Fprintf(w, "cell %d/%d  %-44s %8s  oltpbench %s run\n", c.Index, c.Of, c.String(), c.Expected, strings.Join(c.Args(), " "))
		total += c.Expected
	}
	fmt.Fprintf(w, "\n%d cells, %s of runs (time + warm-up + cooldown; a search at its most steps), before the dataset's load\n", len(cs), total)
}

// planRunner runs a plan: its dataset, its warm-up, then the cells that are
// not done yet in its folder.
type planRunner struct {
	p     *plan.Plan
	cells []*cells.Cell
	dir   string
	extra []string // options for every command (the connection)
	out   io.Writer
	errw  io.Writer
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
	ex := &cells.Executor{Dir: pr.dir, Plan: true, Out: pr.out, Measure: pr.measure}
	todo, done, notes := ex.Pending(pr.cells)
	for _, n := range notes {
		fmt.Fprintln(pr.out, n)
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
	if err := ex.Run(ctx, todo); err != nil {
		return err
	}
	fmt.Fprintf(pr.out, "\nPlan done: %d cells in %s (%d run now, %d done before). Compare two versions with: oltpbench report compare --baseline DIR_A --candidate DIR_B\n",
		len(pr.cells), pr.dir, len(todo), len(done))
	return nil
}

// command parses a workload command line with the options for every
// command and checks it for command; its reports go to out. With front,
// the workload's front runs first (sysbench's banner), as on the command
// line.
func (pr *planRunner) command(args []string, command string, front bool, out io.Writer) (*pipeline, conn.Options, error) {
	p, err := parse(append(append([]string(nil), args...), pr.extra...), out, pr.errw)
	if err != nil {
		return nil, conn.Options{}, err
	}
	positional := p.fs.Args()
	if front {
		if _, err := p.front(append(positional, command)); err != nil {
			return nil, conn.Options{}, err
		}
	}
	co, err := p.begin(command, positional)
	return p, co, err
}

// measure runs a cell at one thread count: the cell's command line through
// the workload's pipeline, in this process.
func (pr *planRunner) measure(ctx context.Context, c *cells.Cell, threads int, out io.Writer) (*result.Result, error) {
	p, co, err := pr.command(c.Args(), "run", true, out)
	if err != nil {
		return nil, err
	}
	ignore, err := conn.ParseErrorSet(p.f.ignoreErrors)
	if err != nil {
		return nil, err
	}
	return p.measure(ctx, co, ignore, threads)
}

// dataset prepares the plan's dataset when the database has none, resumes
// a load that was interrupted, and otherwise checks that the database holds
// the dataset the plan asks for.
func (pr *planRunner) dataset(ctx context.Context) error {
	p, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, pr.out)
	if err != nil {
		return err
	}
	state, have, err := loader.CheckDataset(ctx, co, p.w.Dataset(), "the plan")
	if err != nil {
		return err
	}
	switch {
	case state == loader.NoDataset && have == nil:
		fmt.Fprintf(pr.out, "Dataset: no database %s yet: preparing it\n", co.DB)
	case state == loader.NoDataset:
		fmt.Fprintf(pr.out, "Dataset: %s holds none: preparing it\n", co.DB)
	case state == loader.LoadCut:
		fmt.Fprintf(pr.out, "Dataset: a load into %s was interrupted: resuming it\n", co.DB)
		p.f.resume = true
	default:
		fmt.Fprintf(pr.out, "Dataset: verified against its record in %s (%s rows)\n", co.DB, have["load_rows"])
		return nil
	}
	if _, err := p.front(append(p.fs.Args(), "prepare")); err != nil {
		return err
	}
	return p.prepare(ctx, co)
}

func (pr *planRunner) warmup(ctx context.Context) error {
	if pr.p.Warmup.Prewarm {
		p, co, err := pr.command(pr.p.DatasetArgs(true), "prewarm", true, pr.out)
		if err != nil {
			return err
		}
		if err := p.prewarm(ctx, co); err != nil {
			return err
		}
	}
	if !pr.p.Warmup.Analyze {
		return nil
	}
	p, co, err := pr.command(pr.p.DatasetArgs(true), "prepare", false, io.Discard)
	if err != nil {
		return err
	}
	pool, err := conn.Open(co, 2)
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
