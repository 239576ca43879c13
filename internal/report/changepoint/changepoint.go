// Package changepoint finds where the level of a series changes: E-divisive
// means (Matteson and James, "A Nonparametric Approach for Multiple Change
// Point Analysis of Multivariate Data", 2014), each candidate split judged
// by a permutation test, as MongoDB's and Hunter's (now Apache Otava's)
// original detectors did. The permutations are drawn from a seed, so the
// same series always gives the same answer.
package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Config tunes a detection; the zero value takes the defaults.
type Config struct {
	// MinSize is the fewest points on each side of a change (default 3): a
	// change needs that many nights after it before it can be told from an
	// outlier.
	MinSize int
	// Permutations is how many shuffles the test draws (default 10/Alpha
	// - 1, 999 at the default Alpha): enough that a change at p = Alpha
	// allows ten shuffles to split as well, so that whether a change of
	// p well under Alpha is kept does not hang on one or two shuffles.
	Permutations int
	// Alpha is the highest p-value a change may have (default 0.01).
	Alpha float64
	// Seed seeds the permutations.
	Seed uint64
}

func (c *Config) defaults() {
	if c.MinSize < 2 {
		c.MinSize = 3
	}
	if c.Alpha <= 0 {
		c.Alpha = 0.01
	}
	if c.Permutations <= 0 {
		c.Permutations = int(math.Ceil(10/c.Alpha)) - 1
	}
}

// Change is a change point: Index is the first point after it.
type Change struct {
	Index int
	Q     float64 // the divergence of the two sides (Q-hat)
	P     float64 // the permutation test's p-value
}

// Detect returns the series' change points in index order. Each round
// takes the best split of any segment found so far (the largest Q-hat over
// every split and every end of the segment's second part, as Otava's
// detector takes it), keeps it when fewer than Alpha of the permuted
// segments split as well, and stops at the first that is not kept.
func Detect(xs []float64, c Config) []Change {
	c.defaults()
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	bounds := []int{0, len(xs)}
	var out []Change
	var sc scratch
	for {
		s, e, tau, q := -1, -1, 0, 0.0
		for i := 0; i+1 < len(bounds); i++ {
			t, v := sc.best(xs[bounds[i]:bounds[i+1]], c.MinSize)
			if t > 0 && (s < 0 || v > q) {
				s, e, tau, q = bounds[i], bounds[i+1], bounds[i]+t, v
			}
		}
		if s < 0 {
			break
		}
		seg := slices.Clone(xs[s:e])
		hits := 0
		for range c.Permutations {
			rng.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
			if _, v := sc.best(seg, c.MinSize); v >= q {
				hits++
			}
			if float64(hits+1)/float64(c.Permutations+1) > c.Alpha {
				break // it cannot be kept any more
			}
		}
		p := float64(hits+1) / float64(c.Permutations+1)
		if p > c.Alpha {
			break
		}
		out = append(out, Change{Index: tau, Q: q, P: p})
		i, _ := slices.BinarySearch(bounds, tau)
		bounds = slices.Insert(bounds, i, tau)
	}
	slices.SortFunc(out, func(a, b Change) int { return a.Index - b.Index })
	return out
}

// scratch holds one segment's prefix sums and reciprocals, reused.
type scratch struct{ p, diag, inv []float64 }

// best is a segment's split with the largest Q-hat: its index (0 for
// none: the segment is shorter than two MinSize parts) and Q-hat.
func (sc *scratch) best(x []float64, k int) (int, float64) {
	n := len(x)
	if n < 2*k {
		return 0, 0
	}
	// p[a*(n+1)+b] is the sum of |x_i - x_j| over i < a, j < b: symmetric
	// in a and b, so every block below reads row a = tau and the diagonal.
	w := n + 1
	if cap(sc.p) < w*w {
		sc.p = make([]float64, w*w)
		sc.diag = make([]float64, w)
		sc.inv = make([]float64, w)
	}
	p, diag, inv := sc.p[:w*w], sc.diag[:w], sc.inv[:w]
	for b := range w {
		p[b] = 0
	}
	for a := 1; a <= n; a++ {
		row := 0.0
		p[a*w] = 0
		xi := x[a-1]
		prev, cur := p[(a-1)*w:a*w], p[a*w:(a+1)*w]
		for b := 1; b <= n; b++ {
			d := xi - x[b-1]
			if d < 0 {
				d = -d
			}
			row += d
			cur[b] = prev[b] + row
		}
		diag[a] = cur[a]
		inv[a] = 1 / float64(a)
	}
	bestTau, bestQ := 0, 0.0
	for tau := k; tau+k <= n; tau++ {
		// Q-hat of x[:tau] against x[tau:kappa], as the definition's
		// 2 cross/(nx+my) - 2 my withinX/((nx+my)(nx-1)) - 2 nx withinY/((nx+my)(my-1)).
		nx, dt := float64(tau), diag[tau]
		wx := dt / 2 * inv[tau-1]
		row := p[tau*w : (n+1)*w]
		for kappa := tau + k; kappa <= n; kappa++ {
			m := kappa - tau
			my := float64(m)
			cross := row[kappa] - dt
			withinY := (diag[kappa] - 2*row[kappa] + dt) / 2
			q := 2 * inv[tau+m] * (cross - my*wx - nx*withinY*inv[m-1])
			if bestTau == 0 || q > bestQ {
				bestTau, bestQ = tau, q
			}
		}
	}
	return bestTau, bestQ
}
