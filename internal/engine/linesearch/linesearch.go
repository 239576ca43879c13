// Package linesearch finds the largest level in [1, Max] at which a probe
// passes, assuming that a level passes when any higher one does, as
// CockroachDB's tpccbench searches warehouses: start at an estimate, grow
// the step (doubling) in the direction the probes point until the first
// reversal, then halve the gap until the highest pass and the lowest failure
// are at most Precision apart. With a baseline it probes that level first
// and stops when it passes (a gate), searching below when it fails.
package linesearch

import (
	"context"
	"errors"
	"fmt"
)

// Probe runs (or reads back) the probe at level n: whether it passed, and
// why, in words.
type Probe func(ctx context.Context, n int) (pass bool, why string, err error)

// Config is one search.
type Config struct {
	Max       int // the highest level there is (the loaded warehouses)
	Estimate  int // where to start (default Max/2)
	Precision int // stop when the lowest failure - the highest pass <= it (default max(1, Max/200))
	Baseline  int // > 0: probe it first; pass: stop there (unless Above)
	Above     bool
}

// Step is one probe.
type Step struct {
	N    int
	Pass bool
	Why  string
}

// Outcome is what a search found.
type Outcome struct {
	Best    int // the highest level that passed; 0 for none
	Failed  int // the lowest level that failed; 0 for none
	Steps   []Step
	AtMax   bool // Max passed: the limit is above what there is
	Held    bool // the baseline passed
	Checked bool // a baseline was probed
}

// Check checks the search's settings, and fills in its defaults.
func (c *Config) Check() error {
	if c.Max < 1 {
		return errors.New("nothing to search: the loaded size is below 1")
	}
	if c.Estimate == 0 {
		c.Estimate = max(1, c.Max/2)
	}
	if c.Estimate < 1 || c.Estimate > c.Max {
		return fmt.Errorf("invalid --estimate=%d: between 1 and the loaded %d", c.Estimate, c.Max)
	}
	if c.Precision == 0 {
		c.Precision = max(1, c.Max/200)
	}
	if c.Precision < 1 {
		return fmt.Errorf("invalid --precision=%d: at least 1", c.Precision)
	}
	if c.Baseline < 0 || c.Baseline > c.Max {
		return fmt.Errorf("invalid --baseline-max=%d: above the loaded %d (load more, or give a lower baseline)", c.Baseline, c.Max)
	}
	if c.Above && c.Baseline == 0 {
		return errors.New("--above goes with --baseline-max: it searches upward from a baseline that holds")
	}
	return nil
}

// MaxProbes bounds a search's probes: the line search's growth from the
// estimate to an end, then the halving of the last step, as
// ceil(log2(Max/Precision)) twice, and the baseline's probe.
func (c Config) MaxProbes() int {
	n := 0
	for span := (c.Max + c.Precision - 1) / c.Precision; span > 1; span = (span + 1) / 2 {
		n++
	}
	p := 2*n + 1
	if c.Baseline > 0 {
		p++
	}
	return p
}

// Search runs the search; probe is asked each level once.
func Search(ctx context.Context, c Config, probe Probe) (*Outcome, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	o := &Outcome{}
	lo, hi := 0, c.Max+1 // the highest pass and the lowest failure so far
	seen := map[int]bool{}
	try := func(n int) (bool, error) {
		if v, ok := seen[n]; ok {
			return v, nil
		}
		pass, why, err := probe(ctx, n)
		if err != nil {
			return false, err
		}
		seen[n] = pass
		o.Steps = append(o.Steps, Step{N: n, Pass: pass, Why: why})
		if pass {
			lo = max(lo, n)
		} else {
			hi = min(hi, n)
		}
		return pass, nil
	}
	start := c.Estimate
	if c.Baseline > 0 {
		o.Checked = true
		held, err := try(c.Baseline)
		if err != nil {
			return o, err
		}
		o.Held = held
		if held && !c.Above {
			return o.done(lo, hi, c.Max), nil
		}
		start = c.Baseline
	}
	// Grow the step from the start in the direction the probes point,
	// until the first reversal (or an end).
	pass, err := try(start)
	if err != nil {
		return o, err
	}
	for step := c.Precision; hi-lo > c.Precision; step *= 2 {
		next := start + step
		if !pass {
			next = start - step
		}
		switch {
		case next > c.Max:
			next = c.Max
		case next < 1:
			next = 1
		}
		if next <= lo || next >= hi || next == start {
			break
		}
		p, err := try(next)
		if err != nil {
			return o, err
		}
		start = next
		if p != pass {
			break
		}
	}
	// Halve the gap between the highest pass and the lowest failure.
	for hi-lo > c.Precision && hi > 1 && lo < c.Max {
		if _, err := try((lo + hi) / 2); err != nil {
			return o, err
		}
	}
	return o.done(lo, hi, c.Max), nil
}

func (o *Outcome) done(lo, hi, maxN int) *Outcome {
	o.Best = lo
	if hi <= maxN {
		o.Failed = hi
	}
	o.AtMax = lo == maxN
	return o
}
