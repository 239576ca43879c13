package metrics

import (
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/oltpbench/oltpbench/internal/measure"
)

type fakeSource struct {
	counts measure.Totals
	h      *hdr.Histogram
}

func (f *fakeSource) Counts() measure.Totals  { return f.counts }
func (f *fakeSource) Running() int            { return 3 }
func (f *fakeSource) Queue() int64            { return 0 }
func (f *fakeSource) Hists() []*hdr.Histogram { return []*hdr.Histogram{f.h} }
func (f *fakeSource) Statements() []measure.StmtHist {
	return []measure.StmtHist{{Event: "op", Name: "select", Hist: f.h}}
}
func (f *fakeSource) ErrorCodes() []measure.ErrorCount {
	return []measure.ErrorCount{{Op: 0, Code: "1213", Outcome: measure.Ignored, Count: 4}}
}

func scrape(t *testing.T, e *Exporter) string {
	t.Helper()
	resp, err := http.Get("http://" + e.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// A run is read live from its source, then served at the figures End gave
// it; the labels name it; no password-like option reaches a label.
func TestRunLiveThenFinal(t *testing.T) {
	e, err := Listen("127.0.0.1:0", "c1")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	src := &fakeSource{h: hdr.New(1, 3_600_000_000, 3)}
	src.counts[measure.Events], src.counts[measure.Reads] = 10, 140
	for i := 0; i < 10; i++ {
		src.h.RecordValue(2000) // 2 ms
	}
	r := e.StartRun(Labels{Workload: "w", Test: "w/t", Threads: 4, Repeat: 1}, []string{"op"}, src, func() map[string]int64 { return map[string]int64{"x": 7} })
	r.Event("add c_1", time.Unix(1000, 0), time.Time{})
	live := scrape(t, e)
	lbl := `client="c1",repeat="1",step="",test="w/t",threads="4",workload="w"`
	for _, want := range []string{"oltpbench_events_total{" + lbl + "} 10", `oltpbench_statements_total{` + strings.Replace(lbl, `client="c1",`, `client="c1",kind="read",`, 1) + "} 140",
		"oltpbench_threads_running{" + lbl + "} 3", `oltpbench_latency_seconds_bucket{` + strings.Replace(lbl, `client="c1",`, `client="c1",op="op",`, 1) + `,le="0.0025"} 10`,
		`oltpbench_latency_seconds_bucket{` + strings.Replace(lbl, `client="c1",`, `client="c1",op="op",`, 1) + `,le="0.001"} 0`,
		`oltpbench_workload_count_total{` + strings.Replace(lbl, `client="c1",`, `client="c1",name="x",`, 1) + "} 7",
		`oltpbench_errors_total{client="c1",code="1213",op="op",outcome="ignored",repeat="1",step="",test="w/t",threads="4",workload="w"} 4`,
		`oltpbench_statement_latency_seconds_count{client="c1",event="op",repeat="1",statement="select",step="",test="w/t",threads="4",workload="w"} 10`,
		`oltpbench_event_start_timestamp_seconds{client="c1",event="add c_1",repeat="1",step="",test="w/t",threads="4",workload="w"} 1000`} {
		if !strings.Contains(live, want+"\n") {
			t.Errorf("live scrape lacks %s", want)
		}
	}
	var final measure.Totals
	final[measure.Events] = 12
	fin := hdr.New(1, 3_600_000_000, 2)
	fin.RecordValue(5000)
	r.End(final, []*hdr.Histogram{src.h}, []measure.StmtHist{{Event: "op", Name: "select", Hist: fin}}, map[string]float64{"QPS": 5})
	r.Event("add c_1", time.Unix(1000, 0), time.Unix(1012, 0))
	src.counts[measure.Events] = 99 // the source is not read once the run ended
	after := scrape(t, e)
	for _, want := range []string{"oltpbench_events_total{" + lbl + "} 12", "oltpbench_threads_running{" + lbl + "} 0", "oltpbench_run_figure{client=\"c1\",figure=\"QPS\",",
		`oltpbench_errors_total{client="c1",code="1213",op="op",outcome="ignored"`,
		`oltpbench_statement_latency_seconds_count{client="c1",event="op",repeat="1",statement="select",step="",test="w/t",threads="4",workload="w"} 1` + "\n",
		`oltpbench_event_end_timestamp_seconds{client="c1",event="add c_1",repeat="1",step="",test="w/t",threads="4",workload="w"} 1012` + "\n"} {
		if !strings.Contains(after, want) {
			t.Errorf("final scrape lacks %s", want)
		}
	}
}

// The latency histogram carries native buckets besides the classic ones:
// 10 samples of 2 ms in the native bucket whose upper bound is at or just
// above 2 ms.
func TestNativeBuckets(t *testing.T) {
	h := hdr.New(1, 3_600_000_000, 3)
	for i := 0; i < 10; i++ {
		h.RecordValue(2000)
	}
	m := histogram(latencyDesc, h, time.Unix(1e9, 0), []string{"c", "w", "t", "", "1", "1", "op"})
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		t.Fatal(err)
	}
	hd := d.GetHistogram()
	if hd.GetSampleCount() != 10 || len(hd.GetBucket()) != len(classicBuckets) || hd.GetSchema() != nativeSchema ||
		len(hd.GetPositiveSpan()) != 1 || hd.GetPositiveSpan()[0].GetLength() != 1 || hd.GetPositiveDelta()[0] != 10 {
		t.Errorf("histogram %v", hd)
	}
	var _ prometheus.Metric = m
}

// Without --metrics-addr there is no exporter, and its methods do nothing;
// Close of an endpoint nobody scraped does not wait.
func TestNilAndUnwatched(t *testing.T) {
	e, err := (&Flags{}).Open()
	if e != nil || err != nil {
		t.Fatalf("%v %v", e, err)
	}
	e.StartRun(Labels{}, nil, nil, nil).End(measure.Totals{}, nil, nil, nil)
	e.WatchLoad(nil)
	e.PlanProgress(1, 1, "", 0, 0, 0)
	e.Close()
	e, err = Listen("127.0.0.1:0", "c")
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
}

// A capacity search's probes are served by level and outcome, with the
// highest level that passed; a failed run's probe is NaN.
func TestSearchProbes(t *testing.T) {
	e, err := Listen("127.0.0.1:0", "c1")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if strings.Contains(scrape(t, e), "oltpbench_search_") {
		t.Error("search metrics before any probe")
	}
	e.SearchProbe(20, true, 24707.7)
	e.SearchProbe(35, false, 29847.7)
	e.SearchProbe(31, true, 35366.4)
	e.SearchProbe(33, false, math.NaN())
	got := scrape(t, e)
	for _, want := range []string{
		`oltpbench_search_probe_throughput{client="c1",level="20",outcome="pass"} 24707.7`,
		`oltpbench_search_probe_throughput{client="c1",level="35",outcome="fail"} 29847.7`,
		`oltpbench_search_probe_throughput{client="c1",level="33",outcome="fail"} NaN`,
		`oltpbench_search_best_level{client="c1"} 31`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in\n%s", want, got)
		}
	}
	var nilE *Exporter
	nilE.SearchProbe(1, true, 1) // no exporter: nothing, no panic
}
