package pipeline

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/deadline"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/engine/events"
	"github.com/oltpbench/oltpbench/internal/engine/evidence"
	"github.com/oltpbench/oltpbench/internal/engine/health"
	"github.com/oltpbench/oltpbench/internal/engine/runner"
	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/msglog"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

// Run describes one measured run, built once (Describe) and handed to the
// steps of Measure: everything a run carries is a field here, so what a
// later step needs (the extra threads' connection, the seed) does not
// depend on the order of the steps before it.
type Run struct {
	Workload workload.Workload
	Spec     workload.Spec
	Options  *workload.RunOptions
	Cell     *cells.Cell
	Threads  int                   // the level's
	Extra    workload.ExtraThreads // threads the workload runs beside the level's
	Conn     conn.Options
	Ignore   conn.ErrorSet
	Seed     int64  // never 0
	Output   string // --output
	NetIO    string // --net-io
	// StatementLatency times each statement the workload names.
	StatementLatency bool
	// Debug prints every client call (--mysql-debug).
	Debug bool
	// IntervalCounters reads the server's counters at every report interval.
	IntervalCounters bool
	// Events run during the run (--event).
	Events []events.Event
	// ThreadSchedule is a --threads schedule within the run (Threads is
	// its most).
	ThreadSchedule []workload.Segment
	// Connection churn (--conn-refresh, --reconnect=event, --idle-conns).
	ConnRefresh   time.Duration
	ReconnectEach bool
	IdleConns     int
	// MeasureAt, when set, starts the measured window at that instant
	// (clients of one plan measure one window; see runner.Config).
	MeasureAt time.Time
}

// churning says whether the run makes or holds connections beyond its
// threads' own: its result records its connections.
func (r *Run) churning() bool { return r.ConnRefresh > 0 || r.ReconnectEach || r.IdleConns > 0 }

// Describe builds the run of a cell at one thread count from the parsed
// command line and the connection options.
func (p *Pipeline) Describe(co conn.Options, c *cells.Cell, threads int) (*Run, error) {
	ignore, err := conn.ParseErrorSet(p.f.ignoreErrors)
	if err != nil {
		return nil, err
	}
	r := &Run{Workload: p.w, Spec: p.spec, Options: &p.ro, Cell: c, Threads: threads, Conn: co, Ignore: ignore,
		Seed: p.ro.Seed, Output: p.f.output, NetIO: p.f.netIO, StatementLatency: p.f.stmtLatency,
		IntervalCounters: p.f.intervalCounters, Debug: p.f.mysqlDebug}
	if r.Seed == 0 {
		r.Seed = time.Now().UnixNano()
	}
	if x := p.w.Hooks().Extra; x != nil {
		if r.Extra, err = x(co); err != nil {
			return nil, err
		}
	}
	if r.Events, err = parseEvents(p.f.events); err != nil {
		return nil, err
	}
	r.ConnRefresh, r.IdleConns, r.ReconnectEach = p.f.connRefresh, p.f.idleConns, p.f.reconnect == "event"
	if r.ThreadSchedule, err = cells.ThreadSchedule(p.f.lv.threadsSpec); err != nil {
		return nil, err
	}
	return r, nil
}

// session is what Measure opened for a run; close releases it.
type session struct {
	pool   *conn.Pool // the run's, when the pipeline opened it
	cn     runner.Connector
	dialer conn.Dialer
	record map[string]string // the dataset record on the server
	extra  runner.Connector  // the extra threads' pool, when their connection is their own
	// evidence reads the server's counters and statements on a
	// connection of its own; nil in a dry run.
	evidence *evidence.Reader
	// gate bounds every read beside the run (deadline): a server that
	// misses one is not waited for again.
	gate   *deadline.Gate
	closes []func()
}

func (s *session) close() {
	for i := len(s.closes) - 1; i >= 0; i-- {
		s.closes[i]()
	}
}

// Measure is one measured run: its text report, and its result (also on
// stdout with --output=json).
func (p *Pipeline) Measure(ctx context.Context, r *Run) (*result.Result, error) {
	restore, err := runner.Tune(&r.Conn, r.NetIO, r.Threads+r.Extra.N)
	if err != nil {
		return nil, err
	}
	defer restore()
	res := p.newResult(r)
	s, err := p.open(ctx, r, res)
	if err != nil {
		return nil, err
	}
	defer s.close()
	if err := s.holdIdle(ctx, r); err != nil {
		return nil, err
	}
	window := windowWatch(make(chan struct{}))
	wr, err := p.w.NewRun(workload.RunConfig{Tool: p.inv.ToolName(), Threads: r.Threads, Seed: uint64(r.Seed), Record: s.record, Options: r.Options,
		Out: p.notice, Output: r.Output, Dialer: s.dialer, Stdout: p.out, Log: p.log, Traced: r.Debug, Extra: r.Extra, Measured: window})
	if err != nil {
		return nil, err
	}
	ops := wr.Ops()
	wr.Header()
	// What runs beside the run watches it: live metrics, the client's
	// health, the server's evidence, the events.
	lw := &liveWatch{p: p, r: r, wr: wr, ops: ops}
	client := &clientWatch{res: res}
	ev := &evidenceWatch{ctx: ctx, r: s.evidence, res: res, counters: r.IntervalCounters}
	evs := p.newEventWatch(ctx, r, ops, res.Metric.LatencyOp, &lw.run)
	cfg := p.runnerConfig(r, s)
	cfg.Observers = []runner.Observer{window, lw, client, ev}
	if evs != nil {
		cfg.Observers = append(cfg.Observers, evs)
	}
	if s.evidence != nil {
		ev.sampler = worker.NewSampler()
		cfg.Sampler = ev.sampler
	}
	if r.StatementLatency {
		cfg.Clock = worker.NewClock()
	}
	if r.Debug {
		cfg.Trace = newTrace(p.log, r.Conn)
		cfg.Trace.Begins = func() { p.traced.Store(true) }
	}
	cfg.Lifecycle = p.threadSaid
	if s.gate != nil {
		cfg.Abandon = s.gate.Done()
	}
	rec := recorder{Run: wr, res: res, ops: ops}
	if cfg.Duration == 0 && (cfg.RateSchedule != nil || cfg.ThreadSchedule != nil) {
		cfg.Duration = max(workload.ScheduleLength(cfg.RateSchedule), workload.ScheduleLength(cfg.ThreadSchedule))
	}
	if evs != nil && cfg.ReportInterval == 0 {
		// Windows are made of intervals: a run with events or a rate
		// schedule keeps them in its result without printing them.
		cfg.ReportInterval, rec.quiet = eventInterval, true
	}
	p.helpersSaid(r)
	fin, err := runner.Run(evs.runCtx(ctx), cfg, s.cn, wr.NewWorker, hist.NewRegistry(ops, 8), rec)
	evs.finish(res)
	if err == nil {
		err = evs.err()
	}
	if m := s.gate.Missed(); err == nil && m != nil && !fin.Interrupted && fin.Counts.Get(measure.Events) == 0 {
		// The server stopped answering before the window had an event.
		err = fmt.Errorf("no event completed in the measured window: %s", m)
	}
	if err != nil {
		lw.run.End(measure.Totals{}, nil, nil, nil)
		// A failed run has no final report and no result:
		// its figures would be compared as if it had run.
		return nil, runner.Explain(err, r.Threads, r.Options.Rate, r.Conn.Password, r.Spec.Peer.QueueFull, r.Spec.Peer.InitTimeout)
	}
	p.say(p.spec.Peer.Messages.Done)
	h := client.end(p.f.limits())
	res.ClientHealth = &h
	res.Evidence = ev.figures(ctx)
	if !fin.Interrupted {
		p.endState(ctx, s, res, fin.Counts.Get(measure.Events))
	}
	res.Evidence = withMissing(res.Evidence, s.gate.Said())
	if err := p.finish(r, wr, res, fin, ops, lw.run); err != nil {
		return nil, err
	}
	p.clientBound(r, h)
	return res, nil
}

// say prints m at its verbosity: the workload's, or its TraceLevel once
// the trace has begun.
func (p *Pipeline) say(m workload.Said, args ...any) {
	level := p.verbosity
	if p.traced.Load() {
		level = max(level, p.spec.Peer.Messages.TraceLevel)
	}
	if m.Text != "" && level >= m.Level {
		p.log.Printf(m.Text, args...)
	}
}

// helpersSaid are the messages of the run's helpers starting.
func (p *Pipeline) helpersSaid(r *Run) {
	m := p.spec.Peer.Messages
	if r.Options.Rate > 0 {
		p.say(m.RateStarted)
	}
	if r.Options.ReportInterval > 0 {
		p.say(m.ReportsStarted)
	}
	if len(r.Options.Checkpoints) > 0 {
		p.say(m.CheckpointsStarted)
	}
}

// threadSaid is the runner's Lifecycle: the workload's messages of its
// threads.
func (p *Pipeline) threadSaid(e runner.ThreadEvent, thread int) {
	m := p.spec.Peer.Messages
	switch e {
	case runner.ThreadStarted:
		p.say(m.ThreadStarted, thread)
	case runner.ThreadReady:
		p.say(m.ThreadReady, thread)
	case runner.AllReady:
		p.say(m.AllReady)
	case runner.TimeLimit:
		p.say(m.TimeLimit)
	case runner.EventLimit:
		p.say(m.EventLimit)
	}
}

// evidenceWatch reads the server's evidence at the measured window's start
// and end, and with counters at each report interval (an observer of the
// run, outside the workers' statements).
type evidenceWatch struct {
	ctx      context.Context
	r        *evidence.Reader // nil: a dry run
	res      *result.Result
	counters bool // --interval-counters
	a, b     *evidence.Snapshot
	sampler  *worker.Sampler // the first thread's statements, for their plans
}

func (e *evidenceWatch) Start(*runner.Live) {}

func (e *evidenceWatch) WindowStart() {
	if e.r != nil {
		e.a = e.r.Take(e.ctx)
	}
}

// Interval keeps the server's counters' changes in the report interval
// just cut (none in a dry run, or before the measured start).
func (e *evidenceWatch) Interval(measure.Interval) {
	if !e.counters || e.r == nil || e.a == nil || len(e.res.Intervals) == 0 {
		return
	}
	e.res.Intervals[len(e.res.Intervals)-1].ServerCounters = e.r.Interval(e.ctx)
}

func (e *evidenceWatch) WindowEnd() {
	if e.r != nil && e.a != nil {
		e.b = e.r.Take(e.ctx)
	}
}

// figures are the window's evidence, with the plans of the statements
// sampled (read now, after the window).
func (e *evidenceWatch) figures(ctx context.Context) *result.Evidence {
	if e.r == nil {
		return nil
	}
	plans := e.r.Plans(ctx, e.sampler.Samples())
	metrics := e.r.ClusterMetrics(ctx, e.a, e.b)
	ev := e.r.Figures(e.a, e.b)
	ev.Plans, ev.ClusterMetrics = plans, metrics
	return ev
}

// clientWatch samples the client at the measured start, at each report
// interval and at the end (an observer of the run).
type clientWatch struct {
	res         *result.Result
	first, last health.Sample
}

func (c *clientWatch) Start(*runner.Live) {}
func (c *clientWatch) WindowStart()       { c.first = health.Take(); c.last = c.first }
func (c *clientWatch) WindowEnd()         {}

// Interval keeps the client's CPU share since the last interval in the
// result's interval just cut.
func (c *clientWatch) Interval(measure.Interval) {
	if c.first.At.IsZero() || len(c.res.Intervals) == 0 {
		return
	}
	now := health.Take()
	c.res.Intervals[len(c.res.Intervals)-1].ClientCPU = health.Between(c.last, now, health.Limits{}).CPUShare
	c.last = now
}

// end is the client over the measured window.
func (c *clientWatch) end(lim health.Limits) health.Health {
	if c.first.At.IsZero() { // no measured start: the run ended in its warm-up
		c.first = health.Take()
	}
	return health.Between(c.first, health.Take(), lim)
}

// clientBound says on stderr that a run's figures measure the client: one
// line, to a person only when the workload's output is a peer tool's.
func (p *Pipeline) clientBound(r *Run, h health.Health) {
	if h.ClientBound {
		p.note("client-bound: " + h.ClientBoundWhy + ": these figures measure the client as much as the server (more client CPUs, or fewer threads)")
	}
	if h.HostBusy {
		p.note("host busy: " + h.HostBusyWhy)
	}
}

// newResult is the result as the run starts: what ran, where, on what.
func (p *Pipeline) newResult(r *Run) *result.Result {
	res := &result.Result{Format: result.Format, Tool: p.inv.ToolName(), Workload: r.Workload.Name(),
		Options: flagValues(p.fs), Threads: r.Threads, Dataset: r.Workload.Sizes(), Metric: r.Workload.Metric()}
	res.Client, _ = os.Hostname()
	return res
}

// open connects the run's threads (and the extra threads' own pool), checks
// the dataset is there, and records the server and the dataset's record in
// res; a dry run has no server. A workload whose threads open their own
// connections gets a dialer and no connection, and the server and the
// dataset's record are read after the run (when it answers).
func (p *Pipeline) open(ctx context.Context, r *Run, res *result.Result) (*session, error) {
	s := &session{}
	threads := r.Threads + r.Extra.N
	switch {
	case r.Options.DryRun:
		res.Server.Version = "dry run (no server)"
		s.cn, s.dialer, s.record = conn.DryConnector{}, conn.DryConnector{}, map[string]string{}
		return s, nil
	case p.w.Hooks().Peer.OwnConnections:
		pool, err := conn.Open(r.Conn, threads)
		if err != nil {
			return nil, err
		}
		s.gate = p.newGate()
		s.cn, s.dialer, s.record = conn.NoConnector{}, pool, map[string]string{}
		s.closes = append(s.closes, func() { s.afterOwn(ctx, pool, res) })
		s.openEvidence(ctx, r.Conn)
		return s, nil
	}
	s.gate = p.newGate()
	if err := p.preflight(ctx, r); err != nil {
		return nil, err
	}
	pool, err := conn.Dial(ctx, r.Conn, threads)
	if err != nil {
		return nil, err
	}
	s.cn, s.dialer, s.pool = pool, pool, pool
	s.closes = append(s.closes, func() { pool.Close() })
	s.gate.Do(ctx, deadline.Server, func(ctx context.Context) error { res.Server = conn.ServerInfo(ctx, pool); return nil })
	s.record = s.readRecord(ctx, pool, res)
	if err := p.datasetCheck(ctx, r, pool, s.record); err != nil {
		s.close()
		return nil, err
	}
	if res.DatasetState = p.startState(ctx, s, pool); res.DatasetState != nil {
		s.gate.Do(ctx, deadline.Record, func(ctx context.Context) error { loader.CountRun(ctx, pool.DB(0)); return nil })
	}
	if r.Extra.Own && r.Extra.N > 0 {
		extraCo := r.Extra.Conn
		extraCo.NetIO = r.Conn.NetIO
		xp, err := conn.Dial(ctx, extraCo, r.Extra.N)
		if err != nil {
			s.close()
			return nil, err
		}
		s.extra = xp
		s.closes = append(s.closes, func() { xp.Close() })
	}
	s.openEvidence(ctx, r.Conn)
	return s, nil
}

// holdIdle opens r.IdleConns connections that do nothing until the run's
// session closes (--idle-conns): an application's pool, in the server's
// processlist and its connection limits.
func (s *session) holdIdle(ctx context.Context, r *Run) error {
	if r.IdleConns == 0 || r.Options.DryRun {
		return nil
	}
	pool, err := conn.Open(r.Conn, r.IdleConns)
	if err != nil {
		return err
	}
	s.closes = append(s.closes, func() { pool.Close() })
	for i := range r.IdleConns {
		c, err := pool.DB(i).Conn(ctx)
		if err == nil {
			err = c.PingContext(ctx)
		}
		if err != nil {
			return fmt.Errorf("--idle-conns: connection %d of %d: %w", i+1, r.IdleConns, err)
		}
		s.closes = append(s.closes, func() { c.Close() })
	}
	return nil
}

// openEvidence opens the evidence's own connection; a server that does not
// answer has its run fail on its own connections, not here.
func (s *session) openEvidence(ctx context.Context, co conn.Options) {
	pool, err := conn.Open(co, 1)
	if err != nil {
		return
	}
	s.closes = append(s.closes, func() { pool.Close() })
	s.evidence = evidence.Open(ctx, pool.DB(0), co.DB, s.gate)
}

// afterOwn reads the server and the dataset record after a run whose
// threads opened their own connections, when the server answers.
func (s *session) afterOwn(ctx context.Context, pool *conn.Pool, res *result.Result) {
	s.gate.Do(ctx, deadline.Server, func(ctx context.Context) error {
		if err := pool.Ping(ctx); err != nil {
			return err
		}
		res.Server = conn.ServerInfo(ctx, pool)
		return nil
	})
	s.readRecord(ctx, pool, res)
	pool.Close()
}

// readRecord reads the dataset's record into the result's dataset figures
// (what the dataset was made with; not what runs wrote since).
func (s *session) readRecord(ctx context.Context, pool *conn.Pool, res *result.Result) map[string]string {
	var rec map[string]string
	s.gate.Do(ctx, deadline.Record, func(ctx context.Context) error {
		var err error
		rec, err = loader.ReadDataset(ctx, pool.DB(0))
		return err
	})
	for k, v := range rec {
		if !loader.RunKeys[k] {
			res.Dataset[k] = v
		}
	}
	return rec
}

// startState is the dataset as the run finds it: its tables' sizes, and
// how much it was run on since its load; nil for a dataset of no tables
// (a script's own).
func (p *Pipeline) startState(ctx context.Context, s *session, pool *conn.Pool) *result.DatasetState {
	tables := p.tableState(ctx, s, pool)
	if tables == nil {
		return nil
	}
	st := &result.DatasetState{Start: tables}
	st.Runs, _ = strconv.ParseInt(s.record["runs_since_load"], 10, 64)
	st.Events, _ = strconv.ParseInt(s.record["events_since_load"], 10, 64)
	return st
}

// tableState is the dataset's tables' sizes now, within the gate's bound
// for the dataset's state.
func (p *Pipeline) tableState(ctx context.Context, s *session, pool *conn.Pool) []result.TableState {
	ds := p.w.Dataset()
	if len(ds.Tables) == 0 {
		return nil
	}
	var st []result.TableState
	s.gate.Do(ctx, deadline.State, func(ctx context.Context) error {
		var exact map[string]int64
		if f := p.w.Hooks().ExactRows; f != nil {
			exact = f(ctx, pool.DB(0))
		}
		var err error
		st, err = loader.State(ctx, pool.DB(0), ds, exact)
		return err
	})
	if s.gate.Missed() != nil || len(st) == 0 {
		return nil
	}
	return st
}

// endState completes the dataset's state at the run's end and adds the
// run's events to the dataset's record (the run was counted as it began).
func (p *Pipeline) endState(ctx context.Context, s *session, res *result.Result, events int64) {
	if s.pool == nil || res.DatasetState == nil {
		return
	}
	res.DatasetState.End = p.tableState(ctx, s, s.pool)
	s.gate.Do(ctx, deadline.Record, func(ctx context.Context) error { loader.CountEvents(ctx, s.pool.DB(0), events); return nil })
}

// withMissing is ev with the reads beside the run that the server missed
// among what it lacks.
func withMissing(ev *result.Evidence, missed []string) *result.Evidence {
	if len(missed) == 0 {
		return ev
	}
	if ev == nil {
		ev = &result.Evidence{}
	}
	for _, m := range missed {
		if !slices.Contains(ev.Missing, m) {
			ev.Missing = append(ev.Missing, m)
		}
	}
	return ev
}

// runnerConfig is the runner's view of the run.
func (p *Pipeline) runnerConfig(r *Run, s *session) runner.Config {
	ro := r.Options
	return runner.Config{Threads: r.Threads, Duration: ro.Time, Events: ro.Events, Rate: ro.Rate, QueueLength: r.Spec.Peer.RateQueue,
		Warmup: ro.Warmup, ReportInterval: ro.ReportInterval, Checkpoints: ro.Checkpoints, Grace: ro.Grace, Ignore: r.Ignore,
		Seed: r.Seed, Extra: r.Extra.N, ExtraConn: s.extra, ConnRefresh: r.ConnRefresh, ReconnectEach: r.ReconnectEach,
		RateSchedule: ro.RateSchedule, ThreadSchedule: r.ThreadSchedule, InitTimeout: ro.InitTimeout, MeasureAt: r.MeasureAt}
}

// liveWatch serves the run's live metrics from its start (an observer of
// the run); run is nil without --metrics-addr.
type liveWatch struct {
	p   *Pipeline
	r   *Run
	wr  workload.Run
	ops []string
	run *metrics.Run
}

func (w *liveWatch) Start(l *runner.Live) {
	var extra func() map[string]int64
	if wc, ok := w.wr.(workload.Counters); ok {
		extra = wc.Counters
	}
	c := w.r.Cell
	w.run = w.p.exp.StartRun(metrics.Labels{Workload: w.r.Spec.Name, Test: w.r.Workload.Name(), Step: c.Series.Step, Threads: w.r.Threads, Repeat: c.Repeat}, w.ops, l, extra)
}

// windowWatch closes when the measured window starts
// (RunConfig.Measured).
type windowWatch chan struct{}

func (w windowWatch) Start(*runner.Live) {}
func (w windowWatch) WindowStart() {
	select {
	case <-w: // once a run
	default:
		close(w)
	}
}
func (w windowWatch) Interval(measure.Interval) {}
func (w windowWatch) WindowEnd()                {}

func (w *liveWatch) WindowStart()              {}
func (w *liveWatch) Interval(measure.Interval) {}
func (w *liveWatch) WindowEnd()                {}

// finish prints the workload's end of run, completes the result and the
// live metrics, and writes the result on stdout with --output=json.
func (p *Pipeline) finish(r *Run, wr workload.Run, res *result.Result, fin *measure.Final, ops []string, live *metrics.Run) error {
	res.Figures, res.NotApplicable = wr.Final(fin)
	if r.churning() && fin.Connect != nil {
		op, err := result.NewOp("connect", fin.Connect)
		if err != nil {
			return err
		}
		res.Connections = &result.Connections{Refreshes: fin.Refreshes, Connect: op, Idle: r.IdleConns}
	}
	for _, l := range res.EventLines() { // after the workload's own lines
		fmt.Fprintln(p.notice, l)
	}
	if err := res.SetFinal(fin, ops); err != nil {
		return err
	}
	live.End(fin.Counts, fin.Hists, fin.Statements, res.AllFigures())
	if r.Output == "json" {
		return res.Encode(p.out)
	}
	return nil
}

// recorder passes the runner's reports to the workload's text report and
// to the result file.
type recorder struct {
	workload.Run
	res   *result.Result
	ops   []string
	quiet bool // intervals kept for the events' windows, not printed
}

// Interval prints the interval (unless quiet) and adds it to the result,
// whose observers then add theirs to it.
func (r recorder) Interval(iv measure.Interval) {
	if !r.quiet {
		r.Run.Interval(iv)
	}
	r.res.AddInterval(iv, r.ops)
}

// newTrace is --mysql-debug's trace of connections made with co, to w.
func newTrace(w *msglog.Log, co conn.Options) *worker.Trace {
	t := worker.NewTrace(w)
	t.User, t.DB, t.Password = co.User, co.DB, co.Password != ""
	if eps := co.Endpoints(); len(eps) > 0 {
		if eps[0].Net == "unix" {
			t.Host, t.Socket = "localhost", eps[0].Addr
		} else if h, port, err := net.SplitHostPort(eps[0].Addr); err == nil {
			t.Host = h
			t.Port, _ = strconv.Atoi(port)
		}
	}
	return t
}
