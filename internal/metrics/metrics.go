// Package metrics serves a command's runs, loads and plan progress on a
// Prometheus endpoint (/metrics) for as long as the command lives.
//
// Nothing is recorded for it: a scrape reads what the runs already keep
// (the threads' counters and the latency stripes, through a Source), so
// the hot path costs what it costs without it. A run that ended is served
// with its final figures, the ones its result file holds, until the
// command exits; each run is its own series (labels workload, test, step,
// threads, repeat, client), so the runs of a plan and the clients of a
// sweep add up in one query.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/result"
)

// A Source is a run in progress, read at scrape time from any goroutine.
type Source interface {
	Counts() measure.Totals  // since the measured start
	Running() int            // threads still running
	Queue() int64            // the --rate queue's length
	Hists() []*hdr.Histogram // per operation, since the measured start
	// ErrorCodes are the errors survived since the measured start, by
	// operation, code and outcome.
	ErrorCodes() []measure.ErrorCount
	// Statements are each timed statement's latencies since the measured
	// start (none when the run does not time statements).
	Statements() []measure.StmtHist
}

// Labels name a run.
type Labels struct {
	Workload, Test, Step string
	Threads, Repeat      int
}

// Exporter is the endpoint of one command.
type Exporter struct {
	client string
	ln     net.Listener
	srv    *http.Server

	mu   sync.Mutex
	runs []*Run
	plan *planState
	// probes are a capacity search's, by level.
	probes map[int]probeState
	load   func() Load

	scraped chan struct{} // closed and renewed at every scrape
	gap     time.Duration // the longest time seen between two scrapes
	last    time.Time
}

// Flags are the endpoint's command-line options.
type Flags struct{ Addr, Client string }

// Register adds --metrics-addr and --client-id to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Addr, result.FlagMetrics, "", "serve Prometheus metrics of the runs, loads and plan on HOST:PORT/metrics for the whole command")
	fs.StringVar(&f.Client, result.FlagClientID, "", "the client label of the metrics, to tell several client machines apart (default: the host name)")
}

// Open starts the endpoint the flags ask for; without --metrics-addr there
// is none (nil, whose methods do nothing).
func (f *Flags) Open() (*Exporter, error) {
	if f.Addr == "" {
		return nil, nil
	}
	client := f.Client
	if client == "" {
		client, _ = os.Hostname()
	}
	return Listen(f.Addr, client)
}

// Listen binds addr (HOST:PORT) at once, so that a port in use or an
// address that does not parse stops the command before anything runs, and
// serves /metrics from then on; client labels every series.
func Listen(addr, client string) (*Exporter, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("invalid --metrics-addr=%s: use HOST:PORT, e.g. 0.0.0.0:9100 or :9100", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr=%s: %w: give a free port", addr, errors.Unwrap(err))
	}
	e := &Exporter{client: client, ln: ln, scraped: make(chan struct{})}
	h := handler(e)
	mux := http.NewServeMux()
	mux.Handle("/metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		h.ServeHTTP(w, r)
		if f, ok := w.(http.Flusher); ok {
			f.Flush() // on its way to the scraper before Close may end the connection
		}
		e.noteScrape(start)
	}))
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go e.srv.Serve(ln) // a failing scrape is the scraper's problem, never the run's
	return e, nil
}

// handler renders e's metrics (text, or protobuf with native histograms to
// a scraper that asks for it).
func handler(e *Exporter) http.Handler {
	reg := prometheus.NewRegistry()
	// The client's own health (go_goroutines, process_resident_memory_bytes,
	// process_open_fds): client_golang's collectors, so that a soak or a
	// dashboard watches the client with the names every Go exporter uses.
	reg.MustRegister(collector{e}, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, EnableOpenMetrics: true})
}

// Addr is the address the endpoint listens on.
func (e *Exporter) Addr() string { return e.ln.Addr().String() }

// noteScrape records a scrape that began at start and was served.
func (e *Exporter) noteScrape(start time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.last.IsZero() {
		e.gap = max(e.gap, start.Sub(e.last))
	}
	if start.After(e.last) {
		e.last = start
	}
	close(e.scraped)
	e.scraped = make(chan struct{})
}

// Close ends the endpoint. When something has been scraping it, Close
// first waits for a scrape that began after Close was called (at most about
// two scrape intervals, and 30 s), so that the scraper has the final
// figures of the last run; one that was under way read them too early.
func (e *Exporter) Close() {
	if e == nil {
		return
	}
	closing := time.Now()
	e.mu.Lock()
	gap, watched := e.gap, !e.last.IsZero()
	e.mu.Unlock()
	if watched {
		if gap == 0 {
			gap = 15 * time.Second // one scrape so far: Prometheus's default interval
		}
		timeout := time.After(min(2*gap+time.Second, 30*time.Second))
	wait:
		for {
			e.mu.Lock()
			done, next := e.last.After(closing), e.scraped
			e.mu.Unlock()
			if done {
				break
			}
			select {
			case <-next:
			case <-timeout:
				break wait
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	e.srv.Shutdown(ctx) // lets a response in flight finish
}

// Run is one run's series.
type Run struct {
	labels []string // label values, in runLabels' order
	ops    []string
	start  time.Time

	mu      sync.Mutex
	src     Source // nil once ended
	end     time.Time
	counts  measure.Totals
	hists   []*hdr.Histogram
	stmts   []measure.StmtHist
	figures map[string]float64
	extra   func() map[string]int64 // the workload's own counts; nil: none
	last    map[string]int64        // extra at the end
	errs    []measure.ErrorCount    // the error breakdown at the end
	events  []eventTimes            // the run's events, as they start and end

	// Latency histograms cost milliseconds to read and convert (HDR
	// histograms of 1 us to 1 h), so a live run's are made again at most
	// every histRefresh and an ended run's once.
	histMu   sync.Mutex
	histAt   time.Time
	histDone bool // made from the final histograms
	histMets []prometheus.Metric
	stmtMets []prometheus.Metric
}

// histRefresh is how stale a live run's latency histograms may be.
const histRefresh = 5 * time.Second

// StartRun serves a run from src until End; ops name src's histograms;
// extra, if not nil, gives the workload's own counts (read at any time).
func (e *Exporter) StartRun(l Labels, ops []string, src Source, extra func() map[string]int64) *Run {
	if e == nil {
		return nil
	}
	r := &Run{labels: []string{e.client, l.Workload, l.Test, l.Step, strconv.Itoa(l.Threads), strconv.Itoa(l.Repeat)},
		ops: ops, start: time.Now(), src: src, extra: extra}
	e.mu.Lock()
	e.runs = append(e.runs, r)
	e.mu.Unlock()
	return r
}

// End freezes the run at its final figures: the counts and histograms of
// its result (its operations' and statements'), and the workload's
// headline figures (tpmC, efficiency...). A run that failed ends with what
// it had measured.
func (r *Run) End(counts measure.Totals, hists []*hdr.Histogram, stmts []measure.StmtHist, figures map[string]float64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if hists == nil && r.src != nil {
		counts, hists, stmts = r.src.Counts(), r.src.Hists(), r.src.Statements()
	}
	if r.src != nil {
		r.errs = r.src.ErrorCodes()
	}
	r.src, r.end, r.counts, r.hists, r.stmts, r.figures = nil, time.Now(), counts, hists, stmts, figures
	if r.extra != nil {
		r.last = r.extra()
	}
}

type eventTimes struct {
	name       string
	start, end time.Time
}

// Event says an event of the run started (end zero) or ended: Grafana
// draws it as an annotation from the start and end series.
func (r *Run) Event(name string, start, end time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.events {
		if r.events[i].name == name && r.events[i].start.Equal(start) {
			r.events[i].end = end
			return
		}
	}
	r.events = append(r.events, eventTimes{name, start, end})
}

// snapshot is a run's counters as a scrape sees them.
type snapshot struct {
	counts  measure.Totals
	running int
	queue   int64
	end     time.Time
	figures map[string]float64
	extra   map[string]int64
	errs    []measure.ErrorCount
	events  []eventTimes
}

func (r *Run) read() snapshot {
	r.mu.Lock()
	src, extra := r.src, r.extra
	s := snapshot{counts: r.counts, end: r.end, figures: r.figures, extra: r.last, errs: r.errs}
	evs := append([]eventTimes(nil), r.events...)
	r.mu.Unlock()
	if src != nil {
		s = snapshot{counts: src.Counts(), running: src.Running(), queue: src.Queue(), errs: src.ErrorCodes()}
		if extra != nil {
			s.extra = extra()
		}
	}
	s.events = evs
	return s
}

// latency is the run's latency histograms as metrics: the final ones once
// it ended (made once), else the source's, made again every histRefresh.
func (r *Run) latency() []prometheus.Metric {
	r.histMu.Lock()
	defer r.histMu.Unlock()
	r.mu.Lock()
	src, hists, stmts := r.src, r.hists, r.stmts
	r.mu.Unlock()
	if r.histDone || src != nil && r.histMets != nil && time.Since(r.histAt) < histRefresh {
		return r.histMets
	}
	if src != nil {
		hists, stmts = src.Hists(), src.Statements()
	}
	r.histMets = r.histMets[:0]
	for i, h := range hists {
		if i < len(r.ops) {
			r.histMets = append(r.histMets, histogram(latencyDesc, h, r.start, append(append([]string(nil), r.labels...), r.ops[i])))
		}
	}
	r.stmtMets = r.stmtMets[:0]
	for _, st := range stmts {
		r.stmtMets = append(r.stmtMets, histogram(stmtLatencyDesc, st.Hist, r.start, append(append([]string(nil), r.labels...), st.Event, st.Name)))
	}
	r.histAt, r.histDone = time.Now(), src == nil
	return r.histMets
}

// statements are the run's statement latency metrics, as latency made them.
func (r *Run) statements() []prometheus.Metric {
	r.histMu.Lock()
	defer r.histMu.Unlock()
	return r.stmtMets
}

// Load is a load in progress.
type Load struct {
	Phase  string // e.g. "load", "index", "done"
	Tables []TableLoad
}

// TableLoad is one table's progress.
type TableLoad struct {
	Name                  string
	Rows, Bytes           int64
	UnitsDone, UnitsTotal int64
}

// WatchLoad serves a load's progress, read by progress at scrape time.
func (e *Exporter) WatchLoad(progress func() Load) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.load = progress
	e.mu.Unlock()
}

// probeState is a search's probe: passed or not, and its throughput.
type probeState struct {
	pass bool
	tput float64
}

// SearchProbe records a capacity search's probe at level (a count of the
// workload's unit): whether it passed and its throughput (NaN for a run
// that failed).
func (e *Exporter) SearchProbe(level int, pass bool, throughput float64) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.probes == nil {
		e.probes = map[int]probeState{}
	}
	e.probes[level] = probeState{pass, throughput}
}

type planState struct {
	start, end      time.Time
	done, total     int
	step            string
	threads, repeat int
	eta             time.Duration
}

// PlanProgress says where a plan is: cells done of total, the cell
// running now (its step, threads and repeat) and the time left; at the
// end, done == total and step == "".
func (e *Exporter) PlanProgress(done, total int, step string, threads, repeat int, eta time.Duration) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.plan == nil {
		e.plan = &planState{start: time.Now()}
	}
	p := e.plan
	p.done, p.total, p.step, p.threads, p.repeat, p.eta = done, total, step, threads, repeat, eta
	if done == total && step == "" {
		p.end = time.Now()
	}
}
