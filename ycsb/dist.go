package ycsb

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/oltpbench/oltpbench/internal/random"
)

// fnv64 is go-ycsb's key scrambling: 64-bit FNV-1a over the number's
// eight bytes, most significant first (Go's hash/fnv over them, written
// out to stay off the heap), its sign dropped. Java YCSB takes the bytes
// lowest first; keys then agree only for record 0.
func fnv64(v int64) int64 {
	h := uint64(0xCBF29CE484222325)
	for i := 7; i >= 0; i-- {
		h ^= uint64(v>>(8*i)) & 0xff
		h *= 1099511628211
	}
	x := int64(h)
	if x < 0 {
		if x == math.MinInt64 {
			return math.MaxInt64
		}
		x = -x
	}
	return x
}

// zipfian draws 0..n-1, 0 the most often, as YCSB's ZipfianGenerator
// (Gray et al., "Quickly generating billion-record synthetic databases"):
// zeta(n) computed once, grown in place when n grows (the latest
// distribution's item count is the records inserted so far).
type zipfian struct {
	theta, alpha, zeta2 float64
	mu                  sync.Mutex
	n                   int64
	zetan, eta          float64
}

// zipfianConstant is YCSB's default skew.
const zipfianConstant = 0.99

func newZipfian(n int64, theta float64) *zipfian {
	z := &zipfian{theta: theta, alpha: 1 / (1 - theta), zeta2: zeta(0, 2, theta, 0)}
	z.grow(n)
	return z
}

// newZipfianZeta is a zipfian of n items whose zeta(n) is given (the
// scrambled zipfian's ten billion items: too many to sum).
func newZipfianZeta(n int64, theta, zetan float64) *zipfian {
	z := &zipfian{theta: theta, alpha: 1 / (1 - theta), zeta2: zeta(0, 2, theta, 0), n: n, zetan: zetan}
	z.eta = (1 - math.Pow(2/float64(n), 1-theta)) / (1 - z.zeta2/zetan)
	return z
}

// zeta is the sum of 1/i^theta for i in (from, to], added to sum.
func zeta(from, to int64, theta, sum float64) float64 {
	for i := from; i < to; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

func (z *zipfian) grow(n int64) {
	if n <= z.n {
		return
	}
	z.zetan = zeta(z.n, n, z.theta, z.zetan)
	z.n = n
	z.eta = (1 - math.Pow(2/float64(n), 1-z.theta)) / (1 - z.zeta2/z.zetan)
}

// next draws one of the first n items (n grows the distribution).
func (z *zipfian) next(r *random.Rand, n int64) int64 {
	z.mu.Lock()
	if n > z.n {
		z.grow(n)
	}
	zetan, eta := z.zetan, z.eta
	z.mu.Unlock()
	u := r.Float64()
	uz := u * zetan
	switch {
	case uz < 1:
		return 0
	case uz < 1+math.Pow(0.5, z.theta):
		return 1
	}
	v := int64(float64(n) * math.Pow(eta*u-eta+1, z.alpha))
	return min(v, n-1)
}

// chooser draws a record of the ones there are (count: the loaded and the
// acknowledged inserted ones).
type chooser interface {
	next(r *random.Rand, count int64) int64
}

type uniformChooser struct{}

func (uniformChooser) next(r *random.Rand, count int64) int64 { return r.Uniform(0, count-1) }

// scrambledZipfian is YCSB's zipfian request distribution: a zipfian over
// ten billion items, hashed onto the records, so the popular records are
// spread over the keyspace instead of being its first ones.
type scrambledZipfian struct{ z *zipfian }

const scrambledItems = 10_000_000_000

func newScrambledZipfian() scrambledZipfian {
	return scrambledZipfian{newZipfianZeta(scrambledItems, zipfianConstant, 26.46902820178302)}
}

func (s scrambledZipfian) next(r *random.Rand, count int64) int64 {
	return fnv64(s.z.next(r, scrambledItems)) % count
}

// latest draws the newest records the most: the newest minus a zipfian.
type latest struct{ z *zipfian }

func (l latest) next(r *random.Rand, count int64) int64 { return count - 1 - l.z.next(r, count) }

// hotspot sends opFraction of the draws to the first dataFraction of the
// records, the rest to the others, uniformly within each.
type hotspot struct{ dataFraction, opFraction float64 }

func (h hotspot) next(r *random.Rand, count int64) int64 {
	hot := max(1, int64(float64(count)*h.dataFraction))
	if r.Float64() < h.opFraction || hot >= count {
		return r.Uniform(0, hot-1)
	}
	return r.Uniform(hot, count-1)
}

// sequential draws the records in order, from the first again after the
// last.
type sequential struct{ n atomic.Int64 }

func (s *sequential) next(_ *random.Rand, count int64) int64 { return (s.n.Add(1) - 1) % count }

// exponential draws the newest records the most, their age exponential,
// so that percentile percent of the draws fall in the newest fraction of
// the records (an age beyond the oldest is drawn again), as YCSB's.
type exponential struct{ percentile, fraction float64 }

func (e exponential) next(r *random.Rand, count int64) int64 {
	gamma := -math.Log(1-e.percentile/100) / (float64(count) * e.fraction)
	for {
		if v := int64(-math.Log(1-r.Float64()) / gamma); v < count {
			return count - 1 - v
		}
	}
}

// newChooser is the requestdistribution's.
func newChooser(p *props, records int64) (chooser, error) {
	switch d := p.str("requestdistribution"); d {
	case "uniform":
		return uniformChooser{}, nil
	case "zipfian":
		return newScrambledZipfian(), nil
	case "latest":
		return latest{newZipfian(records, zipfianConstant)}, nil
	case "hotspot":
		return hotspot{p.float("hotspotdatafraction"), p.float("hotspotopnfraction")}, nil
	case "sequential":
		return &sequential{}, nil
	case "exponential":
		return exponential{p.float("exponential.percentile"), p.float("exponential.frac")}, nil
	default:
		return nil, fmt.Errorf("requestdistribution=%s: uniform, zipfian, latest, hotspot, sequential or exponential", d)
	}
}
