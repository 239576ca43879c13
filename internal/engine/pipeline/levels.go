package pipeline

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// levelFlags are the options that turn one run into several: a thread
// sweep with repeats, or a search for the best thread count within a p95
// limit. internal/engine/cells runs them.
type levelFlags struct {
	threadsSpec string
	cooldown    time.Duration
	resultDir   string
	p95SLO      string
	sloSteps    int
	repeat      int
	startAt     string
}

func (l *levelFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.startAt, result.FlagStartAt, "", "start at this time (RFC 3339 or Unix seconds), so clients started separately measure the same window; report merge then combines them")
	fs.IntVar(&l.repeat, result.FlagRepeat, 1, "run every thread level this many times (one result each in --result-dir): report compare then tells a change from noise; a capacity search runs its highest pass and lowest failure this many times")
	workload.SecondsVar(fs, &l.cooldown, result.FlagCooldown, 0, "pause between the levels of a thread sweep (seconds or a duration)")
	fs.StringVar(&l.resultDir, result.FlagResultDir, "", "folder for one result file per thread level")
	fs.StringVar(&l.p95SLO, result.FlagP95SLO, "", "find the thread count with the highest throughput whose p95 stays within this (e.g. 105ms); --threads=lo-hi")
	fs.IntVar(&l.sloSteps, result.FlagSLOSteps, 10, "at most this many runs for --p95-slo")
}

// series is the command line's runs: its thread levels with repeats, or its
// search; name is the results' workload name.
func (l *levelFlags) series(name string, resultFile string) (*cells.Series, error) {
	levels, lo, hi, err := cells.ParseThreads(l.threadsSpec, l.p95SLO != "")
	if err != nil {
		return nil, err
	}
	if l.startAt != "" && (len(levels) != 1 || l.repeat > 1) {
		return nil, fmt.Errorf("--start-at aligns one run across clients: give one thread level and no --repeat")
	}
	if _, err := l.startTime(); err != nil {
		return nil, err
	}
	if l.repeat < 1 {
		return nil, fmt.Errorf("invalid --repeat=%d: at least 1", l.repeat)
	}
	if l.repeat > 1 && levels == nil {
		return nil, fmt.Errorf("--repeat applies to thread lists, not to a --p95-slo search")
	}
	if l.repeat > 1 && l.resultDir == "" && resultFile != "" {
		return nil, fmt.Errorf("--repeat=%d writes one result per repeat: give --result-dir instead of --result-file", l.repeat)
	}
	s := &cells.Series{Name: name, Prefix: name, Numbered: l.repeat > 1, Threads: levels, Repeats: l.repeat, Cooldown: l.cooldown}
	if segs, _ := cells.ThreadSchedule(l.threadsSpec); segs != nil { // its run is another cell than one of its most threads
		s.Schedule = workload.FormatSchedule(segs)
	}
	if levels == nil {
		if d, err := time.ParseDuration(l.p95SLO); err != nil || d <= 0 {
			return nil, fmt.Errorf("invalid --p95-slo=%s: a duration like 105ms", l.p95SLO)
		}
		s.Threads = []int{lo, hi}
		s.Search = &cells.Search{Limit: l.p95SLO, Steps: l.sloSteps}
	}
	return s, nil
}

// startTime is --start-at as a time (zero when not given).
func (l *levelFlags) startTime() (time.Time, error) {
	if l.startAt == "" {
		return time.Time{}, nil
	}
	return cells.ParseStartAt(l.startAt)
}
