package compare

import (
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// withImpacts are repeats of a run with one event of the impacts given
// (depth, seconds below 90%, recovery; recovery < 0: did not recover).
func withImpacts(impacts ...[3]float64) []*result.Result {
	var out []*result.Result
	for _, im := range impacts {
		i := &result.Impact{Depth: im[0], BelowSeconds: im[1], Recovered: im[2] >= 0, RecoverySeconds: max(im[2], 0)}
		out = append(out, &result.Result{Events: []result.Event{{Name: "add c_1", Outcome: "ok", Impact: i}}})
	}
	return out
}

// TestEventImpacts: two versions' impacts of the same event side by side,
// medians of the repeats, with a verdict only where the repeats' ranges are
// apart.
func TestEventImpacts(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []*result.Result
		want string
	}{
		{"deeper and longer", withImpacts([3]float64{-0.12, 19, 0}, [3]float64{-0.10, 18, 0}, [3]float64{-0.14, 20, 0}),
			withImpacts([3]float64{-0.38, 41, 12}, [3]float64{-0.35, 40, 11}, [3]float64{-0.40, 43, -1}),
			"8 threads, add c_1: v7.5 -12% for 19.0 s, recovered at once; v8.1 -38% for 41.0 s, 1 of 3 runs did not recover, recovered in 11.5 s (v8.1 deeper than v7.5; longer below 90% (19.0 -> 41.0 s))"},
		{"within the repeats", withImpacts([3]float64{-0.12, 19, 0}, [3]float64{-0.30, 25, 2}),
			withImpacts([3]float64{-0.2, 20, -1}, [3]float64{-0.25, 22, -1}),
			"8 threads, add c_1: v7.5 -21% for 22.0 s, recovered in 1.0 s; v8.1 -22% for 21.0 s, did not recover (v8.1 as deep as v7.5 within the repeats)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := &Table{Rows: []Row{{Threads: 8, Runs: [][]*result.Result{c.a, c.b}, Prev: []int{-1, 0}}}}
			got := tb.EventImpacts([]string{"v7.5", "v8.1"})
			if strings.Join(got, "\n") != c.want {
				t.Errorf("got  %s\nwant %s", strings.Join(got, "\n"), c.want)
			}
		})
	}
	if got := (&Table{Rows: []Row{{Threads: 8, Runs: [][]*result.Result{{{}}}, Prev: []int{-1}}}}).EventImpacts([]string{"v"}); got != nil {
		t.Errorf("runs without events: %v", got)
	}
}
