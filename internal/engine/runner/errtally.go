package runner

import (
	"sort"
	"sync"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/measure"
)

// errKey is one cell of the error breakdown.
type errKey struct {
	op      int
	code    string
	outcome string
}

// errTally counts the errors a run survived by operation, code and outcome.
// Errors are rare next to events, so one lock is enough: the event path
// never takes it.
type errTally struct {
	mu    sync.Mutex
	now   map[errKey]int64
	base  map[errKey]int64 // at the last cut (the measured start, a checkpoint)
	start map[errKey]int64 // at the measured start, for live metrics
	// lost counts lost connections when they were lost (now counts them
	// when their thread has connected again), and lostStart at the
	// measured start: what a window of the run met as it met it.
	lost, lostStart map[errKey]int64
}

// lose counts a connection lost now.
func (t *errTally) lose(k errKey) {
	t.mu.Lock()
	if t.lost == nil {
		t.lost = map[errKey]int64{}
	}
	t.lost[k]++
	t.mu.Unlock()
}

// asTheyHappened are the counts since the measured start with lost
// connections counted when lost.
func (t *errTally) asTheyHappened() []measure.ErrorCount {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []measure.ErrorCount
	for _, e := range diff(t.now, t.start) {
		if e.Outcome != measure.Reconnected {
			out = append(out, e)
		}
	}
	return append(out, diff(t.lost, t.lostStart)...)
}

func (t *errTally) add(op int, err error, outcome string) {
	t.addKey(errKey{op, conn.Code(err), outcome})
}

func (t *errTally) addKey(k errKey) {
	t.mu.Lock()
	if t.now == nil {
		t.now = map[errKey]int64{}
	}
	t.now[k]++
	t.mu.Unlock()
}

// measuring cuts at the measured start (the warm-up's end).
func (t *errTally) measuring() {
	t.counts(true)
	t.mu.Lock()
	t.start = t.base
	t.lostStart = make(map[errKey]int64, len(t.lost))
	for k, n := range t.lost {
		t.lostStart[k] = n
	}
	t.mu.Unlock()
}

// sinceStart are the counts since the measured start.
func (t *errTally) sinceStart() []measure.ErrorCount {
	t.mu.Lock()
	defer t.mu.Unlock()
	return diff(t.now, t.start)
}

// counts are the counts since the last cut; cut starts a new period.
func (t *errTally) counts(cut bool) []measure.ErrorCount {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := diff(t.now, t.base)
	if cut {
		t.base = make(map[errKey]int64, len(t.now))
		for k, n := range t.now {
			t.base[k] = n
		}
	}
	return out
}

// diff is now - base, sorted.
func diff(now, base map[errKey]int64) []measure.ErrorCount {
	var out []measure.ErrorCount
	for k, n := range now {
		if d := n - base[k]; d > 0 {
			out = append(out, measure.ErrorCount{Op: k.op, Code: k.code, Outcome: k.outcome, Count: d})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Outcome < b.Outcome
	})
	return out
}
