package result

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/hist"
)

// clientOptions may differ between the client machines of one run.
var clientOptions = map[string]bool{"mysql-host": true, "mysql-port": true, "mysql-socket": true, FlagResultFile: true,
	"output": true, FlagResultDir: true, "mysql-password-file": true, "config-file": true, "rand-seed": true, "cpu-profile": true,
	FlagMetrics: true, FlagClientID: true}

// Merge combines the results of one run measured on several client machines:
// histograms merged exactly, counts summed, threads summed. Results of other
// workloads, other options or time windows that do not overlap are refused.
func Merge(rs []*Result) (*Result, error) { return MergeParts(rs, Split{}) }

// Split is how a cell's options were split between the clients that ran
// its parts. Both kinds may differ between the parts.
type Split struct {
	// Whole holds the options the merged result records as the cell's
	// (threads, rate), each part having had its share.
	Whole map[string]string
	// PerPart names the options only the parts had (a TPC-H client's first
	// query stream): the merged result has none of them.
	PerPart []string
}

// MergeParts is Merge of one cell's parts run by several clients of a
// plan, its options split between them as sp says.
func MergeParts(rs []*Result, sp Split) (*Result, error) {
	whole := sp.Whole
	if len(rs) == 0 {
		return nil, errors.New("nothing to merge")
	}
	base := rs[0]
	for i, r := range rs[1:] {
		if r.Workload != base.Workload {
			return nil, fmt.Errorf("result %d is %s, result 1 is %s: merge only results of one run", i+2, r.Workload, base.Workload)
		}
		if !sameMetric(r.Metric, base.Metric) {
			return nil, fmt.Errorf("result %d measures %s, result 1 %s: merge only results of one run", i+2, r.Metric.Name, base.Metric.Name)
		}
		skip := clientOptions
		if len(whole) > 0 || len(sp.PerPart) > 0 {
			skip = maps.Clone(clientOptions)
			for k := range whole {
				skip[k] = true
			}
			for _, k := range sp.PerPart {
				skip[k] = true
			}
		}
		if d := optionDiff(base.Options, r.Options, skip); len(d) > 0 {
			return nil, fmt.Errorf("result %d was run with other options (%s): merge only results of one run", i+2, strings.Join(d, ", "))
		}
		if !overlap(base, r) {
			return nil, fmt.Errorf("result %d ran %s..%s, result 1 %s..%s: the time windows do not overlap, so they are not one run",
				i+2, r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339), base.Start.Format(time.RFC3339), base.End.Format(time.RFC3339))
		}
	}
	m := &Result{Format: Format, Tool: base.Tool, Workload: base.Workload, Options: map[string]string{}, Server: base.Server,
		Dataset: base.Dataset, Totals: map[string]int64{}, Start: base.Start, End: base.End, Metric: base.Metric, Reset: base.Reset}
	for k, v := range base.Options {
		if !clientOptions[k] && !slices.Contains(sp.PerPart, k) {
			m.Options[k] = v
		}
	}
	maps.Copy(m.Options, whole)
	for _, r := range rs {
		if r.Share != nil {
			m.Parts = append(m.Parts, *r.Share)
		}
	}
	var err error
	var clients, eps []string
	hs := map[string]*hdr.Histogram{}
	var order []string
	for _, r := range rs {
		clients = append(clients, r.Client)
		eps = append(eps, r.Server.Endpoints...)
		m.Threads += r.Threads
		m.Seconds += r.Seconds / float64(len(rs))
		if r.Start.Before(m.Start) {
			m.Start = r.Start
		}
		if r.End.After(m.End) {
			m.End = r.End
		}
		for k, v := range r.Totals {
			m.Totals[k] += v
		}
		for _, op := range r.Ops {
			h, err := hist.Decode(op.Histogram)
			if err != nil {
				return nil, fmt.Errorf("%s: histogram of %s: %w", r.Client, op.Name, err)
			}
			if hs[op.Name] == nil {
				hs[op.Name] = hist.New()
				order = append(order, op.Name)
			}
			hs[op.Name].Merge(h)
		}
		m.Interrupted = m.Interrupted || r.Interrupted
	}
	m.Client = strings.Join(clients, ",")
	m.Server.Endpoints = dedupe(eps)
	m.Errors = mergeErrors(rs)
	if m.Statements, err = mergeStatements(rs); err != nil {
		return nil, err
	}
	for _, name := range order {
		op, err := NewOp(name, hs[name])
		if err != nil {
			return nil, err
		}
		m.Ops = append(m.Ops, op)
	}
	// Intervals line up by position; counts add. Interval percentiles cannot
	// be combined exactly (only the totals carry histograms): the merged
	// interval keeps the highest client p95, an upper bound.
	for i := 0; ; i++ {
		var iv *Interval
		for _, r := range rs {
			if i >= len(r.Intervals) {
				continue
			}
			x := r.Intervals[i]
			if iv == nil {
				iv = &Interval{T: x.T, Seconds: x.Seconds, Counts: map[string]int64{}, P95Ms: map[string]float64{}}
			}
			iv.Threads += x.Threads
			iv.Queue += x.Queue
			for k, v := range x.Counts {
				iv.Counts[k] += v
			}
			for k, v := range x.P95Ms {
				iv.P95Ms[k] = max(iv.P95Ms[k], v)
			}
		}
		if iv == nil {
			break
		}
		m.Intervals = append(m.Intervals, *iv)
	}
	return m, nil
}

func overlap(a, b *Result) bool {
	return a.Start.Before(b.End) && b.Start.Before(a.End)
}

func optionDiff(a, b map[string]string, ignore map[string]bool) []string {
	var d []string
	for k, v := range a {
		if !ignore[k] && b[k] != v {
			d = append(d, fmt.Sprintf("%s=%s vs %s", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok && !ignore[k] {
			d = append(d, fmt.Sprintf("%s=(none) vs %s", k, v))
		}
	}
	sort.Strings(d)
	return d
}

// DatasetDiff lists dataset and option differences that make a comparison
// of two results questionable (threads and client-specific options aside).
func DatasetDiff(a, b *Result) []string {
	var d []string
	// How a dataset was loaded (mode, time, from the generator's chunks or
	// its CSV files) does not change what it holds.
	ign := map[string]bool{"state": true, "unit": true}
	for k := range a.Dataset {
		if strings.HasPrefix(k, "load_") {
			ign[k] = true
		}
	}
	for k := range b.Dataset {
		if strings.HasPrefix(k, "load_") {
			ign[k] = true
		}
	}
	for _, x := range optionDiff(a.Dataset, b.Dataset, ign) {
		d = append(d, "dataset "+x)
	}
	ignOpt := map[string]bool{FlagThreads: true, FlagTime: true}
	for k := range clientOptions {
		ignOpt[k] = true
	}
	for _, x := range optionDiff(a.Options, b.Options, ignOpt) {
		d = append(d, "option "+x)
	}
	return d
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func sameMetric(a, b Metric) bool {
	return a.Name == b.Name && a.PerSeconds == b.PerSeconds && a.LatencyOp == b.LatencyOp &&
		strings.Join(a.Ops, ",") == strings.Join(b.Ops, ",") && strings.Join(a.Counters, ",") == strings.Join(b.Counters, ",")
}

// Throughput is the result's headline figure, as its metric says.
func (r *Result) Throughput() (value float64, unit string) {
	m := r.Metric
	if r.Seconds <= 0 || m.PerSeconds <= 0 {
		return 0, m.Name
	}
	var n int64
	for _, name := range m.Ops {
		if op := r.op(name); op != nil {
			n += op.Count
		}
	}
	for _, c := range m.Counters {
		n += r.Totals[c]
	}
	return float64(n) / r.Seconds * m.PerSeconds, m.Name
}

// AllFigures are the headline figure, by the metric's name, and the
// workload's own figures (what live metrics serve once a run ended).
func (r *Result) AllFigures() map[string]float64 {
	f := maps.Clone(r.Figures)
	if f == nil {
		f = map[string]float64{}
	}
	f[r.Metric.Name], _ = r.Throughput()
	return f
}

// TPS is events (transactions) per second.
func (r *Result) TPS() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Totals["events"]) / r.Seconds
}

func (r *Result) op(name string) *Op {
	for i := range r.Ops {
		if r.Ops[i].Name == name {
			return &r.Ops[i]
		}
	}
	return nil
}

// mainOp is the operation whose latency reports show.
func (r *Result) mainOp() *Op {
	if r.Metric.LatencyOp != "" {
		return r.op(r.Metric.LatencyOp)
	}
	if len(r.Ops) > 0 {
		return &r.Ops[0]
	}
	return nil
}

// Latency returns a percentile (ms) of the main operation.
func (r *Result) Latency(p string) float64 {
	if op := r.mainOp(); op != nil {
		return op.Percentiles[p]
	}
	return 0
}

// MeanLatency is the main operation's mean latency in ms.
func (r *Result) MeanLatency() float64 {
	if op := r.mainOp(); op != nil {
		return op.MeanMs
	}
	return 0
}

// Series is the throughput of every interval: the metric where its counters
// are in the intervals, else transactions per second.
func (r *Result) Series() (unit string, t, v []float64) {
	m := r.Metric
	unit = m.Name
	counters := m.Counters
	per := m.PerSeconds
	if len(counters) == 0 || per <= 0 {
		unit, counters, per = "TPS", []string{"events"}, 1
	}
	for _, iv := range r.Intervals {
		if iv.Seconds <= 0 {
			continue
		}
		var n int64
		for _, c := range counters {
			n += iv.Counts[c]
		}
		t = append(t, iv.T)
		v = append(v, float64(n)/iv.Seconds*per)
	}
	return unit, t, v
}

// Spectrum are the percentiles (ms) of the main operation over rs merged,
// at quantiles qs (percent).
func Spectrum(rs []*Result, qs []float64) ([]float64, error) {
	h := hist.New()
	for _, r := range rs {
		op := r.mainOp()
		if op == nil || op.Histogram == "" {
			continue
		}
		x, err := hist.Decode(op.Histogram)
		if err != nil {
			return nil, err
		}
		h.Merge(x)
	}
	if h.TotalCount() == 0 {
		return nil, nil
	}
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = float64(h.ValueAtQuantile(q)) / 1000
	}
	return out, nil
}

// Op returns the operation called name, or nil.
func (r *Result) Op(name string) *Op { return r.op(name) }

// mergeErrors sums the clients' error breakdowns, cell by cell.
func mergeErrors(rs []*Result) []ErrorCount {
	sum := map[ErrorCount]int64{}
	var order []ErrorCount
	for _, r := range rs {
		for _, e := range r.Errors {
			k := ErrorCount{Op: e.Op, Code: e.Code, Outcome: e.Outcome}
			if _, ok := sum[k]; !ok {
				order = append(order, k)
			}
			sum[k] += e.Count
		}
	}
	var out []ErrorCount
	for _, k := range order {
		k.Count = sum[k]
		out = append(out, k)
	}
	return out
}

// StateDrift is the share by which two runs' datasets may differ in a
// table's exact rows at their start before a comparison of them warns;
// EstimateDrift the same where either side is the server's estimate
// (InnoDB samples a few pages: CI once saw TPC-C's item, 100,000 rows in
// both, estimated at 84,932 and 101,088).
const (
	StateDrift    = 0.10
	EstimateDrift = 0.50
)

// StateDiff lists the tables whose rows at the start of run b differ from
// run a's by more than StateDrift (EstimateDrift for estimates): "18% more
// rows in orders (36582 against 30996)", "~" before an estimate.
func StateDiff(a, b *Result) []string {
	if a == nil || b == nil || a.DatasetState == nil || b.DatasetState == nil {
		return nil
	}
	have := map[string]TableState{}
	for _, t := range a.DatasetState.Start {
		have[t.Name] = t
	}
	var d []string
	for _, t := range b.DatasetState.Start {
		x, ok := have[t.Name]
		if !ok || x.Rows <= 0 {
			continue
		}
		drift := StateDrift
		if !t.Exact || !x.Exact {
			drift = EstimateDrift
		}
		ratio := float64(t.Rows)/float64(x.Rows) - 1
		if ratio > drift || ratio < -drift {
			more := "more"
			if ratio < 0 {
				more = "fewer"
			}
			d = append(d, fmt.Sprintf("%.0f%% %s rows in %s (%s against %s)", 100*abs(ratio), more, t.Name, t.rowsShown(), x.rowsShown()))
		}
	}
	return d
}

// rowsShown is the rows, "~" before the server's estimate.
func (t TableState) rowsShown() string {
	if t.Exact {
		return strconv.FormatInt(t.Rows, 10)
	}
	return "~" + strconv.FormatInt(t.Rows, 10)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// mergeStatements merges each statement's histograms over the clients.
func mergeStatements(rs []*Result) ([]Statement, error) {
	hs := map[string]*hdr.Histogram{}
	var order []Statement
	for _, r := range rs {
		for _, st := range r.Statements {
			h, err := hist.Decode(st.Histogram)
			if err != nil {
				return nil, fmt.Errorf("%s: histogram of statement %s: %w", r.Client, st.Key(), err)
			}
			if hs[st.Key()] == nil {
				hs[st.Key()] = hdr.New(hist.MinValue, hist.MaxValue, int(h.SignificantFigures()))
				order = append(order, st)
			}
			hs[st.Key()].Merge(h)
		}
	}
	var out []Statement
	for _, st := range order {
		op, err := NewOp(st.Name, hs[st.Key()])
		if err != nil {
			return nil, err
		}
		out = append(out, Statement{Event: st.Event, Op: op})
	}
	return out, nil
}
