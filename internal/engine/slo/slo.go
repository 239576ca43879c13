// Package slo finds the thread count with the highest throughput whose p95
// latency stays within a limit, in few measurements: double the threads until
// the limit is broken, then bisect between the last good and the first bad
// count.
package slo

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Point is one measurement.
type Point struct {
	Threads    int
	Throughput float64 // QPS or tpmC
	TPS        float64
	MeanMs     float64
	P95Ms      float64
}

// Measure runs the workload at a thread count.
type Measure func(threads int) (Point, error)

// ParseRange reads "10-1000" (or a single number).
func ParseRange(s string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(s, "-")
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi = lo
	var err2 error
	if ok {
		hi, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	if err1 != nil || err2 != nil || lo < 1 || hi < lo {
		return 0, 0, fmt.Errorf("invalid thread range %q: use lo-hi, e.g. --threads=8-1024", s)
	}
	return lo, hi, nil
}

// Search measures at most maxSteps thread counts in [lo, hi] and returns
// the best point within limitMs (nil if even lo breaks it) and every point
// measured, in order. Bisection stops when the bracket is within 10%.
func Search(lo, hi int, limitMs float64, maxSteps int, m Measure) (*Point, []Point, error) {
	if maxSteps < 1 {
		return nil, nil, errors.New("maxSteps must be at least 1")
	}
	var tried []Point
	var best *Point
	measure := func(t int) (bool, error) {
		p, err := m(t)
		if err != nil {
			return false, err
		}
		tried = append(tried, p)
		ok := p.P95Ms <= limitMs
		if ok && (best == nil || p.Throughput > best.Throughput) {
			b := p
			best = &b
		}
		return ok, nil
	}
	ok, err := measure(lo)
	if err != nil || !ok {
		return best, tried, err
	}
	good, bad := lo, 0
	for good < hi && len(tried) < maxSteps {
		next := min(hi, good*2)
		ok, err := measure(next)
		if err != nil {
			return best, tried, err
		}
		if !ok {
			bad = next
			break
		}
		good = next
	}
	for bad > 0 && bad-good > max(1, good/10) && len(tried) < maxSteps {
		mid := (good + bad) / 2
		ok, err := measure(mid)
		if err != nil {
			return best, tried, err
		}
		if ok {
			good = mid
		} else {
			bad = mid
		}
	}
	return best, tried, nil
}
