// Package pipeline drives any registered workload through its commands:
// prepare, run, check, cleanup, prewarm and csv. A command line is bound to
// a workload's flags once (New, Parse); a run is described once (Describe:
// a Run value) and measured in named steps (Measure), the same for a command
// line's cells and a plan's. It knows workloads only through the contract
// (internal/workload): what a workload adds, it declares in its Hooks.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/msglog"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/term"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

// Pipeline is one workload bound to one command line's flags.
type Pipeline struct {
	spec workload.Spec
	w    workload.Workload
	ro   workload.RunOptions
	f    Flags
	fs   *pflag.FlagSet
	out  io.Writer // table lines, prewarm and cleanup lines: always
	// log is out, with the messages a peer tool's logger counts when they
	// repeat (its threads' lines, --mysql-debug's trace).
	log *msglog.Log
	// traced: --mysql-debug's trace has begun (RunMessages.TraceLevel).
	traced atomic.Bool
	// notice gets reports and banners (verbosity 3 and up), detail the
	// loader's own lines when the workload prints table lines (4 and up).
	notice, detail io.Writer
	warn           io.Writer // stderr: notes that are not errors
	configApplied  bool
	verbosity      int               // the workload's (sysbench's --verbosity), 3 by default
	exp            *metrics.Exporter // --metrics-addr: the command's, or the plan's
	inv            workload.Invocation
}

// New binds a workload to fs; args are the command line after the
// workload's name, for a workload whose options depend on them; inv is the
// command that runs it.
func New(spec workload.Spec, fs *pflag.FlagSet, args []string, inv workload.Invocation) *Pipeline {
	p := &Pipeline{spec: spec, inv: inv, w: spec.New(), fs: fs, out: io.Discard, log: msglog.New(io.Discard), warn: io.Discard}
	fs.SetNormalizeFunc(options.Normalize(spec.Peer.Aliases))
	p.f.registerWorkload(fs, spec)
	p.w.Flags(fs, &p.ro)
	if d := p.w.Hooks().Peer.Declare; d != nil {
		d(args, fs)
	}
	return p
}

// SetOutput sets where the command writes: out its output, warn its notes.
// Writes are whole lines from one goroutine at a time: a run's events
// write beside its report.
func (p *Pipeline) SetOutput(out, warn io.Writer) {
	p.log = msglog.New(out)
	p.out, p.warn = p.log, &lockedWriter{w: warn}
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Unwrap is the writer written to (term.Is asks whether it is a terminal).
func (l *lockedWriter) Unwrap() io.Writer { return l.w }

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// SetExporter gives the runs and loads a metrics endpoint.
func (p *Pipeline) SetExporter(exp *metrics.Exporter) { p.exp = exp }

// Metrics are the command's --metrics-addr flags.
func (p *Pipeline) Metrics() *metrics.Flags { return &p.f.metrics }

// Workload is the bound workload.
func (p *Pipeline) Workload() workload.Workload { return p.w }

// RunOptions are the run options the workload bound.
func (p *Pipeline) RunOptions() *workload.RunOptions { return &p.ro }

// Args are the positional arguments left after parsing.
func (p *Pipeline) Args() []string { return p.fs.Args() }

// Commands lists the workload's commands in the order help names them.
func (p *Pipeline) Commands() []string {
	h := p.w.Hooks()
	c := []string{"prepare"}
	if h.Prewarm != nil {
		c = append(c, "prewarm")
	}
	c = append(c, "run")
	if h.Check != nil {
		c = append(c, "check")
	}
	for _, x := range h.Peer.Commands {
		if !slices.Contains(c, x) && x != "cleanup" {
			c = append(c, x)
		}
	}
	if p.spec.Capacity != nil {
		c = append(c, "search")
	}
	return append(c, "cleanup")
}

// Front applies --config-file (it counts as typed first: it may set
// --verbosity), then runs the workload's front, a peer tool's checks and
// banner, on the positional arguments and the command; done means it
// answered the command line itself.
func (p *Pipeline) Front(args []string) (done bool, err error) {
	if err := p.applyConfig(); err != nil {
		return false, err
	}
	if fr := p.w.Hooks().Peer.Front; fr != nil {
		return fr(p.inv, args, p.fs, p.out)
	}
	return false, nil
}

// applyConfig applies --config-file once (the command line wins).
func (p *Pipeline) applyConfig() error {
	if p.f.configFile == "" || p.configApplied {
		return nil
	}
	p.configApplied = true
	return options.ApplyConfigFile(p.fs, p.f.configFile)
}

// setup applies --config-file and the workload's option file, takes the
// first thread level and lets the workload validate its options.
func (p *Pipeline) setup(command string, args []string) error {
	if err := p.applyConfig(); err != nil {
		return err
	}
	if of, ok := p.w.(workload.OptionFile); ok {
		if err := of.ApplyOptions(command, p.fs, p.warn); err != nil {
			return err
		}
	}
	if err := p.f.firstThreads(); err != nil {
		return err
	}
	s := &workload.Setup{Command: command, Args: args, Threads: p.f.threads, ThreadsSet: p.fs.Changed(result.FlagThreads), Seed: p.f.load.Seed, Verbosity: 3}
	if err := p.w.Setup(s); err != nil {
		return err
	}
	p.verbosity = s.Verbosity
	p.notice = atLevel(p.out, s.Verbosity >= 3)
	p.detail = p.notice
	if ph := p.w.Hooks().Peer; ph.TableMessages || ph.Loaded != nil {
		p.detail = atLevel(p.out, s.Verbosity >= 3 && term.ForPerson(p.out, p.f.notes))
	}
	if s.Threads != p.f.threads {
		p.f.threads = s.Threads
		p.f.lv.threadsSpec = strconv.Itoa(s.Threads)
	}
	return workload.CheckThreads(p.f.threads)
}

// Drive runs command with the positional arguments before it.
func (p *Pipeline) Drive(ctx context.Context, command string, args []string) error {
	h := p.w.Hooks()
	if command == "help" {
		fmt.Fprintln(p.out, p.fs.FlagUsages())
		return nil
	}
	// An alias names one of the pipeline's commands, not a workload's own.
	if name, ok := p.spec.Peer.CommandAliases[command]; ok && slices.Contains(p.Commands(), name) && !slices.Contains(h.Peer.Commands, name) {
		command = name
	}
	if err := p.f.search.only(p.fs, command); err != nil {
		return err
	}
	if command == "search" && slices.Contains(p.Commands(), command) {
		co, err := p.Begin("run", args) // its probes are runs
		if err != nil {
			return err
		}
		return p.searchCapacity(ctx, co)
	}
	co, err := p.Begin(command, args)
	if err != nil {
		return err
	}
	if command == "run" {
		return p.runCells(ctx, co)
	}
	err = p.watched(ctx, co, command, func(ctx context.Context) error {
		if handled, err := p.ownCommand(ctx, command, co); handled || err != nil {
			return err
		}
		switch command {
		case "prepare":
			return p.Prepare(ctx, co, p.f.load.Resume)
		case "cleanup":
			return p.cleanup(ctx, co, h)
		case "prewarm":
			return p.prewarm(ctx, co)
		case "check":
			return p.check(ctx, co)
		}
		return errMeasure
	})
	if err == errMeasure { // a command the workload lists and leaves to the runner
		return p.runCells(ctx, co)
	}
	return err
}

// errMeasure is Drive's word for a command that is a run.
var errMeasure = errors.New("a run")

// Begin checks a command and the options once parsed (the workload's
// Setup included) and returns the connection options.
func (p *Pipeline) Begin(command string, args []string) (conn.Options, error) {
	cmds := p.Commands()
	if !slices.Contains(cmds, command) {
		return conn.Options{}, fmt.Errorf("unknown command %q: use %s or %s", command, strings.Join(cmds[:len(cmds)-1], ", "), cmds[len(cmds)-1])
	}
	if err := p.setup(command, args); err != nil {
		return conn.Options{}, err
	}
	if outputs := append([]string{"text", "json"}, p.spec.Peer.Outputs...); !slices.Contains(outputs, p.f.output) {
		return conn.Options{}, fmt.Errorf("invalid --output=%s: use %s", p.f.output, strings.Join(outputs, ", "))
	}
	co, err := p.f.conn.Options(p.fs)
	if err != nil {
		return conn.Options{}, err
	}
	if err := p.f.checkRun(); err != nil {
		return conn.Options{}, err
	}
	if p.ro.DryRun && command != "run" {
		return conn.Options{}, fmt.Errorf("--mysql-dry-run applies to run only: %s needs a server", command)
	}
	return co, nil
}

// runCells is run: the command line's thread levels, repeats or search as
// cells, each described and measured.
func (p *Pipeline) runCells(ctx context.Context, co conn.Options) error {
	s, err := p.f.lv.series(p.w.Name(), p.f.resultFile)
	if err != nil {
		return err
	}
	if _, err := conn.ParseErrorSet(p.f.ignoreErrors); err != nil {
		return err
	}
	if at, _ := p.f.lv.startTime(); !at.IsZero() {
		if err := cells.Wait(ctx, p.notice, at, p.f.lv.startAt); err != nil {
			return err
		}
	}
	ex := &cells.Executor{Dir: p.f.lv.resultDir, File: p.f.resultFile, Out: p.notice,
		Measure: func(ctx context.Context, c *cells.Cell, threads int, _ io.Writer) (*result.Result, error) {
			r, err := p.Describe(co, c, threads)
			if err != nil {
				return nil, err
			}
			return p.Measure(ctx, r)
		}}
	return ex.Execute(ctx, cells.Expand([]*cells.Series{s}))
}

// ownCommand runs command when the workload runs it itself (a script's),
// and says whether it did; a cleanup of its own is followed by the loader's
// (AfterOwnCleanup).
func (p *Pipeline) ownCommand(ctx context.Context, command string, co conn.Options) (bool, error) {
	h := p.w.Hooks()
	if h.Peer.Command == nil {
		return false, nil
	}
	handled, err := h.Peer.Command(ctx, command, co, p.f.threads, p.out)
	if handled && err == nil && command == "cleanup" {
		err = loader.AfterOwnCleanup(ctx, co, p.w.Dataset(), h.Peer.Connected == nil || h.Peer.Connected())
	}
	return handled, err
}

// Prepare loads the dataset; resume finishes a load that was cut.
func (p *Pipeline) Prepare(ctx context.Context, co conn.Options, resume bool) error {
	h := p.w.Hooks()
	if h.Peer.BeforeLoad != nil {
		h.Peer.BeforeLoad(p.notice)
	}
	p.f.load.Resume = resume
	return p.load(ctx, co, h)
}

// OwnCommand runs a command the workload runs itself (a script's prepare).
func (p *Pipeline) OwnCommand(ctx context.Context, command string, co conn.Options) error {
	_, err := p.w.Hooks().Peer.Command(ctx, command, co, p.f.threads, p.out)
	return err
}

// Prewarm reads the dataset into the server's caches (watched: a server
// that stops answering ends it).
func (p *Pipeline) Prewarm(ctx context.Context, co conn.Options) error {
	return p.watched(ctx, co, "prewarm", func(ctx context.Context) error { return p.prewarm(ctx, co) })
}

func (p *Pipeline) prewarm(ctx context.Context, co conn.Options) error {
	h := p.w.Hooks()
	if h.Prewarm == nil { // the workload's own command
		return p.OwnCommand(ctx, "prewarm", co)
	}
	pool, err := conn.Dial(ctx, co, p.f.threads)
	if err != nil {
		return err
	}
	defer pool.Close()
	return h.Prewarm(ctx, pool, p.f.threads, p.out)
}

// check runs the workload's consistency checks.
func (p *Pipeline) check(ctx context.Context, co conn.Options) error {
	pool, err := conn.Dial(ctx, co, p.f.threads)
	if err != nil {
		return err
	}
	defer pool.Close()
	h := p.w.Hooks()
	if h.Validate != nil {
		if err := h.Validate(ctx, pool.DB(0), co.DB); err != nil {
			return err
		}
	}
	if err := p.restore(ctx, co, pool.DB(0)); err != nil {
		return err
	}
	return h.Check(ctx, pool.DB(0), p.f.threads, p.notice)
}

// load is prepare: the dataset through the loader, or CSV files only.
func (p *Pipeline) load(ctx context.Context, co conn.Options, h workload.Hooks) error {
	lo, err := p.f.load.Options(p.f.threads)
	if err != nil {
		return err
	}
	lo.Log, lo.Quiet, lo.Info, lo.Watch = p.out, !h.Peer.TableMessages, p.detail, p.exp.WatchLoad
	ds := p.w.Dataset()
	if p.f.load.Mode == "csv" {
		m, err := loader.WriteCSV(ctx, co.DB, ds, lo)
		if err != nil {
			return err
		}
		m.Summary(p.detail)
		return nil
	}
	var units *loadUnits
	stop := func() {}
	if h.Peer.Loaded != nil {
		units = &loadUnits{start: time.Now()}
		lo.OnUnit = units.add
		stop = units.every(p.ro.ReportInterval, func(l workload.LoadFigures) { h.Peer.Loaded(p.notice, l) })
	}
	rep, err := loader.Load(ctx, co, ds, lo)
	stop()
	if err != nil {
		return err
	}
	rep.Summary(p.detail)
	if units != nil {
		l := units.figures(rep.Load)
		l.Done = true
		h.Peer.Loaded(p.notice, l)
	}
	return p.afterLoad(ctx, co)
}

// loadUnits are a load's units as they are done, for a peer's lines.
type loadUnits struct {
	start time.Time
	mu    sync.Mutex
	units []workload.LoadUnit
}

func (u *loadUnits) add(t loader.UnitTime) {
	u.mu.Lock()
	u.units = append(u.units, workload.LoadUnit{Rows: t.Rows, Took: t.Took})
	u.mu.Unlock()
}

// figures are the units so far, the load having taken took.
func (u *loadUnits) figures(took time.Duration) workload.LoadFigures {
	u.mu.Lock()
	defer u.mu.Unlock()
	return workload.LoadFigures{Took: took, Units: slices.Clone(u.units)}
}

// every calls f with the figures so far each interval (none when 0) until
// the function it returns is called, which waits for a call under way.
func (u *loadUnits) every(interval time.Duration, f func(workload.LoadFigures)) (stop func()) {
	if interval <= 0 {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				f(u.figures(time.Since(u.start)))
			}
		}
	}()
	return func() { close(quit); <-done }
}

// afterLoad runs the workload's step after its dataset is loaded.
func (p *Pipeline) afterLoad(ctx context.Context, co conn.Options) error {
	h := p.w.Hooks()
	if h.AfterLoad == nil {
		return nil
	}
	pool, err := conn.Dial(ctx, co, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	return h.AfterLoad(ctx, pool.DB(0), p.out)
}

func (p *Pipeline) cleanup(ctx context.Context, co conn.Options, h workload.Hooks) error {
	var dropping func(string)
	if h.Peer.Dropping != nil {
		dropping = func(table string) { h.Peer.Dropping(p.out, table) }
	}
	if err := loader.Drop(ctx, co, p.w.Dataset(), dropping); err != nil {
		return err
	}
	if h.Peer.Dropping == nil {
		fmt.Fprintf(p.out, "Dropped the %s tables of %s\n", workload.Describe(p.w.Name()).Title, co.DB)
	}
	return nil
}

// CSV writes the workload's dataset as files, no server needed.
func (p *Pipeline) CSV(ctx context.Context, args []string) error {
	if err := p.setup("csv", args); err != nil {
		return err
	}
	lo, err := p.f.load.Options(p.f.threads)
	if err != nil {
		return err
	}
	lo.Log = p.out
	m, err := loader.WriteCSV(ctx, p.f.conn.DB, p.w.Dataset(), lo)
	if err != nil {
		return err
	}
	m.Summary(p.out)
	return nil
}

// atLevel is w when on, else a writer that drops everything (w itself, so a
// terminal stays a terminal for the progress display).
func atLevel(w io.Writer, on bool) io.Writer {
	if on {
		return w
	}
	return io.Discard
}
