// Package gcpace gives the garbage collector a minimum of headroom for the
// length of a run.
//
// A benchmark client's live heap is a few MB while it allocates a few hundred
// bytes per query (mostly the MySQL driver's result rows), so Go's default
// (collect when the heap has doubled) collects several times a second. Every
// cycle wakes a quarter of the Ps to mark, and with one P per connection that
// is several threads competing with the server for the same cores: measured
// at 16 threads on 2 cores, 0.3-0.9 us of client CPU per query (3-8%).
// Collecting only after at least a fixed amount of allocation removes most of
// it; heaps large enough to have that headroom anyway keep Go's default, so
// memory at thousands of threads does not grow.
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// goHeapMinimum is the runtime's smallest heap goal at GOGC=100; it scales
// with the percentage, so it bounds the percentage that keeps the goal near
// live + headroom for the smallest heaps.
const goHeapMinimum = 4 << 20

// Pacer re-derives the GC percentage after every collection.
type Pacer struct {
	headroom uint64
	prev     int
	stopped  atomic.Bool
	percent  atomic.Int64
	mu       sync.Mutex // orders adjust against Stop
	sample   []metrics.Sample
}

// Start makes each collection wait until about headroom bytes have been
// allocated since the last one: the GC percentage becomes
// headroom / live heap, at least Go's 100 (see Percent). It does nothing
// (and returns nil) when GOGC is set: the user's choice wins. Stop undoes it.
func Start(headroom uint64) *Pacer {
	if os.Getenv("GOGC") != "" || headroom == 0 {
		return nil
	}
	p := &Pacer{headroom: headroom, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	p.prev = debug.SetGCPercent(100)
	p.percent.Store(100)
	p.adjust()
	p.arm()
	return p
}

// Percent is the GC percentage last set.
func (p *Pacer) Percent() int {
	if p == nil {
		return 0
	}
	return int(p.percent.Load())
}

// Stop restores the GC percentage found at Start.
func (p *Pacer) Stop() {
	if p == nil || p.stopped.Swap(true) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	debug.SetGCPercent(p.prev)
}

// arm sets a finalizer on a fresh object: it runs after the next collection,
// which is when the live heap is known again.
func (p *Pacer) arm() {
	// Large enough (and with a pointer) to stay out of the tiny allocator,
	// whose blocks may never be finalized.
	s := &sentinel{p: p}
	runtime.SetFinalizer(s, func(s *sentinel) {
		if s.p.stopped.Load() {
			return
		}
		s.p.adjust()
		s.p.arm()
	})
}

type sentinel struct {
	p   *Pacer
	pad [2]uint64
}

func (p *Pacer) adjust() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped.Load() {
		return
	}
	metrics.Read(p.sample)
	if p.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	want := Percent(p.sample[0].Value.Uint64(), p.headroom)
	// Small moves are not worth a pacer recomputation.
	if cur := int(p.percent.Load()); want*10 < cur*9 || want*10 > cur*11 {
		debug.SetGCPercent(want)
		p.percent.Store(int64(want))
	}
}

// Percent is the GC percentage that gives a heap of live bytes about headroom
// bytes of allocation between collections: at least 100 (Go's default), and
// at most the percentage whose minimum heap goal is headroom, which is what a
// tiny or not yet measured (0) live heap gets.
func Percent(live, headroom uint64) int {
	most := max(headroom*100/goHeapMinimum, 100)
	if live == 0 {
		return int(most)
	}
	return int(min(max(headroom*100/live, 100), most))
}
