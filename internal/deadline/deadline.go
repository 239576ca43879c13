// Package deadline is the one rule for every wait on a server beside a
// run: each kind of read has a bound, a read that misses it is recorded as
// missing with the reason ("server evidence missing: the server did not
// answer within 5 s") instead of being waited for, and a server that has
// missed one bound is not waited for again by the same run (Gate). A long
// command (a load, a consistency check) has no bound of its own, since its
// length is the dataset's: Watch ends it when the server stops answering a
// ping beside it.
package deadline

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Read is a kind of read and its bound.
type Read struct {
	What   string // what the read gives, as its line names it
	Within time.Duration
}

// The reads beside a run, each with its bound. A bound is what a server
// that answers at all answers within on a loaded machine: these reads are
// small (counters, a few rows of information_schema).
var (
	Checks   = Read{"checks before the run", 10 * time.Second} // the server's limits, the dataset's record and tables
	Server   = Read{"server version and settings", 5 * time.Second}
	Record   = Read{"dataset record", 5 * time.Second} // what the dataset was made with, the runs since its load
	State    = Read{"dataset state", 10 * time.Second} // table sizes, exact counts of the small tables
	Evidence = Read{"server evidence", 5 * time.Second}
	Ping     = Read{"server", 5 * time.Second} // Watch's ping beside a long command
)

// Missed is a read that did not end within its bound.
type Missed struct {
	Read   Read
	Within time.Duration // the bound the server missed (another kind's, when the Gate skipped this read)
}

func (m *Missed) Error() string {
	return m.Read.What + " missing: the server did not answer within " + Seconds(m.Within)
}

// Seconds is d as the lines say it: "5 s", "2.5 s".
func Seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// errBound is the cause of a context that its bound ended.
var errBound = errors.New("bound reached")

// Do runs read under ctx bounded by r.Within. It returns a *Missed when
// the bound ended the read (ctx's own end is ctx's error, as it was).
func Do(ctx context.Context, r Read, read func(context.Context) error) error {
	rctx, cancel := context.WithTimeoutCause(ctx, r.Within, errBound)
	defer cancel()
	err := read(rctx)
	if ctx.Err() == nil && errors.Is(context.Cause(rctx), errBound) {
		return &Missed{Read: r, Within: r.Within}
	}
	return err
}

// Gate runs one run's reads beside it: each within its bound, and once the
// server has missed a bound, none: they fail at once, missing for the same
// reason, so that a frozen server costs a run one bound, not one per read.
// Say hears each read missed, once per kind (Said lists them). The zero
// Gate is ready.
type Gate struct {
	Say func(*Missed)

	mu     sync.Mutex
	missed *Missed
	said   []string
	done   chan struct{} // closed at the first miss
}

// Done is closed when the server has missed a bound.
func (g *Gate) Done() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done == nil {
		g.done = make(chan struct{})
	}
	return g.done
}

// Do is Do within g; a nil g only bounds.
func (g *Gate) Do(ctx context.Context, r Read, read func(context.Context) error) error {
	if g == nil {
		return Do(ctx, r, read)
	}
	if first := g.Missed(); first != nil {
		return g.miss(&Missed{Read: r, Within: first.Within})
	}
	err := Do(ctx, r, read)
	var m *Missed
	if errors.As(err, &m) {
		return g.miss(m)
	}
	return err
}

// Missed is the first read the server missed, nil while it answers.
func (g *Gate) Missed() *Missed {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.missed
}

// Said is each read missed, in order, once per kind.
func (g *Gate) Said() []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.said)
}

func (g *Gate) miss(m *Missed) *Missed {
	g.mu.Lock()
	if g.missed == nil {
		g.missed = m
		if g.done == nil {
			g.done = make(chan struct{})
		}
		close(g.done)
	}
	say := !slices.Contains(g.said, m.Error())
	if say {
		g.said = append(g.said, m.Error())
	}
	g.mu.Unlock()
	if say && g.Say != nil {
		g.Say(m)
	}
	return m
}

// Watch returns ctx, ended (its cause a *Missed of r) when the server has
// not answered ping for r's bound: a ping that hangs past it, or pings that
// time out on their own (a connect timeout shorter than the bound) until
// it has passed; ping runs every interval until stop. A ping that fails at
// once (a server restarting refuses connections) counts as an answer: the
// command's own statements meet that.
func Watch(ctx context.Context, r Read, interval time.Duration, ping func(context.Context) error) (context.Context, func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		answered := time.Now()
		for {
			select {
			case <-done:
				return
			case <-wctx.Done():
				return
			case <-t.C:
			}
			err := Do(wctx, r, ping)
			var m *Missed
			switch {
			case errors.As(err, &m):
			case timedOut(err) && time.Since(answered) >= r.Within:
				m = &Missed{Read: r, Within: r.Within}
			case timedOut(err):
				continue
			default:
				answered = time.Now()
				continue
			}
			cancel(m)
			return
		}
	}()
	return wctx, func() {
		close(done)
		wg.Wait()
		cancel(nil)
	}
}

// timedOut says whether err is a wait that ended by a timeout.
func timedOut(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// Cause is the *Missed that ended ctx, or nil.
func Cause(ctx context.Context) *Missed {
	var m *Missed
	if errors.As(context.Cause(ctx), &m) {
		return m
	}
	return nil
}

// Await waits for a server coming up (a deploy, a restart): read, each
// bounded by r.Within, again after pause, until one succeeds (nil) or ctx
// ends; then the last read's error (ctx's own when none ran).
func Await(ctx context.Context, r Read, pause time.Duration, read func(context.Context) error) error {
	for {
		rctx, cancel := context.WithTimeout(ctx, r.Within)
		err := read(rctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}
