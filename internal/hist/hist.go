// Package hist keeps latency histograms per operation for all benchmarks:
// lock-striped HDR histograms that workers record into, swapped out at every
// report interval, and an exact text encoding for merging across clients.
package hist

import (
	"sync"
	"sync/atomic"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Unit: microseconds, 1 us .. 1 h, 3 significant figures (sysbench users ask
// for percentiles above 100 s).
const (
	MinValue = 1
	MaxValue = 3_600_000_000
	SigFigs  = 3
)

// New returns an empty histogram with the registry's settings.
func New() *hdr.Histogram { return hdr.New(MinValue, MaxValue, SigFigs) }

type stripe struct {
	mu    sync.Mutex
	cur   *hdr.Histogram
	spare *hdr.Histogram // empty, swapped in by Interval; only Interval touches it
	_     [104]byte      // 128 bytes: stripes never share a cache line (or its prefetched pair)
}

// Op is one measured operation (an event type, a transaction type).
type Op struct {
	Name    string
	stripes []stripe
	// Samples swapped out of the stripes go to both: pending until the
	// next Interval returns them, total until the next ResetTotal. So a
	// checkpoint (ResetTotal) leaves the current interval whole.
	pending  *hdr.Histogram
	interval *hdr.Histogram // what the last Interval returned
	total    *hdr.Histogram
}

// Registry holds the histograms of a run. Record is safe for concurrent use,
// and so is Add; the other methods are called by one reporter goroutine,
// except Snapshot, which any goroutine may call (a metrics scrape).
type Registry struct {
	// ops is replaced whole by Add, so that Record reads it without a lock.
	ops     atomic.Pointer[[]*Op]
	stripes int
	sigFigs int
	mu      sync.Mutex // the reporter's folding against Snapshot and Add; Record never takes it
	// snaps are Snapshot's histograms, reused: one is ~190 KB at SigFigs.
	snaps []*hdr.Histogram
}

// NewRegistry makes a registry with one Op per name and nStripes stripes
// each, at SigFigs.
func NewRegistry(names []string, nStripes int) *Registry {
	r := NewRegistryOf(nStripes, SigFigs)
	for _, n := range names {
		r.Add(n)
	}
	return r
}

// NewRegistryOf makes an empty registry whose operations Add names as
// they are met, at sigFigs significant figures: 2 keeps a histogram at
// ~26 KB instead of ~190 KB, for figures many of which a run keeps (one
// per statement) where 1% is precision enough.
func NewRegistryOf(nStripes, sigFigs int) *Registry {
	r := &Registry{stripes: max(nStripes, 1), sigFigs: sigFigs}
	r.ops.Store(&[]*Op{})
	return r
}

func (r *Registry) newHist() *hdr.Histogram { return hdr.New(MinValue, MaxValue, r.sigFigs) }

// Add appends an operation and returns its index for Record. Concurrent
// Records of the operations already there go on meanwhile.
func (r *Registry) Add(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &Op{Name: name, stripes: make([]stripe, r.stripes), pending: r.newHist(), interval: r.newHist(), total: r.newHist()}
	for i := range op.stripes {
		op.stripes[i].cur, op.stripes[i].spare = r.newHist(), r.newHist()
	}
	old := *r.ops.Load()
	ops := append(old[:len(old):len(old)], op)
	r.ops.Store(&ops)
	return len(ops) - 1
}

// Names are the operations' names, in the order added.
func (r *Registry) Names() []string {
	var out []string
	for _, o := range *r.ops.Load() {
		out = append(out, o.Name)
	}
	return out
}

// Record adds one latency (microseconds) of operation op, on stripe hint
// (a worker's id), clamped into range.
func (r *Registry) Record(op, hint int, us int64) {
	if us < MinValue {
		us = MinValue
	} else if us > MaxValue {
		us = MaxValue
	}
	o := (*r.ops.Load())[op]
	s := &o.stripes[hint%len(o.stripes)]
	s.mu.Lock()
	_ = s.cur.RecordValue(us)
	s.mu.Unlock()
}

// cut swaps every stripe's histogram for its empty spare: from here on,
// samples go to the next period. Only pointer swaps, so that a caller that
// reads its counters right before or after is off by an event in flight at
// most; the slow merging comes after, in fold.
func (r *Registry) cut() {
	for _, o := range *r.ops.Load() {
		for j := range o.stripes {
			s := &o.stripes[j]
			s.mu.Lock()
			s.cur, s.spare = s.spare, s.cur
			s.mu.Unlock()
		}
	}
}

// fold moves what cut swapped out (now in the spares) into pending and
// total, and empties the spares for the next cut. The histograms are reused:
// one of this range is ~300 KB, so a new one per stripe and interval would
// be most of a run's allocation.
func (r *Registry) fold() {
	for _, o := range *r.ops.Load() {
		for j := range o.stripes {
			old := o.stripes[j].spare
			o.pending.Merge(old)
			o.total.Merge(old)
			old.Reset()
		}
	}
}

// Interval returns per operation what was recorded since the last call.
// The histograms are valid until the next call.
func (r *Registry) Interval() []*hdr.Histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cut()
	r.fold()
	ops := *r.ops.Load()
	out := make([]*hdr.Histogram, len(ops))
	for i, o := range ops {
		o.interval.Reset()
		o.pending, o.interval = o.interval, o.pending
		out[i] = o.interval
	}
	return out
}

// Total returns a copy of each operation's histogram since the start or the
// last Checkpoint, including what is still in the stripes, and leaves the
// current interval's samples for the next Interval.
func (r *Registry) Total() []*hdr.Histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cut()
	r.fold()
	return r.totals()
}

func (r *Registry) totals() []*hdr.Histogram {
	ops := *r.ops.Load()
	out := make([]*hdr.Histogram, len(ops))
	for i, o := range ops {
		out[i] = hdr.Import(o.total.Export())
	}
	return out
}

// Checkpoint returns what Total would and starts the totals anew (report
// checkpoints); intervals go on whole.
func (r *Registry) Checkpoint() []*hdr.Histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cut()
	r.fold()
	out := r.totals()
	for _, o := range *r.ops.Load() {
		o.total.Reset()
	}
	return out
}

// Reset drops everything recorded so far (end of warm-up).
func (r *Registry) Reset() { Reset(r) }

// Reset drops everything recorded so far in each registry (nil ones
// skipped) at one moment: every stripe of every registry is locked before
// any is swapped, so that registries of one run (events, statements) start
// their window together even when the caller is descheduled midway (a
// Record meanwhile waits, and lands after); the slow clearing comes after.
func Reset(rs ...*Registry) { ResetAt(nil, rs...) }

// ResetAt is Reset that calls mark (if not nil) while no sample can be
// recorded in any of rs: what mark begins (a window's epoch) starts at the
// same moment as the registries' new period.
func ResetAt(mark func(), rs ...*Registry) {
	var held []*stripe
	for _, r := range rs {
		if r == nil {
			continue
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, o := range *r.ops.Load() {
			for j := range o.stripes {
				s := &o.stripes[j]
				s.mu.Lock()
				held = append(held, s)
			}
		}
	}
	for _, s := range held {
		s.cur, s.spare = s.spare, s.cur
	}
	if mark != nil {
		mark()
	}
	for _, s := range held {
		s.mu.Unlock()
	}
	for _, r := range rs {
		if r == nil {
			continue
		}
		for _, o := range *r.ops.Load() {
			for j := range o.stripes {
				o.stripes[j].spare.Reset()
			}
			o.total.Reset()
			o.pending.Reset()
		}
	}
}

// Snapshot returns each operation's histogram since the start (or the last
// Checkpoint or Reset), the samples still in the stripes included, without
// cutting an interval: what a metrics scrape reads. The histograms are the
// registry's own, valid until the next Snapshot. Each stripe is locked
// while it is merged, as Record locks it.
func (r *Registry) Snapshot() []*hdr.Histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	ops := *r.ops.Load()
	for len(r.snaps) < len(ops) {
		r.snaps = append(r.snaps, r.newHist())
	}
	for i, o := range ops {
		h := r.snaps[i]
		h.Reset()
		h.Merge(o.total) // total holds pending too
		for j := range o.stripes {
			s := &o.stripes[j]
			s.mu.Lock()
			h.Merge(s.cur)
			s.mu.Unlock()
		}
	}
	return append([]*hdr.Histogram(nil), r.snaps[:len(ops)]...)
}

// Encode returns the histogram as compressed base64 text that Decode restores exactly.
func Encode(h *hdr.Histogram) (string, error) {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	return string(b), err
}

// Decode restores a histogram written by Encode.
func Decode(s string) (*hdr.Histogram, error) { return hdr.Decode([]byte(s)) }
