// Package random is the deterministic generator shared by data generation
// and workers, with sysbench's distributions (uniform, gaussian, special,
// pareto, zipfian).
package random

import (
	"fmt"
	"math"
	"math/bits"
)

// Rand is a small, fast, deterministic generator (xoroshiro128+, as sysbench uses)
// with sysbench's distributions layered on top. Not safe for concurrent use:
// every worker and every chunk owns one.
type Rand struct {
	s0, s1 uint64
	dist   *Dist
}

// NewRand seeds a generator from any number of integers (seed, table, chunk ...),
// so a chunk's data depends on its coordinates alone.
func NewRand(keys ...uint64) *Rand {
	r := &Rand{}
	r.Seed(keys...)
	return r
}

// Seed resets the generator from keys via splitmix64.
func (r *Rand) Seed(keys ...uint64) {
	h := uint64(0x9E3779B97F4A7C15)
	for _, k := range keys {
		h = splitmix(h ^ splitmix(k+0x632BE59BD9B4E019))
	}
	r.s0 = splitmix(h)
	r.s1 = splitmix(r.s0 ^ 0xD1B54A32D192ED03)
	if r.s0|r.s1 == 0 {
		r.s1 = 1
	}
}

func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// Uint64 returns the next raw 64-bit value.
func (r *Rand) Uint64() uint64 {
	s0, s1 := r.s0, r.s1
	res := s0 + s1
	s1 ^= s0
	r.s0 = bits.RotateLeft64(s0, 55) ^ s1 ^ (s1 << 14)
	r.s1 = bits.RotateLeft64(s1, 36)
	return res
}

// Float64 returns a value in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) * (1.0 / (1 << 53)) }

// Uniform returns an integer in [a, b], uniformly.
func (r *Rand) Uniform(a, b int64) int64 {
	if b <= a {
		return a
	}
	n := uint64(b - a + 1)
	hi, _ := bits.Mul64(r.Uint64(), n)
	return a + int64(hi)
}

// SetDist selects the distribution used by Default.
func (r *Rand) SetDist(d *Dist) { r.dist = d }

// Default returns a value in [a, b] using the configured distribution
// (sysbench's sb_rand / sysbench.rand.default). Uniform when none is set.
func (r *Rand) Default(a, b int64) int64 {
	if r.dist == nil {
		return r.Uniform(a, b)
	}
	return r.dist.draw(r, a, b)
}

// Digits fills buf following a template: '#' becomes a random digit, '@' a
// random lowercase letter, anything else is copied (sysbench.rand.string).
// Digits come from 64-bit words, 19 per word with negligible bias for a
// benchmark, lowest first; two at a time where a run of '#' allows, which
// four at a time where a run of '#' allows, which quarters the divisions of
// this hottest loop of data generation.
func (r *Rand) Digits(buf []byte, template string) {
	buf = buf[:len(template)]
	var word uint64
	left := 0
	for i := 0; i < len(template); {
		switch template[i] {
		case '#':
			if left == 0 {
				word, left = r.Uint64(), 19
			}
			if left >= 4 && i+3 < len(template) && template[i+1] == '#' && template[i+2] == '#' && template[i+3] == '#' {
				q := (word % 10000) * 4
				copy(buf[i:i+4], digitQuads[q:q+4])
				word /= 10000
				left -= 4
				i += 4
				continue
			}
			if left >= 2 && i+1 < len(template) && template[i+1] == '#' {
				q := (word % 100) * 4
				buf[i], buf[i+1] = digitQuads[q], digitQuads[q+1]
				word /= 100
				left -= 2
				i += 2
				continue
			}
			buf[i] = '0' + byte(word%10)
			word /= 10
			left--
		case '@':
			buf[i] = 'a' + byte(r.Uniform(0, 25))
		default:
			buf[i] = template[i]
		}
		i++
	}
}

// digitQuads holds, for q in [0, 10000), the four digits of q lowest first:
// the order in which one-at-a-time extraction writes them (a pair is the
// first two of its entry).
var digitQuads = func() (t [40000]byte) {
	for q := range 10000 {
		for j, v := 0, q; j < 4; j, v = j+1, v/10 {
			t[4*q+j] = '0' + byte(v%10)
		}
	}
	return t
}()

// DistKind names a sysbench random distribution.
type DistKind int

const (
	DistUniform DistKind = iota
	DistGaussian
	DistSpecial
	DistPareto
	DistZipfian
)

var distNames = []string{"uniform", "gaussian", "special", "pareto", "zipfian"}

func (k DistKind) String() string { return distNames[k] }

// Dist holds a distribution and its parameters (--rand-type and --rand-*).
type Dist struct {
	Kind     DistKind
	SpecIter int     // --rand-spec-iter
	SpecPct  float64 // --rand-spec-pct
	SpecRes  float64 // --rand-spec-res
	ParetoH  float64 // --rand-pareto-h
	ZipfExp  float64 // --rand-zipfian-exp

	paretoPower    float64
	zipfS, zipfHX1 float64
}

// NewDist validates parameters and precomputes constants.
func NewDist(name string, specIter int, specPct, specRes, paretoH, zipfExp float64) (*Dist, error) {
	d := &Dist{SpecIter: specIter, SpecPct: specPct, SpecRes: specRes, ParetoH: paretoH, ZipfExp: zipfExp}
	found := false
	for i, n := range distNames {
		if n == name {
			d.Kind, found = DistKind(i), true
		}
	}
	if !found {
		return nil, fmt.Errorf("invalid --rand-type=%s: use uniform, gaussian, special, pareto or zipfian", name)
	}
	if specIter < 1 {
		return nil, fmt.Errorf("invalid --rand-spec-iter=%d: must be at least 1", specIter)
	}
	if specRes < 0 || specRes >= 100 {
		return nil, fmt.Errorf("invalid --rand-spec-res=%g: must be in [0, 100)", specRes)
	}
	if specPct < 0 || specPct > 100 {
		return nil, fmt.Errorf("invalid --rand-spec-pct=%g: must be in [0, 100]", specPct)
	}
	if paretoH <= 0 || paretoH >= 1 {
		return nil, fmt.Errorf("invalid --rand-pareto-h=%g: must be in (0, 1)", paretoH)
	}
	if zipfExp < 0 {
		return nil, fmt.Errorf("invalid --rand-zipfian-exp=%g: must be >= 0", zipfExp)
	}
	d.paretoPower = math.Log(paretoH) / math.Log(1-paretoH)
	d.zipfS = 2 - zipfHInv(zipfH(2.5, zipfExp)-zipfh(2, zipfExp), zipfExp)
	d.zipfHX1 = zipfH(1.5, zipfExp) - 1
	return d, nil
}

// Draw returns a value in [a, b] from d with r's numbers (sysbench.rand.gaussian,
// .special ... name the distribution; Default uses the configured one).
func (d *Dist) Draw(r *Rand, a, b int64) int64 { return d.draw(r, a, b) }

func (d *Dist) draw(r *Rand, a, b int64) int64 {
	switch d.Kind {
	case DistGaussian:
		t := float64(b - a + 1)
		sum := 0.0
		for i := 0; i < d.SpecIter; i++ {
			sum += r.Float64() * t
		}
		return a + int64(sum/float64(d.SpecIter))
	case DistSpecial:
		// 100-res % of values spread as a gaussian over the range; res % fall
		// uniformly into pct % of it, centred (sysbench's "special").
		t := float64(b - a)
		rangeSize := t * 100 / (100 - d.SpecRes)
		rnd := r.Float64()
		res := rnd * rangeSize
		if res < t {
			sum := 0.0
			for i := 0; i < d.SpecIter; i++ {
				sum += r.Float64()
			}
			return a + int64(sum*t/float64(d.SpecIter))
		}
		w := t * d.SpecPct / 100
		v := rnd*(w+1) + t/2 - t*d.SpecPct/200
		return clamp(a+int64(v), a, b)
	case DistPareto:
		return clamp(a+int64(float64(b-a+1)*math.Pow(r.Float64(), d.paretoPower)), a, b)
	case DistZipfian:
		return a + d.zipf(r, b-a+1) - 1
	default:
		return r.Uniform(a, b)
	}
}

func clamp(v, a, b int64) int64 {
	if v < a {
		return a
	}
	if v > b {
		return b
	}
	return v
}

// zipf draws from a bounded Zipf distribution on [1, n] by rejection-inversion
// (Hörmann and Derflinger, 1996), the method sysbench uses.
func (d *Dist) zipf(r *Rand, n int64) int64 {
	e := d.ZipfExp
	hn := zipfH(float64(n)+0.5, e)
	for {
		u := hn + r.Float64()*(d.zipfHX1-hn)
		x := zipfHInv(u, e)
		k := int64(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		if float64(k)-x <= d.zipfS || u >= zipfH(float64(k)+0.5, e)-zipfh(float64(k), e) {
			return k
		}
	}
}

// zipfH is the integral of the hat function, (x^(1-e) - 1)/(1-e), written
// through log so that e = 1 has its limit.
func zipfH(x, e float64) float64 {
	lx := math.Log(x)
	return expm1Over(lx*(1-e)) * lx
}

func zipfh(x, e float64) float64 { return math.Exp(-e * math.Log(x)) }

func zipfHInv(x, e float64) float64 {
	t := math.Max(-1, x*(1-e))
	return math.Exp(log1pOver(t) * x)
}

// expm1Over returns (exp(x)-1)/x, accurate near 0.
func expm1Over(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x/2*(1+x/3*(1+x/4))
}

// log1pOver returns log(1+x)/x, accurate near 0.
func log1pOver(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(1.0/2-x*(1.0/3-x/4))
}

// UniqueSeq hands out distinct 32-bit values in a pseudo-random order across
// all callers that share it (sysbench.rand.unique): a quadratic-residue
// permutation of a counter, so there are no repeats for 2^32 draws.
type UniqueSeq struct{ index, offset uint32 }

// NewUniqueSeq seeds the sequence.
func NewUniqueSeq(seed uint64) *UniqueSeq {
	return &UniqueSeq{index: permuteQPR(permuteQPR(uint32(seed)) + 0x682f0161),
		offset: permuteQPR(permuteQPR(uint32(seed>>32)) + 0x46790905)}
}

// At returns the i-th value of the sequence; i values that differ give values that differ.
func (u *UniqueSeq) At(i uint32) uint32 {
	return permuteQPR((permuteQPR(u.index+i) + u.offset) ^ 0x5bf03635)
}

func permuteQPR(x uint32) uint32 {
	const prime = 4294967291
	if x >= prime {
		return x
	}
	res := uint32(uint64(x) * uint64(x) % prime)
	if x <= prime/2 {
		return res
	}
	return prime - res
}
