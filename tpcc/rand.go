// Package tpcc is TPC-C (v5.11): the nine tables and their spec population,
// the five transactions with the spec's input distributions, the deck mix,
// keying and think times, the run-time audit and the twelve consistency
// conditions. Table and column names are go-tpc's, so existing queries and
// dashboards work on an oltpbench dataset.
package tpcc

import (
	"github.com/oltpbench/oltpbench/internal/random"
)

// Constants of the population (clause 4.3.3.1) and the spec's sizes.
const (
	Items          = 100000
	DistPerWare    = 10
	CustPerDist    = 3000
	OrdPerDist     = 3000
	NewOrdFirst    = 2101 // orders >= this are undelivered and in NEW-ORDER
	StockPerWare   = Items
	unusedItem     = Items + 1
	maxLines       = 15
	minLines       = 5
	loadTimestamp  = "2026-01-01 00:00:00" // fixed so that files are the same on every load
	deliveredCount = NewOrdFirst - 1
)

// NURandC are the run-time constants C of NURand(A, x, y) (clause 2.1.6).
type NURandC struct {
	Last    int64 // A = 255, C_LAST
	ID      int64 // A = 1023, C_ID
	Item    int64 // A = 8191, OL_I_ID
	LastRun int64 // C for C_LAST during the run: |LastRun - Last| in [65, 119], not 96 or 112
}

// Constants derives the load and run constants from the dataset seed, so the
// run needs no more than the seed to respect the delta rule (2.1.6.1).
func Constants(seed uint64) NURandC {
	r := random.NewRand(seed, 0xC0C0)
	c := NURandC{Last: r.Uniform(0, 255), ID: r.Uniform(0, 1023), Item: r.Uniform(0, 8191)}
	for {
		run := r.Uniform(0, 255)
		d := run - c.Last
		if d < 0 {
			d = -d
		}
		if d >= 65 && d <= 119 && d != 96 && d != 112 {
			c.LastRun = run
			return c
		}
	}
}

// NURand is the spec's non-uniform random number in [x, y].
func NURand(r *random.Rand, a, c, x, y int64) int64 {
	return ((r.Uniform(0, a)|r.Uniform(x, y))+c)%(y-x+1) + x
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName appends the C_LAST of number n (0..999) to b (clause 4.3.2.3).
func LastName(b []byte, n int64) []byte {
	return append(append(append(b, syllables[n/100]...), syllables[n/10%10]...), syllables[n%10]...)
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// alnumByte maps a random byte to an alphanumeric character (a bias of
// 4/256 towards the first characters, immaterial for the benchmark).
var alnumByte = func() (t [256]byte) {
	for i := range t {
		t[i] = alnum[i%len(alnum)]
	}
	return t
}()

// aString appends a random alphanumeric string of length [lo, hi], eight
// characters per random word.
func aString(b []byte, r *random.Rand, lo, hi int64) []byte {
	n := int(r.Uniform(lo, hi))
	start := len(b)
	b = append(b, make([]byte, n)...)
	out := b[start:]
	for len(out) >= 8 {
		x := r.Uint64()
		_ = out[7]
		out[0], out[1], out[2], out[3] = alnumByte[byte(x)], alnumByte[byte(x>>8)], alnumByte[byte(x>>16)], alnumByte[byte(x>>24)]
		out[4], out[5], out[6], out[7] = alnumByte[byte(x>>32)], alnumByte[byte(x>>40)], alnumByte[byte(x>>48)], alnumByte[byte(x>>56)]
		out = out[8:]
	}
	if len(out) > 0 {
		x := r.Uint64()
		for i := range out {
			out[i] = alnumByte[byte(x)]
			x >>= 8
		}
	}
	return b
}

// nString appends n random digits.
func nString(b []byte, r *random.Rand, n int) []byte {
	var x uint64
	for i := 0; i < n; i++ {
		if i%19 == 0 {
			x = r.Uint64()
		}
		b = append(b, byte('0'+x%10))
		x /= 10
	}
	return b
}

// zip appends 4 random digits and "11111".
func zip(b []byte, r *random.Rand) []byte { return append(nString(b, r, 4), "11111"...) }

// data appends I_DATA / S_DATA: [26, 50] characters, "ORIGINAL" in 10% of rows.
func data(b []byte, r *random.Rand) []byte {
	start := len(b)
	b = aString(b, r, 26, 50)
	if r.Uniform(1, 10) == 1 {
		n := int64(len(b) - start)
		pos := start + int(r.Uniform(0, n-8))
		copy(b[pos:], "ORIGINAL")
	}
	return b
}

// mix is a deterministic hash for values two tables must agree on (an
// order's line count), independent of how rows are chunked.
func mix(seed uint64, keys ...int64) uint64 {
	h := seed ^ 0x9E3779B97F4A7C15
	for _, k := range keys {
		h ^= uint64(k)
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	return h
}

// olCount is O_OL_CNT of order (w, d, o): uniform in [5, 15].
func olCount(seed uint64, w, d, o int64) int64 { return minLines + int64(mix(seed, 1, w, d, o)%11) }

// customerPerm returns O_C_ID for orders 1..3000 of district (w, d): a
// random permutation of customer ids (clause 4.3.3.1).
func customerPerm(seed uint64, w, d int64, perm []int32) {
	r := random.NewRand(seed, 0x0C1D, uint64(w), uint64(d))
	for i := range perm {
		perm[i] = int32(i + 1)
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := r.Uniform(0, int64(i))
		perm[i], perm[j] = perm[j], perm[i]
	}
}
