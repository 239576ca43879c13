// Package series reads many runs' results as series, one per cell (the
// workload, its step, threads and options), each in the order the runs
// were made (or their builds'), and finds where each series' level
// changed (internal/report/changepoint): the question of a nightly
// pipeline with one run a build, where report compare asks about repeats.
package series

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/internal/report/changepoint"
	"github.com/oltpbench/oltpbench/internal/report/compare"
	"github.com/oltpbench/oltpbench/internal/result"
)

// Point is one run of a series.
type Point struct {
	File        string
	Build       string    // the version it measured
	Time        time.Time // when it started
	ClientBound bool      // its figures measure the client as much as the server
}

// Metric is one figure of a series' runs and the changes of its level.
type Metric struct {
	Name    string
	Higher  bool      // higher is better
	Values  []float64 // one per point, NaN where a run has none
	Changes []Change
	// Unbound are the changes found without the client-bound runs (the
	// gate's, unless asked otherwise); Changes when there are none.
	Unbound []Change
}

// Change is a change of a metric's level: At is the index of the first
// point after it; Before and After the means of the segments on either
// side (to the change before it and the one after it); P the permutation
// test's p-value.
type Change struct {
	At            int
	Before, After float64
	P             float64
	Worse         bool
}

// Delta is the change as a share of the level before it.
func (c Change) Delta() float64 { return c.After/c.Before - 1 }

// Series is one cell's runs in order and its metrics, the headline first.
type Series struct {
	Key     string
	Title   string
	order   []string // workload, step; then threads
	threads int
	Points  []Point
	Metrics []Metric
	// Short says the series has too few runs to judge.
	Short bool
}

// Report is series of runs and what was left out.
type Report struct {
	Series []*Series
	// Results is how many result files were read; Failed the runs left
	// out (interrupted, or nothing measured), Unreadable the files that
	// could not be read, Unlisted the runs of builds not in the order's
	// list, each with why.
	Results                      int
	Failed, Unreadable, Unlisted []string
	Probes                       int // capacity searches' probes, left out
	Order                        string
	MinSize                      int // the fewest runs on each side of a change
	Alpha                        float64
}

// Options is how results become a history.
type Options struct {
	// Order is "time" (the runs' start, the default) or "version" (the
	// builds' order: Versions when given, else by their names, numbers
	// compared as numbers: v7.5.10 after v7.5.9).
	Order    string
	Versions []string
	Since    time.Time // runs started before it are left out
	Describe compare.Describe
	Upgrade  result.Upgrade
	// Confidence is how sure a change must be (0.99: its p-value at most
	// 0.01; at most 0.999); MinSize as changepoint.Config's.
	Confidence float64
	MinSize    int
}

// ignored are the options that do not make a run another cell: where it
// connected, where its result went, how it reported.
var ignored = map[string]bool{
	result.FlagResultFile: true, result.FlagResultDir: true, "result-directory": true, result.FlagMetrics: true,
	result.FlagClientID: true, result.FlagStartAt: true, result.FlagRepeat: true, "progress": true, "output": true,
	"report-interval": true, "config-file": true, "props": true, "rand-seed": true, "resume": true,
}

// Build reads every result under paths into series.
func Build(paths []string, o Options) (*Report, error) {
	o.Order = cmp.Or(o.Order, "time")
	if o.Order != "time" && o.Order != "version" {
		return nil, fmt.Errorf("invalid --order=%s: time or version", o.Order)
	}
	if o.Confidence == 0 {
		o.Confidence = 0.99
	}
	// At most 0.999: the permutation test draws 10/(1 - confidence)
	// shuffles, 9,999 there.
	if o.Confidence <= 0.5 || o.Confidence > 0.999 {
		return nil, fmt.Errorf("invalid --confidence=%g: between 0.5 and 0.999, as 0.99", o.Confidence)
	}
	cfg := changepoint.Config{MinSize: o.MinSize, Alpha: 1 - o.Confidence}
	files, err := resultFiles(paths)
	if err != nil {
		return nil, err
	}
	rep := &Report{Order: o.Order, MinSize: cmp.Or(o.MinSize, 3), Alpha: cfg.Alpha}
	type run struct {
		r    *result.Result
		file string
	}
	bySeries := map[string][]run{}
	var keys []string
	for _, f := range files {
		r, err := result.ReadWith(f, o.Upgrade)
		if err != nil {
			rep.Unreadable = append(rep.Unreadable, firstLine(err))
			continue
		}
		rep.Results++
		if r.Probe != nil {
			rep.Probes++ // a capacity search's probe: report compare reads searches
			continue
		}
		if !o.Since.IsZero() && r.Start.Before(o.Since) {
			continue
		}
		if v, _ := r.Throughput(); r.Interrupted || !(v > 0) {
			why := "nothing measured"
			if r.Interrupted {
				why = "interrupted"
			}
			rep.Failed = append(rep.Failed, fmt.Sprintf("%s (%s)", f, why))
			continue
		}
		k := seriesKey(r)
		if bySeries[k] == nil {
			keys = append(keys, k)
		}
		bySeries[k] = append(bySeries[k], run{r, f})
	}
	if rep.Results == 0 {
		return nil, fmt.Errorf("no result could be read under %s (%s)", strings.Join(paths, ", "), strings.Join(rep.Unreadable, "; "))
	}
	rank := map[string]int{}
	for i, v := range o.Versions {
		rank[v] = i + 1
	}
	for _, k := range keys {
		runs := bySeries[k]
		if len(o.Versions) > 0 {
			kept := runs[:0]
			for _, x := range runs {
				if rank[build(x.r)] == 0 {
					rep.Unlisted = append(rep.Unlisted, fmt.Sprintf("%s (build %s)", x.file, build(x.r)))
					continue
				}
				kept = append(kept, x)
			}
			if runs = kept; len(runs) == 0 {
				continue
			}
		}
		sort.SliceStable(runs, func(i, j int) bool {
			a, b := runs[i].r, runs[j].r
			if o.Order == "version" {
				if c := cmp.Compare(rank[build(a)], rank[build(b)]); len(o.Versions) > 0 && c != 0 {
					return c < 0
				}
				if c := compareVersions(build(a), build(b)); len(o.Versions) == 0 && c != 0 {
					return c < 0
				}
			}
			return a.Start.Before(b.Start)
		})
		first := runs[0].r
		s := &Series{Key: k, Title: title(first, o.Describe), order: []string{first.Workload, ""}, threads: first.Threads}
		if first.Cell != nil {
			s.order[1] = first.Cell.Step
		}
		rs := make([]*result.Result, len(runs))
		for i, x := range runs {
			rs[i] = x.r
			s.Points = append(s.Points, Point{File: x.file, Build: build(x.r), Time: x.r.Start,
				ClientBound: x.r.ClientHealth != nil && x.r.ClientHealth.ClientBound})
		}
		s.Metrics = metrics(rs)
		s.Short = len(rs) < 2*rep.MinSize
		rep.Series = append(rep.Series, s)
	}
	// Each metric of each series on every CPU: its seed is its own, so the
	// answer does not depend on the order.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, s := range rep.Series {
		if s.Short {
			continue
		}
		for mi := range s.Metrics {
			g.Go(func() error {
				c := cfg
				c.Seed = seed(s.Key, mi)
				m := &s.Metrics[mi]
				m.Changes = m.detect(c, nil)
				m.Unbound = m.Changes
				if s.clientBound() > 0 {
					m.Unbound = m.detect(c, func(i int) bool { return s.Points[i].ClientBound })
				}
				return nil
			})
		}
	}
	g.Wait()
	slices.SortStableFunc(rep.Series, func(a, b *Series) int {
		return cmp.Or(slices.Compare(a.order, b.order), cmp.Compare(a.threads, b.threads), cmp.Compare(a.Key, b.Key))
	})
	return rep, nil
}

// resultFiles lists the result files under paths (result.Files).
func resultFiles(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errors.New("give one or more folders of results (or result files)")
	}
	return result.Files(paths)
}

// seriesKey is a run's cell: its workload, plan step, threads and the
// options that shape what it measured.
func seriesKey(r *result.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%d", r.Workload, r.Threads)
	if r.Cell != nil {
		b.WriteString("|step=" + r.Cell.Step)
	}
	for _, k := range slices.Sorted(mapKeys(r.Options)) {
		if ignored[k] || strings.HasPrefix(k, "mysql-") || k == result.FlagThreads {
			continue
		}
		b.WriteString("|" + k + "=" + r.Options[k])
	}
	return b.String()
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// build is the version a run measured: its plan's version name, else what
// the server reported.
func build(r *result.Result) string {
	if r.Version != nil && r.Version.Name != "" {
		return r.Version.Name
	}
	return compare.LabelOf([]*result.Result{r}, "(unknown)")
}

func title(r *result.Result, describe compare.Describe) string {
	t := r.Workload
	if describe != nil {
		t = cmp.Or(describe(r.Workload).Title, t)
	}
	t += fmt.Sprintf(", %d threads", r.Threads)
	if r.Cell != nil && r.Cell.Step != "" {
		t += " (step " + r.Cell.Step + ")"
	}
	return t
}

// metrics are the figures a history follows: the headline, p95 and p99,
// errors per second and the client's CPU per event.
func metrics(rs []*result.Result) []Metric {
	_, unit := rs[0].Throughput()
	ms := []Metric{{Name: unit, Higher: true}, {Name: "p95 ms"}, {Name: "p99 ms"}, {Name: "errors/s"}, {Name: "client CPU us/event"}}
	for _, r := range rs {
		v, _ := r.Throughput()
		var errs float64
		for _, e := range r.ErrorsByCode() {
			errs += float64(e.Count)
		}
		cpu := math.NaN()
		if h := r.ClientHealth; h != nil && r.Totals["events"] > 0 {
			cpu = (h.UserSeconds + h.SysSeconds) / float64(r.Totals["events"]) * 1e6
		}
		rate := math.NaN()
		if r.Seconds > 0 {
			rate = errs / r.Seconds
		}
		for i, x := range []float64{v, nanIfZero(r.Latency("95")), nanIfZero(r.Latency("99")), rate, cpu} {
			ms[i].Values = append(ms[i].Values, x)
		}
	}
	return ms
}

func nanIfZero(v float64) float64 {
	if v == 0 {
		return math.NaN()
	}
	return v
}

// detect finds the metric's changes over the points that have it, but
// those skip says to leave out.
func (m *Metric) detect(c changepoint.Config, skip func(int) bool) []Change {
	var idx []int
	var xs []float64
	for i, v := range m.Values {
		if !math.IsNaN(v) && (skip == nil || !skip(i)) {
			idx = append(idx, i)
			xs = append(xs, v)
		}
	}
	if len(xs) < 2*max(2, c.MinSize) || allEqual(xs) {
		return nil
	}
	found := changepoint.Detect(xs, c)
	bounds := []int{0}
	for _, f := range found {
		bounds = append(bounds, f.Index)
	}
	bounds = append(bounds, len(xs))
	var out []Change
	for i, f := range found {
		ch := Change{At: idx[f.Index], Before: mean(xs[bounds[i]:bounds[i+1]]), After: mean(xs[bounds[i+1]:bounds[i+2]]), P: f.P}
		ch.Worse = ch.After < ch.Before == m.Higher
		out = append(out, ch)
	}
	return out
}

func allEqual(xs []float64) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return true
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// seed makes each series' permutations its own and the same every time.
func seed(key string, metric int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64() + uint64(metric)
}

// compareVersions orders build names as versions: runs of digits compare
// as numbers, the rest as text (v7.5.9 < v7.5.10, b2 < b10).
func compareVersions(a, b string) int {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da > 0 && db > 0 {
			x, _ := strconv.ParseUint(a[:da], 10, 64)
			y, _ := strconv.ParseUint(b[:db], 10, 64)
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitsPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// Gate is the gate of a nightly pipeline: the series whose headline's
// newest segment is worse than the one before it by more than limit (a
// share), the client-bound runs left out unless withBound.
func (rep *Report) Gate(limit float64, withBound bool) []string {
	var out []string
	for _, s := range rep.Series {
		if s.Short || len(s.Metrics) == 0 {
			continue
		}
		m := s.Metrics[0]
		cs := m.Unbound
		if withBound {
			cs = m.Changes
		}
		if len(cs) == 0 {
			continue
		}
		last := cs[len(cs)-1]
		from := 0
		if n := len(cs); n >= 2 {
			from = cs[n-2].At
		}
		before, after := s.segmentMean(m, from, last.At, withBound), s.segmentMean(m, last.At, len(s.Points), withBound)
		if math.IsNaN(before) || math.IsNaN(after) {
			continue
		}
		delta := after/before - 1
		if (m.Higher && delta < -limit) || (!m.Higher && delta > limit) {
			p := s.Points[last.At]
			out = append(out, fmt.Sprintf("%s: %s %+.1f%% from %s (%s) on, p = %s", s.Title, m.Name, 100*delta, p.Build, p.Time.Format("2006-01-02 15:04"), pval(last.P)))
		}
	}
	return out
}

// segmentMean is the mean of a metric over points [a, b), without the
// client-bound ones unless withBound (NaN for none).
func (s *Series) segmentMean(m Metric, a, b int, withBound bool) float64 {
	var xs []float64
	for i := a; i < b; i++ {
		if !math.IsNaN(m.Values[i]) && (withBound || !s.Points[i].ClientBound) {
			xs = append(xs, m.Values[i])
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return mean(xs)
}
