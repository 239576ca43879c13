// Package bisect finds the first bad build in an ordered list of builds,
// the first known good and the last known bad: it measures the two ends
// interleaved, stops unless the last is significantly worse, then
// binary-searches the builds between, deciding each probe by its repeats
// against both ends. It runs nothing itself: Measure runs (or reads back)
// one repeat of a build, Judge compares two sets of repeats.
package bisect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Verdict is one set of repeats (cand) against another (base): the ratio
// of the medians with its interval, the test's p and whether it is
// significant; Text words it ("QPS -41% (95% CI ...)").
type Verdict struct {
	Ratio, Lo, Hi, P float64
	Significant      bool
	Text             string
}

// Judge compares cand's values against base's (higher is better).
type Judge func(base, cand []float64) Verdict

// Config is one bisection.
type Config struct {
	Builds     []string // in build order: the first good, the last bad
	Repeats    int      // each build's runs at first
	MaxRepeats int      // an unclear probe's runs at most
	Step       string   // what is measured, for the output
	// Measure is the metric (and its name: QPS) of build's run number
	// repeat (1-based): run now, or read back from an earlier bisection's
	// results.
	Measure func(ctx context.Context, build string, repeat int) (float64, string, error)
	Judge   Judge
	Out     io.Writer

	unit *string // the metric's name, from the first run
}

// Probe is one build measured, with its decision.
type Probe struct {
	Build    string
	Index    int // in Builds
	Role     string
	Values   []float64
	VsGood   Verdict // against the first build
	VsBad    Verdict // against the last build
	Decision string  // good, bad, or why unclear and how it was decided
	Good     bool
}

// Outcome is what a bisection found.
type Outcome struct {
	Regression bool    // the last build is significantly worse than the first
	Ends       Verdict // the last build against the first
	LastGood   *Probe
	FirstBad   *Probe
	Change     Verdict // FirstBad against LastGood
	Probes     []*Probe
	Unit       string // the metric's name
}

// MaxProbes is the most builds a bisection of n builds probes between its
// two ends: ceil(log2(n-1)).
func MaxProbes(n int) int {
	p := 0
	for gap := n - 1; gap > 1; gap = (gap + 1) / 2 {
		p++
	}
	return p
}

// Run bisects.
func Run(ctx context.Context, c Config) (*Outcome, error) {
	c.unit = new(string)
	if len(c.Builds) < 2 {
		return nil, errors.New("bisect needs at least two builds: the first known good and the last known bad")
	}
	if c.MaxRepeats < c.Repeats {
		c.MaxRepeats = c.Repeats
	}
	n := len(c.Builds)
	good := &Probe{Build: c.Builds[0], Index: 0, Role: "good (given)", Good: true}
	bad := &Probe{Build: c.Builds[n-1], Index: n - 1, Role: "bad (given)"}
	fmt.Fprintf(c.Out, "Bisect of %d builds, %s (good) .. %s (bad), on %s: %d repeats each, the two ends interleaved\n",
		n, good.Build, bad.Build, c.Step, c.Repeats)
	// The ends alternate good, bad, bad, good, ...: a drift in time falls on
	// both alike, and each switch is one deploy.
	for r := 1; r <= c.Repeats; r++ {
		order := []*Probe{good, bad}
		if r%2 == 0 {
			order = []*Probe{bad, good}
		}
		for _, p := range order {
			if err := c.measure(ctx, p, r); err != nil {
				return nil, err
			}
		}
	}
	out := &Outcome{Ends: c.Judge(good.Values, bad.Values), Probes: []*Probe{good, bad}, Unit: *c.unit}
	fmt.Fprintf(c.Out, "Ends: %s %s against %s %s: %s\n", bad.Build, c.median(bad), good.Build, c.median(good), out.Ends.Text)
	if !out.Ends.Significant || out.Ends.Ratio >= 1 {
		fmt.Fprintf(c.Out, "No regression to bisect: %s is not significantly worse than %s\n", bad.Build, good.Build)
		return out, nil
	}
	out.Regression = true
	fmt.Fprintf(c.Out, "Bisecting the %d builds between (at most %d probes)\n", n-2, MaxProbes(n))
	lo, hi := good, bad
	for hi.Index-lo.Index > 1 {
		mid := &Probe{Build: c.Builds[(lo.Index+hi.Index)/2], Index: (lo.Index + hi.Index) / 2, Role: "probe"}
		if err := c.decide(ctx, mid, good, bad); err != nil {
			return nil, err
		}
		out.Probes = append(out.Probes, mid)
		if mid.Good {
			lo = mid
		} else {
			hi = mid
		}
	}
	out.LastGood, out.FirstBad = lo, hi
	out.Change = c.Judge(lo.Values, hi.Values)
	return out, nil
}

// measure adds p's run number r.
func (c Config) measure(ctx context.Context, p *Probe, r int) error {
	v, unit, err := c.Measure(ctx, p.Build, r)
	if err != nil {
		return err
	}
	*c.unit = unit
	p.Values = append(p.Values, v)
	return nil
}

// decide measures a probe until its repeats side with one end: not
// different from one and significantly different from the other. Unclear
// after MaxRepeats, the closer end (by the ratio of medians) decides.
func (c Config) decide(ctx context.Context, p, good, bad *Probe) error {
	for r := 1; ; r++ {
		if err := c.measure(ctx, p, r); err != nil {
			return err
		}
		if r < c.Repeats {
			continue
		}
		p.VsGood, p.VsBad = c.Judge(good.Values, p.Values), c.Judge(bad.Values, p.Values)
		switch {
		case !p.VsGood.Significant && p.VsBad.Significant:
			p.Good, p.Decision = true, "good"
		case p.VsGood.Significant && !p.VsBad.Significant:
			p.Good, p.Decision = false, "bad"
		case r < c.MaxRepeats:
			fmt.Fprintf(c.Out, "Probe %s: unclear after %d repeats (against %s p=%.3f, against %s p=%.3f): one more repeat\n",
				p.Build, r, good.Build, p.VsGood.P, bad.Build, p.VsBad.P)
			continue
		default:
			p.Good = math.Abs(math.Log(p.VsGood.Ratio)) < math.Abs(math.Log(p.VsBad.Ratio))
			side := map[bool]string{true: "good", false: "bad"}[p.Good]
			p.Decision = fmt.Sprintf("%s (unclear after %d repeats, --max-repeats: decided by the closer median)", side, r)
		}
		fmt.Fprintf(c.Out, "Probe %s: %s; against %s %s; against %s %s: %s\n", p.Build, c.median(p), good.Build, p.VsGood.Text, bad.Build, p.VsBad.Text, p.Decision)
		return nil
	}
}

func (c Config) median(p *Probe) string {
	return fmt.Sprintf("%.2f %s (median of %d)", median(p.Values), *c.unit, len(p.Values))
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Table writes the outcome as a regression report's table (markdown):
// last good and first bad, the change, and every build measured.
func (o *Outcome) Table(w io.Writer) {
	unit := o.Unit
	if o.Regression {
		fmt.Fprintf(w, "| | build | %s (median) | runs |\n|---|---|---:|---:|\n", unit)
		fmt.Fprintf(w, "| last good | %s | %.2f | %d |\n", o.LastGood.Build, median(o.LastGood.Values), len(o.LastGood.Values))
		fmt.Fprintf(w, "| first bad | %s | %.2f | %d |\n\n", o.FirstBad.Build, median(o.FirstBad.Values), len(o.FirstBad.Values))
		fmt.Fprintf(w, "Change from %s to %s: %s\n\n", o.LastGood.Build, o.FirstBad.Build, o.Change.Text)
	}
	fmt.Fprintf(w, "| build | role | runs | %s (median) | against the first | against the last | decision |\n|---|---|---:|---:|---|---|---|\n", unit)
	ps := append([]*Probe(nil), o.Probes...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].Index < ps[j].Index })
	for _, p := range ps {
		vg, vb := p.VsGood.Text, p.VsBad.Text
		if p.Role != "probe" {
			vg, vb = "", ""
		}
		dec := p.Decision
		if dec == "" {
			dec = strings.TrimSuffix(p.Role, " (given)")
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.2f | %s | %s | %s |\n", p.Build, p.Role, len(p.Values), median(p.Values), vg, vb, dec)
	}
}
