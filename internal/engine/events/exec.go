package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/oltpbench/oltpbench/internal/command"
	"github.com/oltpbench/oltpbench/internal/result"
)

// Outcomes of an event, as its record names them.
const (
	OK         = "ok"
	Failed     = "failed"
	TimedOut   = "timed out"
	Unfinished = "unfinished"  // still running when the run ended: stopped
	NotStarted = "not started" // the run ended before its time
)

// outputTail is how much of a command's output a record keeps, and logTail
// how much its log does.
const outputTail, logTail = 4096, 1 << 20

// Config is what an Exec needs of the run.
type Config struct {
	// Open gives an SQL event its own connection (a pool of one) and what
	// closes it.
	Open func() (*sql.DB, func(), error)
	Env  []string // a command's environment beside the process's (the connection)
	Dir  string   // a command's folder
	// Log gets each event's start and end, and a command's output as it
	// comes (the cell's log in a plan; stderr otherwise).
	Log io.Writer
	// Redact takes secrets out of a command's output and an error.
	Redact func(string) string
	// Stop ends the run: an event with on_error = stop failed.
	Stop func(error)
	// Changed, if set, hears of an event's start (end zero) and end (the
	// live metrics' annotations).
	Changed func(name string, start, end time.Time)
}

// Exec runs a run's events at their times after the measured start, each
// on a goroutine of its own, outside the benchmark threads.
type Exec struct {
	events []Event
	cfg    Config

	mu     sync.Mutex
	origin time.Time
	recs   []result.Event // by event, as they start and end
	wg     sync.WaitGroup
	cancel context.CancelFunc
}

// NewExec prepares the events; nothing runs before Start.
func NewExec(events []Event, cfg Config) *Exec {
	if cfg.Redact == nil {
		cfg.Redact = func(s string) string { return s }
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	x := &Exec{events: events, cfg: cfg, recs: make([]result.Event, len(events))}
	for i, e := range events {
		x.recs[i] = result.Event{Name: e.Name, Kind: e.Kind(), Text: cfg.Redact(e.SQL + e.Command), At: e.At.Seconds(), Outcome: NotStarted}
	}
	return x
}

// Start starts the clock at the measured start: each event runs At after.
func (x *Exec) Start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	x.mu.Lock()
	x.origin, x.cancel = time.Now(), cancel
	x.mu.Unlock()
	for i := range x.events {
		x.wg.Add(1)
		go x.run(ctx, i)
	}
}

// since is the time since the measured start.
func (x *Exec) since() float64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	return time.Since(x.origin).Seconds()
}

func (x *Exec) run(ctx context.Context, i int) {
	defer x.wg.Done()
	e := x.events[i]
	t := time.NewTimer(e.At)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return
	}
	x.mu.Lock()
	began := time.Now()
	start := began.Sub(x.origin)
	x.recs[i].Start, x.recs[i].Outcome = start.Seconds(), Unfinished
	x.recs[i].End = -1 // running
	x.mu.Unlock()
	x.changed(e.Name, began, time.Time{})
	defer func() { x.changed(e.Name, began, time.Now()) }()
	fmt.Fprintf(x.cfg.Log, "event %q (%s) started at %.1f s\n", e.Name, e.Kind(), start.Seconds())
	ectx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	out := &tailBuffer{max: logTail}
	var took time.Duration
	var err error
	if e.SQL != "" {
		took, err = x.sql(ectx, e.SQL)
	} else {
		t0 := time.Now()
		err = command.Exec(ectx, e.Command, x.cfg.Dir, x.cfg.Env, out)
		took = time.Since(t0)
	}
	// The output goes to the log once the command ended, secrets taken
	// out (a stream could split a secret across writes).
	output := x.cfg.Redact(out.String())
	io.WriteString(x.cfg.Log, output)
	x.mu.Lock()
	r := &x.recs[i]
	r.End, r.Seconds = time.Since(x.origin).Seconds(), took.Seconds()
	r.Output = tail(output, outputTail)
	switch {
	case err == nil:
		r.Outcome = OK
	case errors.Is(ectx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		r.Outcome, r.Error = TimedOut, fmt.Sprintf("took more than its timeout (%s)", e.Timeout)
	case ctx.Err() != nil:
		r.Outcome = Unfinished
	default:
		r.Outcome, r.Error = Failed, x.cfg.Redact(err.Error())
	}
	rec := *r
	x.mu.Unlock()
	fmt.Fprintf(x.cfg.Log, "event %q ended at %.1f s after %.1f s: %s%s\n", e.Name, rec.End, rec.Seconds, rec.Outcome, suffix(rec.Error))
	if rec.Outcome != OK && rec.Outcome != Unfinished && e.OnError == OnErrorStop && x.cfg.Stop != nil {
		x.cfg.Stop(fmt.Errorf("event %q %s (on_error = stop): %s", e.Name, rec.Outcome, rec.Error))
	}
}

func (x *Exec) changed(name string, start, end time.Time) {
	if x.cfg.Changed != nil {
		x.cfg.Changed(name, start, end)
	}
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// sql runs a statement on a connection of its own; its duration is the
// statement's alone.
func (x *Exec) sql(ctx context.Context, q string) (time.Duration, error) {
	if x.cfg.Open == nil {
		return 0, errors.New("no server to run it on")
	}
	db, closeDB, err := x.cfg.Open()
	if err != nil {
		return 0, err
	}
	defer closeDB()
	c, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	t0 := time.Now()
	_, err = c.ExecContext(ctx, q)
	return time.Since(t0), err
}

// Finish ends the events still to come or running (a command's group is
// killed; a statement's connection closed), waits for them, and returns
// their records in the order of their times.
func (x *Exec) Finish() []result.Event {
	x.mu.Lock()
	cancel := x.cancel
	x.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	x.wg.Wait()
	out := append([]result.Event(nil), x.recs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// spans are the events' times as known now (seconds since the measured
// start): a running event ends now, one not started has no span.
func (x *Exec) spans() []span {
	x.mu.Lock()
	defer x.mu.Unlock()
	now := time.Since(x.origin).Seconds()
	var out []span
	for i, r := range x.recs {
		switch {
		case r.Outcome == NotStarted:
		case r.End < 0:
			out = append(out, span{i, r.Start, now, true})
		default:
			out = append(out, span{i, r.Start, r.End, false})
		}
	}
	return out
}

type span struct {
	event    int
	from, to float64
	running  bool
}

// tailBuffer keeps the last max bytes written to it (and says it cut).
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return "..." + string(t.b)
	}
	return string(t.b)
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
