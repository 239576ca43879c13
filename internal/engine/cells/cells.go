// Package cells turns what a user asks for, a command line's thread list,
// --repeat and --p95-slo or a plan's steps, into cells (one measured run, or
// one p95 search, with one result file each), and executes them in order:
// repeats alternating over the levels, cooldowns that Ctrl-C ends, and, for
// a plan, resuming the cells whose results are already in the folder.
//
// It knows no workload: the caller measures a level with a typed function.
package cells

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/engine/slo"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Series is one thread list with its repeats, or one p95-limit search.
type Series struct {
	Plan, Step string // the plan and step that asked for it; "" on a command line
	Name       string // the results' workload name, for the search's summary
	// Prefix names the result files: Prefix-Nthreads.json, with -rK after
	// "threads" when Numbered (a plan's cells always; a command line's
	// with --repeat).
	Prefix   string
	Numbered bool
	Threads  []int // levels; for a search [lo, hi]
	// Schedule is a thread schedule within each run (16@60s,32@60s), as
	// --threads takes it: Threads is then its most threads alone.
	Schedule string
	Repeats  int
	Search   *Search // nil: a sweep
	// Capacity, when not "", makes the series one capacity search (a
	// plan step's search): its probes' results go into this folder
	// (relative to the result folder), run by Executor.Capacity; Repeats
	// is how many runs its boundary's levels get.
	Capacity string
	// Headroom, when set, makes the series one run at a share of a
	// capacity search's result (or a number of units), run by
	// Executor.Headroom.
	Headroom *Headroom
	Run      time.Duration // the expected length of one run: time + warm-up
	Cooldown time.Duration // between two runs
	// Args are the command line of the series' runs without the thread
	// count. A result counts as done only under the same Key (plans).
	Args []string
	// TimeFlag and WarmupFlag are the workload's names of the run's time
	// and warm-up in Args, for its Key.
	TimeFlag, WarmupFlag string
}

// Search is a p95-limit search: the highest throughput whose p95 stays
// within Limit, in at most Steps runs. Its runs go into Folder (relative to
// the result folder; "" the folder itself).
type Search struct {
	Limit  string // a duration, as given (105ms)
	Steps  int
	Folder string
}

// Headroom is a run below the limit: Units, or Share of the highest level
// that passed in the capacity search whose probes are in From (relative
// to the result folder).
type Headroom struct {
	Share float64
	Units int
	From  string
}

// Cell is one run of a sweep, or one whole search.
type Cell struct {
	Index, Of int // 1-based
	Series    *Series
	Threads   int // the level; for a search, its upper bound
	Repeat    int // 1-based
	// File is the result file (a search: the folder of its runs), relative
	// to the result folder.
	File     string
	Expected time.Duration // run + cooldown (a search: at its most steps)
}

// Args is the cell's command line: its series' with its threads (a
// search: its range and limit).
func (c *Cell) Args() []string {
	s := c.Series
	args := append([]string(nil), s.Args...)
	if s.Schedule != "" {
		return append(args, "--"+result.FlagThreads+"="+s.Schedule)
	}
	if s.Capacity != "" && s.Repeats > 1 {
		return append(args, flag(result.FlagRepeat, s.Repeats)) // the boundary's levels, run again
	}
	if s.Capacity != "" || s.Headroom != nil {
		return args // the search (or the headroom's level) sets the threads
	}
	if s.Search == nil {
		return append(args, flag(result.FlagThreads, c.Threads))
	}
	args = append(args, fmt.Sprintf("--%s=%d-%d", result.FlagThreads, s.Threads[0], s.Threads[1]),
		"--"+result.FlagP95SLO+"="+s.Search.Limit, flag(result.FlagSLOSteps, s.Search.Steps))
	if s.Cooldown > 0 {
		args = append(args, flag(result.FlagCooldown, int64(s.Cooldown.Seconds())))
	}
	return args
}

// Key is the cell's identity.
func (c *Cell) Key() (result.Key, error) { return c.Series.key(c.Args()) }

// LevelArgs is one level's command line: the series' with that thread
// count, as a sweep cell at that level has.
func (s *Series) LevelArgs(threads int) []string {
	return append(append([]string(nil), s.Args...), flag(result.FlagThreads, threads))
}

// key reads one of the series' command lines into its key.
func (s *Series) key(args []string) (result.Key, error) {
	return result.ParseKey(args, s.TimeFlag, s.WarmupFlag)
}

func flag[T int | int64](name string, v T) string { return fmt.Sprintf("--%s=%d", name, v) }

// String names the cell for progress lines.
func (c *Cell) String() string {
	if c.Series.Search != nil {
		return fmt.Sprintf("%s, p95 search up to %d threads", c.Series.Step, c.Threads)
	}
	if c.Series.Capacity != "" {
		return c.Series.Step + ", capacity search"
	}
	if h := c.Series.Headroom; h != nil {
		if h.Units > 0 {
			return fmt.Sprintf("%s, headroom at %d", c.Series.Step, h.Units)
		}
		return fmt.Sprintf("%s, headroom at %g of %s's result", c.Series.Step, h.Share, h.From)
	}
	return fmt.Sprintf("%s, %s, repeat %d/%d", c.Series.Step, c.ThreadsLabel(), c.Repeat, c.Series.Repeats)
}

// ThreadsLabel is the cell's threads as a person reads them: "16 threads",
// or "threads 16@60s,32@60s" for a schedule.
func (c *Cell) ThreadsLabel() string {
	if c.Series.Schedule != "" {
		return "threads " + c.Series.Schedule
	}
	return fmt.Sprintf("%d threads", c.Threads)
}

// FileName is the one naming rule of result files.
func FileName(prefix string, threads, repeat int, numbered bool) string {
	suffix := ""
	if numbered {
		suffix = fmt.Sprintf("-r%d", repeat)
	}
	return fmt.Sprintf("%s-%dthreads%s.json", strings.ReplaceAll(prefix, "/", "-"), threads, suffix)
}

// Expand lists the cells of the series in order. Within a series the
// repeats alternate over the levels (1..n, then again), so a drift of the
// server over time spreads over every level alike.
func Expand(series []*Series) []*Cell {
	var out []*Cell
	for _, s := range series {
		if s.Headroom != nil {
			out = append(out, &Cell{Series: s, Repeat: 1, File: s.Prefix + "-headroom.json", Expected: s.Run + s.Cooldown})
			continue
		}
		if s.Capacity != "" {
			// At most a dozen probes on a dataset of a few hundred units,
			// and the repeats of the boundary's two levels.
			probes := time.Duration(12 + 2*max(0, s.Repeats-1))
			out = append(out, &Cell{Series: s, Repeat: 1, File: s.Capacity, Expected: probes * (s.Run + s.Cooldown)})
			continue
		}
		if s.Search != nil {
			out = append(out, &Cell{Series: s, Threads: s.Threads[1], Repeat: 1, File: s.Search.Folder,
				Expected: time.Duration(searchRuns(s.Threads[0], s.Threads[1], s.Search.Steps)) * (s.Run + s.Cooldown)})
			continue
		}
		for r := 1; r <= s.Repeats; r++ {
			for _, th := range s.Threads {
				out = append(out, &Cell{Series: s, Threads: th, Repeat: r, File: FileName(s.Prefix, th, r, s.Numbered),
					Expected: s.Run + s.Cooldown})
			}
		}
	}
	for i, c := range out {
		c.Index, c.Of = i+1, len(out)
	}
	return out
}

// searchRuns estimates the runs of a p95 search: doubling from lo to hi,
// then bisecting the last doubling; at most steps.
func searchRuns(lo, hi, steps int) int {
	n := 1
	for t := lo; t < hi; t *= 2 {
		n++
	}
	n += int(math.Ceil(math.Log2(math.Max(2, float64(hi)/2))))
	return min(n, steps)
}

// ParseThreads reads --threads: "16", a list "150,300,600", or with a
// search "8-1024" (a single number n searches 1-n).
func ParseThreads(spec string, search bool) (levels []int, lo, hi int, err error) {
	if sched, err := ThreadSchedule(spec); sched != nil || err != nil {
		if err != nil || search {
			return nil, 0, 0, cmp.Or(err, fmt.Errorf("--threads=%s is a schedule: a --p95-slo search needs a range lo-hi", options.Shown(spec)))
		}
		return []int{MostThreads(sched)}, 0, 0, nil
	}
	if strings.Contains(spec, "-") {
		if !search {
			return nil, 0, 0, fmt.Errorf("--threads=%s is a range: give --p95-slo too, or a list like 8,16,32", options.Shown(spec))
		}
		lo, hi, err = slo.ParseRange(spec)
		return nil, lo, hi, err
	}
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, 0, 0, fmt.Errorf("invalid --threads=%s: a number, a list like 150,300,600, or a range with --p95-slo", options.Shown(spec))
		}
		if err := workload.CheckThreads(n); err != nil {
			return nil, 0, 0, err
		}
		levels = append(levels, n)
	}
	if search {
		if len(levels) != 1 {
			return nil, 0, 0, fmt.Errorf("--p95-slo searches a range: give --threads=lo-hi")
		}
		return nil, 1, levels[0], nil
	}
	return levels, 0, 0, nil
}

// ThreadSchedule reads a --threads schedule within one run, as --rate's
// (16@60s,32@60s,64@60s; 8-64@5m a ramp): nil for a plain --threads. The
// run starts the most threads it names, each running while the schedule
// counts it (HammerDB's step run).
func ThreadSchedule(spec string) ([]workload.Segment, error) {
	if !strings.Contains(spec, "@") {
		return nil, nil
	}
	segs, err := ThreadSegments(spec)
	if err != nil {
		return nil, fmt.Errorf("invalid --threads=%s: %w", options.Shown(spec), err)
	}
	return segs, nil
}

// ThreadSegments reads a thread schedule (a plan step's thread_schedule):
// its errors say what is wrong, for the caller to name the option.
func ThreadSegments(spec string) ([]workload.Segment, error) {
	segs, err := workload.ParseSchedule(spec)
	if err != nil {
		return nil, err
	}
	for _, s := range segs {
		if s.From != math.Trunc(s.From) || s.To != math.Trunc(s.To) {
			return nil, errors.New("whole numbers of threads")
		}
		if s.From < 1 || s.To < 1 {
			return nil, errors.New("at least 1 thread in every segment")
		}
		if max(s.From, s.To) > math.MaxInt32 {
			return nil, errors.New("more threads than a run can start")
		}
	}
	return segs, nil
}

// MostThreads is the most threads a schedule names: the threads its run starts.
func MostThreads(segs []workload.Segment) int {
	most := 0
	for _, s := range segs {
		most = max(most, int(s.From), int(s.To))
	}
	return most
}

// join is a path under dir ("" stays relative).
func join(dir, name string) string {
	if dir == "" || name == "" {
		return name
	}
	return filepath.Join(dir, name)
}
