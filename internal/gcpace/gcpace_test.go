package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		live, headroom uint64
		want           int
	}{
		{3 << 20, 64 << 20, 1600}, // capped: the minimum goal is then the headroom
		{5 << 20, 64 << 20, 1280},
		{32 << 20, 32 << 20, 100},
		{200 << 20, 32 << 20, 100}, // large heaps keep Go's default
		{1 << 10, 32 << 20, 800},
		{0, 32 << 20, 800},
		{1 << 20, 1 << 20, 100},
	} {
		if got := Percent(tc.live, tc.headroom); got != tc.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", tc.live, tc.headroom, got, tc.want)
		}
	}
}

// gcPercent reads the current setting without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// collectUntil runs collections (each one runs the pacer's finalizer soon
// after) until cond holds, at most 50 times.
func collectUntil(cond func() bool) bool {
	for i := 0; i < 50; i++ {
		if cond() {
			return true
		}
		runtime.GC()
		runtime.Gosched()
	}
	return cond()
}

func TestPacerFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	before := gcPercent()
	p := Start(64 << 20)
	if p == nil {
		t.Fatal("Start returned nil without GOGC")
	}
	// The test binary's heap is a few MB: the pacer raises the percentage.
	if !collectUntil(func() bool { return p.Percent() > 400 && gcPercent() == p.Percent() }) {
		t.Fatalf("small heap: percent %d (runtime %d), want > 400", p.Percent(), gcPercent())
	}
	// 96 MB held live is more than the headroom: back to Go's default.
	big := make([]byte, 96<<20)
	for i := 0; i < len(big); i += 4096 { // a byte a page: the pages are in use
		big[i] = 1
	}
	if !collectUntil(func() bool { return p.Percent() == 100 && gcPercent() == 100 }) {
		t.Fatalf("large heap: percent %d (runtime %d), want 100", p.Percent(), gcPercent())
	}
	runtime.KeepAlive(big)
	big = nil
	if !collectUntil(func() bool { return p.Percent() > 400 }) {
		t.Fatalf("heap released: percent %d, want > 400 again", p.Percent())
	}
	p.Stop()
	if got := gcPercent(); got != before {
		t.Fatalf("Stop left GC percent %d, want %d", got, before)
	}
	// Stopped: later collections change nothing.
	collectUntil(func() bool { return false })
	if got := gcPercent(); got != before {
		t.Fatalf("after Stop a collection set GC percent %d, want %d", got, before)
	}
}

func TestGOGCWins(t *testing.T) {
	t.Setenv("GOGC", "50")
	if p := Start(64 << 20); p != nil {
		p.Stop()
		t.Fatal("Start tuned the collector although GOGC is set")
	}
}
