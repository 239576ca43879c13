package pipeline

import (
	"context"
	"database/sql"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/engine/events"
	"github.com/oltpbench/oltpbench/internal/engine/runner"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/result"
)

// eventWatch runs a run's events (--event) from its measured start, puts
// its report intervals into windows before, during and after them (and
// into the segments of a --rate schedule), and stops the run when an event
// with on_error = stop fails. Its methods do nothing on a nil watch (a run
// with neither).
type eventWatch struct {
	x         *events.Exec      // nil: no events
	tr        *events.Tracker   // the events' windows; nil: no events
	phases    []*events.Tracker // the rate's and the threads' schedules' windows
	live      *runner.Live      // the run's errors so far, for the windows
	latencyOp int               // the operation whose latency windows show
	ctx       context.Context
	stop      context.CancelCauseFunc
	recs      []result.Event
}

// parseEvents reads --event's specs.
func parseEvents(specs []string) ([]events.Event, error) {
	var out []events.Event
	for _, s := range specs {
		e, err := events.Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// newEventWatch prepares r's events; ctx is the run's, which a failed
// event with on_error = stop cancels. Nil without events.
func (p *Pipeline) newEventWatch(ctx context.Context, r *Run, ops []string, latencyOp string, live **metrics.Run) *eventWatch {
	sched := r.Options.RateSchedule
	if len(r.Events) == 0 && sched == nil && r.ThreadSchedule == nil {
		return nil
	}
	w := &eventWatch{}
	w.ctx, w.stop = context.WithCancelCause(ctx)
	for i, op := range ops {
		if op == latencyOp {
			w.latencyOp = i
		}
	}
	if sched != nil {
		w.phases = append(w.phases, events.NewPhases("rate", "/s", sched, ops))
	}
	if r.ThreadSchedule != nil {
		w.phases = append(w.phases, events.NewPhases("threads", "", r.ThreadSchedule, ops))
	}
	if len(r.Events) == 0 {
		return w
	}
	co := r.Conn
	w.x = events.NewExec(r.Events, events.Config{
		Open: func() (*sql.DB, func(), error) {
			pool, err := conn.Open(co, 1)
			if err != nil {
				return nil, nil, err
			}
			return pool.DB(0), func() { pool.Close() }, nil
		},
		Env: co.CommandEnv(),
		Log: p.notice, // beside the report: a plan's cell's log

		Redact: func(s string) string { return conn.Redact(s, co.Password) },
		Stop:   func(err error) { w.stop(err) },
		// The run's live metrics are there before its measured start,
		// when the events' clock starts.
		Changed: func(name string, start, end time.Time) { (*live).Event(name, start, end) },
	})
	w.tr = events.NewTracker(w.x, ops)
	return w
}

// runCtx is the context the run goes on under.
func (w *eventWatch) runCtx(ctx context.Context) context.Context {
	if w == nil {
		return ctx
	}
	return w.ctx
}

// Start keeps the run, for its errors as they happen.
func (w *eventWatch) Start(l *runner.Live) { w.live = l }

// WindowStart starts the events' clock: the measured start.
func (w *eventWatch) WindowStart() {
	if w != nil && w.x != nil {
		w.x.Start(w.ctx)
	}
}

// Interval puts a report interval into its window.
func (w *eventWatch) Interval(iv measure.Interval) {
	if w == nil {
		return
	}
	var errs []measure.ErrorCount
	if w.live != nil {
		errs = w.live.ErrorsAsTheyHappened()
	}
	h := iv.Hists[min(w.latencyOp, len(iv.Hists)-1)]
	for _, tr := range append([]*events.Tracker{w.tr}, w.phases...) {
		if tr != nil {
			tr.Interval(iv.Elapsed, iv.Length, iv.Counts.Get(measure.Events), h, errs)
		}
	}
}

// WindowEnd stops the events still to come or running: the measured window
// ended.
func (w *eventWatch) WindowEnd() {
	if w != nil && w.x != nil {
		w.recs = w.x.Finish()
	}
}

// finish records the events, their impact and the windows in res.
func (w *eventWatch) finish(res *result.Result) {
	if w == nil {
		return
	}
	if w.x != nil && w.recs == nil { // the run ended before its measured end (a failure)
		w.recs = w.x.Finish()
	}
	res.Windows = w.tr.Finish(w.recs)
	for _, ph := range w.phases {
		res.Windows = append(res.Windows, ph.Finish(nil)...)
	}
	res.Events = w.recs
}

// err is why an event stopped the run, if one did.
func (w *eventWatch) err() error {
	if w == nil {
		return nil
	}
	if err := context.Cause(w.ctx); err != nil && w.ctx.Err() != nil && err != context.Canceled {
		return err
	}
	return nil
}

// eventInterval is the report interval a run with events keeps when none
// was asked for: the windows and impacts are made of intervals.
const eventInterval = time.Second
