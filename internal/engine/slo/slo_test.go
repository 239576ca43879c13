package slo

import "testing"

// A server that saturates at 64 threads: throughput flattens, latency grows
// with the queue beyond it.
func fake(calls *[]int) Measure {
	return func(th int) (Point, error) {
		*calls = append(*calls, th)
		t := float64(min(th, 64)) * 1000
		p95 := 2 + float64(th)*0.5
		if th > 64 {
			p95 += float64(th-64) * 2
		}
		return Point{Threads: th, Throughput: t, TPS: t / 20, MeanMs: p95 / 2, P95Ms: p95}, nil
	}
}

func TestSearchFindsBestWithinLimit(t *testing.T) {
	for _, c := range []struct {
		limit      float64
		lo, hi     int
		want       int // best thread count, within 10%
		wantNoBest bool
	}{
		{limit: 20, lo: 1, hi: 1024, want: 36},  // 2+0.5t <= 20 -> t <= 36
		{limit: 100, lo: 4, hi: 1024, want: 64}, // flat after 64: the first to reach 64k
		{limit: 1, lo: 1, hi: 1024, wantNoBest: true},
	} {
		var calls []int
		best, tried, err := Search(c.lo, c.hi, c.limit, 12, fake(&calls))
		if err != nil {
			t.Fatal(err)
		}
		if len(tried) > 12 || len(calls) != len(tried) {
			t.Errorf("limit %v: %d steps", c.limit, len(tried))
		}
		if c.wantNoBest {
			if best != nil {
				t.Errorf("limit %v: best %+v, want none", c.limit, best)
			}
			continue
		}
		if best == nil || best.P95Ms > c.limit || float64(best.Threads) < 0.9*float64(c.want) || best.Threads > c.want {
			t.Errorf("limit %v: best %+v, want about %d threads (tried %v)", c.limit, best, c.want, calls)
		}
	}
}

func TestParseRange(t *testing.T) {
	if lo, hi, err := ParseRange("8-1024"); err != nil || lo != 8 || hi != 1024 {
		t.Fatal(lo, hi, err)
	}
	for _, s := range []string{"0-4", "9-3", "x"} {
		if _, _, err := ParseRange(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
