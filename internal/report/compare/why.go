package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Why is what the evidence says changed in a cell from one version to
// another: the statements whose server or client latency moved, the plans
// that changed, and the counters per event that moved beyond the spread of
// the repeats.
type Why struct {
	Threads    int
	From, To   int
	Statements []string
	Client     []string // statements whose client latency moved
	Plans      []string // plans whose shape changed, both shown
	Counters   []string
	Metrics    []string // TiDB's cluster metrics whose averages moved
	Missing    []string // evidence a version's runs lack
	// Tentative is a drop the repeats cannot call significant (too few of
	// them: 3 and 3 never reach p < 0.05), named because every run of To
	// is below every run of From: its evidence is shown, its verdict stays
	// the test's.
	Tentative *Stat
}

// A change counts when the two versions' repeats do not overlap and their
// medians are this far apart (either way).
const whyRatio = 1.5

// whyMinPerEvent is the least a counter must count per event (in the
// larger version) to be named: below it, a change is housekeeping.
const whyMinPerEvent = 0.05

// Top changes named per cell.
const whyStatements, whyCounters = 3, 5

// gauges are status values that are levels, not counts: their change
// over a window says nothing per event.
var gauges = []string{"Uptime", "Threads_", "Max_used", "_connected", "Open_", "Memory_used", "Last_query_cost", "pages_",
	"Innodb_buffer_pool_bytes", "Innodb_page_size", "history_list", "Innodb_num_open_files", "Innodb_checkpoint", "Innodb_lsn",
	"_current", "Innodb_mem_", "Innodb_available_undo_logs", "Ssl_", "Rpl_", "Slaves_", "Tc_log_", "Innodb_buffer_pool_load",
	"Innodb_buffer_pool_dump", "Innodb_encryption", "wsrep", "Innodb_master_thread", "Innodb_onlineddl", "Feature_", "Acl_",
	"Innodb_have_", "Innodb_instant_alter", "Resultset_metadata", "Handler_tmp", "Rows_tmp_read", "Binlog_snapshot", "Innodb_undo"}

func gauge(name string) bool {
	for _, g := range gauges {
		if strings.Contains(name, g) {
			return true
		}
	}
	return false
}

// Whys are the causes the evidence names: for every cell that got worse
// between two versions (the pair "where it got worse" names with more
// versions), or for every adjacent pair of every cell when all.
func (t *Table) Whys(labels []string, all bool) []Why {
	var out []Why
	pairs := t.worsePairs(len(labels), all)
	for _, row := range t.Rows {
		for _, p := range pairs[row.Threads] {
			w := Why{Threads: row.Threads, From: p[0], To: p[1]}
			a, b := values(row.Runs[p[0]], tput), values(row.Runs[p[1]], tput)
			if st := cellStat(a, b); !st.Significant && belowAll(b, a) {
				w.Tentative = &st
			}
			w.Missing = missingEvidence(labels, row, p[0], p[1])
			if timed(row.Runs[p[0]]) && timed(row.Runs[p[1]]) {
				w.Client = clientChanges(row.Runs[p[0]], row.Runs[p[1]])
			}
			if evidenced(row.Runs[p[0]]) && evidenced(row.Runs[p[1]]) {
				w.Statements = statementChanges(row.Runs[p[0]], row.Runs[p[1]])
				w.Plans = planChanges(row.Runs[p[0]], row.Runs[p[1]])
				w.Counters = counterChanges(row.Runs[p[0]], row.Runs[p[1]])
				w.Metrics = metricChanges(row.Runs[p[0]], row.Runs[p[1]])
			}
			out = append(out, w)
		}
	}
	return out
}

// worsePairs are, per thread count, the version pairs to explain.
func (t *Table) worsePairs(versions int, all bool) map[int][][2]int {
	out := map[int][][2]int{}
	for _, row := range t.Rows {
		for v := 1; v < len(row.Prev); v++ {
			p := row.Prev[v]
			if p < 0 || row.Med[v] == nil {
				continue
			}
			worse := versions == 2 && row.Stats[v] != nil && row.Stats[v].Significant && row.Stats[v].Ratio < 1
			if all || worse {
				out[row.Threads] = append(out[row.Threads], [2]int{p, v})
			}
		}
	}
	if !all && versions > 2 {
		for _, d := range t.Drops(versions) {
			if len(d.Steps) > 0 {
				out[d.Threads] = appendPair(out[d.Threads], [2]int{d.Steps[0].Prev, d.Steps[0].At})
			}
		}
	}
	// A drop beyond the repeats' spread that the test cannot call (too few
	// repeats) is explained too, marked as not significant.
	for _, row := range t.Rows {
		for v := 1; v < len(row.Prev); v++ {
			if p := row.Prev[v]; p >= 0 && row.Med[v] != nil && belowAll(values(row.Runs[v], tput), values(row.Runs[p], tput)) {
				out[row.Threads] = appendPair(out[row.Threads], [2]int{p, v})
			}
		}
	}
	return out
}

// belowAll says whether every value of b is below every value of a, each
// side with repeats (one run has no spread to be beyond).
func belowAll(b, a []float64) bool {
	return len(a) > 1 && len(b) > 1 && slicesMax(b) < slicesMin(a)
}

func appendPair(ps [][2]int, p [2]int) [][2]int {
	for _, x := range ps {
		if x == p {
			return ps
		}
	}
	return append(ps, p)
}

func evidenced(runs []*result.Result) bool {
	for _, r := range runs {
		if r.Evidence == nil {
			return false
		}
	}
	return len(runs) > 0
}

// timed says whether every run has its statements' client latency.
func timed(runs []*result.Result) bool {
	for _, r := range runs {
		if len(r.Statements) == 0 {
			return false
		}
	}
	return len(runs) > 0
}

// missingEvidence says what the two versions' runs lack.
func missingEvidence(labels []string, row Row, from, to int) []string {
	var out []string
	for _, v := range []int{from, to} {
		if !timed(row.Runs[v]) {
			out = append(out, labels[v]+": no client latency per statement in its results (run without --statement-latency, or written before oltpbench timed statements)")
		}
		if !evidenced(row.Runs[v]) {
			out = append(out, labels[v]+": no server evidence in its results (written before oltpbench read it, or a dry run)")
			continue
		}
		for _, m := range row.Runs[v][0].Evidence.Missing {
			out = append(out, labels[v]+": "+m)
		}
	}
	return out
}

// perEvent is, per repeat, a figure of the run over its events.
func perEvent(runs []*result.Result, f func(*result.Result) (float64, bool)) ([]float64, bool) {
	var out []float64
	for _, r := range runs {
		x, ok := f(r)
		if !ok {
			return nil, false
		}
		out = append(out, x/math.Max(float64(r.Totals["events"]), 1))
	}
	return out, true
}

// moved says whether two sets of repeats do not overlap and their medians
// are whyRatio apart; ratio is b's median over a's.
func moved(a, b []float64) (ratio float64, ok bool) {
	ma, mb := median(a), median(b)
	if ma == mb || slicesMax(a) >= slicesMin(b) && slicesMax(b) >= slicesMin(a) {
		return 0, false
	}
	if ma == 0 {
		return math.Inf(1), true
	}
	ratio = mb / ma
	return ratio, ratio >= whyRatio || ratio <= 1/whyRatio
}

// whySteady is how far (a factor either way) a counter's repeats may
// stand from their median for it to be named: a server counter that some
// repeats of one version count plenty of and others little (an optimizer's
// choice that flips between runs, background work) moves with chance, not
// with the version.
const whySteady = 3

// steady says whether every repeat is within whySteady of the median (a
// median of none: the repeats that counted some overlap the other
// version's, or they moved from none).
func steady(x []float64) bool {
	m := median(x)
	if m == 0 {
		return true
	}
	return slicesMin(x) >= m/whySteady && slicesMax(x) <= m*whySteady
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func slicesMax(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

func slicesMin(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

func times(r float64) string {
	switch {
	case math.IsInf(r, 1):
		return "from none"
	case r == 0:
		return "to none"
	case r >= 1:
		return fmt.Sprintf("%.3gx", r)
	default:
		return fmt.Sprintf("%.3gx (down)", r)
	}
}

// counterChanges are the counters per event that moved, most first.
func counterChanges(a, b []*result.Result) []string {
	var cs []ranked
	for name := range b[0].Evidence.Counters {
		if gauge(name) {
			continue
		}
		of := func(r *result.Result) (float64, bool) { v, ok := r.Evidence.Counters[name]; return v, ok }
		va, oka := perEvent(a, of)
		vb, okb := perEvent(b, of)
		if !oka || !okb {
			continue
		}
		ratio, ok := moved(va, vb)
		ma, mb := median(va), median(vb)
		if ok && math.Max(ma, mb) >= whyMinPerEvent && steady(va) && steady(vb) {
			// Ranked by how far they moved, each level raised by the least
			// named, so that a counter that went from none to a little does
			// not rank above one that went from a lot to fifty times that.
			far := math.Abs(math.Log((mb + whyMinPerEvent) / (ma + whyMinPerEvent)))
			cs = append(cs, ranked{name, far, fmt.Sprintf("%s per event: %.4g -> %.4g (%s)", name, ma, mb, times(ratio))})
		}
	}
	return top(cs, whyCounters)
}

// ranked is one thing that moved between two versions: its name, how far
// it moved (larger ranks first) and its line.
type ranked struct {
	name string
	rank float64
	line string
}

// top is the lines of the n that moved farthest, ties by name: the one
// order every ranker of Why gives.
func top(cs []ranked, n int) []string {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].rank != cs[j].rank {
			return cs[i].rank > cs[j].rank
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i, c := range cs {
		if i == n {
			break
		}
		out = append(out, c.line)
	}
	return out
}

// metricChanges are TiDB's cluster metrics whose averages over the window
// moved beyond the repeats, the farthest first (they are rates and
// durations already: not divided by events).
func metricChanges(a, b []*result.Result) []string {
	var cs []ranked
	for name := range b[0].Evidence.ClusterMetrics {
		var va, vb []float64
		for _, r := range a {
			if v, ok := r.Evidence.ClusterMetrics[name]; ok {
				va = append(va, v)
			}
		}
		for _, r := range b {
			if v, ok := r.Evidence.ClusterMetrics[name]; ok {
				vb = append(vb, v)
			}
		}
		if len(va) < len(a) || len(vb) < len(b) {
			continue
		}
		if ratio, ok := moved(va, vb); ok {
			cs = append(cs, ranked{name, math.Abs(math.Log(ratio)), fmt.Sprintf("%s: %.4g -> %.4g (%s)", name, median(va), median(vb), times(ratio))})
		}
	}
	return top(cs, whyCounters)
}

// statementChanges are the statements whose server latency per execution
// moved, the most time per event changed first, with their share of the
// event's time.
func statementChanges(a, b []*result.Result) []string {
	texts := map[string]bool{}
	for _, r := range append(append([]*result.Result(nil), a...), b...) {
		for _, s := range r.Evidence.Statements {
			texts[s.Text] = true
		}
	}
	var cs []ranked
	for text := range texts {
		stat := func(runs []*result.Result) (sp stmtSamples) {
			for _, r := range runs {
				for _, s := range r.Evidence.Statements {
					if s.Text == text && s.Execs > 0 {
						sp.add(s.LatencyMs/float64(s.Execs), s.LatencyMs/math.Max(float64(r.Totals["events"]), 1), float64(s.NoIndexUsed)/float64(s.Execs))
					}
				}
			}
			return sp
		}
		sa, sb := stat(a), stat(b)
		ratio, rank, ok := changed(sa, sb, len(a), len(b))
		if !ok {
			continue
		}
		line := fmt.Sprintf("%s: server latency %.3g -> %.3g ms an execution (%s)", shorten(text, 100), median(sa.lat), median(sb.lat), times(ratio))
		// The share of the event's time, where the result has one event
		// time (a workload whose operations differ in kind, as TPC-H's
		// queries, names none to take a share of).
		if m := b[0].MeanLatency(); m > 0 {
			line += fmt.Sprintf(", %.0f%% of the event's time", 100*median(sb.perEvent)/m)
		}
		// extra: the share of executions that used no index.
		if noIdxA, noIdxB := median(sa.extra), median(sb.extra); noIdxA != noIdxB {
			line += fmt.Sprintf("; no index used in %.0f%% of executions (%.0f%% before)", 100*noIdxB, 100*noIdxA)
		}
		cs = append(cs, ranked{text, rank, line})
	}
	return top(cs, whyStatements)
}

// stmtSamples is one statement's figures over a version's repeats, one a run
// it ran in: its latency per execution, its time per event, and a third
// figure of the caller's.
type stmtSamples struct{ lat, perEvent, extra []float64 }

func (s *stmtSamples) add(lat, perEvent, extra float64) {
	s.lat, s.perEvent, s.extra = append(s.lat, lat), append(s.perEvent, perEvent), append(s.extra, extra)
}

// changed says whether a statement that ran in every repeat of both
// versions (runs a and b of them) moved its latency beyond the repeats'
// spread: the ratio, and its rank, the change of its time per event.
func changed(a, b stmtSamples, runsA, runsB int) (ratio, rank float64, ok bool) {
	if len(a.lat) < runsA || len(b.lat) < runsB {
		return 0, 0, false
	}
	if ratio, ok = moved(a.lat, b.lat); !ok {
		return 0, 0, false
	}
	return ratio, math.Abs(median(b.perEvent) - median(a.perEvent)), true
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Lines word the why: a heading line, then its causes.
func (w Why) Lines(labels []string) []string {
	head := fmt.Sprintf("%d threads, %s -> %s", w.Threads, labels[w.From], labels[w.To])
	if s := w.Tentative; s != nil {
		head += fmt.Sprintf(" (%s %+.0f%%, not significant: p=%.3f, n=%d+%d; every run of %s is below every run of %s)",
			"throughput", 100*(s.Ratio-1), s.P, s.N1, s.N2, labels[w.To], labels[w.From])
	}
	var out []string
	for _, s := range w.Statements {
		out = append(out, "statement "+s)
	}
	for _, s := range w.Client {
		out = append(out, "client statement "+s)
	}
	for _, p := range w.Plans {
		out = append(out, "plan "+p)
	}
	for _, c := range w.Counters {
		out = append(out, "counter "+c)
	}
	for _, m := range w.Metrics {
		out = append(out, "cluster metric "+m)
	}
	for _, m := range w.Missing {
		out = append(out, "missing: "+m)
	}
	if len(out) == 0 {
		out = append(out, "no statement, plan or server counter moved beyond the repeats' spread")
	}
	return append([]string{head + ":"}, out...)
}

// whyLines are the table's whys, worded.
func (rep *Report) whyLines(t Table) [][]string {
	var out [][]string
	for _, w := range rep.Whys(t) {
		out = append(out, w.Lines(rep.Labels))
	}
	return out
}

// clientChanges are the statements whose client latency per execution
// moved beyond the repeats, the most time per event changed first, with
// their share of their event's time.
func clientChanges(a, b []*result.Result) []string {
	keys := map[string]bool{}
	for _, r := range b {
		for _, s := range r.Statements {
			keys[s.Key()] = true
		}
	}
	var cs []ranked
	for key := range keys {
		event := ""
		stat := func(runs []*result.Result) (sp stmtSamples) {
			for _, r := range runs {
				for _, s := range r.Statements {
					if s.Key() == key && s.Count > 0 {
						event = s.Event
						sp.add(s.MeanMs, r.StatementMs(s), r.StatementShare(s))
					}
				}
			}
			return sp
		}
		sa, sb := stat(a), stat(b)
		ratio, rank, ok := changed(sa, sb, len(a), len(b))
		if !ok {
			continue
		}
		cs = append(cs, ranked{key, rank, fmt.Sprintf("%s: client latency %.3g -> %.3g ms an execution (%s), %.0f%% of %s's time",
			key, median(sa.lat), median(sb.lat), times(ratio), 100*median(sb.extra), event)})
	}
	return top(cs, whyStatements)
}

// planChanges are the statements whose plan shape differs between the two
// versions' first runs: "query: shape -> shape".
func planChanges(a, b []*result.Result) []string {
	was := map[string]string{}
	for _, p := range a[0].Evidence.Plans {
		was[p.Query] = p.Shape
	}
	var cs []ranked
	for _, p := range b[0].Evidence.Plans {
		if old, ok := was[p.Query]; ok && old != p.Shape {
			line := fmt.Sprintf("of %s: %s -> %s", shorten(p.Query, 100), old, p.Shape)
			cs = append(cs, ranked{line, 0, line}) // every one, by its line
		}
	}
	return top(cs, len(cs))
}
