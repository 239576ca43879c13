package metrics

import (
	"math"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/oltpbench/oltpbench/internal/measure"
)

var runLabels = []string{"client", "workload", "test", "step", "threads", "repeat"}

func runDesc(name, help string, extra ...string) *prometheus.Desc {
	return prometheus.NewDesc("oltpbench_"+name, help, append(append([]string(nil), runLabels...), extra...), nil)
}

var (
	eventsDesc      = runDesc("events_total", "Events (transactions) completed since the measured start.")
	statementsDesc  = runDesc("statements_total", "Statements sent, by kind (read, write, other).", "kind")
	errorsDesc      = runDesc("ignored_errors_total", "Errors in --mysql-ignore-errors (or a workload's retryable ones): the event was rolled back and run again.")
	reconnDesc      = runDesc("reconnects_total", "Connections re-established after a loss.")
	retriesDesc     = runDesc("retries_total", "Transactions retried after a conflict.")
	opsDesc         = runDesc("operations_total", "Operations completed, per operation (an event or transaction type).", "op")
	latencyDesc     = runDesc("latency_seconds", "Latency per operation, from the run's own HDR histograms.", "op")
	stmtLatencyDesc = runDesc("statement_latency_seconds", "Client latency per statement (--statement-latency): from its send to its last row read, by the event it runs in and its name.", "event", "statement")
	threadsDesc     = runDesc("threads_running", "Threads still running.")
	queueDesc       = runDesc("rate_queue_length", "Events waiting to start under --rate.")
	startDesc       = runDesc("run_start_timestamp_seconds", "When the run started.")
	endDesc         = runDesc("run_end_timestamp_seconds", "When the run ended (absent while it runs).")
	figureDesc      = runDesc("run_figure", "The run's headline and own figures once it ended, as its result file has them.", "figure")
	errCodesDesc    = runDesc("errors_total", "Errors a run survived, by operation, code (the server's number, or the driver's class: 2013 broken pipe) and outcome (ignored, reconnected, counted).", "op", "code", "outcome")
	eventStartDesc  = runDesc("event_start_timestamp_seconds", "When an event during the run started (--event): an annotation's start.", "event")
	eventEndDesc    = runDesc("event_end_timestamp_seconds", "When an event during the run ended (absent while it runs).", "event")
	workloadDesc    = runDesc("workload_count_total", "The workload's own counts (an audit's; errors and retries per operation as errors/NAME, retries/NAME).", "name")

	loadRowsDesc   = prometheus.NewDesc("oltpbench_load_rows_total", "Rows loaded, per table.", []string{"client", "table"}, nil)
	loadBytesDesc  = prometheus.NewDesc("oltpbench_load_bytes_total", "Bytes sent or written, per table.", []string{"client", "table"}, nil)
	unitsDoneDesc  = prometheus.NewDesc("oltpbench_load_units_done", "Load units (chunks) done, per table.", []string{"client", "table"}, nil)
	unitsTotalDesc = prometheus.NewDesc("oltpbench_load_units", "Load units (chunks) to do, per table.", []string{"client", "table"}, nil)
	phaseDesc      = prometheus.NewDesc("oltpbench_load_phase", "The load's phase (1 for the current one).", []string{"client", "phase"}, nil)

	cellsDoneDesc = prometheus.NewDesc("oltpbench_plan_cells_done", "Cells of the plan done (those done before a resume included).", []string{"client"}, nil)
	cellsDesc     = prometheus.NewDesc("oltpbench_plan_cells", "Cells of the plan.", []string{"client"}, nil)
	etaDesc       = prometheus.NewDesc("oltpbench_plan_eta_seconds", "Time the plan has left, corrected by how long its cells took so far.", []string{"client"}, nil)
	cellDesc      = prometheus.NewDesc("oltpbench_plan_cell_info", "The cell running now (1).", []string{"client", "step", "threads", "repeat"}, nil)
	pStartDesc    = prometheus.NewDesc("oltpbench_plan_start_timestamp_seconds", "When the plan run started.", []string{"client"}, nil)
	pEndDesc      = prometheus.NewDesc("oltpbench_plan_end_timestamp_seconds", "When the plan run ended (absent while it runs).", []string{"client"}, nil)
	probeDesc     = prometheus.NewDesc("oltpbench_search_probe_throughput", "A capacity search's probe: its throughput (NaN: its run failed), by level and outcome (pass, fail).", []string{"client", "level", "outcome"}, nil)
	bestDesc      = prometheus.NewDesc("oltpbench_search_best_level", "A capacity search's highest level that passed so far (0: none).", []string{"client"}, nil)
)

// classicBuckets are the latency buckets every scraper reads, in seconds.
var classicBuckets = [...]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// nativeSchema gives native histograms buckets 2^(1/8) apart (about 9%);
// the latencies (1 us to 1 h) fall in native buckets nativeLow and up.
const (
	nativeSchema = 3
	nativeLow    = -20 << nativeSchema // 2^-20 s < 1 us
	nativeSpan   = 33 << nativeSchema  // up to 2^12 s > 1 h
)

// collector makes the metrics at scrape time; it describes none up front
// (an unchecked collector), since the runs come and go.
type collector struct{ e *Exporter }

func (collector) Describe(chan<- *prometheus.Desc) {}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	e := c.e
	e.mu.Lock()
	runs := append([]*Run(nil), e.runs...)
	plan, load := e.plan, e.load
	var p planState
	if plan != nil {
		p = *plan
	}
	probes := make(map[int]probeState, len(e.probes))
	for k, v := range e.probes {
		probes[k] = v
	}
	e.mu.Unlock()
	if len(probes) > 0 {
		best := 0
		for level, pr := range probes {
			outcome := "fail"
			if pr.pass {
				outcome, best = "pass", max(best, level)
			}
			ch <- prometheus.MustNewConstMetric(probeDesc, prometheus.GaugeValue, pr.tput, e.client, strconv.Itoa(level), outcome)
		}
		ch <- prometheus.MustNewConstMetric(bestDesc, prometheus.GaugeValue, float64(best), e.client)
	}
	for _, r := range runs {
		collectRun(ch, r)
	}
	if load != nil {
		collectLoad(ch, e.client, load())
	}
	if plan != nil {
		collectPlan(ch, e.client, p)
	}
}

func collectRun(ch chan<- prometheus.Metric, r *Run) {
	sn := r.read()
	counts, end := sn.counts, sn.end
	l := r.labels
	counter := func(d *prometheus.Desc, v int64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), append(append([]string(nil), l...), extra...)...)
	}
	gauge := func(d *prometheus.Desc, v float64, extra ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append(append([]string(nil), l...), extra...)...)
	}
	counter(eventsDesc, counts.Get(measure.Events))
	counter(statementsDesc, counts.Get(measure.Reads), "read")
	counter(statementsDesc, counts.Get(measure.Writes), "write")
	counter(statementsDesc, counts.Get(measure.Others), "other")
	counter(errorsDesc, counts.Get(measure.Errors))
	counter(reconnDesc, counts.Get(measure.Reconnects))
	counter(retriesDesc, counts.Get(measure.Retries))
	for i, m := range r.latency() {
		// The operation counts come with the histograms they are read from,
		// so the two always agree.
		counter(opsDesc, int64(m.(both).count), r.ops[i])
		ch <- m
	}
	for _, m := range r.statements() {
		ch <- m
	}
	gauge(threadsDesc, float64(sn.running))
	gauge(queueDesc, float64(sn.queue))
	gauge(startDesc, seconds(r.start))
	if !end.IsZero() {
		gauge(endDesc, seconds(end))
	}
	for k, v := range sn.figures {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			gauge(figureDesc, v, k)
		}
	}
	for k, v := range sn.extra {
		counter(workloadDesc, v, k)
	}
	for _, e := range sn.events {
		gauge(eventStartDesc, seconds(e.start), e.name)
		if !e.end.IsZero() {
			gauge(eventEndDesc, seconds(e.end), e.name)
		}
	}
	for _, e := range sn.errs {
		op := ""
		if e.Op >= 0 && e.Op < len(r.ops) {
			op = r.ops[e.Op]
		}
		counter(errCodesDesc, e.Count, op, e.Code, e.Outcome)
	}
}

func collectLoad(ch chan<- prometheus.Metric, client string, ld Load) {
	for _, t := range ld.Tables {
		ch <- prometheus.MustNewConstMetric(loadRowsDesc, prometheus.CounterValue, float64(t.Rows), client, t.Name)
		ch <- prometheus.MustNewConstMetric(loadBytesDesc, prometheus.CounterValue, float64(t.Bytes), client, t.Name)
		ch <- prometheus.MustNewConstMetric(unitsDoneDesc, prometheus.GaugeValue, float64(t.UnitsDone), client, t.Name)
		ch <- prometheus.MustNewConstMetric(unitsTotalDesc, prometheus.GaugeValue, float64(t.UnitsTotal), client, t.Name)
	}
	if ld.Phase != "" {
		ch <- prometheus.MustNewConstMetric(phaseDesc, prometheus.GaugeValue, 1, client, ld.Phase)
	}
}

func collectPlan(ch chan<- prometheus.Metric, client string, p planState) {
	g := func(d *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{client}, lv...)...)
	}
	g(cellsDoneDesc, float64(p.done))
	g(cellsDesc, float64(p.total))
	g(etaDesc, p.eta.Seconds())
	g(pStartDesc, seconds(p.start))
	if p.step != "" {
		g(cellDesc, 1, p.step, strconv.Itoa(p.threads), strconv.Itoa(p.repeat))
	}
	if !p.end.IsZero() {
		g(pEndDesc, seconds(p.end))
	}
}

func seconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// histogram is h (microseconds) as one Prometheus histogram with both
// classic buckets (for every scraper) and native ones (for a scraper that
// asks for them, Prometheus with native histograms on). The sum is the
// HDR histogram's mean times its count: exact to its 3 significant digits.
func histogram(desc *prometheus.Desc, h *hdr.Histogram, start time.Time, labels []string) both {
	count := uint64(h.TotalCount())
	sum := h.Mean() * float64(count) / 1e6
	// Counted in slices, made maps once: a map update per HDR bucket was
	// most of a scrape.
	var per [len(classicBuckets) + 1]uint64 // per classic bucket; the last is +Inf
	var nat [nativeSpan]int64               // native bucket i at nat[i-nativeLow]
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := float64(b.To) / 1e6
		i := 0
		for i < len(classicBuckets) && v > classicBuckets[i] {
			i++
		}
		per[i] += uint64(b.Count)
		k := int(math.Ceil(math.Log2(v)*(1<<nativeSchema))) - nativeLow
		nat[min(max(k, 0), nativeSpan-1)] += b.Count
	}
	classic := make(map[float64]uint64, len(classicBuckets))
	var cum uint64
	for i, le := range classicBuckets {
		cum += per[i]
		classic[le] = cum
	}
	native := map[int]int64{}
	for k, n := range nat {
		if n > 0 {
			native[k+nativeLow] = n
		}
	}
	c := prometheus.MustNewConstHistogramWithCreatedTimestamp(desc, count, sum, classic, start, labels...)
	n := prometheus.MustNewConstNativeHistogram(desc, count, sum, native, nil, 0, nativeSchema, 0, start, labels...)
	return both{c, n, count}
}

// both writes a classic histogram with the native buckets of another.
type both struct {
	classic, native prometheus.Metric
	count           uint64
}

func (b both) Desc() *prometheus.Desc { return b.classic.Desc() }

func (b both) Write(m *dto.Metric) error {
	if err := b.classic.Write(m); err != nil {
		return err
	}
	var n dto.Metric
	if err := b.native.Write(&n); err != nil {
		return err
	}
	ch, nh := m.Histogram, n.Histogram
	ch.Schema, ch.ZeroThreshold, ch.ZeroCount = nh.Schema, nh.ZeroThreshold, nh.ZeroCount
	ch.PositiveSpan, ch.PositiveDelta = nh.PositiveSpan, nh.PositiveDelta
	return nil
}
