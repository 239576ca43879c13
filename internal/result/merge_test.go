package result

import (
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/hist"
)

func sample(i int64) int64 { return (i*7919)%90000 + 50 }

func mk(t *testing.T, client string, from, to int64, step int64, start time.Time) *Result {
	t.Helper()
	h := hist.New()
	var n int64
	for i := from; i < to; i += step {
		h.RecordValue(sample(i))
		n++
	}
	op, err := NewOp("oltp_read_write", h)
	if err != nil {
		t.Fatal(err)
	}
	// A statement timed at the clock's precision (2 figures), one per event.
	sh := hdr.New(hist.MinValue, hist.MaxValue, 2)
	for i := from; i < to; i += step {
		sh.RecordValue(sample(i) / 3)
	}
	st, err := NewOp("point_selects", sh)
	if err != nil {
		t.Fatal(err)
	}
	return &Result{Statements: []Statement{{Event: "oltp_read_write", Op: st}}, Format: Format, Workload: "sysbench/oltp_read_write", Client: client, Threads: 8, Seconds: 60,
		Start: start, End: start.Add(60 * time.Second), Options: map[string]string{"threads": "8", "mysql-host": client, "tables": "16"},
		Totals: map[string]int64{"events": n, "reads": 14 * n}, Ops: []Op{op}, Metric: QPS,
		Intervals: []Interval{{T: 10, Seconds: 10, Threads: 8, Counts: map[string]int64{"events": n / 6}, P95Ms: map[string]float64{"oltp_read_write": 1}}}}
}

// One run's samples split over two client files merge into exactly the
// percentiles of the single histogram.
func TestMergeIsExact(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	whole := mk(t, "all", 0, 300000, 1, t0)
	a := mk(t, "a", 0, 300000, 2, t0)
	b := mk(t, "b", 1, 300000, 2, t0.Add(time.Second))
	m, err := Merge([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for p, v := range whole.Ops[0].Percentiles {
		if m.Ops[0].Percentiles[p] != v {
			t.Errorf("p%s: merged %v, single %v", p, m.Ops[0].Percentiles[p], v)
		}
	}
	if m.Ops[0].Count != whole.Ops[0].Count || m.Totals["events"] != whole.Totals["events"] || m.Threads != 16 {
		t.Errorf("count %d vs %d, events %d, threads %d", m.Ops[0].Count, whole.Ops[0].Count, m.Totals["events"], m.Threads)
	}
	if got, want := m.Statements, whole.Statements; len(got) != 1 || got[0].Key() != "oltp_read_write.point_selects" ||
		got[0].Count != want[0].Count || got[0].Percentiles["99"] != want[0].Percentiles["99"] || got[0].MeanMs != want[0].MeanMs {
		t.Errorf("statements merged %+v, single %+v", got, want)
	}
	if m.Client != "a,b" || m.Intervals[0].Threads != 16 {
		t.Errorf("clients %q, interval threads %d", m.Client, m.Intervals[0].Threads)
	}
	if _, ok := m.Options["mysql-host"]; ok {
		t.Error("client-specific option kept")
	}
}

func TestMergeRefuses(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := mk(t, "a", 0, 1000, 1, t0)
	other := mk(t, "b", 0, 1000, 1, t0)
	other.Workload = "tpcc"
	opts := mk(t, "b", 0, 1000, 1, t0)
	opts.Options["tables"] = "32"
	later := mk(t, "b", 0, 1000, 1, t0.Add(time.Hour))
	for _, c := range []struct {
		r    *Result
		want string
	}{{other, "tpcc"}, {opts, "tables=16 vs 32"}, {later, "do not overlap"}} {
		if _, err := Merge([]*Result{a, c.r}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
}

// A cell's parts run with their shares of the threads and options of their
// own: the merged result records the whole's threads and none of a part's
// own options; without the split, the parts are not one run.
func TestMergePartsSplit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := mk(t, "a", 0, 1000, 1, t0), mk(t, "b", 0, 1000, 1, t0)
	a.Options["threads"], a.Options["first-stream"] = "2", "1"
	b.Options["threads"], b.Options["first-stream"] = "1", "3"
	sp := Split{Whole: map[string]string{"threads": "3"}, PerPart: []string{"first-stream"}}
	m, err := MergeParts([]*Result{a, b}, sp)
	if err != nil {
		t.Fatal(err)
	}
	if m.Options["threads"] != "3" || m.Options["tables"] != "16" {
		t.Errorf("merged options %v", m.Options)
	}
	if v, ok := m.Options["first-stream"]; ok {
		t.Errorf("a part's own option kept: first-stream=%s", v)
	}
	for _, c := range []struct {
		sp   Split
		want string
	}{
		{Split{Whole: sp.Whole}, "first-stream=1 vs 3"},
		{Split{PerPart: sp.PerPart}, "threads=2 vs 1"},
	} {
		if _, err := MergeParts([]*Result{a, b}, c.sp); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("split %+v: err %v, want %q", c.sp, err, c.want)
		}
	}
}
