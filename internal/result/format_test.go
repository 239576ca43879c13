package result

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeFormat1 stores r as the previous release did: format 1, no metric,
// and (for a per-minute metric) the figure as a total.
func writeFormat1(t *testing.T, r *Result, perMinute bool) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	m["format"] = format1
	delete(m, "metric")
	if perMinute {
		tot := m["totals"].(map[string]any)
		tot["perMin_x100"] = int64(float64(r.Ops[0].Count) / r.Seconds * 60 * 100)
	}
	b, _ = json.Marshal(m)
	p := filepath.Join(t.TempDir(), r.Client+".json")
	os.WriteFile(p, b, 0o644)
	return p
}

// perMinute is a workload's upgrade, as one would write it: its figure
// among the totals becomes its metric.
func perMinute(r *Result) bool {
	{
		if _, ok := r.Totals["perMin_x100"]; !ok || len(r.Ops) == 0 {
			return false
		}
		r.Metric = Metric{Name: "per minute", Ops: []string{r.Ops[0].Name}, PerSeconds: 60, LatencyOp: r.Ops[0].Name}
		delete(r.Totals, "perMin_x100")
		return true
	}
}

func TestFormat1FilesGetTheirMetric(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	qps := mk(t, "a", 0, 30000, 1, t0)
	r, err := ReadWith(writeFormat1(t, qps, false), perMinute)
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != Format || r.Metric.Name != "QPS" {
		t.Errorf("format %s metric %+v", r.Format, r.Metric)
	}
	if v, unit := r.Throughput(); unit != "QPS" || v != float64(14*30000)/60 {
		t.Errorf("throughput %v %s", v, unit)
	}

	tp := mk(t, "b", 0, 6000, 1, t0)
	tp.Ops[0].Name = "op1"
	r, err = ReadWith(writeFormat1(t, tp, true), perMinute)
	if err != nil {
		t.Fatal(err)
	}
	v, unit := r.Throughput()
	if unit != "per minute" || v != 6000 || r.Latency("95") != tp.Ops[0].Percentiles["95"] {
		t.Errorf("per minute %v %s, p95 %v", v, unit, r.Latency("95"))
	}
	if _, ok := r.Totals["perMin_x100"]; ok {
		t.Error("perMin_x100 left among the counters")
	}

	// A format-1 file of one client merges with a format-2 file of another.
	c := mk(t, "c", 0, 6000, 1, t0)
	c.Ops[0].Name = "op1"
	c.Metric = r.Metric
	m, err := Merge([]*Result{r, c})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Throughput(); v != 12000 {
		t.Errorf("merged %v, want 12000", v)
	}
}

func TestReadRefusesUnknownFormat(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(p, []byte(`{"format": "oltpbench-result/9"}`), 0o644)
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "oltpbench-result/9") {
		t.Errorf("format 9: %v", err)
	}
}

// Results of different metrics are not one run.
func TestMergeRefusesOtherMetric(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := mk(t, "a", 0, 100, 1, t0), mk(t, "b", 0, 100, 1, t0)
	a.Metric, b.Metric = QPS, Metric{Name: "TPS", Counters: []string{"events"}, PerSeconds: 1}
	if _, err := Merge([]*Result{a, b}); err == nil || !strings.Contains(err.Error(), "measures TPS") {
		t.Errorf("merge of QPS and TPS: %v", err)
	}
}

// How a dataset was loaded (its load_* figures) is no difference worth a
// warning; what it holds is.
func TestDatasetDiffIgnoresLoadFigures(t *testing.T) {
	a := &Result{Dataset: map[string]string{"tables": "4", "load_seconds": "1.2", "load_mode": "local"}}
	b := &Result{Dataset: map[string]string{"tables": "4", "load_seconds": "9.9", "load_mode": "insert"}}
	if d := DatasetDiff(a, b); len(d) != 0 {
		t.Errorf("load figures warned about: %v", d)
	}
	b.Dataset["tables"] = "8"
	if d := DatasetDiff(a, b); len(d) != 1 || !strings.Contains(d[0], "tables=4 vs 8") {
		t.Errorf("table count difference: %v", d)
	}
}
