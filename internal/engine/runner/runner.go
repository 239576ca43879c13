// Package runner is the worker loop every benchmark uses: threads, time and
// event limits, open-loop rate, warm-up, interval and checkpoint reports, the
// ignore/retry policy for server errors, and reconnects.
package runner

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// threadStats are the runner's own per-thread figures.
type threadStats struct {
	baseEvents int64 // events counter at the last reset, read by the reporter only
	busyNs     atomic.Int64
	minUs      atomic.Int64
	maxUs      atomic.Int64
	sumUs      atomic.Int64
	_          [88]byte // 128 bytes: threads' stats never share a cache line (or its prefetched pair)
}

// Factory prepares a worker on a driver connection (statements are prepared there).
type Factory func(dc driver.Conn, t *worker.Thread) (worker.Worker, error)

// Config is the run's shape.
type Config struct {
	Threads  int
	Duration time.Duration // 0: no time limit
	Events   int64         // 0: no event limit
	Rate     float64       // events per second across threads; 0: closed loop
	// RateSchedule, when set, is the rate over the run from the measured
	// start (the first level during a warm-up); Rate is its first level.
	RateSchedule []workload.Segment
	// ThreadSchedule, when set, is how many of the main threads run over
	// the run from the measured start (the first level during a warm-up):
	// a thread starts (connects) when the level first counts it, and parks
	// between events, its connection kept, while the level is below it.
	ThreadSchedule []workload.Segment
	// QueueLength is how many scheduled events the --rate queue holds before
	// a run that cannot keep up stops (0: DefaultQueueLength).
	QueueLength int
	Warmup      time.Duration
	// MeasureAt, when set, is when the measured window starts: the
	// warm-up lasts until then (none when it has passed), so that clients
	// started apart measure one window.
	MeasureAt      time.Time
	ReportInterval time.Duration
	Checkpoints    []time.Duration
	Ignore         conn.ErrorSet
	// Grace is how long to wait for in-flight events after a stop before reporting anyway.
	Grace time.Duration
	// Abandon, if set, ends the grace when it closes: the server stopped
	// answering (a read beside the run missed its bound), so the in-flight
	// statements will not come back.
	Abandon <-chan struct{}
	Seed    int64
	// Observers watch the run from beside it, in this order (WindowEnd in
	// the reverse): what runs beside every run is one each.
	Observers []Observer
	// Sampler, if set, keeps the first execution of each statement of the
	// first thread (for their plans).
	Sampler *worker.Sampler
	// Clock, if set, times the named statements of the main threads over
	// the measured window (Final.Statements).
	Clock *worker.Clock
	// InitTimeout, if set, ends the run when the threads that start at once
	// have not all connected and made their workers within it.
	InitTimeout time.Duration
	// Trace, if set, prints every thread's calls (--mysql-debug).
	Trace *worker.Trace
	// Lifecycle, if set, hears of the main threads' lives as they happen
	// (a workload's messages of them), until Run returns.
	Lifecycle func(e ThreadEvent, thread int)
	// ConnRefresh, when set, has each main thread close its connection and
	// open another that often, between events (--conn-refresh); with
	// ReconnectEach, after every event (--reconnect=event). Not faults:
	// counted apart from reconnects (Final.Refreshes), and every connect of
	// the main threads is timed (Final.Connect).
	ConnRefresh   time.Duration
	ReconnectEach bool
	// Extra threads run beside Threads (CH-benCHmark's analytical streams),
	// with IDs from Threads up, on ExtraConn when it is set: not paced by
	// Rate, not counted by Events, stopped when the others end.
	Extra     int
	ExtraConn Connector
}

// An Observer watches a run from beside it: the client's health, the
// server's evidence, events and live metrics are one each, listed in
// Config.Observers. The runner calls them from its control loop, never
// from a thread running events: nothing per event.
type Observer interface {
	// Start is given the run as it starts, before any warm-up: a view
	// that any goroutine may read while it runs.
	Start(l *Live)
	// WindowStart hears of the measured window's start: the warm-up's end,
	// or the run's start when there is none.
	WindowStart()
	// Interval hears of each report interval, after the run's reporter.
	Interval(iv measure.Interval)
	// WindowEnd hears of the measured window's end, before the threads
	// stop (their connections still open).
	WindowEnd()
}

// ThreadEvent is a moment in a main thread's life.
type ThreadEvent int

const (
	ThreadStarted ThreadEvent = iota // it starts, before it connects
	ThreadReady                      // it has made its first worker
	AllReady                         // every main thread that starts at once is ready (thread -1)
	TimeLimit                        // it stops at the run's time limit
	EventLimit                       // it stops at the run's event limit
)

// Live is a run in progress as a metrics scrape reads it: counters and
// histograms since the measured start (0 during the warm-up), read from
// the threads' own counters and stripes, so the threads do nothing more.
type Live struct {
	r    *run
	mu   sync.Mutex
	base measure.Totals // counters at the measured start
}

// Counts are the counters since the measured start.
func (l *Live) Counts() measure.Totals {
	l.mu.Lock()
	base := l.base
	l.mu.Unlock()
	return l.r.snapshot().Sub(base)
}

// Running is the number of threads still running.
func (l *Live) Running() int { return int(l.r.running.Load()) }

// Queue is the --rate queue's length (0 in a closed loop).
func (l *Live) Queue() int64 {
	if l.r.queue == nil {
		return 0
	}
	return int64(len(l.r.queue))
}

// ErrorCodes are the errors survived since the measured start, by
// operation, code and outcome.
func (l *Live) ErrorCodes() []measure.ErrorCount { return l.r.errs.sinceStart() }

// Hists are each operation's latencies since the measured start.
func (l *Live) Hists() []*hdr.Histogram { return l.r.reg.Snapshot() }

// ErrorsAsTheyHappened are ErrorCodes with each lost connection counted
// when it was lost, not when its thread had connected again: what a part of
// the run (a window during an event) met.
func (l *Live) ErrorsAsTheyHappened() []measure.ErrorCount { return l.r.errs.asTheyHappened() }

// Statements are each timed statement's latencies since the measured start
// (nil when statements are not timed).
func (l *Live) Statements() []measure.StmtHist { return l.r.cfg.Clock.Snapshot() }

func (l *Live) setBase(t measure.Totals) {
	l.mu.Lock()
	l.base = t
	l.mu.Unlock()
}

// Connector hands out connections, round-robin over endpoints.
type Connector interface {
	Raw(ctx context.Context, f func(dc driver.Conn) error) error
}

// FatalError stops the run; it carries the thread and the cause.
type FatalError struct {
	Thread int
	Err    error
}

func (e *FatalError) Error() string { return fmt.Sprintf("thread %d: %v", e.Thread, e.Err) }
func (e *FatalError) Unwrap() error { return e.Err }

// Explain words an error that ended a run for the user: a full --rate
// queue in the workload's words (queueFull; the runner's when "") with what
// to change, a server error not ignored with its number to add, and never
// the password.
func Explain(err error, threads int, rate float64, password, queueFull, initTimeout string) error {
	var ie *InitTimeoutError
	if errors.As(err, &ie) {
		secs := int(ie.After.Round(time.Second) / time.Second)
		if initTimeout != "" {
			return &workload.Message{Text: fmt.Sprintf(initTimeout, secs),
				Hint: "oltpbench: check the server (its connections, max_connections), or raise --thread-init-timeout"}
		}
		return fmt.Errorf("%d threads did not connect within %v: check the server, or raise --thread-init-timeout", threads, ie.After)
	}
	if errors.Is(err, ErrQueueFull) {
		hint := fmt.Sprintf("oltpbench: %d threads cannot keep up with --rate=%s: lower --rate or raise --threads", threads, strconv.FormatFloat(rate, 'f', -1, 64))
		if queueFull == "" {
			return &workload.Message{Text: "oltpbench: " + err.Error(), Hint: hint}
		}
		return &workload.Message{Text: queueFull, Hint: hint}
	}
	var m *workload.Message
	if errors.As(err, &m) { // a peer tool's own words
		return m
	}
	var fe *FatalError
	if errors.As(err, &fe) {
		if n := conn.Number(fe.Err); n != 0 && !conn.IsLost(fe.Err) {
			return fmt.Errorf("%v (not in --mysql-ignore-errors; add %d to ignore it)", conn.Redact(fe.Err.Error(), password), n)
		}
	}
	return errors.New(conn.Redact(err.Error(), password))
}

// Run executes the benchmark and returns the final statistics. ctx cancellation
// (Ctrl-C) ends it early with what was measured.
func Run(ctx context.Context, cfg Config, cn Connector, newWorker Factory, reg *hist.Registry, rep measure.Reporter) (*measure.Final, error) {
	if err := workload.CheckThreads(cfg.Threads); err != nil {
		return nil, err
	}
	if !cfg.MeasureAt.IsZero() {
		cfg.Warmup = max(time.Until(cfg.MeasureAt), 0)
	}
	r := newRun(cfg, cn, newWorker, reg)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.stopCh = runCtx.Done()
	live := &Live{r: r}
	for _, o := range cfg.Observers {
		o.Start(live)
	}
	if cfg.Warmup == 0 {
		r.windowStart()
	}
	th := r.startThreads(runCtx, cancel)
	if cfg.InitTimeout > 0 {
		go r.watchInit(runCtx, cfg.InitTimeout, th.errs, cancel)
	}
	c := newClock(cfg, r.start)
	defer c.stop()
	interrupted := r.control(ctx, c, rep, live, th.main)
	endAt := time.Now()
	for i := len(cfg.Observers) - 1; i >= 0; i-- {
		cfg.Observers[i].WindowEnd()
	}
	cancel()
	th.wait(cfg.Grace, cfg.Abandon)
	r.quiet.Store(true) // a thread the grace left behind says nothing after the report
	f := r.final(interrupted, endAt, false)
	err := th.err()
	if err == nil && !interrupted && f.Counts[measure.Events] == 0 && r.down.Load() > 0 {
		err = ErrNothingMeasured
	}
	return f, err
}

// ErrNothingMeasured is a run that completed no event in its measured
// window and ended with connections lost: a result of nothing, which a plan
// must run again rather than keep.
var ErrNothingMeasured = errors.New("no event completed in the measured window: the connections to the server were lost and not made again before the run's end")

// windowStart tells the observers the measured window starts.
func (r *run) windowStart() {
	for _, o := range r.cfg.Observers {
		o.WindowStart()
	}
}

// report gives an interval to the run's reporter, then to the observers.
func (r *run) report(rep measure.Reporter, iv measure.Interval) {
	rep.Interval(iv)
	for _, o := range r.cfg.Observers {
		o.Interval(iv)
	}
}

// say tells Lifecycle of e, until Run returns.
func (r *run) say(e ThreadEvent, thread int) {
	if r.cfg.Lifecycle != nil && !r.quiet.Load() {
		r.cfg.Lifecycle(e, thread)
	}
}

// newRun makes the run's threads, their statistics and the --rate queue.
func newRun(cfg Config, cn Connector, newWorker Factory, reg *hist.Registry) *run {
	r := &run{cfg: cfg, cn: cn, newWorker: newWorker, reg: reg, connects: hist.NewRegistry([]string{"connect"}, 4)}
	all := cfg.Threads + max(cfg.Extra, 0)
	r.threads = make([]*worker.Thread, all)
	r.stats = make([]threadStats, all)
	r.lost = make([]*errKey, all)
	for i := range r.threads {
		r.threads[i] = &worker.Thread{ID: i}
		r.stats[i].minUs.Store(math.MaxInt64)
	}
	if len(r.threads) > 0 {
		r.threads[0].Sampler = cfg.Sampler
	}
	r.initDone = make(chan struct{})
	want := cfg.Threads
	if cfg.ThreadSchedule != nil {
		want = int(workload.ScheduleAt(cfg.ThreadSchedule, 0))
	}
	r.initWant.Store(int64(want))
	for _, t := range r.threads[:cfg.Threads] {
		t.Clock = cfg.Clock
	}
	for _, t := range r.threads {
		t.Trace = cfg.Trace
	}
	if cfg.Rate > 0 {
		n := cfg.QueueLength
		if n <= 0 {
			n = DefaultQueueLength
		}
		r.queue = make(chan int64, n)
	}
	return r
}

// started are a run's goroutines: main closes when the main threads end
// (extra threads have no end of their own), all when every thread has.
type started struct {
	main, all chan struct{}
	errs      chan error
}

// startThreads starts every thread and the --rate scheduler; the first
// error cancels the run.
func (r *run) startThreads(ctx context.Context, cancel context.CancelFunc) started {
	var wg, mainWG sync.WaitGroup
	st := started{main: make(chan struct{}), all: make(chan struct{}), errs: make(chan error, len(r.threads)+1)}
	r.start = time.Now()
	r.measuredStart, r.periodStart = r.start, r.start
	if r.initWant.Load() <= 0 {
		r.ready()
	}
	for _, t := range r.threads {
		main := t.ID < r.cfg.Threads
		wg.Add(1)
		if main {
			mainWG.Add(1)
		}
		r.running.Add(1)
		go func() {
			defer wg.Done()
			if main {
				defer mainWG.Done()
			}
			defer r.running.Add(-1)
			if err := r.thread(ctx, t); err != nil {
				st.errs <- err
				cancel()
			}
		}()
	}
	if r.queue != nil {
		go func() {
			if err := r.schedule(ctx, r.queue); err != nil {
				st.errs <- err
				cancel()
			}
		}()
	}
	go func() { mainWG.Wait(); close(st.main) }()
	go func() { wg.Wait(); close(st.all) }()
	return st
}

// wait gives the threads grace (10 s when 0) to end after the run has,
// until abandon closes: in-flight statements that do not come back are
// left behind, and the report covers what finished.
func (st started) wait(grace time.Duration, abandon <-chan struct{}) {
	if grace == 0 {
		grace = 10 * time.Second
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-st.all:
	case <-t.C:
	case <-abandon:
	}
}

// err is the error that ended the run, if one did.
func (st started) err() error {
	select {
	case err := <-st.errs:
		return err
	default:
		return nil
	}
}

// control reports until the run ends: the warm-up's end, intervals,
// checkpoints, the deadline, the main threads' end or ctx (interrupted).
func (r *run) control(ctx context.Context, c *clock, rep measure.Reporter, live *Live, done <-chan struct{}) (interrupted bool) {
	last := r.snapshot()
	lastAt := r.measuredStart
	for {
		select {
		case <-c.warm:
			r.resetExtremes()
			hist.ResetAt(r.cfg.Clock.Fence, r.reg, r.cfg.Clock.Registry(), r.connects)
			r.refreshBase = r.refreshes.Load()
			live.setBase(r.base)
			last = r.base
			r.measuredStart = time.Now()
			r.periodStart = r.measuredStart
			lastAt = r.measuredStart
			c.measure(r.measuredStart)
			r.windowStart()
		case now := <-c.tick:
			iv, cur := r.interval(now, lastAt, last, time.Millisecond)
			r.report(rep, iv)
			last, lastAt = cur, now
			c.nextTick(now)
		case <-c.checkpoint:
			r.checkpoint(rep, c, time.Now())
		case now := <-c.deadline:
			// A checkpoint due by now comes first, whichever timer the
			// select took (both fired while a busy machine held the loop).
			for c.due(now) {
				r.checkpoint(rep, c, now)
			}
			// sysbench prints the interval that ends with the run.
			if c.tick != nil && now.Sub(lastAt) >= r.cfg.ReportInterval/2 {
				iv, _ := r.interval(now, lastAt, last, time.Second)
				r.report(rep, iv)
			}
			r.timeUp.Store(true)
			return false
		case <-done:
			return false
		case <-ctx.Done():
			return true
		}
	}
}

// checkpoint reports the period ending at end and starts the next:
// counters and totals start anew (sysbench's checkpoint), but the clock
// and the report interval in progress go on.
func (r *run) checkpoint(rep measure.Reporter, c *clock, end time.Time) {
	f := r.final(false, end, true)
	rep.Checkpoint(*f)
	r.periodStart = f.End
	c.nextCheckpoint()
}

// clock is a run's timers: the warm-up's end, then the report intervals,
// the checkpoints and the deadline, counted from the start of measurement
// as in sysbench: a warm-up's end handled late (a busy machine) moves them
// all, so that the run measures its whole --time. A nil channel never
// fires.
type clock struct {
	interval, duration               time.Duration
	warm, tick, checkpoint, deadline <-chan time.Time
	checkpoints                      []time.Duration
	origin                           time.Time
	timers                           []*time.Timer
	ticker                           *time.Timer
}

func newClock(cfg Config, start time.Time) *clock {
	c := &clock{interval: cfg.ReportInterval, duration: cfg.Duration, checkpoints: append([]time.Duration(nil), cfg.Checkpoints...)}
	if cfg.Warmup > 0 {
		c.warm = c.after(cfg.Warmup)
	} else {
		c.measure(start)
	}
	return c
}

// measure starts the intervals, the checkpoints and the deadline from the
// start of measurement.
func (c *clock) measure(at time.Time) {
	c.origin = at
	if c.duration > 0 {
		c.deadline = c.after(max(time.Until(at.Add(c.duration)), 0))
	}
	if c.interval > 0 {
		c.ticker = time.NewTimer(max(time.Until(at.Add(c.interval)), 0))
		c.tick = c.ticker.C
	}
	c.checkpoint = nil
	if len(c.checkpoints) > 0 {
		c.checkpoint = c.after(max(time.Until(at.Add(c.checkpoints[0])), 0))
	}
}

// nextTick arms the report interval after the one that fired (at now) at
// the next multiple of the interval since the measured start, as
// sysbench's reports are: a tick handled late does not move the ones
// after it, and the intervals end at whole multiples however long the
// threads took to start.
func (c *clock) nextTick(now time.Time) {
	k := now.Sub(c.origin)/c.interval + 1
	c.ticker.Reset(max(time.Until(c.origin.Add(k*c.interval)), 0))
}

// due says whether the next checkpoint's time has come by now.
func (c *clock) due(now time.Time) bool {
	return len(c.checkpoints) > 0 && !c.origin.Add(c.checkpoints[0]).After(now)
}

// nextCheckpoint arms the checkpoint after the one that fired.
func (c *clock) nextCheckpoint() {
	c.checkpoints = c.checkpoints[1:]
	c.checkpoint = nil
	if len(c.checkpoints) > 0 {
		c.checkpoint = c.after(max(time.Until(c.origin.Add(c.checkpoints[0])), 0))
	}
}

func (c *clock) after(d time.Duration) <-chan time.Time {
	t := time.NewTimer(d)
	c.timers = append(c.timers, t)
	return t.C
}

func (c *clock) stop() {
	for _, t := range c.timers {
		t.Stop()
	}
	if c.ticker != nil {
		c.ticker.Stop()
	}
}

type run struct {
	cfg       Config
	cn        Connector
	newWorker Factory
	reg       *hist.Registry
	threads   []*worker.Thread
	stats     []threadStats
	running   atomic.Int64
	// initWant counts down the threads that start at once until each has
	// made its first worker; initDone closes then (--thread-init-timeout).
	initWant      atomic.Int64
	initDone      chan struct{}
	timeUp        atomic.Bool // the run's time limit stopped it
	quiet         atomic.Bool // Run has returned: Lifecycle hears no more
	busy          atomic.Int64
	started       atomic.Int64 // events begun, for --events
	stopCh        <-chan struct{}
	queue         chan int64
	start         time.Time
	measuredStart time.Time
	periodStart   time.Time      // the measured start, or the last checkpoint
	base          measure.Totals // counters at the last checkpoint
	errs          errTally
	lost          []*errKey    // per thread: what lost its connection, until it is made again
	down          atomic.Int64 // threads whose connection is lost now
	refreshes     atomic.Int64
	refreshBase   int64          // refreshes at the measured start, read by the reporter only
	connects      *hist.Registry // the main threads' connects: one operation
}

// interval is the report of the interval from lastAt (counters last) to
// now, its elapsed time rounded to round; cur is the counters at now.
func (r *run) interval(now, lastAt time.Time, last measure.Totals, round time.Duration) (iv measure.Interval, cur measure.Totals) {
	cur = r.snapshot()
	iv = measure.Interval{Elapsed: now.Sub(r.measuredStart).Round(round), Length: now.Sub(lastAt),
		Running: int(r.running.Load()), Counts: cur.Sub(last), Hists: r.reg.Interval()}
	if r.queue != nil {
		iv.QueueLength = int64(len(r.queue))
		iv.Concurrency = r.busy.Load()
	}
	return iv, cur
}

func (r *run) snapshot() measure.Totals {
	var t measure.Totals
	for _, th := range r.threads {
		for i := range t {
			t[i] += th.Ctr[i].Load()
		}
	}
	return t
}

func (r *run) resetExtremes() {
	for i, t := range r.threads {
		st := &r.stats[i]
		st.minUs.Store(math.MaxInt64)
		st.maxUs.Store(0)
		st.sumUs.Store(0)
		st.busyNs.Store(0)
		st.baseEvents = t.Ctr[measure.Events].Load()
	}
	r.base = r.snapshot()
	r.errs.measuring()
}

// final sums up the period from periodStart to end. A checkpoint also
// starts the next period: counters and histograms are cut together.
func (r *run) final(interrupted bool, end time.Time, checkpoint bool) *measure.Final {
	f := &measure.Final{Elapsed: end.Sub(r.periodStart), SinceStart: end.Sub(r.measuredStart), MinUs: math.MaxInt64,
		Interrupted: interrupted, Start: r.periodStart, End: end}
	events := make([]int64, len(r.threads))
	for i, t := range r.threads {
		events[i] = t.Ctr[measure.Events].Load()
	}
	now := r.snapshot()
	if checkpoint {
		f.Hists = r.reg.Checkpoint()
	} else {
		f.Hists = r.reg.Total()
		f.Statements = r.cfg.Clock.Totals()
		f.Connect = r.connects.Total()[0]
		f.Refreshes = r.refreshes.Load() - r.refreshBase
	}
	f.Counts = now.Sub(r.base)
	f.ErrorCodes = r.errs.counts(checkpoint)
	f.Counts[measure.Events] = 0
	for i := range r.threads {
		st := &r.stats[i]
		ev := events[i] - st.baseEvents
		f.Counts[measure.Events] += ev
		ts := measure.ThreadStat{Events: ev, Busy: time.Duration(st.busyNs.Load()), MinUs: st.minUs.Load(), MaxUs: st.maxUs.Load()}
		f.MinUs, f.MaxUs = min(f.MinUs, ts.MinUs), max(f.MaxUs, ts.MaxUs)
		if ts.MinUs == math.MaxInt64 {
			ts.MinUs = 0
		}
		f.PerThread = append(f.PerThread, ts)
		f.SumUs += st.sumUs.Load()
		if checkpoint {
			st.minUs.Store(math.MaxInt64)
			st.maxUs.Store(0)
			st.sumUs.Store(0)
			st.busyNs.Store(0)
			st.baseEvents = events[i]
		}
	}
	if checkpoint {
		r.base = now
	}
	if f.MinUs == math.MaxInt64 {
		f.MinUs = 0
	}
	return f
}

func (r *run) stopped() bool {
	select {
	case <-r.stopCh:
		return true
	default:
		return false
	}
}

// DefaultQueueLength bounds the --rate queue of a workload that sets none
// (Config.QueueLength).
const DefaultQueueLength = 100000

// ErrQueueFull ends a --rate run whose threads cannot keep up: the queue of
// scheduled events is full. A workload may word it its own way (Explain).
var ErrQueueFull = errors.New("the --rate queue of scheduled events is full: the threads cannot keep up with the rate")

// schedule feeds the --rate queue with scheduled start times (unix ns),
// exponentially spaced, as sysbench's event generator does, until ctx ends
// or the queue is full.
func (r *run) schedule(ctx context.Context, q chan int64) error {
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	rng := newSplitRand(uint64(r.cfg.Seed) ^ 0xabcdef)
	next := time.Now()
	origin := r.start.Add(r.cfg.Warmup) // the schedule's start: the measured start
	for {
		rate := r.cfg.Rate
		if r.cfg.RateSchedule != nil {
			rate = workload.ScheduleAt(r.cfg.RateSchedule, max(next.Sub(origin), 0))
		}
		if rate <= 0 { // a level of 0: no event until it rises
			next = next.Add(10 * time.Millisecond)
			if !r.sleepUntil(ctx, tm, next) {
				return nil
			}
			continue
		}
		gap := -math.Log(1-rng.float()) / rate
		next = next.Add(time.Duration(gap * float64(time.Second)))
		if !r.sleepUntil(ctx, tm, next) {
			return nil
		}
		select {
		case q <- next.UnixNano():
		case <-ctx.Done():
			return nil
		default:
			return ErrQueueFull
		}
	}
}

// level is how many main threads the thread schedule counts now.
func (r *run) level() int {
	return int(math.Round(workload.ScheduleAt(r.cfg.ThreadSchedule, max(time.Since(r.start)-r.cfg.Warmup, 0))))
}

// await holds a main thread the thread schedule does not count now until it
// does; false when the run stopped first. Parked threads look again every
// 10 ms: a schedule's levels last seconds.
func (r *run) await(t *worker.Thread) bool {
	if r.cfg.ThreadSchedule == nil || t.ID >= r.cfg.Threads || t.ID < r.level() {
		return true
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-r.stopCh:
			return false
		case <-tick.C:
			if t.ID < r.level() {
				return true
			}
		}
	}
}

// sleepUntil waits for the time at, reusing tm; false when ctx ended first.
func (r *run) sleepUntil(ctx context.Context, tm *time.Timer, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return true
	}
	tm.Reset(d)
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// thread is one benchmark thread: connect, prepare, loop, reconnect on loss.
func (r *run) thread(ctx context.Context, t *worker.Thread) error {
	backoff := 10 * time.Millisecond
	first := true
	var last worker.Worker
	defer func() {
		if e, ok := last.(worker.Ender); ok {
			e.End()
		}
		t.EndTrace()
	}()
	cn := r.cn
	main := t.ID < r.cfg.Threads
	if !main && r.cfg.ExtraConn != nil {
		cn = r.cfg.ExtraConn
	}
	refreshed := false // the connection was closed on purpose (--conn-refresh), not lost
	if !r.await(t) {
		return nil
	}
	if main {
		r.say(ThreadStarted, t.ID)
	}
	for !r.stopped() {
		t0 := time.Now()
		err := cn.Raw(ctx, func(dc driver.Conn) error {
			if main {
				r.connects.Record(0, t.ID, time.Since(t0).Microseconds())
			}
			w, err := r.newWorker(dc, t)
			if err != nil {
				return err
			}
			if first && main {
				r.say(ThreadReady, t.ID)
				if r.initWant.Add(-1) == 0 {
					r.ready()
				}
			}
			last = w
			if !first && !refreshed {
				t.Add(measure.Reconnects, 1)
				if k := r.lost[t.ID]; k != nil {
					r.errs.addKey(*k)
					r.lost[t.ID] = nil
					r.down.Add(-1)
				}
			}
			first, refreshed = false, false
			backoff = 10 * time.Millisecond
			err = r.loop(t, w)
			w.Close()
			if errors.Is(err, errRefresh) {
				// Its connection is dropped, and the next one new.
				refreshed = true
				r.refreshes.Add(1)
				return driver.ErrBadConn
			}
			return err
		})
		if refreshed && !r.stopped() {
			continue
		}
		if err == nil || r.stopped() {
			return nil
		}
		if first || !conn.IsLost(err) {
			return &FatalError{Thread: t.ID, Err: err}
		}
		if r.lost[t.ID] == nil { // lost before an event (preparing, connecting)
			r.lose(t, errKey{-1, conn.Code(err), measure.Reconnected})
		}
		// Lost connection: wait and reconnect; a restart takes the server a while.
		select {
		case <-time.After(backoff):
		case <-r.stopCh:
			return nil
		}
		backoff = min(backoff*2, time.Second)
	}
	return nil
}

// ready closes initDone: the threads that start at once are all ready.
func (r *run) ready() {
	close(r.initDone)
	r.say(AllReady, -1)
}

// InitTimeoutError is a run whose threads did not all connect (and make
// their workers) within Config.InitTimeout.
type InitTimeoutError struct{ After time.Duration }

func (e *InitTimeoutError) Error() string {
	return fmt.Sprintf("the threads did not start within %v", e.After)
}

// watchInit ends the run when the threads that start at once have not all
// made their first worker within d.
func (r *run) watchInit(ctx context.Context, d time.Duration, errs chan<- error, cancel context.CancelFunc) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.initDone:
	case <-ctx.Done():
	case <-t.C:
		errs <- &InitTimeoutError{After: d}
		cancel()
	}
}

// errRefresh ends a connection's loop for a new connection: the thread's
// --conn-refresh time is up, or --reconnect=event.
var errRefresh = errors.New("the connection is to be made anew")

// loop runs events until the run stops. A lost connection returns
// driver.ErrBadConn, which tells Raw's caller to drop the connection and
// make another.
func (r *run) loop(t *worker.Thread, w worker.Worker) error {
	main := t.ID < r.cfg.Threads
	var refreshAt time.Time
	if main && r.cfg.ConnRefresh > 0 {
		refreshAt = time.Now().Add(r.cfg.ConnRefresh)
	}
	for {
		if r.stopped() || !r.await(t) {
			return r.stop(t)
		}
		var scheduled time.Time
		paced := r.queue != nil && main
		if paced {
			select {
			case ns := <-r.queue:
				scheduled = time.Unix(0, ns)
			case <-r.stopCh:
				return r.stop(t)
			}
		}
		if wt, ok := w.(worker.Waiter); ok && !wt.Wait(r.stopCh) {
			return r.stop(t)
		}
		if main && r.timeUp.Load() {
			// The time is up: start no event after the measured window,
			// whose end the observers are reading; the connection stays
			// open (its prepared statements too) until the run stops.
			<-r.stopCh
			return r.stop(t)
		}
		counted := r.cfg.Events > 0 && main
		if counted && r.started.Add(1) > r.cfg.Events {
			// Given back: an event lost on its connection in another
			// thread gives its slot back to be redone, and must find it.
			r.started.Add(-1)
			r.say(EventLimit, t.ID)
			return nil
		}
		// busy feeds the open-loop report only: one counter shared by all
		// threads costs a cache-line transfer per event, so skip it otherwise.
		track := paced
		if track {
			r.busy.Add(1)
		}
		t0 := time.Now()
		if !paced {
			scheduled = t0
		}
		var op int
		var err error
		for {
			op, err = w.Event()
			if err == nil {
				break
			}
			if errors.Is(err, worker.ErrEnd) {
				r.idle(track)
				return nil
			}
			if errors.Is(err, worker.ErrCounted) {
				break
			}
			if conn.IsLost(err) {
				r.idle(track)
				if counted {
					r.started.Add(-1) // the event is redone on the new connection
				}
				r.lose(t, errKey{op, conn.Code(err), measure.Reconnected})
				return driver.ErrBadConn
			}
			if !r.cfg.Ignore.Has(conn.Number(err)) {
				r.idle(track)
				return err
			}
			// sysbench: roll back, count, restart the event.
			t.Add(measure.Errors, 1)
			r.errs.add(op, err, measure.Ignored)
			if rerr := w.Rollback(); rerr != nil && conn.IsLost(rerr) {
				r.idle(track)
				r.lose(t, errKey{op, conn.Code(rerr), measure.Reconnected})
				return driver.ErrBadConn
			}
			if r.stopped() {
				r.idle(track)
				return r.stop(t)
			}
		}
		end := time.Now()
		r.idle(track)
		if err != nil { // worker.ErrCounted: an error, not a latency
			t.Add(measure.Errors, 1)
			r.errs.add(op, err, measure.Counted)
			continue
		}
		lat := end.Sub(scheduled).Microseconds()
		r.reg.Record(op, t.ID, lat)
		t.Ctr[measure.Events].Add(1)
		st := &r.stats[t.ID]
		st.busyNs.Add(int64(end.Sub(t0)))
		st.sumUs.Add(lat)
		if lat < st.minUs.Load() {
			st.minUs.Store(lat)
		}
		if lat > st.maxUs.Load() {
			st.maxUs.Store(lat)
		}
		if main && (r.cfg.ReconnectEach || !refreshAt.IsZero() && end.After(refreshAt)) {
			return errRefresh
		}
	}
}

// stop ends t's loop because the run stopped; a main thread says so when
// the time limit stopped it.
func (r *run) stop(t *worker.Thread) error {
	if t.ID < r.cfg.Threads && r.timeUp.Load() {
		r.say(TimeLimit, t.ID)
	}
	return nil
}

// lose notes that t's connection was lost: counted now for the windows,
// and in the breakdown once t has connected again.
func (r *run) lose(t *worker.Thread, k errKey) {
	if r.lost[t.ID] == nil {
		r.down.Add(1)
	}
	r.lost[t.ID] = &k
	r.errs.lose(k)
}

// idle ends an event started with track set.
func (r *run) idle(track bool) {
	if track {
		r.busy.Add(-1)
	}
}

type splitRand struct{ s uint64 }

func newSplitRand(seed uint64) *splitRand { return &splitRand{s: seed} }

func (s *splitRand) float() float64 {
	s.s += 0x9E3779B97F4A7C15
	x := s.s
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}
