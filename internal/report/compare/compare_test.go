package compare

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/result"
)

var update = flag.Bool("update", false, "rewrite golden files and fixtures")

// fixture makes a deterministic result: latencies around p95Ms, qps queries per second.
func fixture(t testing.TB, workload, version string, threads int, qps, p95Ms float64) *result.Result {
	t.Helper()
	h := hist.New()
	for i := 0; i < 1000; i++ {
		h.RecordValue(int64(p95Ms * 1000 * float64(i+1) / 950))
	}
	name := strings.TrimPrefix(workload, "sysbench/")
	if workload == "tpcc" {
		name = "new_order"
	}
	op, err := result.NewOp(name, h)
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{Format: result.Format, Workload: workload, Threads: threads, Seconds: 100, Server: result.Server{Version: version},
		Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Options: map[string]string{"threads": "x", "tables": "16"},
		Dataset: map[string]string{"tables": "16", "table_size": "10000000"}, Totals: map[string]int64{"events": int64(qps * 100 / 20), "reads": int64(qps * 100)}, Ops: []result.Op{op}}
	r.Metric = result.QPS
	// Ten 10-second intervals around the mean, one dip: the time chart's data.
	for i := 0; i < 10; i++ {
		f := 1.0
		if i == 6 {
			f = 0.5
		}
		r.Intervals = append(r.Intervals, result.Interval{T: float64(10 * (i + 1)), Seconds: 10, Threads: threads,
			Counts: map[string]int64{"events": int64(qps * f * 10 / 20), "reads": int64(qps * f * 10)}})
	}
	if workload == "tpcc" {
		r.Ops[0].Count = int64(qps * 100 / 60)
		r.Metric = result.Metric{Name: "tpmC", Unit: "new orders per minute", Ops: []string{"new_order"}, PerSeconds: 60, LatencyOp: "new_order"}
	}
	return r
}

// describe stands in for the registry (cmd passes the workloads' descriptions).
func describe(w string) Description {
	switch w {
	case "sysbench/oltp_point_select":
		return Description{Title: "Point Select", Rank: 0}
	case "tpcc":
		return Description{Title: "TPC-C", Rank: 99, Compact: true}
	}
	return Description{Title: w, Rank: 99}
}

func versions(t *testing.T) (Version, Version) {
	var b, c []*result.Result
	for i, th := range []int{150, 300, 600} {
		f := float64(i + 1)
		b = append(b, fixture(t, "sysbench/oltp_point_select", "v2.1", th, 240000*f, 1.6*f))
		c = append(c, fixture(t, "sysbench/oltp_point_select", "v3.0", th, 334000*f, 0.6*f))
	}
	for i, th := range []int{128, 256} {
		b = append(b, fixture(t, "tpcc", "v2.1", th, 10641+float64(i)*200, 50))
		c = append(c, fixture(t, "tpcc", "v3.0", th, 44068+float64(i)*3000, 30))
	}
	c[0].Dataset["table_size"] = "1000000" // a difference to warn about
	// Settings: one that changed, one the same, identities that always differ.
	b[0].Server.Variables = map[string]string{"innodb_buffer_pool_size": "1073741824", "max_connections": "5000", "version": "v2.1", "port": "4000", "tidb_enable_async_commit": "OFF"}
	c[0].Server.Variables = map[string]string{"innodb_buffer_pool_size": "4294967296", "max_connections": "5000", "version": "v3.0", "port": "4001", "tidb_enable_1pc": "ON"}
	b[0].Server.Config = []result.Setting{{Type: "tikv", Instance: "a:20160", Name: "storage.block-cache.capacity", Value: "8GiB"}, {Type: "tikv", Instance: "b:20160", Name: "storage.block-cache.capacity", Value: "8GiB"}}
	c[0].Server.Config = []result.Setting{{Type: "tikv", Instance: "a:20160", Name: "storage.block-cache.capacity", Value: "16GiB"}, {Type: "tikv", Instance: "b:20160", Name: "storage.block-cache.capacity", Value: "8GiB"}}
	return Version{"v2.1", b}, Version{"v3.0", c}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(p, got, 0o644)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update to accept):\n%s", p, got)
	}
}

func TestTextAndMarkdownGolden(t *testing.T) {
	b, c := versions(t)
	rep := New([]Version{b, c}, describe)
	var txt, md bytes.Buffer
	rep.Text(&txt)
	rep.Markdown(&md)
	golden(t, "compare.txt.golden", txt.Bytes())
	golden(t, "compare.md.golden", md.Bytes())
	if !strings.Contains(md.String(), "| Threads | QPS | 95% latency(ms) |") || !strings.Contains(md.String(), "| Version | Threads | tpmC |") {
		t.Error("markdown lacks the seed reports' table layout")
	}
	if !strings.Contains(txt.String(), "warning: 150 threads: dataset table_size=10000000 vs 1000000") {
		t.Error("no warning for a different dataset")
	}
}

func TestHTMLSelfContained(t *testing.T) {
	b, c := versions(t)
	var buf bytes.Buffer
	New([]Version{b, c}, describe).HTML(&buf)
	s := buf.String()
	// Per table: throughput and p95 by threads, throughput over time per
	// cell, one latency spectrum: 2+3+1 and 2+2+1 charts, two lines each.
	if strings.Count(s, "<svg") != 11 || strings.Count(s, "<polyline") != 22 {
		t.Errorf("want 11 charts with 2 lines each: %d svg, %d polylines", strings.Count(s, "<svg"), strings.Count(s, "<polyline"))
	}
	if !strings.Contains(s, "QPS over time, 150 threads (CV 16.6%, 16.6%)") || !strings.Contains(s, "latency spectrum (ms), 600 threads") {
		t.Errorf("no time chart with its CV, or no spectrum")
	}
	for _, bad := range []string{"<script src", "<link", "@import", "https://"} {
		if strings.Contains(s, bad) {
			t.Errorf("external asset: %q", bad)
		}
	}
	if strings.Count(s, "http://") != strings.Count(s, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Error("a URL other than the SVG namespace")
	}
	if *update {
		// Fixture folders for scripts/report-screenshot.sh.
		for _, v := range []Version{b, c} {
			d := filepath.Join("testdata", "results", v.Label)
			os.MkdirAll(d, 0o755)
			for i, r := range v.Results {
				r.Write(filepath.Join(d, strings.ReplaceAll(r.Workload, "/", "-")+"-"+string(rune('a'+i))+".json"))
			}
		}
	}
}

// The settings that differ, and only those: identities and versions are
// not settings; instances that disagree show every value.
func TestSettingsDiff(t *testing.T) {
	b, c := versions(t)
	var got []string
	for _, d := range Settings([]Version{b, c}) {
		got = append(got, d.Name+"="+strings.Join(d.Values, ">"))
	}
	want := "innodb_buffer_pool_size=1073741824>4294967296,tidb_enable_1pc=(none)>ON,tidb_enable_async_commit=OFF>(none),tikv.storage.block-cache.capacity=8GiB>16GiB | 8GiB"
	if strings.Join(got, ",") != want {
		t.Errorf("settings:\n got %s\nwant %s", strings.Join(got, ","), want)
	}
	if Settings([]Version{{"a", b.Results[1:2]}, c}) != nil {
		t.Error("a version without settings gives a diff")
	}
}

// TestScheduleTable: runs on a thread schedule pair with the same
// schedule's, in a table of their own, never with plain runs of its most
// threads.
func TestScheduleTable(t *testing.T) {
	var vs []Version
	for side, label := range []string{"v1", "v2"} {
		var rs []*result.Result
		for _, sched := range []string{"", "1@2s,4@2s"} {
			r := fixture(t, "sysbench/oltp_point_select", label, 4, float64(1000*(side+1))+float64(len(sched)), 2)
			r.Cell = &result.Cell{Step: "steps", Repeat: 1, Key: &result.Key{Threads: 4, Schedule: sched}}
			rs = append(rs, r)
		}
		vs = append(vs, Version{label, rs})
	}
	tables := New(vs, describe).Tables
	var got []string
	for _, tb := range tables {
		for _, row := range tb.Rows {
			got = append(got, fmt.Sprintf("%s|%d|%v|%v", tb.Step, row.Threads, tput(row.Med[0]), tput(row.Med[1])))
		}
	}
	want := []string{"|4|1000|2000", "threads 1@2s,4@2s|4|1009|2009"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(tables) == 2 && !strings.HasSuffix(tables[1].Title, " (threads 1@2s,4@2s)") {
		t.Errorf("the schedule's table is titled %q", tables[1].Title)
	}
}

func TestVerdict(t *testing.T) {
	b, c := versions(t)
	v := New([]Version{b, c}, describe).Tables[0].Verdict([]string{"v2.1", "v3.0"})
	if !strings.Contains(v, "QPS of v3.0 increased by 39% over v2.1") {
		t.Errorf("verdict %q", v)
	}
}

// planVersions: what plans write. Two steps of one test (other options),
// three repeats a cell, and a p95 search over 8, 16 and 32 threads.
func planVersions(t *testing.T) (Version, Version) {
	vs := planHistory(t, "v1", "v2")
	return vs[0], vs[1]
}

// planHistory is planVersions' results for any number of versions, each
// faster than the first by a tenth more.
func planHistory(t *testing.T, labels ...string) []Version {
	vs := make([][]*result.Result, len(labels))
	for side, label := range labels {
		f := 1 + 0.1*float64(side)
		for _, step := range []string{"uniform", "special"} {
			for rep := 1; rep <= 3; rep++ {
				for _, th := range []int{4, 8} {
					r := fixture(t, "sysbench/oltp_point_select", label, th, f*float64(1000*th+10*rep), 2)
					r.Cell = &result.Cell{Step: step, Repeat: rep}
					vs[side] = append(vs[side], r)
				}
			}
		}
		for i, th := range []int{8, 16, 32} {
			// p95 40, 80, 160 ms (v2: 36, 72, 144): 16 threads is the best within 105 ms.
			r := fixture(t, "sysbench/oltp_read_only", label, th, f*float64(500*th), 40*float64(int(1)<<i)/f)
			r.Options["p95-slo"] = "105ms"
			r.Cell = &result.Cell{Step: "read-only"}
			vs[side] = append(vs[side], r)
		}
	}
	var out []Version
	for i, l := range labels {
		out = append(out, Version{l, vs[i]})
	}
	return out
}

// goldenReport renders rep in the three formats and checks each against
// testdata/NAME.{txt,md,html}.golden.
func goldenReport(t *testing.T, rep *Report, name string) (txt, md, page *bytes.Buffer) {
	t.Helper()
	txt, md, page = new(bytes.Buffer), new(bytes.Buffer), new(bytes.Buffer)
	rep.Text(txt)
	rep.Markdown(md)
	rep.HTML(page)
	golden(t, name+".txt.golden", txt.Bytes())
	golden(t, name+".md.golden", md.Bytes())
	golden(t, name+".html.golden", page.Bytes())
	return txt, md, page
}

func TestPlanLayoutsGolden(t *testing.T) {
	b, c := planVersions(t)
	rep := New([]Version{b, c}, describe)
	tables := rep.Tables
	var titles []string
	for _, tb := range tables {
		titles = append(titles, tb.Title)
	}
	if want := "Point Select (special), Point Select (uniform), sysbench/oltp_read_only"; strings.Join(titles, ", ") != want {
		t.Errorf("tables %q, want %q", strings.Join(titles, ", "), want)
	}
	ro := tables[2]
	if ro.P95Limit != 105 || ro.Best[0] == nil || ro.Best[0].Threads != 16 || ro.Best[1].Threads != 16 {
		t.Fatalf("p95 best: limit %v, %+v", ro.P95Limit, ro.Best)
	}
	_, md, page := goldenReport(t, rep, "plan")
	if !strings.Contains(md.String(), "| Transaction model | Threads | QPS | TPS | Average transaction latency (ms) | P95 transaction latency (ms) |") {
		t.Error("markdown lacks seed 003's layout")
	}
	// Error bars: each of the 2 x 2 repeated cells of both steps, both versions.
	if n := strings.Count(page.String(), `class="errbar"`); n != 8 {
		t.Errorf("%d error bars, want 8", n)
	}
	if !strings.Contains(page.String(), "(bars: lowest to highest repeat)") {
		t.Error("the chart does not say what its bars are")
	}
}

// historyVersions: four versions, five repeats a cell. Point Select is
// steady from v1 to v2, drops 20% in v3 (and its p95 rises), and drops 1%
// more in v4, too little to tell from the noise; at 128 threads each
// version ran once. Read Only declines 2.5% a version, no step on its own
// significant. TPC-C improves in v3. v3's server flushes the log at every
// commit.
func historyVersions(t *testing.T) []Version {
	noise := [][]float64{{1.00, 1.03, 0.97, 1.01, 0.99}, {0.98, 1.02, 1.00, 0.97, 1.03}, {1.01, 0.99, 1.03, 0.98, 0.97}, {0.99, 1.00, 1.02, 0.97, 1.02}}
	level := []float64{1, 1, 0.8, 0.792}
	var vs []Version
	for v, label := range []string{"v1", "v2", "v3", "v4"} {
		var rs []*result.Result
		for rep, f := range noise[v] {
			for i, th := range []int{16, 64} {
				p95 := 2.0 * float64(i+1)
				if v >= 2 {
					p95 *= 1.3
				}
				rs = append(rs, fixture(t, "sysbench/oltp_point_select", label, th, 100000*float64(i+1)*level[v]*f, p95*f))
			}
			rs = append(rs, fixture(t, "sysbench/oltp_read_only", label, 32, 50000*(1-0.025*float64(v))*f, 10))
			tp := 30000.0
			if v >= 2 {
				tp = 36000
			}
			rs = append(rs, fixture(t, "tpcc", label, 64, tp*f, 40))
			if rep == 0 {
				rs = append(rs, fixture(t, "sysbench/oltp_point_select", label, 128, 300000*level[v], 8))
			}
		}
		flush := "2"
		if v >= 2 {
			flush = "1"
		}
		rs[0].Server.Variables = map[string]string{"innodb_flush_log_at_trx_commit": flush, "max_connections": "5000", "version": label}
		vs = append(vs, Version{label, rs})
	}
	return vs
}

func TestHistoryGolden(t *testing.T) {
	vs := historyVersions(t)
	rep := New(vs, describe)
	txt, _, page := goldenReport(t, rep, "history")
	where := map[string][]string{}
	for _, tb := range rep.Tables {
		where[tb.Title] = tb.Where(rep.Labels)
	}
	ps := strings.Join(where["Point Select"], "\n")
	for _, want := range []string{
		"16 threads: QPS -21% from v1 to v4 (p=0.008, n=5+5); worse between v2 and v3: QPS -21% (95% CI",
		"64 threads: QPS -21% from v1 to v4 (p=0.008, n=5+5); worse between v2 and v3: QPS -21% (95% CI",
		"16 threads: p95 ms +30% from v1 to v4 (p=0.008, n=5+5); worse between v2 and v3: p95 ms +29% (95% CI",
		"128 threads: QPS -21% from v1 to v4 (n=1+1): too few repeats to tell whether it got worse, or where (runs: v1 1, v2 1, v3 1, v4 1; the test needs 4 per version, --repeat=5)",
	} {
		if !strings.Contains(ps, want) {
			t.Errorf("point select: no %q in\n%s", want, ps)
		}
	}
	if ro := strings.Join(where["sysbench/oltp_read_only"], "\n"); !strings.Contains(ro, "32 threads: QPS -7% from v1 to v4") || !strings.Contains(ro, "a gradual decline") {
		t.Errorf("read only: %s", ro)
	}
	if len(where["TPC-C"]) != 0 {
		t.Errorf("TPC-C improved, yet: %v", where["TPC-C"])
	}
	// The v3 -> v4 drop is within the noise: --fail-on passes the nightly;
	// had v3 been the last, it fails it on the v2 -> v3 drop.
	if bad := rep.Regressions(0.05); len(bad) != 0 {
		t.Errorf("fail-on v3 -> v4: %v", bad)
	}
	if bad := New(vs[:3], describe).Regressions(0.05); len(bad) != 2 || !strings.Contains(bad[0], "Point Select at 16 threads: v2 -> v3, QPS -21%") {
		t.Errorf("fail-on v2 -> v3: %v", bad)
	}
	// Settings: the one that changed, in every version's column.
	if len(rep.Settings) != 1 || strings.Join(rep.Settings[0].Values, ",") != "2,2,1,1" {
		t.Errorf("settings %+v", rep.Settings)
	}
	if !strings.Contains(txt.String(), "Server settings that differ (v1 -> v2 -> v3 -> v4):\n  innodb_flush_log_at_trx_commit: 2 -> 2 -> 1 -> 1\n") {
		t.Errorf("text settings:\n%s", txt.String())
	}
	// HTML: per table throughput and p95 by threads and the release
	// history, one line per version (per thread level in the history).
	s := page.String()
	for _, c := range []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"} {
		if !strings.Contains(s, `<polyline fill="none" stroke="`+c+`" stroke-width=`) {
			t.Errorf("no line in %s", c)
		}
	}
	if n := strings.Count(s, "<title>QPS by version"); n != 2 {
		t.Errorf("%d release-history charts of QPS, want 2", n)
	}
	if *update {
		// Fixture folders for cmd's golden tests and the browser test.
		for _, v := range vs {
			d := filepath.Join("testdata", "history", v.Label)
			os.RemoveAll(d)
			os.MkdirAll(d, 0o755)
			for i, r := range v.Results {
				r.Write(filepath.Join(d, fmt.Sprintf("%s-%d-%02d.json", strings.ReplaceAll(r.Workload, "/", "-"), r.Threads, i)))
			}
		}
	}
}

// Where the drop is: the largest step among the adjacent pairs
// significantly worse on their own comes first, not the earliest; a
// smaller step, as one pair's repeats can show by chance, follows as
// less. Latency the same way round (higher is worse).
func TestDropLargestStepFirst(t *testing.T) {
	noise := []float64{1.00, 1.03, 0.97, 1.01, 0.99}
	for _, c := range []struct {
		name       string
		level      []float64
		want, less string // less: the smaller step's words, "" for none
	}{
		{"later larger", []float64{1, 0.85, 0.45}, "QPS -55% from A to C (p=0.008, n=5+5); worse between B and C: QPS -47% (95% CI", "), and less between A and B: QPS -15% (95% CI"},
		{"earlier larger", []float64{1, 0.5, 0.42}, "QPS -58% from A to C (p=0.008, n=5+5); worse between A and B: QPS -50% (95% CI", "), and less between B and C: QPS -16% (95% CI"},
		{"one step", []float64{1, 1, 0.5}, "QPS -50% from A to C (p=0.008, n=5+5); worse between B and C: QPS -50% (95% CI", ""},
	} {
		var vs []Version
		for v, label := range []string{"A", "B", "C"} {
			var rs []*result.Result
			for _, f := range noise {
				rs = append(rs, fixture(t, "sysbench/oltp_point_select", label, 2, 10000*c.level[v]*f, 2/c.level[v]*f))
			}
			vs = append(vs, Version{label, rs})
		}
		rep := New(vs, describe)
		got := strings.Join(rep.Tables[0].Where(rep.Labels), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: no %q in\n%s", c.name, c.want, got)
		}
		if named := strings.Contains(got, " less between "); named != (c.less != "") || !strings.Contains(got, c.less) {
			t.Errorf("%s: the smaller step, want %q:\n%s", c.name, c.less, got)
		}
	}
}

// Plan folders of three versions: a table per step as with two, every
// version's best within the p95 limit, and no drop where each is faster.
func TestPlanThreeVersions(t *testing.T) {
	rep := New(planHistory(t, "v1", "v2", "v3"), describe)
	var titles []string
	for _, tb := range rep.Tables {
		titles = append(titles, tb.Title)
		if w := tb.Where(rep.Labels); len(w) != 0 {
			t.Errorf("%s: drops %v", tb.Title, w)
		}
	}
	if want := "Point Select (special), Point Select (uniform), sysbench/oltp_read_only"; strings.Join(titles, ", ") != want {
		t.Errorf("tables %q, want %q", strings.Join(titles, ", "), want)
	}
	ro := rep.Tables[2]
	if len(ro.Best) != 3 || ro.Best[2] == nil || ro.Best[2].Threads != 16 {
		t.Fatalf("best within p95 of three versions: %+v", ro.Best)
	}
	var md bytes.Buffer
	rep.Markdown(&md)
	for _, want := range []string{"### v3: the most throughput with P95 within 105 ms", "QPS by version: v1 -> v2 +10%, v2 -> v3 +9%.", "| 4 | 4020.00 | 4422.00 | 4824.00 | 1.10x | 1.20x | 1.09x |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("no %q in\n%s", want, md.String())
		}
	}
}

// TestErrorsByCode: each version's errors per second by code and outcome,
// side by side; no section without errors.
func TestErrorsByCode(t *testing.T) {
	a := fixture(t, "sysbench/oltp_point_select", "v1", 16, 1000, 2)
	b := fixture(t, "sysbench/oltp_point_select", "v2", 16, 1000, 2)
	var plain bytes.Buffer
	New([]Version{{"v1", []*result.Result{a}}, {"v2", []*result.Result{b}}}, describe).Text(&plain)
	if strings.Contains(plain.String(), "Errors per second") {
		t.Errorf("an errors section without errors:\n%s", plain.String())
	}
	a.Errors = []result.ErrorCount{{Op: "point_select", Code: "1213", Outcome: "ignored", Count: 50}}
	b.Errors = []result.ErrorCount{{Op: "point_select", Code: "1213", Outcome: "ignored", Count: 100},
		{Code: "2013 broken pipe", Outcome: "reconnected", Count: 3}}
	rep := New([]Version{{"v1", []*result.Result{a}}, {"v2", []*result.Result{b}}}, describe)
	var text, md bytes.Buffer
	rep.Text(&text)
	rep.Markdown(&md)
	for _, want := range []string{"Errors per second by code (v1 -> v2):", "  1213 ignored: 0.50 -> 1.00", "  2013 broken pipe reconnected: 0.00 -> 0.03"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(md.String(), "| 1213 ignored | 0.50 | 1.00 |") {
		t.Errorf("markdown lacks the 1213 row:\n%s", md.String())
	}
}

// TestClientBound: a cell a version ran client-bound is marked so, with
// each version's client CPU per event; --fail-on leaves it out unless
// asked.
func TestClientBound(t *testing.T) {
	vs := historyVersions(t)[:3]
	for _, r := range vs[2].Results {
		c := 1.0
		if r.Workload == "sysbench/oltp_point_select" && r.Threads == 16 {
			r.ClientHealth = &result.ClientHealth{CPUs: 1, CPUShare: 0.99, UserSeconds: 50, SysSeconds: 10, ClientBound: true,
				ClientBoundWhy: "the client used 99% of its 1 CPU(s) (the limit: 90%)"}
			continue
		}
		r.ClientHealth = &result.ClientHealth{CPUs: 2, CPUShare: 0.3, UserSeconds: c}
	}
	rep := New(vs, describe)
	var text bytes.Buffer
	rep.Text(&text)
	for _, want := range []string{"Client CPU per event (us, v1 -> v2 -> v3): 0.0 -> 0.0 -> ",
		"  v3, 16 threads: client-bound: this verdict measures the client (the client used 99% of its 1 CPU(s) (the limit: 90%))"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("no %q in\n%s", want, text.String())
		}
	}
	bad := rep.Regressions(0.05)
	if len(bad) != 1 || strings.Contains(bad[0], "Point Select at 16 threads") {
		t.Errorf("fail-on with the 16-thread cell client-bound: %v", bad)
	}
	rep.FailOnClientBound = true
	if bad := rep.Regressions(0.05); len(bad) != 2 {
		t.Errorf("fail-on counting client-bound cells: %v", bad)
	}
}

// TestDatasetStateDrift: versions whose cells started on datasets more
// than 10% apart in a table's rows are warned of, naming the table.
func TestDatasetStateDrift(t *testing.T) {
	state := func(orders int64) *result.DatasetState {
		return &result.DatasetState{Start: []result.TableState{{Name: "orders", Rows: orders, Exact: true}, {Name: "item", Rows: 100000}}}
	}
	for _, c := range []struct {
		v2   int64
		warn bool
	}{{30996, false}, {33000, false}, {36582, true}} {
		a := fixture(t, "tpcc", "v1", 16, 1000, 2)
		b := fixture(t, "tpcc", "v2", 16, 1000, 2)
		a.DatasetState, b.DatasetState = state(30996), state(c.v2)
		rep := New([]Version{{"v1", []*result.Result{a}}, {"v2", []*result.Result{b}}}, describe)
		got := strings.Join(rep.Tables[0].Warnings, "\n")
		if want := "16 threads: v2's cell started on a dataset with 18% more rows in orders (36582 against 30996) than v1's"; c.warn != strings.Contains(got, want) || !c.warn && got != "" {
			t.Errorf("orders %d -> %d: warnings %q", 30996, c.v2, got)
		}
	}
}

// TestDatasetStateEstimates: the server's estimates are compared at
// EstimateDrift, not StateDrift (CI once warned of 19% more rows in TPC-C's
// item, 100,000 rows on both sides, from InnoDB's sampled estimates).
func TestDatasetStateEstimates(t *testing.T) {
	for _, c := range []struct {
		a, b   int64
		exactA bool
		want   string
	}{
		{84932, 101088, false, ""},
		{84932, 101088, true, ""},
		{100000, 160000, false, "60% more rows in item (~160000 against ~100000)"},
		{100000, 40000, true, "60% fewer rows in item (~40000 against 100000)"},
	} {
		a := fixture(t, "tpcc", "v1", 16, 1000, 2)
		b := fixture(t, "tpcc", "v2", 16, 1000, 2)
		a.DatasetState = &result.DatasetState{Start: []result.TableState{{Name: "item", Rows: c.a, Exact: c.exactA}}}
		b.DatasetState = &result.DatasetState{Start: []result.TableState{{Name: "item", Rows: c.b}}}
		rep := New([]Version{{"v1", []*result.Result{a}}, {"v2", []*result.Result{b}}}, describe)
		got := strings.Join(rep.Tables[0].Warnings, "\n")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("item %d -> %d: warnings %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
