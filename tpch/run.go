package tpch

import (
	"database/sql/driver"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// run is one run of the power test, the throughput test or both: threads 0
// to S-1 are the query streams (thread 0 runs the power test first, alone),
// thread S the refresh stream of the throughput test.
type run struct {
	w       *tpch
	out     io.Writer
	streams int
	refresh bool
	power   bool
	through bool
	params  []Params // per stream: 0 the power test's, 1..S the throughput test's
	ops     []string // q1..q22, rf1, rf2
	dry     bool
	// measured closes when the measured window starts: no step runs
	// before (RunConfig.Measured).
	measured <-chan struct{}

	powerDone chan struct{}
	once      sync.Once
	// refreshDone closes when the refresh stream has run its pairs: the
	// query streams end no sooner, so the run's end does not cut it.
	refreshDone chan struct{}
	refreshOnce sync.Once

	mu         sync.Mutex
	powerTimes map[string]float64 // op -> seconds, the power test's
	powerEnd   time.Time
	tpStart    time.Time
	tpEnds     []time.Time // per query stream, the throughput test's end
	tpQueries  []float64   // seconds of the throughput test's queries
	errors     map[string]int64
	firstErr   map[string]string
	checked    map[string]string // query -> its answer check's verdict (--check)
	done       atomic.Int64      // queries and refresh functions completed
}

const (
	opRF1 = 22
	opRF2 = 23
)

func (w *tpch) NewRun(c workload.RunConfig) (workload.Run, error) {
	r := &run{w: w, out: c.Out, streams: c.Threads, refresh: w.refresh, power: w.test != "throughput",
		through: w.test != "power", powerDone: make(chan struct{}), powerTimes: map[string]float64{},
		errors: map[string]int64{}, firstErr: map[string]string{}, checked: map[string]string{},
		dry: c.Options.DryRun, measured: c.Measured}
	for _, q := range Queries {
		r.ops = append(r.ops, q.Name)
	}
	r.ops = append(r.ops, "rf1", "rf2")
	for s := 0; s <= w.first+r.streams-1; s++ {
		if w.paramKind == "random" {
			r.params = append(r.params, RandomParams(w.sf, rand.New(rand.NewPCG(c.Seed, uint64(s)))))
		} else {
			r.params = append(r.params, DefaultParams(w.sf))
		}
	}
	if !r.power {
		r.once.Do(func() { close(r.powerDone) })
	}
	r.refreshDone = make(chan struct{})
	if !w.refreshes() {
		r.refreshOnce.Do(func() { close(r.refreshDone) })
	}
	r.tpEnds = make([]time.Time, r.streams)
	return r, nil
}

func (r *run) Ops() []string { return r.ops }

// step is one query or refresh function of a stream.
type step struct {
	op     int
	q      Query
	stream int // whose parameters; Q15's view is named for it
	pair   int // a refresh function's pair
	power  bool
	last   bool // the stream's last step in its test
}

// powerSteps are the power test: RF1, stream 0's queries, RF2.
func (r *run) powerSteps() []step {
	var out []step
	if r.refresh {
		out = append(out, step{op: opRF1, pair: 1, power: true})
	}
	for _, q := range StreamOrder(0, r.w.queries) {
		out = append(out, step{op: q.N - 1, q: q, power: true})
	}
	if r.refresh {
		out = append(out, step{op: opRF2, pair: 1, power: true})
	}
	out[len(out)-1].last = true
	return out
}

// throughputSteps are query stream s's (1-based) queries.
func (r *run) throughputSteps(s int) []step {
	var out []step
	for _, q := range StreamOrder(s, r.w.queries) {
		out = append(out, step{op: q.N - 1, q: q, stream: s})
	}
	out[len(out)-1].last = true
	return out
}

// refreshSteps are the refresh stream's pairs, 2 to S+1 (the power test
// took pair 1), S the query streams of all clients.
func (r *run) refreshSteps() []step {
	var out []step
	for p := 2; p <= r.w.all+1; p++ {
		out = append(out, step{op: opRF1, pair: p}, step{op: opRF2, pair: p})
	}
	return out
}

func (r *run) NewWorker(dc driver.Conn, t *worker.Thread) (worker.Worker, error) {
	s := &stream{r: r, t: t, s: worker.NewSession(dc, false, t)}
	if st, ok := t.State.(*streamState); ok {
		s.st = st // after a reconnect: where the stream was
	} else {
		s.st = &streamState{}
		switch {
		case t.ID == 0 && r.power:
			s.st.steps = r.powerSteps()
			if r.through {
				s.st.steps = append(s.st.steps, r.throughputSteps(1)...)
			}
		case t.ID < r.streams:
			s.st.steps = r.throughputSteps(r.w.first + t.ID)
		case r.w.refreshes():
			s.st.steps = r.refreshSteps()
			s.st.refresh = true
		}
		t.State = s.st
	}
	if t := r.w.timeout; t > 0 {
		// The server stops a query at --query-timeout; the client gives
		// up a little later, should the server be silent.
		s.s.Timeout = t + clientGrace
	}
	if err := s.setTimeout(); err != nil {
		return nil, err
	}
	return s, nil
}

// clientGrace is how much longer than --query-timeout the client waits
// for the server's answer to a statement.
const clientGrace = 10 * time.Second

// streamState is where a stream is, kept across reconnects.
type streamState struct {
	steps   []step
	next    int
	refresh bool
}

type stream struct {
	r  *run
	t  *worker.Thread
	s  *worker.Session
	st *streamState
}

// setTimeout asks the server to stop a query running past --query-timeout:
// MariaDB's max_statement_time (seconds), else MySQL's and TiDB's
// max_execution_time (milliseconds), whichever the server has.
func (s *stream) setTimeout() error {
	if s.r.w.timeout <= 0 || s.r.dry {
		return nil
	}
	err := s.s.Exec(fmt.Sprintf("SET SESSION max_statement_time = %g", s.r.w.timeout.Seconds()))
	if err == nil {
		return nil
	}
	if err2 := s.s.Exec(fmt.Sprintf("SET SESSION max_execution_time = %d", s.r.w.timeout.Milliseconds())); err2 != nil {
		return fmt.Errorf("--query-timeout: the server has neither max_statement_time (%s) nor max_execution_time: %w", err.Error(), err2)
	}
	return nil
}

// Wait holds every stream until the measured window starts, the
// throughput test's streams until the power test is done, and a query
// stream that is done until the refresh stream is.
func (s *stream) Wait(stop <-chan struct{}) bool {
	if m := s.r.measured; m != nil {
		select {
		case <-m:
		case <-stop:
			return false
		}
	}
	wait := s.r.powerDone
	switch {
	case s.st.next >= len(s.st.steps) && !s.st.refresh:
		wait = s.r.refreshDone
	case s.t.ID == 0 && s.r.power:
		return true
	}
	select {
	case <-wait:
		return true
	case <-stop:
		return false
	}
}

// Event runs the stream's next step.
func (s *stream) Event() (int, error) {
	st := s.st
	if st.next >= len(st.steps) {
		return 0, worker.ErrEnd
	}
	p := st.steps[st.next]
	if !p.power && !st.refresh {
		s.r.startThroughput()
	}
	start := time.Now()
	err := s.runStep(p)
	took := time.Since(start)
	st.next++
	name := s.r.ops[p.op]
	if err != nil {
		if isLost(err) {
			st.next-- // run again once reconnected
			return 0, err
		}
		s.r.failed(name, err)
	} else {
		s.r.done.Add(1)
	}
	s.r.record(s.t.ID, p, took, err == nil)
	if p.power && p.last {
		s.r.endPower()
	}
	if st.refresh && st.next == len(st.steps) {
		s.r.refreshOnce.Do(func() { close(s.r.refreshDone) })
	}
	if err != nil {
		return 0, worker.ErrCounted
	}
	return p.op, nil
}

func isLost(err error) bool {
	return err == driver.ErrBadConn || strings.Contains(err.Error(), "invalid connection")
}

func (s *stream) runStep(p step) error {
	if s.r.dry {
		return nil
	}
	switch p.op {
	case opRF1, opRF2:
		var batches [][]string
		if p.op == opRF1 {
			var err error
			if batches, err = rf1(s.r.w.scale, p.pair); err != nil {
				return err
			}
		} else {
			batches = rf2(s.r.w.scale, p.pair)
		}
		for _, b := range batches {
			if err := s.s.Exec("BEGIN"); err != nil {
				return err
			}
			for _, q := range b {
				if err := s.s.Exec(q); err != nil {
					s.s.Exec("ROLLBACK")
					return err
				}
			}
			if err := s.s.Exec("COMMIT"); err != nil {
				return err
			}
		}
		s.t.Add(measure.Writes, int64(len(batches)*2))
		return nil
	}
	stmts := p.q.Statements(s.r.params[p.stream][p.q.N], p.stream)
	var rows [][]string
	for _, q := range stmts {
		if !strings.HasPrefix(strings.ToLower(q), "select") {
			if err := s.s.Exec(q); err != nil {
				return err
			}
			s.t.Add(measure.Others, 1)
			continue
		}
		// Timed as the query's statement (--statement-latency): Q15's
		// select from its view, the others the query itself.
		l := s.s.Label(worker.StmtName{Event: p.q.Name, Name: p.q.Name})
		s.s.Sample(q)
		_, _, err := s.s.QueryRowsAs(l, q, func(row []driver.Value) error {
			if s.r.w.check {
				rows = append(rows, texts(row))
			}
			return nil
		})
		if err != nil {
			if p.q.N == 15 {
				s.s.Exec(stmts[len(stmts)-1]) // the view goes
			}
			return err
		}
		s.t.Add(measure.Reads, 1)
	}
	if s.r.w.check {
		verdict := "ok"
		if err := compareAnswer(p.q.N, rows); err != nil {
			verdict = err.Error()
		}
		s.r.mu.Lock()
		if old, ok := s.r.checked[p.q.Name]; !ok || old == "ok" {
			s.r.checked[p.q.Name] = verdict
		}
		s.r.mu.Unlock()
	}
	return nil
}

func texts(row []driver.Value) []string {
	out := make([]string, len(row))
	for i, v := range row {
		switch x := v.(type) {
		case []byte:
			out[i] = string(x)
		case nil:
			out[i] = "NULL"
		case time.Time:
			out[i] = x.Format("2006-01-02")
		default:
			out[i] = fmt.Sprint(x)
		}
	}
	return out
}

func (s *stream) Rollback() error { return s.s.Exec("ROLLBACK") }
func (s *stream) Close() error    { s.s.Flush(); return nil } // the statements' latencies it holds (--statement-latency)

func (r *run) startThroughput() {
	r.mu.Lock()
	if r.tpStart.IsZero() {
		r.tpStart = time.Now()
	}
	r.mu.Unlock()
}

func (r *run) endPower() {
	r.mu.Lock()
	r.powerEnd = time.Now()
	r.mu.Unlock()
	r.once.Do(func() { close(r.powerDone) })
}

func (r *run) record(thread int, p step, took time.Duration, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := r.ops[p.op]
	switch {
	case p.power:
		if ok {
			r.powerTimes[name] = took.Seconds()
		}
	case p.op < opRF1:
		if ok {
			r.tpQueries = append(r.tpQueries, took.Seconds())
		}
		if p.last && thread < len(r.tpEnds) {
			r.tpEnds[thread] = time.Now()
		}
	}
}

func (r *run) failed(name string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors[name]++
	if _, ok := r.firstErr[name]; !ok {
		r.firstErr[name] = err.Error()
	}
}

func (r *run) Header() {
	tests := map[string]string{"both": "the power test, then the throughput test", "power": "the power test",
		"throughput": "the throughput test"}[r.w.test]
	rf := "with RF1/RF2"
	if !r.refresh {
		rf = "without the refresh functions"
	}
	streams := fmt.Sprintf("%d query streams", r.streams)
	if r.streams == 1 {
		streams = "1 query stream"
	}
	if r.w.all > r.streams {
		streams += fmt.Sprintf(" (%d to %d of %d)", r.w.first, r.w.first+r.streams-1, r.w.all)
	}
	fmt.Fprintf(r.out, "TPC-H at SF %s: %s %s; %d queries, %s parameters; %s\n",
		fmtSF(r.w.sf), tests, rf, len(r.w.queries), r.w.paramKind, streams)
}

func fmtSF(sf float64) string { return fmt.Sprint(sf) }

func (r *run) Interval(iv measure.Interval) {
	var n int64
	for _, h := range iv.Hists {
		n += h.TotalCount()
	}
	r.mu.Lock()
	errs := int64(0)
	for _, e := range r.errors {
		errs += e
	}
	phase := "power test"
	if !r.tpStart.IsZero() {
		phase = "throughput test"
	}
	r.mu.Unlock()
	fmt.Fprintf(r.out, "[%4.0fs] %s: %d done in all, %d this interval, errors %d\n", iv.Elapsed.Seconds(), phase, r.done.Load(), n, errs)
}

func (r *run) Checkpoint(measure.Final) {}

// Figures are a run's TPC-H metrics (clause 5.4).
type Figures struct {
	Power, Throughput, QphH float64
	Ts                      float64 // the throughput test's seconds
	GeoPower, GeoThroughput float64 // geometric means of the queries' seconds
}

// Final prints each query's times and the metrics; a metric whose test
// did not run whole (errors, --time, a subset of queries, no refresh
// functions) is named not applicable, with why.
func (r *run) Final(f *measure.Final) (map[string]float64, map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fig, na := map[string]float64{}, map[string]string{}
	sf := r.w.sf
	fmt.Fprintf(r.out, "\nQuery times (s):\n%-6s %10s %8s %10s %10s\n", "query", "power", "count", "mean", "max")
	for i, name := range r.ops {
		h := f.Hists[i]
		pw := "-"
		if t, ok := r.powerTimes[name]; ok {
			pw = fmt.Sprintf("%.2f", t)
		}
		if h.TotalCount() == 0 && pw == "-" && r.errors[name] == 0 {
			continue
		}
		fmt.Fprintf(r.out, "%-6s %10s %8d %10.2f %10.2f", name, pw, h.TotalCount(), h.Mean()/1e6, float64(h.Max())/1e6)
		if e := r.errors[name]; e > 0 {
			fmt.Fprintf(r.out, "  %d error(s): %s", e, r.firstErr[name])
		}
		if v, ok := r.checked[name]; ok {
			fmt.Fprintf(r.out, "  answer: %s", v)
		}
		fmt.Fprintln(r.out)
	}
	whole := ""
	switch {
	case len(r.w.queries) < 22:
		whole = fmt.Sprintf("%d of the 22 queries ran", len(r.w.queries))
	case !r.refresh:
		whole = "the refresh functions did not run (--refresh=false)"
	case len(r.errors) > 0:
		whole = "queries or refresh functions failed"
	}
	if r.power {
		var logs, qlogs []float64
		for _, name := range r.ops {
			if t, ok := r.powerTimes[name]; ok {
				logs = append(logs, t)
				if !strings.HasPrefix(name, "rf") {
					qlogs = append(qlogs, t)
				}
			}
		}
		want := len(r.w.queries)
		if r.refresh {
			want += 2
		}
		switch {
		case len(logs) < want:
			na["Power"] = fmt.Sprintf("the power test did not end (%d of %d steps)", len(logs), want)
		default:
			fig["Power"] = 3600 * sf / geoMean(floorTimes(logs))
			fig["GeoMeanPower"] = geoMean(qlogs)
			fmt.Fprintf(r.out, "Power@%s: %.1f (3600 x SF over the geometric mean of the power test's %d timing intervals)\n", fmtSF(sf), fig["Power"], len(logs))
			fmt.Fprintf(r.out, "Geometric mean of the power test's query times: %.3f s\n", fig["GeoMeanPower"])
		}
	}
	if r.through {
		var end time.Time
		ended := 0
		for _, e := range r.tpEnds {
			if !e.IsZero() {
				ended++
				if e.After(end) {
					end = e
				}
			}
		}
		switch {
		case r.tpStart.IsZero() || ended < r.streams:
			na["Throughput"] = fmt.Sprintf("the throughput test did not end (%d of %d streams)", ended, r.streams)
		default:
			ts := end.Sub(r.tpStart).Seconds()
			fig["Ts"] = ts
			fig["Throughput"] = float64(r.streams*len(r.w.queries)) * 3600 / ts * sf
			fig["GeoMeanThroughput"] = geoMean(r.tpQueries)
			fmt.Fprintf(r.out, "Throughput@%s: %.1f (%d streams x %d queries x 3600 / Ts %.1f s x SF)\n", fmtSF(sf), fig["Throughput"], r.streams, len(r.w.queries), ts)
			fmt.Fprintf(r.out, "Geometric mean of the throughput test's query times: %.3f s\n", fig["GeoMeanThroughput"])
		}
	}
	_, okP := fig["Power"]
	_, okT := fig["Throughput"]
	switch {
	case !r.power || !r.through:
		na["QphH"] = "one test ran (--test=" + r.w.test + "): QphH@Size takes both"
	case !okP || !okT:
		na["QphH"] = "a test did not end"
	default:
		fig["QphH"] = math.Sqrt(fig["Power"] * fig["Throughput"])
		note := ""
		if whole != "" {
			note = " (not the specification's: " + whole + ")"
		}
		fmt.Fprintf(r.out, "QphH@%s: %.1f%s\n", fmtSF(sf), fig["QphH"], note)
	}
	if len(r.checked) > 0 {
		var bad []string
		for q, v := range r.checked {
			if v != "ok" {
				bad = append(bad, q)
			}
		}
		sort.Strings(bad)
		if len(bad) == 0 {
			fmt.Fprintf(r.out, "Answers: %d of %d match the specification's answer set\n", len(r.checked), len(r.checked))
		} else {
			fmt.Fprintf(r.out, "Answers: %s differ from the specification's answer set\n", strings.Join(bad, ", "))
		}
	}
	return fig, na
}

// floorTimes applies clause 5.4.1.4: when the longest interval is over
// 1000 times the shortest, those under a thousandth of the longest count
// as a thousandth of it.
func floorTimes(ts []float64) []float64 {
	longest := 0.0
	for _, t := range ts {
		longest = max(longest, t)
	}
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = max(t, longest/1000)
	}
	return out
}

func geoMean(ts []float64) float64 {
	if len(ts) == 0 {
		return 0
	}
	s := 0.0
	for _, t := range ts {
		s += math.Log(max(t, 1e-6))
	}
	return math.Exp(s / float64(len(ts)))
}
