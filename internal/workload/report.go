package workload

import (
	"fmt"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/measure"
)

// TextReport is the text report of a run for a workload that wants none
// of its own: embed it in the Run (with the run's Ops and RunConfig.Out)
// and the run has Header, Interval, Checkpoint and Final. Per interval it
// prints each operation's count, rate and latencies; at the end the
// totals and each operation's latency summary.
type TextReport struct {
	W   io.Writer
	Ops []string
}

// Header prints nothing: the pipeline's banner names the run.
func (r TextReport) Header() {}

func ms(h *hdr.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }

// Interval prints one line per operation that ran in the interval.
func (r TextReport) Interval(iv measure.Interval) {
	s := iv.Length.Seconds()
	for i, h := range iv.Hists {
		if h.TotalCount() == 0 || i >= len(r.Ops) {
			continue
		}
		fmt.Fprintf(r.W, "[%4.0fs] %-10s count %8d  per sec %10.2f  p50 %8.2f  p95 %8.2f  p99 %8.2f ms  errors %d\n",
			iv.Elapsed.Seconds(), r.Ops[i], h.TotalCount(), float64(h.TotalCount())/s, ms(h, 50), ms(h, 95), ms(h, 99),
			iv.Counts.Get(measure.Errors))
	}
}

// Checkpoint prints the summary of the run so far.
func (r TextReport) Checkpoint(f measure.Final) { r.summary(&f) }

// Final prints the summary; the workload has no figures of its own.
func (r TextReport) Final(f *measure.Final) (map[string]float64, map[string]string) {
	r.summary(f)
	return nil, nil
}

func (r TextReport) summary(f *measure.Final) {
	sec := f.Elapsed.Seconds()
	c := f.Counts
	fmt.Fprintf(r.W, "\nTotal: %d events in %.2f s (%.2f per second); statements: %d reads, %d writes, %d other; "+
		"errors %d, reconnects %d\n", c.Get(measure.Events), sec, float64(c.Get(measure.Events))/sec,
		c.Get(measure.Reads), c.Get(measure.Writes), c.Get(measure.Others), c.Get(measure.Errors), c.Get(measure.Reconnects))
	fmt.Fprintf(r.W, "%-10s %10s %10s %8s %8s %8s %8s %8s (ms)\n", "operation", "count", "per sec", "avg", "p50", "p95", "p99", "max")
	for i, h := range f.Hists {
		if i >= len(r.Ops) {
			break
		}
		fmt.Fprintf(r.W, "%-10s %10d %10.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", r.Ops[i], h.TotalCount(),
			float64(h.TotalCount())/sec, h.Mean()/1000, ms(h, 50), ms(h, 95), ms(h, 99), float64(h.Max())/1000)
	}
}
