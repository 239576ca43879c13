package linesearch

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// capacity is a server that sustains up to c.
func capacity(c int, asked map[int]int) Probe {
	return func(_ context.Context, n int) (bool, string, error) {
		asked[n]++
		return n <= c, "", nil
	}
}

func TestSearchFindsTheCapacity(t *testing.T) {
	for _, w := range []int{1, 2, 7, 40, 1000} {
		for c := 0; c <= w+1; c++ {
			for _, est := range []int{0, 1, w} {
				asked := map[int]int{}
				cfg := Config{Max: w, Estimate: est}
				o, err := Search(context.Background(), cfg, capacity(c, asked))
				if err != nil {
					t.Fatal(err)
				}
				prec := max(1, w/200)
				want := min(c, w)
				if o.Best > want || want-o.Best >= prec || o.AtMax != (c >= w) {
					t.Fatalf("W=%d capacity %d estimate %d: best %d, at max %v, steps %+v", w, c, est, o.Best, o.AtMax, o.Steps)
				}
				cfg.Check()
				if len(o.Steps) > cfg.MaxProbes() {
					t.Errorf("W=%d capacity %d estimate %d: %d probes, bound %d", w, c, est, len(o.Steps), cfg.MaxProbes())
				}
				for n, k := range asked {
					if k > 1 {
						t.Errorf("level %d probed %d times", n, k)
					}
				}
			}
		}
	}
}

func TestBaseline(t *testing.T) {
	asked := map[int]int{}
	o, err := Search(context.Background(), Config{Max: 40, Baseline: 20}, capacity(25, asked))
	if err != nil || !o.Held || len(o.Steps) != 1 || o.Best != 20 {
		t.Errorf("a baseline that holds: %+v %v", o, err)
	}
	o, err = Search(context.Background(), Config{Max: 40, Baseline: 20, Above: true}, capacity(25, map[int]int{}))
	if err != nil || !o.Held || o.Best != 25 || o.Failed != 26 {
		t.Errorf("--above: %+v %v", o, err)
	}
	o, err = Search(context.Background(), Config{Max: 40, Baseline: 20}, capacity(13, map[int]int{}))
	if err != nil || o.Held || o.Best != 13 || o.Steps[0].N != 20 {
		t.Errorf("a baseline that fails: %+v %v", o, err)
	}
}

func TestSearchBadInput(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Max: 40, Estimate: -1}, "invalid --estimate=-1"},
		{Config{Max: 40, Estimate: 41}, "invalid --estimate=41"},
		{Config{Max: 40, Baseline: 50}, "invalid --baseline-max=50: above the loaded 40"},
		{Config{Max: 40, Above: true}, "--above goes with --baseline-max"},
		{Config{Max: 40, Precision: -2}, "invalid --precision=-2"},
	} {
		_, err := Search(context.Background(), tc.c, capacity(1, map[int]int{}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
	boom := errors.New("boom")
	_, err := Search(context.Background(), Config{Max: 4}, func(context.Context, int) (bool, string, error) { return false, "", boom })
	if !errors.Is(err, boom) {
		t.Errorf("a probe's error: %v", err)
	}
}
