package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Apache Otava's published examples (tests/change_point_divisive_test.py
// and tests/analysis_test.py): the series and the change points its
// detectors find.
func TestOtavaExamples(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		c    Config
		want []int
	}{
		{"two steps (permutation test, 100 permutations, p < 0.01)",
			[]float64{0.3, 2.4, 1.5, -0.9, -0.5, 99.7, 98.3, 99.1, 149.0, 149.7, 149.5, 149.1, 148.8, 150.0},
			Config{Permutations: 100, Alpha: 0.01, Seed: 1, MinSize: 2}, []int{5, 8}},
		{"one step of a half",
			[]float64{1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01, 0.98, 1.01, 0.96, 0.50, 0.51, 0.48, 0.48, 0.55, 0.50, 0.49, 0.51, 0.50, 0.49},
			Config{Seed: 1}, []int{10}},
	} {
		got := indexes(Detect(tc.xs, tc.c))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: change points %v, want %v", tc.name, got, tc.want)
		}
	}
}

func indexes(cs []Change) []int {
	var out []int
	for _, c := range cs {
		out = append(out, c.Index)
	}
	return out
}

// slowQ is Q-hat of x[:tau] against x[tau:kappa] from its definition:
// tau(kappa-tau)/kappa times the energy distance, with every pair summed.
func slowQ(x []float64, tau, kappa int) float64 {
	X, Y := x[:tau], x[tau:kappa]
	n, m := float64(len(X)), float64(len(Y))
	var between, inX, inY float64
	for _, a := range X {
		for _, b := range Y {
			between += math.Abs(a - b)
		}
	}
	for i := range X {
		for j := i + 1; j < len(X); j++ {
			inX += math.Abs(X[i] - X[j])
		}
	}
	for i := range Y {
		for j := i + 1; j < len(Y); j++ {
			inY += math.Abs(Y[i] - Y[j])
		}
	}
	e := 2/(n*m)*between - inX/(n*(n-1)/2) - inY/(m*(m-1)/2)
	return n * m / (n + m) * e
}

// The prefix-sum Q-hat agrees with the definition at every split.
func TestBestAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 20; trial++ {
		x := make([]float64, 5+r.IntN(30))
		for i := range x {
			x[i] = r.NormFloat64() + float64(i/8)
		}
		var sc scratch
		tau, q := sc.best(x, 2)
		wantTau, wantQ := 0, math.Inf(-1)
		for a := 2; a+2 <= len(x); a++ {
			for b := a + 2; b <= len(x); b++ {
				if v := slowQ(x, a, b); v > wantQ {
					wantTau, wantQ = a, v
				}
			}
		}
		if tau != wantTau || math.Abs(q-wantQ) > 1e-9*math.Max(1, math.Abs(wantQ)) {
			t.Errorf("series of %d: best split %d (Q %g), the definition's %d (Q %g)", len(x), tau, q, wantTau, wantQ)
		}
	}
}

// Too short to split, constant, and the same answer for the same seed.
func TestEdges(t *testing.T) {
	for _, xs := range [][]float64{nil, {1}, {1, 2, 3, 4, 5}, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5}} {
		if got := Detect(xs, Config{}); len(got) != 0 {
			t.Errorf("%v: changes %v", xs, got)
		}
	}
	xs := stepSeries(2, 60, 30, 100, 3, -6)
	a, b := Detect(xs, Config{Seed: 9}), Detect(xs, Config{Seed: 9})
	if !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("the same series and seed: %v and %v", a, b)
	}
}

// BenchmarkDetect365 is a year of nights with one step.
func BenchmarkDetect365(b *testing.B) {
	xs := stepSeries(2, 365, 200, 100, 3, -10)
	for _, c := range []struct {
		name  string
		perms int
	}{{"default", 0}, {"199-shuffles", 199}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Detect(xs, Config{Seed: 1, Permutations: c.perms})
			}
		})
	}
}

// TestTwelveNights: seven nights at one level and five a fifth lower, the
// shape of a short nightly history. Every split of a twelve-night series
// is one of 792 ways to place the five, so the change's exact p-value is a
// few thousandths: under the default Alpha (0.01) it is kept for every
// seed of the shuffles, and under 0.001 for none.
func TestTwelveNights(t *testing.T) {
	xs := []float64{911, 953, 874, 915, 858, 949, 925, 796, 753, 678, 690, 699}
	var kept, strict, few int
	var ps []float64
	for seed := uint64(1); seed <= 20; seed++ {
		got := Detect(xs, Config{Seed: seed})
		if slices.Equal(indexes(got), []int{7}) {
			kept++
			ps = append(ps, got[0].P)
		}
		if len(Detect(xs, Config{Seed: seed, Alpha: 0.001})) == 0 {
			strict++
		}
		if len(Detect(xs, Config{Seed: seed, Permutations: 199})) == 1 {
			few++
		}
	}
	t.Logf("kept at 0.01 for %d of 20 seeds (p %v), at 0.001 for %d; with 199 shuffles kept for %d", kept, ps, 20-strict, few)
	if kept != 20 || strict != 20 {
		t.Errorf("kept at 0.01 for %d of 20 seeds, at 0.001 for %d: want 20 and 0", kept, 20-strict)
	}
}

// stepSeries is n points around level with normal noise of sd (seeded),
// those from at on moved by step.
func stepSeries(seed uint64, n, at int, level, sd, step float64) []float64 {
	r := rand.New(rand.NewPCG(1, seed))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = level + sd*r.NormFloat64()
		if i >= at {
			xs[i] += step
		}
	}
	return xs
}
