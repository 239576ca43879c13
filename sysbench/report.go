package sysbench

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/sysbench/internal/loghist"
)

// Version is the sysbench version whose output this package reproduces.
const Version = "1.0.20"

// Report writes sysbench 1.0.20's text: the header, interval lines, checkpoint
// and final reports, column for column, so existing parsers keep working.
type Report struct {
	W io.Writer
	// HookW gets what a script's report hooks print through
	// sysbench.report_default, report_csv and report_json: at any
	// verbosity, as sysbench prints them (W when nil).
	HookW       io.Writer
	Percentile  float64   // --percentile (0 disables)
	Percentiles []float64 // --percentiles: extra lines in the final report
	Histogram   bool      // --histogram
	Rate        bool
	NoSQL       bool // a script that never used sysbench.sql: no SQL statistics
	// Summary, if set, prints a test's own figures after the histogram and
	// before the statistics, in the final and checkpoint reports (the cpu
	// test's "CPU speed:").
	Summary func(w io.Writer, f *measure.Final)
	// DebugBlocks are the LOG_DEBUG blocks of the final report.
	DebugBlocks DebugBlocks
	jsonOpen    bool // PrintJSON has opened its array
}

// DebugBlocks are what sysbench adds to its final report at
// --verbosity=5: DB, --db-debug's query timers after the SQL statistics
// (zeros: sysbench 1.0.20 never starts them), and Threads, --debug's
// figures of each thread after the fairness.
type DebugBlocks struct{ DB, Threads bool }

// Header prints what sysbench prints before the threads start.
type Header struct {
	Tool           string // e.g. "oltpbench 0.1.0"
	Threads        int
	Rate           float64
	ReportInterval time.Duration
	Checkpoints    []time.Duration
	Seed           int64
	Warmup         time.Duration
	// Preamble is a test's own lines before the threads start (sysbench's
	// "Prime numbers limit: 10000").
	Preamble string
	// Debug and Validate are --debug and --validate, as sysbench says them.
	Debug, Validate bool
}

// PrintBanner prints the first line, as every sysbench command does.
func PrintBanner(w io.Writer, tool string) { fmt.Fprint(w, bannerText(tool)) }

func bannerText(tool string) string { return fmt.Sprintf("sysbench %s (%s)\n\n", Version, tool) }

// PrintHeader prints the run's preamble (the banner comes before it, once).
func PrintHeader(w io.Writer, h Header) {
	fmt.Fprintf(w, "Running the test with following options:\n")
	fmt.Fprintf(w, "Number of threads: %d\n", h.Threads)
	if h.Rate > 0 {
		fmt.Fprintf(w, "Target transaction rate: %s/sec\n", strconv.FormatFloat(h.Rate, 'f', -1, 64))
	}
	if h.ReportInterval > 0 {
		fmt.Fprintf(w, "Report intermediate results every %s second(s)\n", secs(h.ReportInterval))
	}
	if len(h.Checkpoints) > 0 {
		var s []string
		for _, c := range h.Checkpoints {
			s = append(s, secs(c))
		}
		fmt.Fprintf(w, "Report checkpoint(s) at %s seconds\n", strings.Join(s, ", "))
	}
	if h.Debug {
		fmt.Fprintf(w, "Debug mode enabled.\n\n")
	}
	if h.Validate {
		fmt.Fprintf(w, "Validation checks: on.\n\n")
	}
	if h.Warmup > 0 {
		fmt.Fprintf(w, "Warmup time: %ss\n", secs(h.Warmup))
	}
	if h.Seed == 0 {
		fmt.Fprintf(w, "Initializing random number generator from current time\n")
	} else {
		fmt.Fprintf(w, "Initializing random number generator from seed (%d).\n", h.Seed)
	}
	// "Threads started!" follows once the threads are (the run's
	// messages), after their DEBUG lines.
	fmt.Fprintf(w, "\n\n%sInitializing worker threads...\n\n", h.Preamble)
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

// Interval prints one interval line.
func (r *Report) Interval(iv measure.Interval) { r.PrintStat(r.Stat(iv)) }

// Stat is an interval report as sysbench's report hooks see it: counts
// over time_interval seconds, at time_total.
func (r *Report) Stat(iv measure.Interval) map[string]float64 {
	c := iv.Counts
	lat := 0.0
	if r.Percentile > 0 && len(iv.Hists) > 0 {
		lat = percentileMs(merged(iv.Hists), r.Percentile)
	}
	return map[string]float64{"time_total": iv.Elapsed.Seconds(), "time_interval": iv.Length.Seconds(),
		"threads_running": float64(iv.Running), "events": float64(c.Get(measure.Events)), "reads": float64(c.Get(measure.Reads)),
		"writes": float64(c.Get(measure.Writes)), "other": float64(c.Get(measure.Others)), "errors": float64(c.Get(measure.Errors)),
		"reconnects": float64(c.Get(measure.Reconnects)), "latency_pct": lat, "queue_length": float64(iv.QueueLength),
		"concurrency": float64(iv.Concurrency)}
}

// rates are a stat's figures per second.
func rates(st map[string]float64) (tps, qps, rd, wr, ot, errs, reconn float64) {
	s := st["time_interval"]
	if s <= 0 {
		s = 1
	}
	return st["events"] / s, (st["reads"] + st["writes"] + st["other"]) / s, st["reads"] / s, st["writes"] / s,
		st["other"] / s, st["errors"] / s, st["reconnects"] / s
}

// PrintStat prints an interval's line.
func (r *Report) PrintStat(st map[string]float64) { r.printStat(r.W, st, "err/s:") }

func (r *Report) hookW() io.Writer {
	if r.HookW != nil {
		return r.HookW
	}
	return r.W
}

// PrintDefault prints an interval's line as sysbench.report_default does
// (its "err/s" has no colon, unlike sysbench's own interval lines).
func (r *Report) PrintDefault(st map[string]float64) { r.printStat(r.hookW(), st, "err/s") }

func (r *Report) printStat(w io.Writer, st map[string]float64, errs string) {
	tps, qps, rd, wr, ot, e, reconn := rates(st)
	at := elapsed(time.Duration(st["time_total"] * float64(time.Second)))
	fmt.Fprintf(w, "[ %ss ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%s%%): %4.2f %s %4.2f reconn/s: %4.2f\n",
		at, int(st["threads_running"]), tps, qps, rd, wr, ot, pctName(r.Percentile), st["latency_pct"], errs, e, reconn)
	if r.Rate {
		fmt.Fprintf(w, "[ %ss ] queue length: %d, concurrency: %d\n", at, int64(st["queue_length"]), int64(st["concurrency"]))
	}
}

// PrintCSV prints a stat as sysbench.report_csv does.
func (r *Report) PrintCSV(st map[string]float64) {
	tps, qps, rd, wr, ot, errs, reconn := rates(st)
	fmt.Fprintf(r.hookW(), "%.0f,%d,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f\n", st["time_total"], int(st["threads_running"]),
		tps, qps, rd, wr, ot, st["latency_pct"], errs, reconn)
}

// PrintJSON prints a stat as sysbench.report_json does: the records of a
// run as one array, opened by the first and closed by EndJSON.
func (r *Report) PrintJSON(st map[string]float64) {
	tps, qps, rd, wr, ot, errs, reconn := rates(st)
	sep := ",\n"
	if !r.jsonOpen {
		sep, r.jsonOpen = "[\n", true
	}
	fmt.Fprintf(r.hookW(), "%s  {\n    \"time\": %4.0f,\n    \"threads\": %d,\n    \"tps\": %4.2f,\n    \"qps\": {\n      \"total\": %4.2f,\n      \"reads\": %4.2f,\n      \"writes\": %4.2f,\n      \"other\": %4.2f\n    },\n    \"latency\": %4.2f,\n    \"errors\": %4.2f,\n    \"reconnects\": %4.2f\n  }",
		sep, st["time_total"], int(st["threads_running"]), tps, qps, rd, wr, ot, st["latency_pct"], errs, reconn)
}

// EndJSON closes the array PrintJSON opened, if it did.
func (r *Report) EndJSON() {
	if r.jsonOpen {
		fmt.Fprintf(r.hookW(), "\n]\n")
		r.jsonOpen = false
	}
}

// CumulativeStat is the whole run as sysbench's report_cumulative hook sees it.
func (r *Report) CumulativeStat(f *measure.Final) map[string]float64 {
	c := f.Counts
	h := merged(f.Hists)
	st := map[string]float64{"time_total": f.SinceStart.Seconds(), "time_interval": f.Elapsed.Seconds(), "threads_running": 0,
		"events": float64(c.Get(measure.Events)), "reads": float64(c.Get(measure.Reads)), "writes": float64(c.Get(measure.Writes)),
		"other": float64(c.Get(measure.Others)), "errors": float64(c.Get(measure.Errors)), "reconnects": float64(c.Get(measure.Reconnects)),
		"latency_min": float64(f.MinUs) / 1000, "latency_max": float64(f.MaxUs) / 1000, "latency_sum": float64(f.SumUs) / 1000}
	if n := c.Get(measure.Events); n > 0 {
		st["latency_avg"] = float64(f.SumUs) / 1000 / float64(n)
	}
	if r.Percentile > 0 {
		st["latency_pct"] = percentileMs(h, r.Percentile)
	}
	return st
}

func elapsed(d time.Duration) string {
	if d%time.Second == 0 || d > 10*time.Second {
		return strconv.Itoa(int(math.Round(d.Seconds())))
	}
	return strconv.FormatFloat(math.Round(d.Seconds()*10)/10, 'f', -1, 64)
}

func pctName(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// Checkpoint prints a full report at a --report-checkpoints time.
func (r *Report) Checkpoint(f measure.Final) {
	fmt.Fprintf(r.W, "[ %ss ] Checkpoint report:\n", elapsed(f.SinceStart))
	r.Final(&f)
}

// Final prints the closing report.
func (r *Report) Final(f *measure.Final) {
	w := r.W
	c := f.Counts
	t := f.Elapsed.Seconds()
	if t <= 0 {
		t = math.SmallestNonzeroFloat64
	}
	h := merged(f.Hists)
	if r.Histogram {
		printHistogram(w, h)
	}
	if r.Summary != nil {
		r.Summary(w, f)
	}
	ev := c.Get(measure.Events)
	if !r.NoSQL {
		printSQLStats(w, c, t)
		if r.DebugBlocks.DB {
			printDBTimers(w)
		}
	}
	fmt.Fprintf(w, "\nGeneral statistics:\n")
	fmt.Fprintf(w, "%-41s%.4fs\n", "    total time:", f.SinceStart.Seconds())
	fmt.Fprintf(w, "%-41s%d\n", "    total number of events:", ev)
	fmt.Fprintf(w, "\nLatency (ms):\n")
	avg := 0.0
	if ev > 0 {
		avg = float64(f.SumUs) / float64(ev) / 1000
	}
	fmt.Fprintf(w, "%-43s%10.2f\n", "         min:", float64(f.MinUs)/1000)
	fmt.Fprintf(w, "%-43s%10.2f\n", "         avg:", avg)
	fmt.Fprintf(w, "%-43s%10.2f\n", "         max:", float64(f.MaxUs)/1000)
	if r.Percentile > 0 {
		fmt.Fprintf(w, "%-43s%10.2f\n", "         "+pctName(r.Percentile)+"th percentile:", percentileMs(h, r.Percentile))
	} else {
		fmt.Fprintf(w, "%-41s%s\n", "         percentile stats:", "disabled")
	}
	for _, p := range r.Percentiles {
		if p == r.Percentile {
			continue
		}
		fmt.Fprintf(w, "%-43s%10.2f\n", "         "+pctName(p)+"th percentile:", percentileMs(h, p))
	}
	fmt.Fprintf(w, "%-43s%10.2f\n", "         sum:", float64(f.SumUs)/1000)
	fmt.Fprintf(w, "\nThreads fairness:\n")
	evAvg, evSd, tAvg, tSd := fairness(f.PerThread)
	fmt.Fprintf(w, "%-35s%.4f/%3.2f\n", "    events (avg/stddev):", evAvg, evSd)
	fmt.Fprintf(w, "%-35s%.4f/%3.2f\n", "    execution time (avg/stddev):", tAvg, tSd)
	fmt.Fprintln(w)
	if r.DebugBlocks.Threads {
		printPerThread(w, f.PerThread)
	}
}

// printDBTimers is --db-debug's block: sysbench 1.0.20 declares the
// timers and prints them, but no query starts them.
func printDBTimers(w io.Writer) {
	fmt.Fprintf(w, "DEBUG: \n")
	for _, what := range []string{"Query execution statistics:", "Results fetching statistics:"} {
		fmt.Fprintf(w, "DEBUG: %s\n", what)
		for _, k := range []string{"    min:", "    avg:", "    max:", "  total:"} {
			fmt.Fprintf(w, "DEBUG: %-40s%.4fs\n", k, 0.0)
		}
	}
}

// printPerThread is --debug's block of each thread's figures.
func printPerThread(w io.Writer, ts []measure.ThreadStat) {
	fmt.Fprintf(w, "DEBUG: Verbose per-thread statistics:\n\n")
	for i, t := range ts {
		avg := 0.0
		if t.Events > 0 {
			avg = t.Busy.Seconds() / float64(t.Events)
		}
		fmt.Fprintf(w, "DEBUG:     thread #%3d: min: %.4fs  avg: %.4fs  max: %.4fs  events: %d\n", i,
			float64(t.MinUs)/1e6, avg, float64(t.MaxUs)/1e6, t.Events)
		fmt.Fprintf(w, "DEBUG:                  total time taken by event execution: %.4fs\n", t.Busy.Seconds())
	}
	fmt.Fprintln(w)
}

func fairness(ts []measure.ThreadStat) (evAvg, evSd, tAvg, tSd float64) {
	if len(ts) == 0 {
		return
	}
	n := float64(len(ts))
	for _, t := range ts {
		evAvg += float64(t.Events)
		tAvg += t.Busy.Seconds()
	}
	evAvg /= n
	tAvg /= n
	for _, t := range ts {
		evSd += (float64(t.Events) - evAvg) * (float64(t.Events) - evAvg)
		tSd += (t.Busy.Seconds() - tAvg) * (t.Busy.Seconds() - tAvg)
	}
	return evAvg, math.Sqrt(evSd / n), tAvg, math.Sqrt(tSd / n)
}

func merged(hs []*hdr.Histogram) *hdr.Histogram {
	if len(hs) == 1 {
		return hs[0]
	}
	m := hdr.New(hs[0].LowestTrackableValue(), hs[0].HighestTrackableValue(), int(hs[0].SignificantFigures()))
	for _, h := range hs {
		m.Merge(h)
	}
	return m
}

func percentileMs(h *hdr.Histogram, p float64) float64 {
	if h.TotalCount() == 0 {
		return 0
	}
	return float64(h.ValueAtQuantile(p)) / 1000
}

// printHistogram bins the latencies into sysbench's 1024 logarithmic buckets
// between 0.001 and 100000 ms and prints the non-empty ones.
func printHistogram(w io.Writer, h *hdr.Histogram) {
	lh := loghist.New(1024, 0.001, 100000)
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			lh.Add(float64(b.To)/1000, b.Count)
		}
	}
	fmt.Fprintf(w, "Latency histogram (values are in milliseconds)\n")
	lh.Print(w)
	fmt.Fprintf(w, " \n")
}

// printSQLStats is the final report's SQL statistics, t seconds long.
func printSQLStats(w io.Writer, c measure.Totals, t float64) {
	rd, wr, ot := c.Get(measure.Reads), c.Get(measure.Writes), c.Get(measure.Others)
	ev := c.Get(measure.Events)
	fmt.Fprintf(w, "SQL statistics:\n    queries performed:\n")
	fmt.Fprintf(w, "%-41s%d\n", "        read:", rd)
	fmt.Fprintf(w, "%-41s%d\n", "        write:", wr)
	fmt.Fprintf(w, "%-41s%d\n", "        other:", ot)
	fmt.Fprintf(w, "%-41s%d\n", "        total:", rd+wr+ot)
	fmt.Fprintf(w, "%-41s%-6d (%.2f per sec.)\n", "    transactions:", ev, float64(ev)/t)
	fmt.Fprintf(w, "%-41s%-6d (%.2f per sec.)\n", "    queries:", rd+wr+ot, float64(rd+wr+ot)/t)
	fmt.Fprintf(w, "%-41s%-6d (%.2f per sec.)\n", "    ignored errors:", c.Get(measure.Errors), float64(c.Get(measure.Errors))/t)
	fmt.Fprintf(w, "%-41s%-6d (%.2f per sec.)\n", "    reconnects:", c.Get(measure.Reconnects), float64(c.Get(measure.Reconnects))/t)
}
