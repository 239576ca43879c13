// Package hist keeps latency histograms per operation for all benchmarks:
// lock-striped HDR histograms that workers record into, swapped out at every
// report interval, and an exact text encoding for merging across clients.
package hist

import (
	"sync"

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
	Name     string
	stripes  []stripe
	interval *hdr.Histogram // what the last Interval returned
	total    *hdr.Histogram // everything swapped out so far
	mu       sync.Mutex
}

// Registry holds the histograms of a run. Record is safe for concurrent use;
// Interval and Total are called by one reporter goroutine.
type Registry struct {
	ops []*Op
}

// NewRegistry makes a registry with one Op per name and nStripes stripes each.
func NewRegistry(names []string, nStripes int) *Registry {
	if nStripes < 1 {
		nStripes = 1
	}
	r := &Registry{}
	for _, n := range names {
		op := &Op{Name: n, stripes: make([]stripe, nStripes), interval: New(), total: New()}
		for i := range op.stripes {
			op.stripes[i].cur, op.stripes[i].spare = New(), New()
		}
		r.ops = append(r.ops, op)
	}
	return r
}

// Record adds one latency (microseconds) of operation op, on stripe hint
// (a worker's id), clamped into range.
func (r *Registry) Record(op, hint int, us int64) {
	if us < MinValue {
		us = MinValue
	} else if us > MaxValue {
		us = MaxValue
	}
	o := r.ops[op]
	s := &o.stripes[hint%len(o.stripes)]
	s.mu.Lock()
	_ = s.cur.RecordValue(us)
	s.mu.Unlock()
}

// Interval swaps out what was recorded since the last call, folds it into the
// total, and returns it per operation. The histograms are reused: they are
// valid until the next call (a histogram of this range is ~300 KB, so a new
// one per stripe and interval would be most of a run's allocation).
func (r *Registry) Interval() []*hdr.Histogram {
	out := make([]*hdr.Histogram, len(r.ops))
	for i, o := range r.ops {
		h := o.interval
		h.Reset()
		for j := range o.stripes {
			s := &o.stripes[j]
			s.mu.Lock()
			old := s.cur
			s.cur = s.spare
			s.mu.Unlock()
			h.Merge(old)
			old.Reset()
			s.spare = old
		}
		o.mu.Lock()
		o.total.Merge(h)
		o.mu.Unlock()
		out[i] = h
	}
	return out
}

// Reset drops everything recorded so far (end of warm-up, report checkpoints).
func (r *Registry) Reset() {
	r.Interval()
	for _, o := range r.ops {
		o.mu.Lock()
		o.total.Reset()
		o.mu.Unlock()
	}
}

// Total returns a copy of each operation's histogram since the start or the
// last Reset, including what is still in the stripes.
func (r *Registry) Total() []*hdr.Histogram {
	r.Interval()
	out := make([]*hdr.Histogram, len(r.ops))
	for i, o := range r.ops {
		o.mu.Lock()
		out[i] = hdr.Import(o.total.Export())
		o.mu.Unlock()
	}
	return out
}

// Encode returns the histogram as compressed base64 text that Decode restores exactly.
func Encode(h *hdr.Histogram) (string, error) {
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	return string(b), err
}

// Decode restores a histogram written by Encode.
func Decode(s string) (*hdr.Histogram, error) { return hdr.Decode([]byte(s)) }
