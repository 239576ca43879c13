package tpch

import (
	"fmt"
	"io"
	"math"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// wholeRun reports whether a run with these options cannot be split among
// client machines: the power test (--test=power, or both, the default)
// runs one stream alone before the throughput test's streams start.
func wholeRun(args []string) bool {
	var w tpch
	fs := pflag.NewFlagSet("tpch", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true // the connection's and the runner's options
	fs.SetOutput(io.Discard)
	w.Flags(fs, &workload.RunOptions{})
	if err := fs.Parse(args); err != nil {
		return true // the run refuses its options itself, on client 0
	}
	return w.test != "throughput"
}

// streamShare is a client's part of a throughput test: query streams
// first+1 to first+n of all (the refresh stream goes with stream 1).
func streamShare(first, n, all int) []string {
	return []string{fmt.Sprintf("--first-stream=%d", first+1), fmt.Sprintf("--all-streams=%d", all)}
}

// mergeFigures are a throughput test's figures from its clients' parts:
// the streams started at one instant, so Ts runs from the earliest part's
// start to the latest part's end; each part's Throughput times its Ts is
// its streams' queries x 3600 x SF, which add up.
func mergeFigures(parts []*result.Result) (map[string]float64, map[string]string) {
	fig, na := map[string]float64{}, map[string]string{}
	if len(parts) == 0 {
		return fig, na
	}
	start := parts[0].Start
	for _, p := range parts {
		if p.Start.Before(start) {
			start = p.Start
		}
	}
	var ts, work, logs float64
	for _, p := range parts {
		thr, ok := p.Figures["Throughput"]
		if !ok {
			why := p.NotApplicable["Throughput"]
			if why == "" {
				why = "no throughput test"
			}
			na["Throughput"] = fmt.Sprintf("client %d: %s", shareIndex(p), why)
			break
		}
		pts := p.Figures["Ts"]
		ts = max(ts, pts+p.Start.Sub(start).Seconds())
		w := thr * pts
		work += w
		logs += w * math.Log(max(p.Figures["GeoMeanThroughput"], 1e-6))
	}
	if _, bad := na["Throughput"]; !bad && ts > 0 {
		fig["Ts"] = ts
		fig["Throughput"] = work / ts
		fig["GeoMeanThroughput"] = math.Exp(logs / work)
	}
	na["QphH"] = "one test ran (--test=throughput): QphH@Size takes both"
	return fig, na
}

func shareIndex(p *result.Result) int {
	if p.Share != nil {
		return p.Share.Index
	}
	return 0
}
