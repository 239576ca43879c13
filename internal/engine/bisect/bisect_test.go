package bisect

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/report/compare"
)

func judge(base, cand []float64) Verdict {
	s := compare.Judge(base, cand)
	return Verdict{Ratio: s.Ratio, Lo: s.Lo, Hi: s.Hi, P: s.P, Significant: s.Significant, Text: s.String("QPS")}
}

// builds simulates n builds whose throughput drops by drop from build
// first on (1-based; 0 for none), with noise; it counts the runs.
func builds(n, first int, drop, noise float64, seed uint64, runs map[string]int) ([]string, func(context.Context, string, int) (float64, string, error)) {
	var names []string
	for i := 1; i <= n; i++ {
		names = append(names, fmt.Sprintf("b%d", i))
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	return names, func(_ context.Context, b string, _ int) (float64, string, error) {
		runs[b]++
		var i int
		fmt.Sscanf(b, "b%d", &i)
		v := 1000.0
		if first > 0 && i >= first {
			v *= 1 - drop
		}
		return v * (1 + noise*(rng.Float64()*2-1)), "QPS", nil
	}
}

func TestBisectFindsTheFirstBadBuild(t *testing.T) {
	for _, first := range []int{2, 5, 7, 8} {
		for seed := uint64(1); seed <= 5; seed++ {
			runs := map[string]int{}
			names, m := builds(8, first, 0.3, 0.03, seed, runs)
			o, err := Run(context.Background(), Config{Builds: names, Repeats: 5, MaxRepeats: 10, Step: "s", Measure: m, Judge: judge, Out: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			if !o.Regression || o.FirstBad.Build != fmt.Sprintf("b%d", first) || o.LastGood.Build != fmt.Sprintf("b%d", first-1) {
				t.Errorf("regression at b%d, seed %d: found %v, %+v -> %+v", first, seed, o.Regression, o.LastGood, o.FirstBad)
				continue
			}
			if probes := len(o.Probes) - 2; probes > MaxProbes(8) {
				t.Errorf("b%d: %d probes, more than log2: %d", first, probes, MaxProbes(8))
			}
			if runs["b1"] != 5 || runs["b8"] != 5 || !o.Change.Significant || o.Change.Ratio > 0.75 {
				t.Errorf("b%d: ends ran %d and %d times, change %+v", first, runs["b1"], runs["b8"], o.Change)
			}
		}
	}
}

func TestBisectNoRegression(t *testing.T) {
	runs := map[string]int{}
	names, m := builds(8, 0, 0, 0.03, 3, runs)
	var out strings.Builder
	o, err := Run(context.Background(), Config{Builds: names, Repeats: 5, Step: "s", Measure: m, Judge: judge, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if o.Regression || len(runs) != 2 || !strings.Contains(out.String(), "No regression to bisect: b8 is not significantly worse than b1") {
		t.Errorf("no regression: %v, ran %v\n%s", o.Regression, runs, out.String())
	}
	// Better is not a regression either.
	names, m = builds(8, 4, -0.3, 0.03, 3, runs)
	if o, err := Run(context.Background(), Config{Builds: names, Repeats: 5, Step: "s", Measure: m, Judge: judge, Out: io.Discard}); err != nil || o.Regression {
		t.Errorf("an improvement bisected: %v %v", o.Regression, err)
	}
}

// TestBisectUnclear: a probe half-way between the ends sides with
// neither; it gets more repeats up to MaxRepeats, then the closer median
// decides, and the output says so.
func TestBisectUnclear(t *testing.T) {
	names := []string{"b1", "b2", "b3"}
	level := map[string]float64{"b1": 1000, "b2": 850, "b3": 700}
	closer := 0
	for seed := uint64(1); seed <= 20; seed++ {
		runs := map[string]int{}
		rng := rand.New(rand.NewPCG(seed, 1))
		m := func(_ context.Context, b string, _ int) (float64, string, error) {
			runs[b]++
			return level[b] * (1 + 0.15*(rng.Float64()*2-1)), "QPS", nil
		}
		var out strings.Builder
		o, err := Run(context.Background(), Config{Builds: names, Repeats: 4, MaxRepeats: 6, Step: "s", Measure: m, Judge: judge, Out: &out})
		if err != nil {
			t.Fatal(err)
		}
		if !o.Regression {
			continue
		}
		p := o.Probes[2]
		byMedian := strings.Contains(p.Decision, "decided by the closer median")
		if runs["b2"] > 6 || byMedian && runs["b2"] != 6 || runs["b2"] > 4 && !strings.Contains(out.String(), "Probe b2: unclear after 4 repeats") {
			t.Errorf("seed %d: b2 ran %d times, decision %q\n%s", seed, runs["b2"], p.Decision, out.String())
		}
		if byMedian {
			closer++
			if want := math.Abs(math.Log(p.VsGood.Ratio)) < math.Abs(math.Log(p.VsBad.Ratio)); p.Good != want {
				t.Errorf("seed %d: decided good=%v against the medians", seed, p.Good)
			}
		}
	}
	if closer == 0 {
		t.Error("no probe was left unclear at --max-repeats in 20 seeds: the test does not reach that path")
	}
}

func TestMaxProbes(t *testing.T) {
	for n, want := range map[int]int{2: 0, 3: 1, 4: 2, 5: 2, 8: 3, 9: 3, 10: 4, 17: 4} {
		if got := MaxProbes(n); got != want {
			t.Errorf("MaxProbes(%d) = %d, want %d", n, got, want)
		}
	}
}
