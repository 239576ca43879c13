package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/workload"

	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/slo"
)

// levelFlags are the options that turn one run into several: a thread
// sweep, or a search for the best thread count within a p95 limit.
type levelFlags struct {
	threadsSpec string
	cooldown    time.Duration
	resultDir   string
	p95SLO      string
	sloSteps    int
	repeat      int
	startAt     string
	reuse       bool // a plan's resumed search: take a level's result file when it is there
}

// parseThreads reads "16", "150,300,600" (a sweep) or "8-1024" (a range for --p95-slo).
func (l *levelFlags) parseThreads() (levels []int, lo, hi int, err error) {
	s := l.threadsSpec
	if strings.Contains(s, "-") {
		if l.p95SLO == "" {
			return nil, 0, 0, fmt.Errorf("--threads=%s is a range: give --p95-slo too, or a list like 8,16,32", s)
		}
		lo, hi, err = slo.ParseRange(s)
		return nil, lo, hi, err
	}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, 0, 0, fmt.Errorf("invalid --threads=%s: a number, a list like 150,300,600, or a range with --p95-slo", s)
		}
		if n < 1 {
			return nil, 0, 0, fmt.Errorf("invalid --threads=%d: must be at least 1", n)
		}
		levels = append(levels, n)
	}
	if l.p95SLO != "" {
		if len(levels) != 1 {
			return nil, 0, 0, fmt.Errorf("--p95-slo searches a range: give --threads=lo-hi")
		}
		return nil, 1, levels[0], nil
	}
	return levels, 0, 0, nil
}

// runLevels runs once per thread level (or searches), writing one result
// per level into --result-dir.
func (l *levelFlags) runLevels(ctx context.Context, out io.Writer, name string, resultFile string,
	run func(threads int, resultFile string) (*result.Result, error)) error {
	levels, lo, hi, err := l.parseThreads()
	if err != nil {
		return err
	}
	if l.startAt != "" {
		if len(levels) != 1 || l.repeat > 1 {
			return fmt.Errorf("--start-at aligns one run across clients: give one thread level and no --repeat")
		}
		at, err := parseStartAt(l.startAt)
		if err != nil {
			return err
		}
		wait := time.Until(at)
		if wait < 0 {
			return fmt.Errorf("--start-at=%s passed %s ago: start every client before that time", l.startAt, (-wait).Round(time.Millisecond))
		}
		fmt.Fprintf(out, "Waiting %s for --start-at=%s\n", wait.Round(time.Millisecond), at.Format(time.RFC3339Nano))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if l.repeat < 1 {
		return fmt.Errorf("invalid --repeat=%d: at least 1", l.repeat)
	}
	if l.repeat > 1 && levels == nil {
		return fmt.Errorf("--repeat applies to thread lists, not to a --p95-slo search")
	}
	if l.repeat > 1 && l.resultDir == "" && resultFile != "" {
		return fmt.Errorf("--repeat=%d writes one result per repeat: give --result-dir instead of --result-file", l.repeat)
	}
	rep := 0 // the repeat being run, 1-based; 0 without --repeat
	file := func(th int) string {
		if l.resultDir == "" {
			if len(levels) == 1 && rep == 0 {
				return resultFile
			}
			return ""
		}
		suffix := ""
		if rep > 0 {
			suffix = fmt.Sprintf("-r%d", rep)
		}
		return filepath.Join(l.resultDir, fmt.Sprintf("%s-%dthreads%s.json", strings.ReplaceAll(name, "/", "-"), th, suffix))
	}
	if l.resultDir != "" {
		if err := os.MkdirAll(l.resultDir, 0o755); err != nil {
			return fmt.Errorf("cannot create --result-dir: %v", err)
		}
	}
	if levels != nil {
		// Repeats alternate over the levels (1..n, then again), so a drift
		// of the server over time spreads over every level alike.
		var cells [][2]int
		for r := 1; r <= l.repeat; r++ {
			for _, th := range levels {
				cells = append(cells, [2]int{th, r})
			}
		}
		for i, c := range cells {
			th := c[0]
			if l.repeat > 1 {
				rep = c[1]
				fmt.Fprintf(out, "\n== %d threads, repeat %d of %d (run %d of %d)\n", th, rep, l.repeat, i+1, len(cells))
			} else if len(levels) > 1 {
				fmt.Fprintf(out, "\n== %d threads (level %d of %d)\n", th, i+1, len(levels))
			}
			if _, err := run(th, file(th)); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			if i < len(cells)-1 && l.cooldown > 0 {
				select {
				case <-time.After(l.cooldown):
				case <-ctx.Done():
					return nil
				}
			}
		}
		return nil
	}
	limit, err := time.ParseDuration(l.p95SLO)
	if err != nil || limit <= 0 {
		return fmt.Errorf("invalid --p95-slo=%s: a duration like 105ms", l.p95SLO)
	}
	limitMs := float64(limit) / float64(time.Millisecond)
	step := 0
	best, tried, err := slo.Search(lo, hi, limitMs, l.sloSteps, func(th int) (slo.Point, error) {
		step++
		fmt.Fprintf(out, "\n== p95 search, step %d: %d threads\n", step, th)
		if step > 1 && l.cooldown > 0 && !(l.reuse && fileExists(file(th))) {
			time.Sleep(l.cooldown)
		}
		var r *result.Result
		if l.reuse && file(th) != "" {
			if old, err := result.Read(file(th)); err == nil && old.Threads == th && !old.Interrupted {
				fmt.Fprintf(out, "measured before: %s\n", file(th))
				r = old
			}
		}
		if r == nil {
			var err error
			if r, err = run(th, file(th)); err != nil {
				return slo.Point{}, err
			}
		}
		if ctx.Err() != nil {
			return slo.Point{}, ctx.Err()
		}
		t, _ := r.Throughput()
		return slo.Point{Threads: th, Throughput: t, TPS: r.TPS(), MeanMs: r.MeanLatency(), P95Ms: r.Latency("95")}, nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\np95 limit %s, threads %d-%d, %d runs:\n\n| Threads | QPS | TPS | Average latency (ms) | P95 latency (ms) | within limit |\n|---|---|---|---|---|---|\n", limit, lo, hi, len(tried))
	for _, p := range tried {
		fmt.Fprintf(out, "| %d | %.2f | %.2f | %.2f | %.2f | %v |\n", p.Threads, p.Throughput, p.TPS, p.MeanMs, p.P95Ms, p.P95Ms <= limitMs)
	}
	if best == nil {
		return fmt.Errorf("even %d threads exceed the p95 limit of %s: lower the range or raise the limit", lo, limit)
	}
	fmt.Fprintf(out, "\nBest within p95 <= %s: %s\n| %d | %.2f | %.2f | %.2f | %.2f |\n", limit, name, best.Threads, best.Throughput, best.TPS, best.MeanMs, best.P95Ms)
	return nil
}

// parseStartAt reads an RFC 3339 time (2026-12-01T08:00:00Z) or Unix seconds.
func parseStartAt(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		return time.Unix(0, int64(f*1e9)), nil
	}
	return time.Time{}, fmt.Errorf("invalid --start-at=%s: an RFC 3339 time like 2026-12-01T08:00:00Z, or Unix seconds", s)
}

func (l *levelFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.startAt, "start-at", "", "start at this time (RFC 3339 or Unix seconds), so clients started separately measure the same window; report merge then combines them")
	fs.IntVar(&l.repeat, "repeat", 1, "run every thread level this many times (one result each in --result-dir): report compare then tells a change from noise")
	workload.SecondsVar(fs, &l.cooldown, "cooldown", 0, "pause between the levels of a thread sweep (seconds or a duration)")
	fs.StringVar(&l.resultDir, "result-dir", "", "folder for one result file per thread level")
	fs.StringVar(&l.p95SLO, "p95-slo", "", "find the thread count with the highest throughput whose p95 stays within this (e.g. 105ms); --threads=lo-hi")
	fs.IntVar(&l.sloSteps, "slo-steps", 10, "at most this many runs for --p95-slo")
	fs.BoolVar(&l.reuse, "reuse-results", false, "--p95-slo: take the result files already in --result-dir instead of running those levels again (plan run resumes a search so)")
	fs.MarkHidden("reuse-results")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
