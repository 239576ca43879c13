// Package compare puts the results of versions side by side, oldest first: per
// workload, throughput and latency against threads, ratios, a verdict, and
// warnings where datasets or options differ. It renders text, markdown in the
// layout of the TiDB benchmark reports, and one self-contained HTML file with
// SVG charts.
package compare

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Load reads result files, or every *.json in the folders given and in
// their subfolders (a plan's p95 search keeps its runs in one), in order;
// files are decoded on every CPU.
func Load(paths []string, up result.Upgrade) ([]*result.Result, error) {
	files, err := result.Files(paths)
	if err != nil {
		return nil, err
	}
	out := make([]*result.Result, len(files))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	var sh settingsShare
	for i, f := range files {
		g.Go(func() error {
			r, err := result.ReadWith(f, up)
			if err != nil {
				return err
			}
			sh.share(&r.Server)
			out[i] = r
			return nil
		})
	}
	return out, g.Wait()
}

// settingsShare points each result's server settings at an equal set read
// before: runs on one server record the same hundreds of variables
// (thousands of SHOW CONFIG rows on TiDB), which were most of the memory
// of a report over many versions.
type settingsShare struct {
	mu     sync.Mutex
	vars   []map[string]string
	config [][]result.Setting
}

// shareLimit bounds the sets kept to compare with: past it, a new set is
// kept as it is.
const shareLimit = 64

func (sh *settingsShare) share(s *result.Server) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if s.Variables != nil {
		if i := slices.IndexFunc(sh.vars, func(v map[string]string) bool { return maps.Equal(v, s.Variables) }); i >= 0 {
			s.Variables = sh.vars[i]
		} else if len(sh.vars) < shareLimit {
			sh.vars = append(sh.vars, s.Variables)
		}
	}
	if s.Config != nil {
		if i := slices.IndexFunc(sh.config, func(c []result.Setting) bool { return slices.Equal(c, s.Config) }); i >= 0 {
			s.Config = sh.config[i]
		} else if len(sh.config) < shareLimit {
			sh.config = append(sh.config, s.Config)
		}
	}
}

// Version is one version's results.
type Version struct {
	Label   string
	Results []*result.Result
}

// LabelOf names a version by its server (TiDB version line when present).
func LabelOf(rs []*result.Result, fallback string) string {
	for _, r := range rs {
		if v := r.Server.TiDBVersion; v != "" {
			if _, after, ok := strings.Cut(v, "Release Version: "); ok {
				v = after
			}
			if f := strings.Fields(v); len(f) > 0 { // a line with no version (fuzzed) names nothing
				return f[0]
			}
		}
		if r.Server.Version != "" {
			return r.Server.Version
		}
	}
	return fallback
}

// Report is the comparison of versions, oldest first: a table per
// workload (and plan step) and the server settings that differ between
// adjacent versions.
type Report struct {
	Labels []string
	Tables []Table
	// Capacities are the versions' capacity searches, by workload: their
	// probes are not in Tables.
	Capacities []Capacity
	Settings   []SettingDiff
	// FailOnClientBound: Regressions counts cells where a version was
	// client-bound too (by default they are left out: such a verdict
	// measures the client).
	FailOnClientBound bool
	// Why: the server's evidence for every adjacent pair of every cell, not
	// only for the cells that got worse.
	Why bool
}

// New compares the versions, oldest first.
func New(vs []Version, describe Describe) *Report {
	rep := &Report{Tables: build(vs, describe), Capacities: capacities(vs, describe), Settings: Settings(vs)}
	for _, v := range vs {
		rep.Labels = append(rep.Labels, v.Label)
	}
	return rep
}

// Row is one thread count of a workload: every repeat of each version, and
// the one with the median throughput, which the tables show.
type Row struct {
	Threads int
	Runs    [][]*result.Result // per version: the cell's repeats (none: not run)
	Med     []*result.Result   // per version: the median run, nil for none
	// Prev is, per version, the nearest earlier version that ran the cell
	// (-1 for none): "the previous version" of ratios and verdicts.
	Prev []int
	// Stats is, per version, its throughput against Prev's (nil for none).
	Stats []*Stat
}

// first and last are the oldest and newest versions that ran the cell (-1
// for none).
func (r Row) first() int {
	for i, m := range r.Med {
		if m != nil {
			return i
		}
	}
	return -1
}

func (r Row) last() int {
	for i := len(r.Med) - 1; i >= 0; i-- {
		if r.Med[i] != nil {
			return i
		}
	}
	return -1
}

// Table is one workload.
type Table struct {
	Workload string
	Step     string // the plan step, when two steps ran the same workload
	Title    string
	Unit     string // the metric's name: QPS, tpmC
	Compact  bool   // markdown: one throughput table of all versions
	Details  bool   // also every figure and every operation's latency
	Rows     []Row
	Warnings []string
	// P95Limit (ms) is set when the runs searched for the best threads
	// within a p95 limit (--p95-slo); Best then holds each version's pick.
	P95Limit float64
	Best     []*result.Result
}

// Description is how reports present a workload's results: cmd fills it
// from the workload registry, which this package does not import.
type Description struct {
	Title string
	Rank  int
	// Compact: the markdown report is one table of throughput by version and
	// threads (as TiDB's TPC-C reports), without latency tables per version.
	Compact bool
	// Details: reports also compare the figures beside the headline and
	// each operation's latency.
	Details bool
}

// Describe names a workload's result for reports.
type Describe func(resultName string) Description

// build groups the versions' results by workload (and plan step) and
// thread count.
func build(vs []Version, describe Describe) []Table {
	type key struct {
		w, step string
		t       int
	}
	// Steps split a workload only when a plan ran it as several steps
	// (other options); one step pairs with runs made without a plan.
	steps := map[string]map[string]bool{}
	for _, v := range vs {
		for _, r := range v.Results {
			if r.Cell != nil {
				if steps[r.Workload] == nil {
					steps[r.Workload] = map[string]bool{}
				}
				steps[r.Workload][r.Cell.Step] = true
			}
		}
	}
	// A thread schedule's runs are not a plain run's of its most threads:
	// a table of their own, named by the schedule.
	stepOf := func(r *result.Result) string {
		step := ""
		if r.Cell != nil && len(steps[r.Workload]) >= 2 {
			step = r.Cell.Step
		}
		if r.Cell != nil && r.Cell.Key != nil && r.Cell.Key.Schedule != "" {
			step = strings.TrimPrefix(step+", threads "+r.Cell.Key.Schedule, ", ")
		}
		return step
	}
	n := len(vs)
	idx := map[key]*Row{}
	var keys []key
	for vi, v := range vs {
		for _, r := range v.Results {
			if r.Probe != nil {
				continue // a capacity search's: Capacities
			}
			k := key{r.Workload, stepOf(r), r.Threads}
			row := idx[k]
			if row == nil {
				row = &Row{Threads: r.Threads, Runs: make([][]*result.Result, n)}
				idx[k] = row
				keys = append(keys, k)
			}
			row.Runs[vi] = append(row.Runs[vi], r)
		}
	}
	descs := map[string]Description{}
	for _, k := range keys {
		if _, ok := descs[k.w]; !ok {
			descs[k.w] = describe(k.w)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].w != keys[j].w {
			if ri, rj := descs[keys[i].w].Rank, descs[keys[j].w].Rank; ri != rj {
				return ri < rj
			}
			return keys[i].w < keys[j].w
		}
		if keys[i].step != keys[j].step {
			return keys[i].step < keys[j].step
		}
		return keys[i].t < keys[j].t
	})
	labels := make([]string, n)
	for i, v := range vs {
		labels[i] = v.Label
	}
	var tables []Table
	for _, k := range keys {
		if nt := len(tables); nt == 0 || tables[nt-1].Workload != k.w || tables[nt-1].Step != k.step {
			d := descs[k.w]
			title := d.Title
			if k.step != "" {
				title += " (" + k.step + ")"
			}
			tables = append(tables, Table{Workload: k.w, Step: k.step, Title: title, Compact: d.Compact, Details: d.Details})
		}
		t := &tables[len(tables)-1]
		row := *idx[k]
		row.fill()
		t.Rows = append(t.Rows, row)
		for _, r := range row.Med {
			if r != nil && t.Unit == "" {
				_, t.Unit = r.Throughput()
			}
		}
		for i, p := range row.Prev {
			if p < 0 {
				continue
			}
			for _, d := range result.DatasetDiff(row.Med[p], row.Med[i]) {
				t.Warnings = append(t.Warnings, pairPrefix(labels, p, i)+fmt.Sprintf("%d threads: %s", row.Threads, d))
			}
			if d := result.StateDiff(row.Med[p], row.Med[i]); len(d) > 0 {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%d threads: %s's cell started on a dataset with %s than %s's (more than %.0f%% apart, %.0f%% for the server's estimates: reset the dataset between versions)",
					row.Threads, labels[i], strings.Join(d, ", "), labels[p], 100*result.StateDrift, 100*result.EstimateDrift))
			}
		}
	}
	for i := range tables {
		tables[i].pickBest(n)
	}
	return tables
}

// fill picks each version's median run, its previous version and the
// comparison with it.
func (r *Row) fill() {
	n := len(r.Runs)
	r.Med, r.Prev, r.Stats = make([]*result.Result, n), make([]int, n), make([]*Stat, n)
	prev := -1
	for i, runs := range r.Runs {
		r.Med[i], r.Prev[i] = medianRun(runs), prev
		if r.Med[i] == nil {
			r.Prev[i] = -1
			continue
		}
		if prev >= 0 {
			st := cellStat(throughputs(r.Runs[prev]), throughputs(runs))
			r.Stats[i] = &st
		}
		prev = i
	}
}

// pairPrefix names an adjacent pair in lines about it, when there are more
// than two versions (with two, every line is about the one pair).
func pairPrefix(labels []string, a, b int) string {
	if len(labels) <= 2 {
		return ""
	}
	return labels[a] + " -> " + labels[b] + ", "
}

// pickBest finds, for a p95-limit search, each version's run with the
// highest throughput whose p95 is within the limit.
func (t *Table) pickBest(n int) {
	t.Best = make([]*result.Result, n)
	for _, r := range t.Rows {
		for _, runs := range r.Runs {
			for _, x := range runs {
				if d, err := time.ParseDuration(x.Options[result.FlagP95SLO]); err == nil && d > 0 {
					t.P95Limit = float64(d) / float64(time.Millisecond)
				}
			}
		}
	}
	if t.P95Limit == 0 {
		return
	}
	for _, r := range t.Rows {
		for v, runs := range r.Runs {
			for _, x := range runs {
				if x.Latency("95") <= t.P95Limit && (t.Best[v] == nil || tput(x) > tput(t.Best[v])) {
					t.Best[v] = x
				}
			}
		}
	}
}

// medianRun is the repeat with the median throughput (the lower middle of
// an even count), nil for none.
func medianRun(rs []*result.Result) *result.Result {
	if len(rs) == 0 {
		return nil
	}
	s := append([]*result.Result(nil), rs...)
	sort.SliceStable(s, func(i, j int) bool { return tput(s[i]) < tput(s[j]) })
	return s[(len(s)-1)/2]
}

func throughputs(rs []*result.Result) []float64 {
	return values(rs, tput)
}

func values(rs []*result.Result, f func(*result.Result) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// Repeated says whether any cell has repeats in two versions compared.
func (t *Table) Repeated() bool {
	for _, r := range t.Rows {
		for _, s := range r.Stats {
			if s != nil && s.N1 > 1 && s.N2 > 1 {
				return true
			}
		}
	}
	return false
}

// CellVerdicts are one line per cell and adjacent pair of versions that
// both ran it: the change and whether it stands out of the noise; without
// repeats, one line saying so.
func (t *Table) CellVerdicts(labels []string) []string {
	if t.P95Limit > 0 && !t.Repeated() {
		return nil // a search runs each level once by design
	}
	if !t.Repeated() {
		for _, r := range t.Rows {
			for _, s := range r.Stats {
				if s != nil {
					return []string{fmt.Sprintf("one run per cell: too few to tell a change from noise; --repeat=%d (or more) on %s gives each cell a test", 5, everyVersion(labels))}
				}
			}
		}
		return nil
	}
	var out []string
	for v := 1; v < len(labels); v++ {
		for _, r := range t.Rows {
			if s := r.Stats[v]; s != nil {
				out = append(out, pairPrefix(labels, r.Prev[v], v)+fmt.Sprintf("%d threads: %s", r.Threads, s.String(t.Unit)))
			}
		}
	}
	return out
}

// Regressions are the cells whose throughput fell significantly by more
// than limit (0.05 for 5%) from the previous version to the last one.
func (t *Table) Regressions(labels []string, limit float64, withBound bool) []string {
	var out []string
	last := len(labels) - 1
	for _, r := range t.Rows {
		bound := func(v int) bool { why, _ := r.clientBound(v); return why != "" } // a busy host still measured the server
		if !withBound && (bound(last) || r.Prev[last] >= 0 && bound(r.Prev[last])) {
			continue
		}
		if s := r.Stats[last]; s != nil && s.Significant && s.Ratio < 1-limit {
			out = append(out, fmt.Sprintf("%s at %d threads: %s%s", t.Title, r.Threads, pairPrefix(labels, r.Prev[last], last), s.String(t.Unit)))
		}
	}
	return out
}

// Ratio is the geometric mean of version b's over version a's throughput
// over the rows both have (0 when none), and how many rows that is.
func (t *Table) Ratio(a, b int) (float64, int) {
	sum, n := 0.0, 0
	for _, r := range t.Rows {
		x, y := tput(r.Med[a]), tput(r.Med[b])
		if x > 0 && y > 0 {
			sum += math.Log(y / x)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Exp(sum / float64(n)), n
}

// Verdict is the one-line summary of a table: the last version against
// the first.
func (t *Table) Verdict(labels []string) string {
	base, cand := labels[0], labels[len(labels)-1]
	r, n := t.Ratio(0, len(labels)-1)
	if r == 0 {
		return fmt.Sprintf("%s: no thread count measured on both %s and %s.", t.Title, base, cand)
	}
	change := "increased"
	pct := (r - 1) * 100
	if pct < 0 {
		change, pct = "decreased", -pct
	}
	return fmt.Sprintf("%s: the %s of %s %s by %.0f%% over %s (geometric mean of %d thread count(s)).", t.Title, t.Unit, cand, change, pct, base, n)
}

// ByVersion is, for more than two versions, the change from each version to
// the next (geometric mean over the thread counts both ran): where in the
// release history the throughput moved.
func (t *Table) ByVersion(labels []string) string {
	if len(labels) <= 2 {
		return ""
	}
	var steps []string
	for v := 1; v < len(labels); v++ {
		step := labels[v-1] + " -> " + labels[v] + " "
		if r, _ := t.Ratio(v-1, v); r > 0 {
			step += fmt.Sprintf("%+.0f%%", (r-1)*100)
		} else {
			step += "-"
		}
		steps = append(steps, step)
	}
	return fmt.Sprintf("%s by version: %s.", t.Unit, strings.Join(steps, ", "))
}

func tput(r *result.Result) float64 {
	if r == nil {
		return math.NaN()
	}
	v, _ := r.Throughput()
	return v
}

func lat(r *result.Result, p string) float64 {
	if r == nil {
		return math.NaN()
	}
	return r.Latency(p)
}

func num(v float64, prec int) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func ratio(a, b float64) string {
	if math.IsNaN(a) || math.IsNaN(b) || a == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", b/a)
}

// everyVersion words "all the versions".
func everyVersion(labels []string) string {
	if len(labels) == 2 {
		return "both versions"
	}
	return "every version"
}

// SettingDiff is a server setting whose value differs between two adjacent
// versions: its value in each version ("" where a version recorded no
// settings).
type SettingDiff struct {
	Name   string
	Values []string
}

// identityVariables differ between any two servers without changing what
// they do (or are the versions themselves): not listed.
var identityVariables = regexp.MustCompile(`^(version.*|hostname|port|socket|datadir|pid_file|server_uuid|server_id|log_error|general_log_file|slow_query_log_file|log_bin_basename|log_bin_index|relay_log.*|tmpdir|basedir|timestamp|gtid_.*|wsrep_.*_address|innodb_version|protocol_version|system_time_zone|rand_seed.*|pseudo_.*|warning_count|error_count|last_insert_id|identity|insert_id|tidb_current_ts|tidb_last_.*|tidb_config|ddl_.*uuid|tidb_server_memory.*)$`)

// Settings lists the settings that differ between adjacent versions'
// servers (the first result of each with settings; a version without any
// is compared with neither neighbour): global variables, then TiDB, TiKV
// and PD configuration, by name.
func Settings(vs []Version) []SettingDiff {
	type known struct{ vars, cfg map[string]string }
	ks := make([]*known, len(vs))
	for i, v := range vs {
		for _, r := range v.Results {
			if len(r.Server.Variables) > 0 || len(r.Server.Config) > 0 {
				ks[i] = &known{r.Server.Variables, configValues(r.Server.Config)}
				break
			}
		}
	}
	var out []SettingDiff
	for _, of := range []func(*known) map[string]string{
		func(k *known) map[string]string { return k.vars },
		func(k *known) map[string]string { return k.cfg },
	} {
		names := map[string]bool{}
		for _, k := range ks {
			if k != nil {
				for name := range of(k) {
					if !identityVariables.MatchString(name) {
						names[name] = true
					}
				}
			}
		}
		value := func(k *known, name string) string {
			if v, ok := of(k)[name]; ok {
				return v
			}
			return "(none)"
		}
		for _, name := range slices.Sorted(maps.Keys(names)) {
			differs := false
			for i := 1; i < len(ks); i++ {
				if ks[i-1] != nil && ks[i] != nil && value(ks[i-1], name) != value(ks[i], name) {
					differs = true
				}
			}
			if !differs {
				continue
			}
			d := SettingDiff{Name: name, Values: make([]string, len(ks))}
			for i, k := range ks {
				if k != nil {
					d.Values[i] = value(k, name)
				}
			}
			out = append(out, d)
		}
	}
	return out
}

// configValues keys SHOW CONFIG by component and name; instances that
// disagree show all their values.
func configValues(cfg []result.Setting) map[string]string {
	vals := map[string]map[string]bool{}
	for _, s := range cfg {
		k := s.Type + "." + s.Name
		if vals[k] == nil {
			vals[k] = map[string]bool{}
		}
		vals[k][s.Value] = true
	}
	out := map[string]string{}
	for k, set := range vals {
		var vs []string
		for v := range set {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		out[k] = strings.Join(vs, " | ")
	}
	return out
}

// clientBound is why version v's runs of the cell were client-bound ("":
// none was), and why their host was busy ("": it was not).
func (r *Row) clientBound(v int) (bound, host string) {
	for _, x := range r.Runs[v] {
		if h := x.ClientHealth; h != nil && h.ClientBound && bound == "" {
			bound = h.ClientBoundWhy
		} else if h != nil && h.HostBusy && host == "" {
			host = h.HostBusyWhy
		}
	}
	return bound, host
}

// ClientBound lists the cells a version ran client-bound: their verdicts
// measure the client.
func (t *Table) ClientBound(labels []string) []string {
	var out []string
	for v, label := range labels {
		for _, r := range t.Rows {
			bound, host := r.clientBound(v)
			if bound != "" {
				out = append(out, fmt.Sprintf("%s, %d threads: client-bound: this verdict measures the client (%s)", label, r.Threads, bound))
			}
			if host != "" {
				out = append(out, fmt.Sprintf("%s, %d threads: host busy: %s", label, r.Threads, host))
			}
		}
	}
	return out
}

// ClientCPU is each version's client CPU time per event (us) over its runs
// of the table that record the client's health; ok is false when none does.
func (t *Table) ClientCPU(versions int) (perEvent []float64, ok bool) {
	perEvent = make([]float64, versions)
	for v := range perEvent {
		var cpu float64
		var events int64
		for _, r := range t.Rows {
			for _, x := range r.Runs[v] {
				if h := x.ClientHealth; h != nil {
					cpu += h.UserSeconds + h.SysSeconds
					events += x.Totals["events"]
					ok = true
				}
			}
		}
		if events > 0 {
			perEvent[v] = cpu / float64(events) * 1e6
		}
	}
	return perEvent, ok
}
