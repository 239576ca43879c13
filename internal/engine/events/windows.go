package events

import (
	"fmt"
	"math"
	"sort"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Window names.
const (
	Before = "before"
	After  = "after"
	During = "during "
)

// Impact thresholds: an event's time below 90% of the before-window's
// throughput, and its recovery once back within 5% of it.
const (
	belowShare   = 0.9
	recoverShare = 0.95
)

// Point is one report interval: its span (seconds since the measured start),
// its throughput and the window it fell in.
type Point struct {
	From, To float64
	PerS     float64
	Window   string
}

// Tracker puts each report interval into a window as the runner cuts it:
// before the first event, during one (the event it overlaps most), or after;
// per window it keeps the events, a latency histogram and the errors.
type Tracker struct {
	x      *Exec
	assign func(a, b float64) string // the window of an interval
	ops    []string
	wins   []*window
	series []Point
	errs   map[errKey]int64 // the run's errors at the last interval
}

type errKey struct {
	op            int
	code, outcome string
}

type window struct {
	name     string
	from, to float64
	events   int64
	seconds  float64
	h        *hdr.Histogram
	errs     map[errKey]int64
}

// NewTracker tracks the windows of x's events; ops name the run's
// operations (for the errors).
func NewTracker(x *Exec, ops []string) *Tracker {
	t := &Tracker{x: x, ops: ops, errs: map[errKey]int64{}}
	t.assign = t.windowOf
	return t
}

// NewPhases tracks the windows of a load schedule's segments (--rate=
// 500@60s,1000@60s), named by what and their levels ("rate 500/s", "rate
// 100-2000/s", "threads 16"), from the measured start: an interval is its
// midpoint's.
func NewPhases(what, unit string, segs []workload.Segment, ops []string) *Tracker {
	t := &Tracker{ops: ops, errs: map[errKey]int64{}}
	// A level met twice is two windows: each named by its start too.
	names, seen := make([]string, len(segs)), map[string]int{}
	for i, s := range segs {
		names[i] = PhaseName(what, unit, s)
		seen[names[i]]++
	}
	var at time.Duration
	for i, s := range segs {
		if seen[names[i]] > 1 {
			names[i] += fmt.Sprintf(" from %gs", at.Seconds())
		}
		at += s.Dur
	}
	t.assign = func(a, b float64) string {
		mid, end := (a+b)/2, 0.0
		for i, s := range segs {
			end += s.Dur.Seconds()
			if mid < end || i == len(segs)-1 {
				return names[i]
			}
		}
		return After
	}
	return t
}

// PhaseName names a schedule's segment's window: "rate 500/s".
func PhaseName(what, unit string, s workload.Segment) string {
	if s.From == s.To {
		return fmt.Sprintf("%s %g%s", what, s.From, unit)
	}
	return fmt.Sprintf("%s %g-%g%s", what, s.From, s.To, unit)
}

// Interval takes an interval that ends at end (since the measured start)
// after length, with its events, its latency histogram (the run's
// headline operation's) and the run's errors since the measured start.
func (t *Tracker) Interval(end, length time.Duration, events int64, h *hdr.Histogram, errs []measure.ErrorCount) {
	a, b := (end - length).Seconds(), end.Seconds()
	name := t.assign(a, b)
	w := t.window(name)
	w.from, w.to = math.Min(w.from, a), math.Max(w.to, b)
	w.events += events
	w.seconds += b - a
	if h != nil {
		w.h.Merge(h)
	}
	for _, e := range errs {
		k := errKey{e.Op, e.Code, e.Outcome}
		if d := e.Count - t.errs[k]; d > 0 {
			w.errs[k] += d
		}
		t.errs[k] = e.Count
	}
	perS := 0.0
	if b > a {
		perS = float64(events) / (b - a)
	}
	t.series = append(t.series, Point{From: a, To: b, PerS: perS, Window: name})
}

// windowOf is the window of the interval [a, b] as the events' spans are
// known at b: before when it ended by the first event's start, else during
// the event it overlaps most, else after: an interval an event touched is
// never before or after it.
func (t *Tracker) windowOf(a, b float64) string {
	spans := t.x.spans()
	first := math.Inf(1)
	for _, s := range spans {
		first = math.Min(first, s.from)
	}
	if b <= first {
		return Before
	}
	best, most := After, 0.0
	for _, s := range spans {
		if ov := math.Min(b, s.to) - math.Max(a, s.from); ov >= 0 && (best == After || ov > most) {
			best, most = During+t.x.recs[s.event].Name, ov
		}
	}
	return best
}

func (t *Tracker) window(name string) *window {
	for _, w := range t.wins {
		if w.name == name {
			return w
		}
	}
	w := &window{name: name, from: math.Inf(1), to: math.Inf(-1), h: hist.New(), errs: map[errKey]int64{}}
	t.wins = append(t.wins, w)
	return w
}

// Series is the intervals as tracked.
func (t *Tracker) Series() []Point { return t.series }

// Finish gives each event record its impact and returns the windows, in
// the order the run went through them.
func (t *Tracker) Finish(recs []result.Event) []result.Window {
	if t == nil {
		return nil
	}
	before := BeforeRate(t.series)
	for i := range recs {
		recs[i].Impact = ImpactOf(t.series, before, recs[i])
	}
	var out []result.Window
	for _, w := range t.wins {
		rw := result.Window{Name: w.name, From: w.from, To: w.to, Events: w.events, Seconds: w.seconds}
		if w.seconds > 0 {
			rw.PerS = float64(w.events) / w.seconds
		}
		if w.h.TotalCount() > 0 {
			rw.P95Ms, rw.P99Ms = float64(w.h.ValueAtQuantile(95))/1000, float64(w.h.ValueAtQuantile(99))/1000
		}
		for k, n := range w.errs {
			c := result.ErrorCount{Code: k.code, Outcome: k.outcome, Count: n}
			if k.op >= 0 && k.op < len(t.ops) {
				c.Op = t.ops[k.op]
			}
			rw.Errors = append(rw.Errors, c)
		}
		sort.Slice(rw.Errors, func(i, j int) bool {
			x, y := rw.Errors[i], rw.Errors[j]
			return x.Op+x.Code+x.Outcome < y.Op+y.Code+y.Outcome
		})
		out = append(out, rw)
	}
	return out
}

// BeforeRate is the median throughput of the intervals before the first
// event (0 when there are none).
func BeforeRate(series []Point) float64 {
	var v []float64
	for _, p := range series {
		if p.Window == Before {
			v = append(v, p.PerS)
		}
	}
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// ImpactOf is what an event did to the series against the before rate:
// from the interval its start falls in, the lowest interval (the one it
// recovered in included) and the time below 90% of before until it
// recovered (or the run's end); recovered at
// the first interval that ends after the event's end and is back within 5%
// of before, the time from the event's end to that interval's start (0 when
// it was never down). Nil for an event that did not start, or a run with no
// interval before its first event.
func ImpactOf(series []Point, before float64, ev result.Event) *result.Impact {
	if before <= 0 || ev.Outcome == NotStarted {
		return nil
	}
	im := &result.Impact{BeforePerS: before, LowestPerS: math.Inf(1)}
	for _, p := range series {
		if p.To <= ev.Start {
			continue
		}
		im.LowestPerS = math.Min(im.LowestPerS, p.PerS)
		if p.To > ev.End && p.PerS >= recoverShare*before {
			im.Recovered = true
			im.RecoverySeconds = math.Max(0, p.From-ev.End)
			break
		}
		if p.PerS < belowShare*before {
			im.BelowSeconds += p.To - p.From
		}
	}
	if math.IsInf(im.LowestPerS, 1) { // no interval after its start: the run ended
		im.LowestPerS = before
	}
	im.Depth = im.LowestPerS/before - 1
	return im
}
