package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Segment is one part of a load schedule: a level that goes linearly from
// From to To over Dur (From == To: steady).
type Segment struct {
	From, To float64
	Dur      time.Duration
}

// ParseSchedule reads a schedule: segments "LEVEL@DURATION" or
// "FROM-TO@DURATION" (a linear ramp), comma-separated: "500@60s,1000@60s"
// or "100-2000@2m".
func ParseSchedule(s string) ([]Segment, error) {
	var out []Segment
	for _, part := range strings.Split(s, ",") {
		level, dur, ok := strings.Cut(strings.TrimSpace(part), "@")
		if !ok {
			return nil, fmt.Errorf("%q is not LEVEL@DURATION (500@60s) or FROM-TO@DURATION (100-2000@2m)", part)
		}
		d, err := ParseSeconds(dur)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%q: the duration %q is not above 0 seconds", part, dur)
		}
		from, to, ramp := strings.Cut(level, "-")
		a, err := strconv.ParseFloat(from, 64)
		b := a
		if err == nil && ramp {
			b, err = strconv.ParseFloat(to, 64)
		}
		if err != nil || a < 0 || b < 0 || math.IsInf(a+b, 0) || math.IsNaN(a+b) {
			return nil, fmt.Errorf("%q: the level %q is not a number 0 or more (or FROM-TO)", part, level)
		}
		out = append(out, Segment{From: a, To: b, Dur: d})
	}
	return out, nil
}

// FormatSchedule writes segments as ParseSchedule reads them: levels
// without exponents (1e-05 would read as a ramp), durations in Go's
// spelling, which reads back exactly.
func FormatSchedule(segs []Segment) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		level := strconv.FormatFloat(s.From, 'f', -1, 64)
		if s.To != s.From {
			level += "-" + strconv.FormatFloat(s.To, 'f', -1, 64)
		}
		parts[i] = level + "@" + s.Dur.String()
	}
	return strings.Join(parts, ",")
}

// ScheduleAt is the schedule's level t after its start: linear within a
// segment, the last segment's end after it.
func ScheduleAt(segs []Segment, t time.Duration) float64 {
	for _, s := range segs {
		if t < s.Dur {
			return s.From + (s.To-s.From)*float64(t)/float64(s.Dur)
		}
		t -= s.Dur
	}
	if len(segs) == 0 {
		return 0
	}
	return segs[len(segs)-1].To
}

// ScheduleLength is the schedule's whole duration.
func ScheduleLength(segs []Segment) time.Duration {
	var d time.Duration
	for _, s := range segs {
		d += s.Dur
	}
	return d
}

// rateValue is a rate flag: a number (events per second; its errors are
// strconv's, as a float flag's) or a schedule (RunOptions.RateSchedule).
type rateValue struct{ ro *RunOptions }

func (v rateValue) String() string {
	if v.ro.RateSpec != "" {
		return v.ro.RateSpec
	}
	return strconv.FormatFloat(v.ro.Rate, 'g', -1, 64)
}

func (v rateValue) Set(s string) error {
	if !strings.Contains(s, "@") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return err
		}
		v.ro.Rate, v.ro.RateSchedule, v.ro.RateSpec = f, nil, ""
		return nil
	}
	segs, err := ParseSchedule(s)
	if err != nil {
		return err
	}
	v.ro.Rate, v.ro.RateSchedule, v.ro.RateSpec = max(segs[0].From, segs[0].To, 1e-9), segs, s
	return nil
}

func (rateValue) Type() string { return "float64" }

// RateVar binds Rate (and RateSchedule) to the flag name: events per
// second, or a schedule of them (500@60s,1000@60s; 100-2000@2m).
func (ro *RunOptions) RateVar(fs *pflag.FlagSet, name string, usage string) {
	ro.RateFlag = name
	fs.Var(rateValue{ro}, name, usage)
}
