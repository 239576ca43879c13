package worker

import (
	"sync"
	"sync/atomic"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
)

// StmtName names a statement of a workload: the event (operation) it runs
// in and its own name there (a transaction, and a SELECT of it). Statements of one
// name share a histogram, whatever their text (one per table, a multi-row
// INSERT of each length).
type StmtName struct{ Event, Name string }

// Label is a statement's histogram in a run's Clock; NoLabel is not timed.
type Label int32

// NoLabel marks a statement that is not timed.
const NoLabel Label = -1

// Clock times the named statements of a run's threads on the client: one
// HDR histogram per name, from the statement's send to its last row read.
// Names are added as threads prepare their statements (off the event path);
// recording costs two clock reads and a striped lock.
type Clock struct {
	mu    sync.Mutex
	index map[StmtName]Label
	names []StmtName
	reg   *hist.Registry
	// epoch counts the windows begun (Fence): a session's batch of
	// latencies from an earlier one is dropped, not recorded into this.
	epoch atomic.Uint64
}

// clockStripes and clockSigFigs keep a statement's histograms at about
// 11 x 26 KB: a run may name some 40 statements.
const clockStripes, clockSigFigs = 4, 2

// NewClock makes a clock with no statements yet.
func NewClock() *Clock {
	return &Clock{index: map[StmtName]Label{}, reg: hist.NewRegistryOf(clockStripes, clockSigFigs)}
}

// label is name's histogram, added when new.
func (c *Clock) label(name StmtName) Label {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.index[name]; ok {
		return l
	}
	l := Label(c.reg.Add(name.Event + "." + name.Name))
	c.index[name] = l
	c.names = append(c.names, name)
	return l
}

// timed is a statement's latency a session holds until it records a batch.
type timed struct {
	l  Label
	us int64
}

// batch is how many latencies a session holds: recording them together,
// on the thread's own CPU, costs a fraction of a lock on a stripe that
// other threads' CPUs write between two statements.
const batch = 64

// record records a session's batch, taken in the window epoch.
func (c *Clock) record(hint int, b []timed, epoch uint64) {
	for _, t := range b {
		// Checked before each: a window begun while the batch is recorded
		// takes none of the rest of it.
		if c.epoch.Load() != epoch {
			return // the window it was taken in is over
		}
		c.reg.Record(int(t.l), hint, t.us)
	}
}

// Fence begins a window (the measured start): the latencies sessions still
// hold from before it are dropped. A run fences while it resets the
// registries (hist.ResetAt), so that no event falls between the two.
func (c *Clock) Fence() {
	if c != nil {
		c.epoch.Add(1)
	}
}

// Reset drops what was recorded (the warm-up's end).
func (c *Clock) Reset() { hist.ResetAt(c.Fence, c.Registry()) }

// Registry is the clock's histograms (nil for a nil clock), for a run to
// reset them together with its events' (hist.Reset).
func (c *Clock) Registry() *hist.Registry {
	if c == nil {
		return nil
	}
	return c.reg
}

// Totals are each statement's latencies since the last Reset, in the order
// first prepared; nil for a nil clock.
func (c *Clock) Totals() []measure.StmtHist {
	if c == nil {
		return nil
	}
	return c.pair(c.reg.Total())
}

// Snapshot is Totals for a metrics scrape: the histograms are the clock's
// own, valid until the next Snapshot.
func (c *Clock) Snapshot() []measure.StmtHist {
	if c == nil {
		return nil
	}
	return c.pair(c.reg.Snapshot())
}

// pair names the histograms; a statement added after they were taken is
// left for the next time.
func (c *Clock) pair(hs []*hdr.Histogram) []measure.StmtHist {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]measure.StmtHist, 0, len(hs))
	for i, h := range hs {
		if i < len(c.names) {
			out = append(out, measure.StmtHist{Event: c.names[i].Event, Name: c.names[i].Name, Hist: h})
		}
	}
	return out
}
