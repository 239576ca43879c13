package compare

import (
	"fmt"
	"math"
	"sort"

	"golang.org/x/perf/benchmath"
)

// Cells with repeats are judged as benchstat judges Go benchmarks: the
// medians, and benchmath's Mann-Whitney U test of whether the two sets of
// throughputs come from one distribution. benchmath gives no interval for a
// difference of two samples, so the ratio's interval is the distribution-free
// one that goes with the U test (Hodges-Lehmann: order statistics of all
// pairwise ratios, cut where the exact U distribution puts 2.5% each side).

// Confidence of the intervals; the test's alpha is 1 - Confidence.
const Confidence = 0.95

// Stat is the comparison of one cell's repeats.
type Stat struct {
	N1, N2        int
	Ratio         float64 // median candidate / median baseline
	Lo, Hi        float64 // the ratio's 95% interval; NaN when the repeats are too few for one
	P             float64
	Significant   bool
	Need          int // repeats per side the test needs to tell anything; 0 when enough
	BaseMed, CMed float64
}

// cellStat compares the throughputs of a cell's baseline and candidate
// repeats.
func cellStat(base, cand []float64) Stat {
	th := benchmath.DefaultThresholds
	th.CompareAlpha = 1 - Confidence
	b := benchmath.NewSample(append([]float64(nil), base...), &th)
	c := benchmath.NewSample(append([]float64(nil), cand...), &th)
	sb, sc := benchmath.AssumeNothing.Summary(b, Confidence), benchmath.AssumeNothing.Summary(c, Confidence)
	cmp := benchmath.AssumeNothing.Compare(b, c)
	st := Stat{N1: len(base), N2: len(cand), P: cmp.P, BaseMed: sb.Center, CMed: sc.Center, Lo: math.NaN(), Hi: math.NaN()}
	if sb.Center > 0 {
		st.Ratio = sc.Center / sb.Center
	}
	st.Significant = cmp.P <= cmp.Alpha && len(base) > 1 && len(cand) > 1
	if n := minRepeats(); !st.Significant && (len(base) < n || len(cand) < n) {
		st.Need = n
	}
	st.Lo, st.Hi = ratioInterval(b.Values, c.Values, 1-Confidence)
	return st
}

// minRepeats is the fewest repeats per side with which the U test can
// reject at all at 1 - Confidence.
func minRepeats() int {
	n := 2
	for minUTestP(n, n) > 1-Confidence {
		n++
	}
	return n
}

// minUTestP is the smallest two-sided p-value the U test can give for
// samples of m and n: both orders (all of one above the other) out of
// C(m+n, m).
func minUTestP(m, n int) float64 {
	return 2 / binomial(m+n, m)
}

func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// ratioInterval is the Hodges-Lehmann interval of cand/base at level
// 1-alpha: the (k+1)-th smallest and largest of the m*n ratios, k the
// largest count with P(U <= k) <= alpha/2 under the exact null
// distribution of U. NaN when no k exists (too few repeats).
func ratioInterval(base, cand []float64, alpha float64) (lo, hi float64) {
	m, n := len(base), len(cand)
	if m == 0 || n == 0 {
		return math.NaN(), math.NaN()
	}
	k := uCritical(m, n, alpha/2)
	if k < 0 {
		return math.NaN(), math.NaN()
	}
	r := make([]float64, 0, m*n)
	for _, c := range cand {
		for _, b := range base {
			if b > 0 {
				r = append(r, c/b)
			}
		}
	}
	if len(r) != m*n {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(r)
	return r[k], r[len(r)-1-k]
}

// uCritical is the largest k with P(U <= k) <= p for samples of m and n
// (-1 when even P(U = 0) > p), from the exact distribution of U: the count
// of ways to interleave the samples with U = u.
func uCritical(m, n int, p float64) int {
	if m > 60 || n > 60 {
		// The normal approximation is exact enough there.
		mu, sd := float64(m*n)/2, math.Sqrt(float64(m*n*(m+n+1))/12)
		return int(math.Floor(mu - 1.959963984540054*sd))
	}
	// f[i][j][u]: interleavings of i and j values with U = u.
	f := make([][][]float64, m+1)
	for i := range f {
		f[i] = make([][]float64, n+1)
		for j := range f[i] {
			f[i][j] = make([]float64, i*j+1)
			switch {
			case i == 0 || j == 0:
				f[i][j][0] = 1
			default:
				for u := range f[i][j] {
					// The largest value is from the first sample (it
					// beats all j of the second) or from the second.
					if u-j >= 0 && u-j < len(f[i-1][j]) {
						f[i][j][u] += f[i-1][j][u-j]
					}
					if u < len(f[i][j-1]) {
						f[i][j][u] += f[i][j-1][u]
					}
				}
			}
		}
	}
	total := binomial(m+n, m)
	cum, k := 0.0, -1
	for u, c := range f[m][n] {
		cum += c
		if cum/total > p {
			break
		}
		k = u
	}
	return k
}

// String is the cell's verdict, as benchstat words one:
// "QPS +39% (95% CI +35% .. +43%, p=0.008, n=5+5)".
func (s Stat) String(unit string) string {
	n := fmt.Sprintf("n=%d+%d", s.N1, s.N2)
	if s.N1 < 2 || s.N2 < 2 {
		return fmt.Sprintf("%s %+.0f%% from one run each: too few to tell from noise (repeat each cell %d times, --repeat=%d)", unit, (s.Ratio-1)*100, max(s.Need, 5), max(s.Need, 5))
	}
	if !s.Significant {
		if s.Need > 0 {
			return fmt.Sprintf("~ no significant change (p=%.2f, %s; the test needs %d repeats per side to tell anything)", s.P, n, s.Need)
		}
		return fmt.Sprintf("~ no significant change (p=%.2f, %s)", s.P, n)
	}
	ci := "interval needs more repeats"
	if !math.IsNaN(s.Lo) {
		ci = fmt.Sprintf("95%% CI %+.0f%% .. %+.0f%%", (s.Lo-1)*100, (s.Hi-1)*100)
	}
	return fmt.Sprintf("%s %+.0f%% (%s, p=%.3f, %s)", unit, (s.Ratio-1)*100, ci, s.P, n)
}

// Judge compares two sets of throughputs as report compare judges a
// cell's repeats (cand against base); for callers that decide on repeats
// themselves (bisect).
func Judge(base, cand []float64) Stat { return cellStat(base, cand) }

// MinRepeats is the fewest repeats per side with which Judge can find a
// significant difference at all.
func MinRepeats() int { return minRepeats() }
