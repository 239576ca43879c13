// Package compare puts the results of two versions side by side: per
// workload, throughput and latency against threads, ratios, a verdict, and
// warnings where datasets or options differ. It renders text, markdown in the
// layout of the TiDB benchmark reports, and one self-contained HTML file with
// SVG charts.
package compare

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Load reads result files, or every *.json in the folders given and in
// their subfolders (a plan's p95 search keeps its runs in one).
func Load(paths []string) ([]*result.Result, error) {
	var out []*result.Result
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %v", p, err)
		}
		files := []string{p}
		if st.IsDir() {
			files = nil
			filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") && !strings.HasPrefix(d.Name(), ".") {
					files = append(files, path)
				}
				return nil
			})
			sort.Strings(files)
			if len(files) == 0 {
				return nil, fmt.Errorf("%s holds no result files (*.json)", p)
			}
		}
		for _, f := range files {
			r, err := result.Read(f)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// Version is one side of a comparison.
type Version struct {
	Label   string
	Results []*result.Result
}

// LabelOf names a version by its server (TiDB version line when present).
func LabelOf(rs []*result.Result, fallback string) string {
	for _, r := range rs {
		if v := r.Server.TiDBVersion; v != "" {
			if i := strings.Index(v, "Release Version: "); i >= 0 {
				return strings.Fields(v[i+len("Release Version: "):])[0]
			}
			return strings.Fields(v)[0]
		}
		if r.Server.Version != "" {
			return r.Server.Version
		}
	}
	return fallback
}

// Row is one thread count of a workload: every repeat of each version,
// and the one with the median throughput, which the tables show.
type Row struct {
	Threads            int
	Base, Cand         *result.Result
	BaseRuns, CandRuns []*result.Result
	Stat               *Stat // nil unless both versions have the cell
}

// Table is one workload.
type Table struct {
	Workload string
	Step     string // the plan step, when two steps ran the same workload
	Title    string
	Unit     string // the metric's name: QPS, tpmC
	Compact  bool   // markdown: one throughput table of both versions
	Details  bool   // also every figure and every operation's latency
	Rows     []Row
	Warnings []string
	// P95Limit (ms) is set when the runs searched for the best threads
	// within a p95 limit (--p95-slo); Best then holds each version's pick.
	P95Limit float64
	Best     [2]*result.Result
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

// Build pairs the two versions' results by workload and thread count.
func Build(base, cand Version, describe Describe) []Table {
	type key struct {
		w, step string
		t       int
	}
	// Steps split a workload only when a plan ran it as several steps
	// (other options); one step pairs with runs made without a plan.
	steps := map[string]map[string]bool{}
	for _, r := range append(append([]*result.Result(nil), base.Results...), cand.Results...) {
		if r.Cell != nil {
			if steps[r.Workload] == nil {
				steps[r.Workload] = map[string]bool{}
			}
			steps[r.Workload][r.Cell.Step] = true
		}
	}
	stepOf := func(r *result.Result) string {
		if r.Cell == nil || len(steps[r.Workload]) < 2 {
			return ""
		}
		return r.Cell.Step
	}
	idx := map[key]*Row{}
	var keys []key
	add := func(r *result.Result, isBase bool) {
		k := key{r.Workload, stepOf(r), r.Threads}
		row := idx[k]
		if row == nil {
			row = &Row{Threads: r.Threads}
			idx[k] = row
			keys = append(keys, k)
		}
		if isBase {
			row.BaseRuns = append(row.BaseRuns, r)
		} else {
			row.CandRuns = append(row.CandRuns, r)
		}
	}
	for _, r := range base.Results {
		add(r, true)
	}
	for _, r := range cand.Results {
		add(r, false)
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
	var tables []Table
	for _, k := range keys {
		if n := len(tables); n == 0 || tables[n-1].Workload != k.w || tables[n-1].Step != k.step {
			d := descs[k.w]
			title := d.Title
			if k.step != "" {
				title += " (" + k.step + ")"
			}
			tables = append(tables, Table{Workload: k.w, Step: k.step, Title: title, Compact: d.Compact, Details: d.Details})
		}
		t := &tables[len(tables)-1]
		row := *idx[k]
		row.Base, row.Cand = medianRun(row.BaseRuns), medianRun(row.CandRuns)
		if row.Base != nil && row.Cand != nil {
			st := cellStat(throughputs(row.BaseRuns), throughputs(row.CandRuns))
			row.Stat = &st
		}
		t.Rows = append(t.Rows, row)
		for _, r := range []*result.Result{row.Base, row.Cand} {
			if r != nil && t.Unit == "" {
				_, t.Unit = r.Throughput()
			}
		}
		if row.Base != nil && row.Cand != nil {
			for _, d := range result.DatasetDiff(row.Base, row.Cand) {
				w := fmt.Sprintf("%d threads: %s", row.Threads, d)
				t.Warnings = append(t.Warnings, w)
			}
		}
	}
	for i := range tables {
		tables[i].pickBest()
	}
	return tables
}

// pickBest finds, for a p95-limit search, each version's run with the
// highest throughput whose p95 is within the limit.
func (t *Table) pickBest() {
	for _, r := range t.Rows {
		for _, x := range append(append([]*result.Result(nil), r.BaseRuns...), r.CandRuns...) {
			if d, err := time.ParseDuration(x.Options["p95-slo"]); err == nil && d > 0 {
				t.P95Limit = float64(d) / float64(time.Millisecond)
			}
		}
	}
	if t.P95Limit == 0 {
		return
	}
	for _, r := range t.Rows {
		for side, runs := range [][]*result.Result{r.BaseRuns, r.CandRuns} {
			for _, x := range runs {
				if x.Latency("95") <= t.P95Limit && (t.Best[side] == nil || tput(x) > tput(t.Best[side])) {
					t.Best[side] = x
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
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = tput(r)
	}
	return out
}

// Repeated says whether any cell has repeats on both sides.
func (t *Table) Repeated() bool {
	for _, r := range t.Rows {
		if r.Stat != nil && r.Stat.N1 > 1 && r.Stat.N2 > 1 {
			return true
		}
	}
	return false
}

// CellVerdicts are one line per cell both versions ran: the change and
// whether it stands out of the noise; without repeats, one line saying so.
func (t *Table) CellVerdicts() []string {
	if t.P95Limit > 0 && !t.Repeated() {
		return nil // a search runs each level once by design
	}
	if !t.Repeated() {
		for _, r := range t.Rows {
			if r.Stat != nil {
				return []string{fmt.Sprintf("one run per cell: too few to tell a change from noise; --repeat=%d (or more) on both versions gives each cell a test", 5)}
			}
		}
		return nil
	}
	var out []string
	for _, r := range t.Rows {
		if r.Stat != nil {
			out = append(out, fmt.Sprintf("%d threads: %s", r.Threads, r.Stat.String(t.Unit)))
		}
	}
	return out
}

// Regressions are the cells whose throughput fell significantly by more
// than limit (0.05 for 5%).
func (t *Table) Regressions(limit float64) []string {
	var out []string
	for _, r := range t.Rows {
		if s := r.Stat; s != nil && s.Significant && s.Ratio < 1-limit {
			out = append(out, fmt.Sprintf("%s at %d threads: %s", t.Title, r.Threads, s.String(t.Unit)))
		}
	}
	return out
}

// Ratio is the geometric mean of candidate / baseline throughput over the
// rows both have (0 when none).
func (t *Table) Ratio() float64 {
	sum, n := 0.0, 0
	for _, r := range t.Rows {
		if r.Base == nil || r.Cand == nil {
			continue
		}
		b, _ := r.Base.Throughput()
		c, _ := r.Cand.Throughput()
		if b > 0 && c > 0 {
			sum += math.Log(c / b)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(sum / float64(n))
}

// Verdict is the one-line summary of a table.
func (t *Table) Verdict(base, cand string) string {
	r := t.Ratio()
	if r == 0 {
		return fmt.Sprintf("%s: no thread count measured on both versions.", t.Title)
	}
	n := 0
	for _, row := range t.Rows {
		if row.Base != nil && row.Cand != nil {
			n++
		}
	}
	change := "increased"
	pct := (r - 1) * 100
	if pct < 0 {
		change, pct = "decreased", -pct
	}
	return fmt.Sprintf("%s: the %s of %s %s by %.0f%% over %s (geometric mean of %d thread count(s)).", t.Title, t.Unit, cand, change, pct, base, n)
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

// SettingDiff is a server setting whose value differs between the versions.
type SettingDiff struct{ Name, Base, Cand string }

// identityVariables differ between any two servers without changing what
// they do (or are the versions themselves): not listed.
var identityVariables = regexp.MustCompile(`^(version.*|hostname|port|socket|datadir|pid_file|server_uuid|server_id|log_error|general_log_file|slow_query_log_file|log_bin_basename|log_bin_index|relay_log.*|tmpdir|basedir|timestamp|gtid_.*|wsrep_.*_address|innodb_version|protocol_version|system_time_zone|rand_seed.*|pseudo_.*|warning_count|error_count|last_insert_id|identity|insert_id|tidb_current_ts|tidb_last_.*|tidb_config|ddl_.*uuid|tidb_server_memory.*)$`)

// Settings lists the settings that differ between the versions' servers
// (the first result of each with settings): global variables, then TiDB,
// TiKV and PD configuration, by name.
func Settings(base, cand Version) []SettingDiff {
	pick := func(v Version) *result.Result {
		for _, r := range v.Results {
			if len(r.Server.Variables) > 0 || len(r.Server.Config) > 0 {
				return r
			}
		}
		return nil
	}
	b, c := pick(base), pick(cand)
	if b == nil || c == nil {
		return nil
	}
	var out []SettingDiff
	diff := func(a, z map[string]string) {
		names := map[string]bool{}
		for k := range a {
			names[k] = true
		}
		for k := range z {
			names[k] = true
		}
		keys := make([]string, 0, len(names))
		for k := range names {
			if !identityVariables.MatchString(k) {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			va, oka := a[k]
			vz, okz := z[k]
			if !oka {
				va = "(none)"
			}
			if !okz {
				vz = "(none)"
			}
			if va != vz {
				out = append(out, SettingDiff{k, va, vz})
			}
		}
	}
	diff(b.Server.Variables, c.Server.Variables)
	diff(configValues(b.Server.Config), configValues(c.Server.Config))
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
