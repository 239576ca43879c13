package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/command"
	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/deadline"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/engine/linesearch"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// searchFlags are a search command's own options.
type searchFlags struct {
	estimate, precision, baseline int
	above                         bool
	restart                       string
	restartTimeout                time.Duration
}

var searchNames = []string{"estimate", "precision", "baseline-max", "above", "restart", "restart-timeout"}

func (s *searchFlags) register(fs *pflag.FlagSet, c *workload.Capacity) {
	fs.IntVar(&s.estimate, "estimate", 0, "search: the "+c.Unit+" to probe first (default: half the loaded --"+c.Size+")")
	fs.IntVar(&s.precision, "precision", 0, "search: stop when the lowest failure is at most this above the highest pass (default: max(1, loaded/200))")
	fs.IntVar(&s.baseline, "baseline-max", 0, "search: probe this many "+c.Unit+" first: a pass stops there (exit 0), a failure searches below (exit 1)")
	fs.BoolVar(&s.above, "above", false, "search: with --baseline-max, search upward from a baseline that holds")
	fs.StringVar(&s.restart, "restart", "", "search: a command run by sh -c before each probe (a server restart, as CockroachDB restarts its cluster before each of its probes); it gets the connection as OLTPBENCH_MYSQL_* and MYSQL_PWD, and the probe waits until the server answers")
	fs.DurationVar(&s.restartTimeout, "restart-timeout", 10*time.Minute, "search: the --restart command and the wait for the server after it, at most")
}

// restartServer runs --restart before a probe, within --restart-timeout,
// then waits (within the same) until the server answers.
func (p *Pipeline) restartServer(ctx context.Context, co conn.Options) error {
	s := p.f.search
	ctx, cancel := context.WithTimeout(ctx, s.restartTimeout)
	defer cancel()
	fmt.Fprintf(p.out, "Restart before the probe: %s\n", s.restart)
	if err := command.Exec(ctx, s.restart, "", co.CommandEnv(), p.out); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("the --restart command took longer than --restart-timeout=%s: raise it or fix the command", s.restartTimeout)
		}
		return fmt.Errorf("the --restart command failed (%w): fix it, then run the same search again", err)
	}
	pool, err := conn.Open(co, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := deadline.Await(ctx, deadline.Ping, 200*time.Millisecond, func(actx context.Context) error {
		return pool.DB(0).QueryRowContext(actx, "SELECT 1").Err()
	}); err != nil {
		return fmt.Errorf("the server did not answer within --restart-timeout=%s after --restart (%s)", s.restartTimeout, firstLine(err))
	}
	return nil
}

// only refuses the search's options on another command.
func (s *searchFlags) only(fs *pflag.FlagSet, command string) error {
	if command == "search" {
		return nil
	}
	for _, n := range searchNames {
		if f := fs.Lookup(n); f != nil && f.Changed {
			return fmt.Errorf("--%s goes with the search command", n)
		}
	}
	return nil
}

// checkSearch checks a search's own options against the workload's
// capacity, without a server.
func (p *Pipeline) checkSearch() error {
	_, err := p.searchConfig()
	return err
}

// searchConfig is the line search's settings from a search's options,
// checked against the workload's capacity.
func (p *Pipeline) searchConfig() (linesearch.Config, error) {
	c := p.spec.Capacity
	if c == nil {
		return linesearch.Config{}, fmt.Errorf("%s has no capacity search", p.spec.Name)
	}
	if f := p.fs.Lookup(c.Requires); f != nil && (f.Value.String() == "off" || f.Value.String() == "0") {
		return linesearch.Config{}, errors.New(c.RequiresWhy)
	}
	if f := p.fs.Lookup("estimate"); f.Changed && p.f.search.estimate == 0 {
		return linesearch.Config{}, fmt.Errorf("invalid --estimate=0: 1 to the loaded --%s", c.Size)
	}
	if p.fs.Lookup(result.FlagThreads).Changed || p.fs.Lookup(c.Active).Changed {
		return linesearch.Config{}, fmt.Errorf("search sets --threads and --%s of each probe itself: remove them", c.Active)
	}
	size, err := strconv.Atoi(p.fs.Lookup(c.Size).Value.String())
	if err != nil {
		return linesearch.Config{}, err
	}
	cfg := linesearch.Config{Max: size, Estimate: p.f.search.estimate, Precision: p.f.search.precision, Baseline: p.f.search.baseline, Above: p.f.search.above}
	return cfg, cfg.Check()
}

// capacitySearch is one capacity search: its settings, each level's first
// run, every run of the boundary's levels, and the line search's steps.
type capacitySearch struct {
	p     *Pipeline
	co    conn.Options
	c     *workload.Capacity
	cfg   linesearch.Config
	dir   string
	name  string
	under string // the options that shape a probe, as its result records them
	reps  int
	// probes are each level's first run; tally the boundary's levels,
	// every run of each; steps each level's first run, in the order they
	// ran.
	probes map[int]firstRun
	tally  map[int]*boundary
	steps  []linesearch.Step
}

// firstRun is a level's first run: its result (none when the run failed) and
// the verdict's words.
type firstRun struct {
	r   *result.Result
	why string
}

// searchCapacity is the search command: the most units the server
// sustains, probe by probe, each a run on the first N units of the loaded
// dataset with ThreadsPer threads a unit, judged by the workload's
// Verdict. Each probe's result is a file in --result-dir; a search run
// again reuses them.
func (p *Pipeline) searchCapacity(ctx context.Context, co conn.Options) error {
	s, err := p.newSearch(co)
	if err != nil {
		return err
	}
	fmt.Fprintf(p.out, "Search of the most %s sustained: %d loaded, start at %d, precision %d (at most %d probes)\n",
		s.c.Unit, s.cfg.Max, max(s.cfg.Estimate, s.cfg.Baseline), s.cfg.Precision, s.cfg.MaxProbes())
	first, err := linesearch.Search(ctx, s.cfg, s.probeAt)
	if err != nil {
		return err
	}
	// The boundary's levels again, so that a comparison of two searches
	// rests on more than one run at each (the line search's own probe is
	// the first of each).
	edges, err := s.followBoundary(ctx, first)
	if err != nil {
		return err
	}
	return s.report(first, edges)
}

// newSearch checks a search's options and makes its state.
func (p *Pipeline) newSearch(co conn.Options) (*capacitySearch, error) {
	c := p.spec.Capacity
	cfg, err := p.searchConfig()
	if err != nil {
		return nil, err
	}
	dir := p.f.lv.resultDir
	if dir == "" {
		return nil, errors.New("search needs --result-dir DIR: one result file per probe, and a search run again reuses them")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create --result-dir: %w", err)
	}
	reps := p.f.lv.repeat
	if reps < 1 {
		return nil, fmt.Errorf("invalid --%s=%d: at least 1", result.FlagRepeat, reps)
	}
	var shaping []string
	for _, f := range []string{c.Requires, p.ro.TimeFlag, c.Size} {
		if fl := p.fs.Lookup(f); fl != nil {
			shaping = append(shaping, "--"+f+"="+fl.Value.String())
		}
	}
	return &capacitySearch{p: p, co: co, c: c, cfg: cfg, dir: dir, name: p.w.Name(), under: strings.Join(shaping, " "), reps: reps,
		probes: map[int]firstRun{}, tally: map[int]*boundary{}}, nil
}

// probeAt answers the line search at n: a level with every run in with
// most of its runs' verdict, a level probed before with its first run's,
// any other by probing it.
func (s *capacitySearch) probeAt(ctx context.Context, n int) (bool, string, error) {
	if b := s.tally[n]; b != nil && b.runs >= s.reps {
		return (result.LevelRuns{Runs: b.runs, Passed: b.pass}).Passes(), s.probes[n].why, nil
	}
	if i := s.step(n); i >= 0 {
		return s.steps[i].Pass, s.steps[i].Why, nil
	}
	pass, why, err := s.run(ctx, n, 1)
	if err == nil {
		s.steps = append(s.steps, linesearch.Step{N: n, Pass: pass, Why: why})
	}
	return pass, why, err
}

// step is the index of the line search's step at n, or -1.
func (s *capacitySearch) step(n int) int {
	return slices.IndexFunc(s.steps, func(st linesearch.Step) bool { return st.N == n })
}

// run runs (or reads back) repeat rep of the probe at n.
func (s *capacitySearch) run(ctx context.Context, n, rep int) (bool, string, error) {
	p, c := s.p, s.c
	file := filepath.Join(s.dir, probeFile(s.name, n, c.Unit, rep))
	if err := p.fs.Set(c.Active, strconv.Itoa(n)); err != nil {
		return false, "", err
	}
	label := fmt.Sprintf("%d %s", n, c.Unit)
	if rep > 1 {
		label += fmt.Sprintf(", repeat %d", rep)
	}
	if pass, why, r, ok := s.readBack(file, label); ok {
		return s.keep(n, rep, pass, why, r), why, nil
	}
	fmt.Fprintf(p.out, "\n== probe at %s, %d threads\n", label, n*c.ThreadsPer)
	if p.f.search.restart != "" {
		if err := p.restartServer(ctx, s.co); err != nil {
			return false, "", err
		}
	}
	pass, why, r, err := s.measure(ctx, n, rep, file)
	if err != nil {
		return false, "", err
	}
	return s.keep(n, rep, pass, why, r), why, nil
}

// readBack is a probe that ran before: its result file, or the line a run
// that failed before it could write one left (ok false: neither).
func (s *capacitySearch) readBack(file, label string) (pass bool, why string, r *result.Result, ok bool) {
	if r, err := result.ReadWith(file, workload.Upgrade); err == nil && !r.Interrupted {
		fmt.Fprintf(s.p.out, "Probe at %s: done before (%s)\n", label, file)
		if r.Probe != nil && r.Probe.Failed {
			return false, r.Probe.Why, nil, true
		}
		pass, why := s.c.Verdict(r)
		return pass, why, r, true
	}
	if b, err := os.ReadFile(file + ".failed"); err == nil {
		why := strings.TrimSpace(string(b))
		fmt.Fprintf(s.p.out, "Probe at %s: failed before (%s)\n", label, why)
		return false, why, nil, true
	}
	return false, "", nil, false
}

// measure runs repeat rep of the probe at n into file and judges it.
func (s *capacitySearch) measure(ctx context.Context, n, rep int, file string) (bool, string, *result.Result, error) {
	p, c := s.p, s.c
	series := &cells.Series{Name: s.name, Prefix: s.name, Threads: []int{n * c.ThreadsPer}, Repeats: 1}
	var described *Run
	ex := &cells.Executor{File: file, Out: p.notice, Measure: func(ctx context.Context, cl *cells.Cell, threads int, _ io.Writer) (*result.Result, error) {
		d, err := p.Describe(s.co, cl, threads)
		if err != nil {
			return nil, err
		}
		described = d
		r, err := p.Measure(ctx, d)
		if err == nil && r != nil && !r.Interrupted {
			pass, why := c.Verdict(r)
			r.Probe = &result.Probe{Unit: c.Unit, Level: n, Repeat: rep, Pass: pass, Why: why, Under: s.under}
		}
		return r, err
	}}
	if err := ex.Execute(ctx, cells.Expand([]*cells.Series{series})); err != nil {
		if ctx.Err() != nil {
			return false, "", nil, ctx.Err()
		}
		// A run that errors out is a failed probe, kept as one: a result
		// with no measurements, so that a search run again and a
		// comparison of searches both see it.
		why := "the run failed: " + firstLine(err)
		if described == nil {
			_ = os.WriteFile(file+".failed", []byte(why+"\n"), 0o644)
			return false, why, nil, nil
		}
		stub := p.newResult(described)
		stub.Start, stub.End = time.Now(), time.Now()
		stub.Probe = &result.Probe{Unit: c.Unit, Level: n, Repeat: rep, Why: why, Failed: true, Under: s.under}
		if err := stub.Write(file); err != nil {
			return false, "", nil, err
		}
		return false, why, nil, nil
	}
	r, err := result.ReadWith(file, workload.Upgrade)
	if err != nil {
		return false, "", nil, err
	}
	pass, why := c.Verdict(r)
	return pass, why, r, nil
}

// keep records repeat rep of the probe at n: a level's first run, a
// boundary level's every run, and each run for the exporters.
func (s *capacitySearch) keep(n, rep int, pass bool, why string, r *result.Result) bool {
	if rep == 1 {
		s.probes[n] = firstRun{r, why}
	}
	if b := s.tally[n]; b != nil {
		b.add(pass, r)
	}
	v := math.NaN()
	if r != nil {
		v, _ = r.Throughput()
	}
	s.p.exp.SearchProbe(n, pass, v)
	return pass
}

// levels are the runs of every level probed: one for a level the line
// search probed, all of a boundary level's.
func (s *capacitySearch) levels() map[int]result.LevelRuns {
	l := map[int]result.LevelRuns{}
	for _, st := range s.steps {
		l[st.N] = result.LevelRuns{Runs: 1, Passed: map[bool]int{true: 1}[st.Pass]}
	}
	for n, b := range s.tally {
		l[n] = result.LevelRuns{Runs: b.runs, Passed: b.pass}
	}
	return l
}

// followBoundary runs the boundary's levels (the highest pass and the
// lowest failure) reps times each. When the repeats move the boundary (the
// highest level fails in most of its runs, or the lowest failure passes in
// most), the search goes on from there with each repeated level's
// majority as its verdict, probing the levels it now needs, and repeats
// the new boundary's levels too, until both sides of it have every run. A
// search from a baseline (a gate, with its own rule) moves only among the
// levels it probed. It returns the levels repeated, in order.
func (s *capacitySearch) followBoundary(ctx context.Context, first *linesearch.Outcome) ([]int, error) {
	var edges []int
	for next := []int{first.Best, first.Failed}; ; {
		var more []int
		for _, n := range next {
			if n > 0 && s.tally[n] == nil {
				more, edges = append(more, n), append(edges, n)
				s.tally[n] = &boundary{}
				s.tally[n].add(s.steps[s.step(n)].Pass, s.probes[n].r)
			}
		}
		if len(more) == 0 || s.reps == 1 {
			break
		}
		for rep := 2; rep <= s.reps; rep++ {
			for _, n := range more {
				if _, _, err := s.run(ctx, n, rep); err != nil {
					return nil, err
				}
			}
		}
		if first.Checked {
			best, failed := result.Boundary(s.levels())
			next = []int{best, failed}
			continue
		}
		o, err := linesearch.Search(ctx, s.cfg, s.probeAt)
		if err != nil {
			return nil, err
		}
		next = []int{o.Best, o.Failed}
	}
	slices.Sort(edges)
	return edges, nil
}

// report prints the probes, the boundary's runs and the maximum, and is
// the gate's error when a baseline failed.
func (s *capacitySearch) report(first *linesearch.Outcome, edges []int) error {
	p, c, cfg, reps := s.p, s.c, s.cfg, s.reps
	o := &linesearch.Outcome{Best: first.Best, Failed: first.Failed, Steps: s.steps, Held: first.Held, Checked: first.Checked}
	s.table(o.Steps, edges)
	held, best := o.Held, o.Best
	if reps > 1 {
		// Every run counts: a level passes when most of its runs did, as
		// report compare judges searches.
		l := s.levels()
		best, _ = result.Boundary(l)
		if o.Checked {
			held = l[cfg.Baseline].Passes()
		}
	}
	if o.Checked && held && !cfg.Above {
		fmt.Fprintf(p.out, "\nBASELINE HELD: still sustains %d %s (%s)\n", cfg.Baseline, c.Unit, s.probes[cfg.Baseline].why)
		return nil
	}
	s.maximum(o, best, edges)
	switch {
	case o.Checked && !held && o.Held:
		// The first probe passed, the repeats did not: nothing below was searched.
		b := s.tally[cfg.Baseline]
		return fmt.Errorf("the baseline of %d %s fails in %d of %d runs", cfg.Baseline, c.Unit, b.runs-b.pass, b.runs)
	case o.Checked && !held:
		return fmt.Errorf("the baseline of %d %s fails: capacity fell to %d %s", cfg.Baseline, c.Unit, best, c.Unit)
	}
	return nil
}

// table prints each probe's level, throughput and verdict, and the
// boundary's runs.
func (s *capacitySearch) table(steps []linesearch.Step, edges []int) {
	out, c := s.p.out, s.c
	metric := "throughput"
	for _, pr := range s.probes {
		if pr.r != nil {
			_, metric = pr.r.Throughput()
			break
		}
	}
	fmt.Fprintf(out, "\n%-6s %12s %-5s  %s\n", strings.ToUpper(c.Unit[:1])+c.Unit[1:], metric, "pass", "why")
	for _, st := range steps {
		pr := s.probes[st.N]
		tpm := "-"
		if pr.r != nil {
			v, _ := pr.r.Throughput()
			tpm = strconv.FormatFloat(v, 'f', 1, 64)
		}
		verdict := map[bool]string{true: "PASS", false: "FAIL"}[st.Pass]
		fmt.Fprintf(out, "%-6d %12s %-5s  %s\n", st.N, tpm, verdict, st.Why)
	}
	if s.reps > 1 {
		fmt.Fprintf(out, "\nThe boundary, %d runs of each level (--%s=%d):\n", s.reps, result.FlagRepeat, s.reps)
		for _, n := range edges {
			fmt.Fprintf(out, "  %d %s: %s\n", n, c.Unit, s.tally[n].String(metric))
		}
	}
}

// maximum prints the most units sustained (best, with every run counted),
// how the repeats moved or blurred it, and the probes it took.
func (s *capacitySearch) maximum(o *linesearch.Outcome, best int, edges []int) {
	out, c, upper := s.p.out, s.c, strings.ToUpper(s.c.Unit)
	switch {
	case best == 0 && o.Best == 0:
		fmt.Fprintf(out, "\nMAX %s = 0: even 1 fails (%s)\n", upper, o.Steps[len(o.Steps)-1].Why)
	case best == 0:
		fmt.Fprintf(out, "\nMAX %s = 0: no level passed in most of its runs\n", upper)
	case s.probes[best].r == nil:
		fmt.Fprintf(out, "\nMAX %s = %d (its first run failed; most of its runs passed)\n", upper, best)
	default:
		v, unit := s.probes[best].r.Throughput()
		fmt.Fprintf(out, "\nMAX %s = %d (%.1f %s; %s)\n", upper, best, v, unit, s.probes[best].why)
	}
	if best != o.Best {
		fmt.Fprintf(out, "The line search ended at %d; the repeats of the boundary moved the maximum to %d\n", o.Best, best)
	}
	if s.reps > 1 {
		for _, n := range edges {
			if b := s.tally[n]; b.pass != 0 && b.pass != b.runs {
				fmt.Fprintf(out, "The boundary is not clear-cut: %d %s passed %d of %d runs\n", n, c.Unit, b.pass, b.runs)
			}
		}
	}
	if best == s.cfg.Max {
		fmt.Fprintf(out, "It passed at all %d loaded %s: the dataset is too small to find the limit: load more\n", s.cfg.Max, c.Unit)
	}
	fmt.Fprintf(out, "%d probes (bound %d)", len(o.Steps), s.cfg.MaxProbes())
	if s.reps > 1 {
		fmt.Fprintf(out, ", and %d repeats of the boundary", (s.reps-1)*len(edges))
	}
	fmt.Fprintln(out)
}

// probeFile is the result file of repeat rep of the probe at n units.
func probeFile(name string, n int, unit string, rep int) string {
	if rep > 1 {
		return fmt.Sprintf("%s-%d%s-r%d.json", name, n, unit, rep)
	}
	return fmt.Sprintf("%s-%d%s.json", name, n, unit)
}

// boundary is every run of one of a search's boundary levels.
type boundary struct {
	runs, pass int
	values     []float64 // the runs' throughput (runs without a result: none)
}

func (b *boundary) add(pass bool, r *result.Result) {
	b.runs++
	if pass {
		b.pass++
	}
	if r != nil {
		v, _ := r.Throughput()
		b.values = append(b.values, v)
	}
}

func (b *boundary) String(metric string) string {
	vs := make([]string, len(b.values))
	for i, v := range b.values {
		vs[i] = strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := fmt.Sprintf("passed %d of %d", b.pass, b.runs)
	if len(vs) > 0 {
		s += fmt.Sprintf(" (%s %s)", metric, strings.Join(vs, ", "))
	}
	return s
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
