package hw

import (
	"fmt"
	"io"
	"math"
)

// cpuTest: each event counts the primes up to --cpu-max-prime by trial
// division up to each number's square root.
var cpuTest = &Test{
	Name: "cpu", Desc: "CPU performance test",
	Options: []Option{{"cpu-max-prime", "N", "upper limit for primes generator", "10000", false}},
	Preamble: func(w io.Writer, v Values) {
		fmt.Fprintf(w, "Prime numbers limit: %d\n\n", v.Int("cpu-max-prime"))
	},
	Summary: func(w io.Writer, _ Values, events int64, secs float64) {
		fmt.Fprintf(w, "CPU speed:\n    events per second: %8.2f\n", float64(events)/secs)
	},
	newRun: func(v Values, _ int) func(int) event {
		limit := v.Int("cpu-max-prime")
		return func(int) event {
			return func() bool {
				primes(limit)
				return false
			}
		}
	},
}

// sink keeps the compiler from dropping work whose result nothing reads.
var sink int64

func primes(limit int64) {
	n := int64(0)
	for c := int64(3); c < limit; c++ {
		t := int64(math.Sqrt(float64(c)))
		l := int64(2)
		for ; l <= t; l++ {
			if c%l == 0 {
				break
			}
		}
		if l > t {
			n++
		}
	}
	sink += n
}
