// Package result is the versioned JSON result file every benchmark writes:
// the configuration without secrets, the server, the dataset, per-interval
// series, and one encoded HDR histogram per operation so that results of
// several client machines can be merged exactly.
package result

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
)

// Format identifies the file layout; bump on incompatible change. Files of
// format 1 (no stored metric) are still read.
const Format = "oltpbench-result/2"

const format1 = "oltpbench-result/1"

// Result is one run of one workload on one client.
type Result struct {
	Format      string            `json:"format"`
	Tool        string            `json:"tool"`
	Workload    string            `json:"workload"` // e.g. sysbench/oltp_read_write
	Options     map[string]string `json:"options"`  // every option, secrets removed
	Server      Server            `json:"server"`
	Dataset     map[string]string `json:"dataset,omitempty"`
	Client      string            `json:"client_host"`
	Start       time.Time         `json:"start"`
	End         time.Time         `json:"end"`
	Seconds     float64           `json:"seconds"`
	Threads     int               `json:"threads"`
	Interrupted bool              `json:"interrupted,omitempty"`
	Cell        *Cell             `json:"cell,omitempty"` // set when a plan ran it
	Totals      map[string]int64  `json:"totals"`
	Metric      Metric            `json:"metric"`
	// Figures are the workload's own results beside the metric (tpmTotal,
	// efficiency); they are per client and not merged.
	Figures map[string]float64 `json:"figures,omitempty"`
	// NotApplicable names figures of the workload this run does not give,
	// each with why (efficiency without keying and think times).
	NotApplicable map[string]string `json:"not_applicable,omitempty"`
	Ops           []Op              `json:"ops"`
	Intervals     []Interval        `json:"intervals"`
	// Errors break the run's errors and reconnects down by operation, code
	// and outcome (ignored, reconnected, counted); they sum to the totals'
	// errors and reconnects.
	Errors []ErrorCount `json:"errors,omitempty"`
	// ClientHealth is the client over the measured window: a client-bound
	// run's figures measure the client as much as the server.
	ClientHealth *ClientHealth `json:"client_health,omitempty"`
	// DatasetState is the dataset's tables at the run's start and end, and
	// how much it was run on since its load.
	DatasetState *DatasetState `json:"dataset_state,omitempty"`
	// Reset is how a plan restored the dataset before this run; its time
	// is not the run's.
	Reset *Reset `json:"reset,omitempty"`
	// Version is the plan's version this run measured (a plan with
	// [versions]): its name, what the server reported after its deploy.
	Version *Version `json:"version,omitempty"`
	// Probe marks a run of a capacity search: the level it probed and the
	// workload's verdict on it.
	Probe *Probe `json:"probe,omitempty"`
	// Share is this client's part of a cell that several clients ran
	// (plan run --clients); Parts are every client's, on the merged result.
	Share *Share  `json:"share,omitempty"`
	Parts []Share `json:"parts,omitempty"`
	// Evidence is what the server did over the measured window: its
	// counters' changes and its statements' figures (internal/engine/evidence).
	Evidence *Evidence `json:"evidence,omitempty"`
	// Statements are the client's latency of each statement the workload
	// names, over the measured window (--statement-latency).
	Statements []Statement `json:"statements,omitempty"`
	// Events are what ran during the run (--event, a plan step's events),
	// with each one's impact; Windows split the run before, during and
	// after them.
	Events  []Event  `json:"events,omitempty"`
	Windows []Window `json:"windows,omitempty"`
	// Connections are the run's connects when it made connections anew on
	// purpose (--conn-refresh, --reconnect=event) or held idle ones.
	Connections *Connections `json:"connections,omitempty"`
}

// Connections are what a run did with its connections beyond the events:
// connections closed to open new ones (not faults: those are the totals'
// reconnects), every connect's latency, and the idle connections it held.
type Connections struct {
	Refreshes int64 `json:"refreshes"`
	Connect   Op    `json:"connect"` // each connect of the main threads, in the measured window
	Idle      int   `json:"idle,omitempty"`
}

// Event is an operation run during a run: when, for how long, how it
// ended, and what it did to the run's throughput. Times are seconds since
// the measured start.
type Event struct {
	Name    string  `json:"name"`
	Kind    string  `json:"kind"` // sql or command
	Text    string  `json:"text"` // the statement or command, secrets removed
	At      float64 `json:"at_s"`
	Start   float64 `json:"start_s"`
	End     float64 `json:"end_s"`
	Seconds float64 `json:"seconds"` // its own duration (a statement's alone)
	// Outcome is ok, failed, timed out, unfinished (the run ended first)
	// or not started.
	Outcome string  `json:"outcome"`
	Error   string  `json:"error,omitempty"`
	Output  string  `json:"output,omitempty"` // a command's, its end
	Impact  *Impact `json:"impact,omitempty"`
}

// Impact is what an event did to throughput (events per second of the
// report intervals) against the before-window's median.
type Impact struct {
	BeforePerS float64 `json:"before_per_s"`
	LowestPerS float64 `json:"lowest_per_s"` // the lowest interval from its start to its recovery
	Depth      float64 `json:"depth"`        // lowest against before: -0.38 is 38% down
	// BelowSeconds is how long throughput stayed below 90% of before,
	// from the event's start to its recovery (or the run's end).
	BelowSeconds float64 `json:"below_90pct_s"`
	Recovered    bool    `json:"recovered"`
	// RecoverySeconds is from the event's end to the first interval back
	// within 5% of before (0: at once).
	RecoverySeconds float64 `json:"recovery_s"`
}

// Window is a part of the run: before the first event, during one, after.
type Window struct {
	Name    string       `json:"name"` // before, during NAME, after
	From    float64      `json:"from_s"`
	To      float64      `json:"to_s"`
	Events  int64        `json:"events"`
	PerS    float64      `json:"events_per_s"`
	P95Ms   float64      `json:"p95_ms"`
	P99Ms   float64      `json:"p99_ms"`
	Errors  []ErrorCount `json:"errors,omitempty"`
	Seconds float64      `json:"seconds"`
}

// Statement is one statement's latency on the client, from its send to its
// last row read: Event is the operation it runs in; Name (in Op) its own.
type Statement struct {
	Event string `json:"event"`
	Op
}

// Key is what identifies the statement in a result: event and name.
func (s Statement) Key() string { return s.Event + "." + s.Name }

// TotalMs is the time the statement took in all its executions.
func (s Statement) TotalMs() float64 { return s.MeanMs * float64(s.Count) }

// StatementShare is the share of its event's time (all the event's
// executions) the statement took; 0 when the event has no time.
func (r *Result) StatementShare(s Statement) float64 {
	for _, op := range r.Ops {
		if op.Name == s.Event && op.Count > 0 && op.MeanMs > 0 {
			return s.TotalMs() / (op.MeanMs * float64(op.Count))
		}
	}
	return 0
}

// StatementMs is the statement's time per execution of its event (0 when
// the event did not run).
func (r *Result) StatementMs(s Statement) float64 {
	for _, op := range r.Ops {
		if op.Name == s.Event && op.Count > 0 {
			return s.TotalMs() / float64(op.Count)
		}
	}
	return 0
}

// Evidence is the server's own account of a measured window, read at its
// start and end on a connection of its own.
type Evidence struct {
	// Counters are SHOW GLOBAL STATUS's numeric values, as the server
	// names them: their change over the window.
	Counters map[string]float64 `json:"counters,omitempty"`
	// Statements are the server's figures of the statements run in the
	// run's schema over the window, the most time first.
	Statements []StatementFigures `json:"statements,omitempty"`
	// Plans are the server's plans of the workload's statements, as first
	// drawn by one thread, read after the window.
	Plans []Plan `json:"plans,omitempty"`
	// ClusterMetrics are TiDB's metrics summary over the window (the
	// cluster's Prometheus through information_schema.metrics_summary):
	// each metric's average, by name (and quantile).
	ClusterMetrics map[string]float64 `json:"cluster_metrics,omitempty"`
	// Missing says what the server did not give, and why (performance_schema
	// off, no privilege).
	Missing []string `json:"missing,omitempty"`
	// QuerySeconds is the time the evidence queries took, start and end.
	QuerySeconds float64 `json:"query_seconds"`
}

// Plan is a statement's plan: the server's EXPLAIN (FORMAT=JSON on MySQL
// and MariaDB, 'brief' on TiDB) and its shape, the operators, tables,
// access types and indexes without estimates or costs: two versions' plans
// are the same plan when their shapes are equal.
type Plan struct {
	Query   string `json:"query"`
	Shape   string `json:"shape"`
	Explain string `json:"explain"`
}

// StatementFigures are one statement's server figures over a window.
type StatementFigures struct {
	Text string `json:"text"` // normalized (a digest's) or as prepared
	// Source is where they come from: digest (performance_schema's
	// statements by digest), prepared (its prepared statements), or
	// statements_summary (TiDB's).
	Source       string  `json:"source"`
	PlanDigest   string  `json:"plan_digest,omitempty"`
	Execs        int64   `json:"execs"`
	LatencyMs    float64 `json:"latency_ms"` // the executions' total server latency
	RowsExamined int64   `json:"rows_examined"`
	RowsSent     int64   `json:"rows_sent"`
	NoIndexUsed  int64   `json:"no_index_used,omitempty"` // executions that used no index (a full scan)
}

// Reset is a plan's restoring of the dataset before a cell (reset_every
// "cell"), or before the first cell of its step that ran (reset_every
// "step": every cell of the step records that one).
type Reset struct {
	Kind  string `json:"kind"`  // reload, reimport or command
	Every string `json:"every"` // cell or step
	Cell  int    `json:"cell"`  // the cell it ran before (1-based)
	// Threads is the level it ran before (a p95 search resets before each).
	Threads int `json:"threads"`
	// Seconds is how long the reset and its verification took, and
	// WarmupSeconds the plan's warm-up after it.
	Seconds       float64 `json:"seconds"`
	WarmupSeconds float64 `json:"warmup_seconds,omitempty"`
	// Skipped says why no reset ran: the dataset was as its load left it.
	Skipped string `json:"skipped,omitempty"`
	// Verified is what was checked of the dataset after it.
	Verified string `json:"verified"`
}

// Version is the version of a plan's [versions] a run measured: the name
// the plan gives it, the server's VERSION() once its deploy was answered,
// and that deploy (when, and how long it and the wait for the server took).
type Version struct {
	Name        string    `json:"name"`
	Reported    string    `json:"reported"`
	Deployed    time.Time `json:"deployed"`
	DeploySecs  float64   `json:"deploy_seconds"`
	ReadySecs   float64   `json:"ready_seconds"`
	Restore     string    `json:"restore"` // none, reload, reimport or command
	RestoreSecs float64   `json:"restore_seconds"`
	Verified    string    `json:"verified,omitempty"` // what was checked of the dataset after the restore
}

// Probe is one run of a capacity search (tpcc search): the level, in the
// workload's units, and whether the run sustained it. Repeat is 1 for the
// line search's probe, 2 and up for the repeats of the boundary's levels.
type Probe struct {
	Unit   string `json:"unit"`
	Level  int    `json:"level"`
	Repeat int    `json:"repeat"`
	Pass   bool   `json:"pass"`
	Why    string `json:"why"`
	// Failed says the run errored out: the result holds no measurements.
	Failed bool `json:"run_failed,omitempty"`
	// Under is what every probe of the search ran under (its pace, time and
	// loaded size, as options): two searches compare when it is equal.
	Under string `json:"under"`
}

// Share is one client's part of a cell run by several: its index, its
// threads and rate, and how far from the instant the leader named its
// measured window started.
type Share struct {
	Index    int     `json:"index"`
	Clients  int     `json:"clients"`
	Host     string  `json:"host"`
	Threads  int     `json:"threads"`
	Rate     float64 `json:"rate,omitempty"`
	OffsetMs float64 `json:"start_offset_ms"`
}

// ClientHealth is the benchmark client over a window (internal/engine/health).
type ClientHealth struct {
	Seconds        float64 `json:"seconds"`
	UserSeconds    float64 `json:"cpu_user_seconds"`
	SysSeconds     float64 `json:"cpu_system_seconds"`
	CPUs           int     `json:"cpus"`      // usable
	CPUShare       float64 `json:"cpu_share"` // of the usable CPUs over the window, 0..1
	PeakRSSBytes   int64   `json:"peak_rss_bytes"`
	GCShare        float64 `json:"gc_cpu_share"` // of the client's CPU time
	GCPauseP99Ms   float64 `json:"gc_pause_p99_ms"`
	GCPauseMaxMs   float64 `json:"gc_pause_max_ms"`
	SchedLatP99Ms  float64 `json:"sched_latency_p99_ms"`
	ClientBound    bool    `json:"client_bound,omitempty"`
	ClientBoundWhy string  `json:"client_bound_why,omitempty"`
	// HostCPUShare is how busy the client's usable CPUs were, whatever ran
	// on them (the server, when it shares the machine), 0..1; HostBusy says
	// the client's goroutines waited for CPUs that something else kept
	// busy: not client-bound, but not a quiet client either.
	HostCPUShare float64 `json:"host_cpu_share,omitempty"`
	HostBusy     bool    `json:"host_busy,omitempty"`
	HostBusyWhy  string  `json:"host_busy_why,omitempty"`
}

// ErrorCount is how many errors of one code one operation met with one
// outcome: Code is the server's number ("1213") or the driver's class
// ("2013 broken pipe"); Op is "" when no operation was running.
type ErrorCount struct {
	Op      string `json:"op,omitempty"`
	Code    string `json:"code"`
	Outcome string `json:"outcome"`
	Count   int64  `json:"count"`
}

// Cell is the plan cell a run was: a plan resumes by finding its cells'
// results, with the same command line, in its result folder.
type Cell struct {
	Plan   string   `json:"plan,omitempty"`
	Step   string   `json:"step"`
	Repeat int      `json:"repeat"`
	Args   []string `json:"args"` // the workload's command line, without the connection
	// Key is what the cell was measured under, typed (results written
	// before keys have none: ParseKey reads their Args).
	Key *Key `json:"key,omitempty"`
}

// Metric is a workload's headline figure and how it is computed from a
// run's counts, so that merge and compare need not know the workload.
type Metric struct {
	Name string `json:"name"` // QPS, tpmC
	Unit string `json:"unit"` // what it counts, in words
	// The figure counts the events of Ops, or (Ops empty) the sum of these
	// Totals, per PerSeconds seconds of the run.
	Ops        []string `json:"ops,omitempty"`
	Counters   []string `json:"counters,omitempty"`
	PerSeconds float64  `json:"per_seconds"`
	// LatencyOp is the operation whose latency reports show; "" the first.
	LatencyOp string `json:"latency_op,omitempty"`
}

// Server identifies what was measured, with its settings: a changed
// setting often explains a changed number.
type Server struct {
	Version     string   `json:"version"`
	TiDBVersion string   `json:"tidb_version,omitempty"`
	Endpoints   []string `json:"endpoints"`
	// Variables are SHOW GLOBAL VARIABLES, secret values replaced.
	Variables map[string]string `json:"variables,omitempty"`
	// Config is TiDB's SHOW CONFIG (TiDB, TiKV and PD settings) and
	// Topology its information_schema.cluster_info; empty elsewhere.
	Config   []Setting `json:"config,omitempty"`
	Topology []Node    `json:"topology,omitempty"`
}

// Setting is one row of SHOW CONFIG.
type Setting struct {
	Type     string `json:"type"` // tidb, tikv, pd
	Instance string `json:"instance"`
	Name     string `json:"name"`
	Value    string `json:"value"`
}

// Node is one row of information_schema.cluster_info.
type Node struct {
	Type     string `json:"type"`
	Instance string `json:"instance"`
	Version  string `json:"version"`
	GitHash  string `json:"git_hash,omitempty"`
	Start    string `json:"start_time,omitempty"`
}

// secretName matches settings whose values are secrets.
var secretName = regexp.MustCompile(`(?i)(password|passwd|secret|token|credential|private[-_]?key|access[-_]?key|_auth$|\.auth$)`)

// Hidden is what a secret setting's value becomes.
const Hidden = "****"

// SecretSetting says whether a setting's value must not be kept.
func SecretSetting(name string) bool { return secretName.MatchString(name) }

// Op is one operation's latency, in milliseconds, with its histogram.
type Op struct {
	Name        string             `json:"name"`
	Count       int64              `json:"count"`
	MinMs       float64            `json:"min_ms"`
	MeanMs      float64            `json:"mean_ms"`
	MaxMs       float64            `json:"max_ms"`
	Percentiles map[string]float64 `json:"percentiles_ms"`
	// Histogram is hdrhistogram's V2 compressed base64 encoding, microseconds.
	Histogram string `json:"histogram"`
}

// Interval is one report interval.
type Interval struct {
	T       float64            `json:"t"`       // seconds since the measured start, at the end of the interval
	Seconds float64            `json:"seconds"` // length
	Threads int                `json:"threads"`
	Counts  map[string]int64   `json:"counts"`
	P95Ms   map[string]float64 `json:"p95_ms"`
	Queue   int64              `json:"queue_length,omitempty"`
	// ClientCPU is the share of its usable CPUs the client used in the
	// interval (0..1).
	ClientCPU float64 `json:"client_cpu_share,omitempty"`
	// ServerCounters are the server's status counters that changed in the
	// interval (--interval-counters); the server's, so not merged.
	ServerCounters map[string]float64 `json:"server_counters,omitempty"`
}

var counterNames = []string{"events", "reads", "writes", "others", "errors", "reconnects", "retries"}

// Counts names the runner's counters.
func Counts(t measure.Totals) map[string]int64 {
	m := map[string]int64{}
	for i, n := range counterNames {
		m[n] = t[i]
	}
	return m
}

// Percentiles every result carries.
var Percentiles = []float64{50, 90, 95, 99, 99.9, 99.99}

// NewOp summarises one histogram.
func NewOp(name string, h *hdr.Histogram) (Op, error) {
	enc, err := hist.Encode(h)
	if err != nil {
		return Op{}, err
	}
	op := Op{Name: name, Count: h.TotalCount(), Histogram: enc, Percentiles: map[string]float64{}}
	if op.Count > 0 {
		op.MinMs = float64(h.Min()) / 1000
		op.MaxMs = float64(h.Max()) / 1000
		op.MeanMs = h.Mean() / 1000
		for _, p := range Percentiles {
			op.Percentiles[strconv.FormatFloat(p, 'f', -1, 64)] = float64(h.ValueAtQuantile(p)) / 1000
		}
	}
	return op, nil
}

// AddInterval appends an interval from the runner.
func (r *Result) AddInterval(iv measure.Interval, ops []string) {
	x := Interval{T: iv.Elapsed.Seconds(), Seconds: iv.Length.Seconds(), Threads: iv.Running,
		Counts: Counts(iv.Counts), P95Ms: map[string]float64{}, Queue: iv.QueueLength}
	for i, h := range iv.Hists {
		if h.TotalCount() > 0 {
			x.P95Ms[ops[i]] = float64(h.ValueAtQuantile(95)) / 1000
		}
	}
	r.Intervals = append(r.Intervals, x)
}

// SetFinal fills totals and operations from the runner's final statistics.
func (r *Result) SetFinal(f *measure.Final, ops []string) error {
	r.Start, r.End = f.Start, f.End
	r.Seconds = f.Elapsed.Seconds()
	r.Interrupted = f.Interrupted
	r.Totals = Counts(f.Counts)
	r.Ops = nil
	for i, h := range f.Hists {
		op, err := NewOp(ops[i], h)
		if err != nil {
			return err
		}
		r.Ops = append(r.Ops, op)
	}
	r.Statements = nil
	for _, st := range f.Statements {
		op, err := NewOp(st.Name, st.Hist)
		if err != nil {
			return err
		}
		r.Statements = append(r.Statements, Statement{Event: st.Event, Op: op})
	}
	r.Errors = nil
	for _, e := range f.ErrorCodes {
		c := ErrorCount{Code: e.Code, Outcome: e.Outcome, Count: e.Count}
		if e.Op >= 0 && e.Op < len(ops) {
			c.Op = ops[e.Op]
		}
		r.Errors = append(r.Errors, c)
	}
	return nil
}

// ErrorsByCode sums the breakdown over operations: code and outcome ->
// count, in the order of codes.
func (r *Result) ErrorsByCode() []ErrorCount {
	sum := map[[2]string]int64{}
	for _, e := range r.Errors {
		sum[[2]string{e.Code, e.Outcome}] += e.Count
	}
	out := make([]ErrorCount, 0, len(sum))
	for k, n := range sum {
		out = append(out, ErrorCount{Code: k[0], Outcome: k[1], Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Code != out[j].Code {
			return out[i].Code < out[j].Code
		}
		return out[i].Outcome < out[j].Outcome
	})
	return out
}

// Encode writes the result as indented JSON.
func (r *Result) Encode(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Write stores the result at path atomically (temporary name, then rename).
func (r *Result) Write(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write result file: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write result file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write result file: %w", err)
	}
	return os.Rename(tmp.Name(), path)
}

// Read loads a result file; a file of format 1 gets the QPS metric (see
// ReadWith).
func Read(path string) (*Result, error) { return ReadWith(path, nil) }

// ReadWith loads a result file, upgrading a format-1 file with up.
func ReadWith(path string, up Upgrade) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(path, b, up)
}

// Upgrade gives a format-1 result its metric when it is one of a
// workload's that stored its own figure among the totals, and reports
// whether it was (workload.Upgrade asks each registered workload's
// Spec.Upgrade). The rest meant queries per second.
type Upgrade func(r *Result) bool

// Decode reads a result from b (named path in errors), upgrading a format-1
// result to this format with up (nil: its metric is QPS).
func Decode(path string, b []byte, up Upgrade) (*Result, error) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a result file: %w", path, err)
	}
	switch r.Format {
	case Format:
	case format1:
		r.Format = Format
		if up == nil || !up(&r) {
			r.Metric = QPS
		}
	default:
		return nil, fmt.Errorf("%s: result format %q, this oltpbench reads %q", path, r.Format, Format)
	}
	return &r, nil
}

// QPS is the metric of statement-counting workloads: reads, writes and
// other statements per second.
var QPS = Metric{Name: "QPS", Unit: "queries per second", Counters: []string{"reads", "writes", "others"}, PerSeconds: 1}

// DatasetState is the dataset as a run found it at the start and the end of
// its measured window, and how much it had been run on since its load.
type DatasetState struct {
	Start []TableState `json:"start"`
	End   []TableState `json:"end"`
	// Runs and Events are the runs and events the dataset had seen since it
	// was loaded, before this run (from its record).
	Runs   int64 `json:"runs_since_load"`
	Events int64 `json:"events_since_load"`
}

// TableState is one table's size: its rows (Exact false: the server's
// estimate), data and index bytes (the server's figures).
type TableState struct {
	Name       string `json:"name"`
	Rows       int64  `json:"rows"`
	Exact      bool   `json:"exact,omitempty"`
	DataBytes  int64  `json:"data_bytes"`
	IndexBytes int64  `json:"index_bytes"`
}
