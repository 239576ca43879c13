package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// RunOptions shape the runner. A workload binds the ones it offers to its
// flags (names and defaults are its own), so every command spells them the
// same way: --time=300 and --time=5m alike.
type RunOptions struct {
	Time   time.Duration // 0: no limit
	Events int64
	Rate   float64
	// RateSchedule, when set, is the rate over the run (--rate=500@60s,...;
	// Rate is then its first level, so that the run is paced) and RateSpec
	// as given.
	RateSchedule   []Segment
	RateSpec       string
	Warmup         time.Duration
	ReportInterval time.Duration
	Checkpoints    []time.Duration
	Grace          time.Duration // 0: the runner's default
	Seed           int64         // the run's seed; 0: the current time
	// InitTimeout bounds the threads' start: connecting and preparing
	// (sysbench's --thread-init-timeout); 0: no bound.
	InitTimeout time.Duration
	// DryRun runs every statement as a no-op on no server (sysbench's
	// --mysql-dry-run): the client measured alone.
	DryRun bool
	// TimeFlag, WarmupFlag and RateFlag name the flags bound to Time,
	// Warmup and Rate (TimeVar, WarmupVar, RateVar), so that a plan can set
	// a step's time and warm-up and scale its rate schedule.
	TimeFlag, WarmupFlag, RateFlag string
}

// TimeVar binds Time to the flag name.
func (ro *RunOptions) TimeVar(fs *pflag.FlagSet, name string, def time.Duration, usage string) {
	ro.TimeFlag = name
	SecondsVar(fs, &ro.Time, name, def, usage)
}

// WarmupVar binds Warmup to the flag name.
func (ro *RunOptions) WarmupVar(fs *pflag.FlagSet, name string, def time.Duration, usage string) {
	ro.WarmupFlag = name
	SecondsVar(fs, &ro.Warmup, name, def, usage)
}

// Seconds is a duration flag that takes seconds (300, 0.5), as sysbench, or
// a Go duration (5m, 1m30s); with Off, also "off" for none.
type Seconds struct {
	P   *time.Duration
	Off bool // "off" is accepted (and shown) as 0
}

// ParseSeconds reads 300, 2.5 or 5m.
func ParseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if v < 0 {
			return 0, fmt.Errorf("%q is negative", s)
		}
		if v*float64(time.Second) >= math.MaxInt64 || math.IsNaN(v) { // beyond a Duration (292 years)
			return 0, fmt.Errorf("%q is more seconds than a run can last", s)
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not seconds (300) or a duration (5m)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

func (v Seconds) Set(s string) error {
	if v.Off && strings.EqualFold(strings.TrimSpace(s), "off") {
		*v.P = 0
		return nil
	}
	d, err := ParseSeconds(s)
	if err != nil {
		return err
	}
	*v.P = d
	return nil
}

// String shows whole seconds as sysbench does ("10"), fractions as "0.5".
func (v Seconds) String() string {
	if v.P == nil {
		return "0"
	}
	if v.Off && *v.P == 0 {
		return "off"
	}
	return strconv.FormatFloat(v.P.Seconds(), 'f', -1, 64)
}

func (v Seconds) Type() string { return "seconds" }

// SecondsVar registers a Seconds flag.
func SecondsVar(fs *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(Seconds{P: p}, name, usage)
}

// CheckThreads is the one rule for a thread count, wherever one is given
// (a level of --threads, a load's threads, a run's): at least 1.
func CheckThreads(n int) error {
	if n < 1 {
		return fmt.Errorf("invalid --threads=%d: must be at least 1", n)
	}
	return nil
}
