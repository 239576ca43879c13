package ch

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// chRun is a TPC-C run (the base workload's) with analytical streams: the
// level's threads are TPC-C's terminals, the extra ones the streams, and
// the operations TPC-C's transactions followed by the queries.
type chRun struct {
	tp      workload.Run
	nTP     int // TPC-C's operations
	level   int // TPC-C's terminals; stream threads come after
	streams int
	queries []Query // with the layout's table names
	ops     []string
	out     io.Writer
	timeout time.Duration
	killer  *killer

	errors    []atomic.Int64 // per query: failed or timed out
	firstErr  []atomic.Pointer[string]
	explain   bool
	plans     []atomic.Pointer[string] // per query, from its first execution
	claimed   []atomic.Bool
	firstDone atomic.Int64 // unix ns of the first completed query (go-tpc's clock starts there)
	lastErrs  int64        // stream errors at the last interval line
}

func (w *chWorkload) NewRun(c workload.RunConfig) (workload.Run, error) {
	tp, err := w.tp.NewRun(c)
	if err != nil {
		return nil, err
	}
	names := w.tp.Dataset().Names
	r := &chRun{tp: tp, nTP: len(tp.Ops()), level: c.Threads, streams: c.Extra.N, out: c.Out,
		timeout: w.timeout, explain: w.explain}
	for _, q := range w.queries {
		r.queries = append(r.queries, Query{Name: q.Name, SQL: renamed(q.SQL, names)})
	}
	if c.Extra.N == 0 {
		r.queries = nil
	}
	r.ops = append(append([]string(nil), tp.Ops()...), queryNames(r.queries)...)
	n := len(r.queries)
	r.errors, r.firstErr = make([]atomic.Int64, n), make([]atomic.Pointer[string], n)
	r.plans, r.claimed = make([]atomic.Pointer[string], n), make([]atomic.Bool, n)
	if n > 0 && !c.Options.DryRun {
		r.killer = &killer{co: c.Extra.Conn}
	}
	return r, nil
}

func queryNames(qs []Query) []string {
	var out []string
	for _, q := range qs {
		out = append(out, q.Name)
	}
	return out
}

func (r *chRun) Ops() []string { return r.ops }

func (r *chRun) NewWorker(dc driver.Conn, t *worker.Thread) (worker.Worker, error) {
	if t.ID < r.level {
		return r.tp.NewWorker(dc, t)
	}
	return newStream(r, dc, t)
}

// Counters are TPC-C's and the queries' errors ("errors/q9").
func (r *chRun) Counters() map[string]int64 {
	m := map[string]int64{}
	if c, ok := r.tp.(workload.Counters); ok {
		m = c.Counters()
	}
	for i, q := range r.queries {
		m["errors/"+q.Name] = r.errors[i].Load()
	}
	return m
}

func (r *chRun) Header() {
	r.tp.Header()
	if len(r.queries) == 0 {
		fmt.Fprintf(r.out, "CH-benCHmark: no analytical streams (--ap-threads=0)\n")
		return
	}
	to := "none"
	if r.timeout > 0 {
		to = r.timeout.String()
	}
	fmt.Fprintf(r.out, "CH-benCHmark: %d analytical streams, %d queries each in a loop (%s ... %s), query timeout %s\n",
		r.streams, len(r.queries), r.queries[0].Name, r.queries[len(r.queries)-1].Name, to)
}

// tpcc are the TPC-C side's histograms of a report.
func (r *chRun) tpcc(h []*hdr.Histogram) []*hdr.Histogram { return h[:min(r.nTP, len(h))] }

func (r *chRun) Interval(iv measure.Interval) {
	ap := iv.Hists[min(r.nTP, len(iv.Hists)):]
	iv.Hists = r.tpcc(iv.Hists)
	r.tp.Interval(iv)
	if len(r.queries) == 0 {
		return
	}
	all := merge(ap)
	errs := r.totalErrors()
	fmt.Fprintf(r.out, "[%4.0fs] ap: %d queries, %.2f/s, errors %d, p50 %.1f ms, p95 %.1f ms, max %.1f ms\n",
		iv.Elapsed.Seconds(), all.TotalCount(), float64(all.TotalCount())/iv.Length.Seconds(), errs-r.lastErrs,
		ms(all, 50), ms(all, 95), float64(all.Max())/1000)
	r.lastErrs = errs
}

func (r *chRun) Checkpoint(f measure.Final) {
	f.Hists = r.tpcc(f.Hists)
	r.tp.Checkpoint(f)
}

func (r *chRun) totalErrors() int64 {
	var n int64
	for i := range r.errors {
		n += r.errors[i].Load()
	}
	return n
}

// Final prints TPC-C's report, then the queries', and returns TPC-C's
// figures with QphH.
func (r *chRun) Final(f *measure.Final) (map[string]float64, map[string]string) {
	tf := *f
	tf.Hists = r.tpcc(f.Hists)
	figures, na := r.tp.Final(&tf)
	if figures == nil {
		figures = map[string]float64{}
	}
	if len(r.queries) == 0 {
		if na == nil {
			na = map[string]string{}
		}
		na["QphH"] = "no analytical streams (--ap-threads=0)"
		return figures, na
	}
	q := r.report(f)
	figures["QphH"], figures["QphH_gotpc"] = q.QphH, q.GoTPC
	return figures, na
}

// Figures are a run's analytical throughput.
type Figures struct {
	Count int64
	QphH  float64 // completed queries per hour of the measured wall-clock time, all streams
	GoTPC float64 // as go-tpc 1.0.7 prints "QphH": per hour since a query first completed
}

// report prints the per-query table and the plans, and returns QphH.
func (r *chRun) report(f *measure.Final) Figures {
	hists := f.Hists[min(r.nTP, len(f.Hists)):]
	fmt.Fprintf(r.out, "\nAnalytical queries (%d streams, %.1f s):\n", r.streams, f.Elapsed.Seconds())
	fmt.Fprintf(r.out, "%-6s %8s %7s %11s %11s %11s %11s\n", "query", "count", "errors", "avg ms", "p50 ms", "p95 ms", "max ms")
	var fig Figures
	for i, q := range r.queries {
		h := hists[i]
		fig.Count += h.TotalCount()
		if h.TotalCount() == 0 {
			fmt.Fprintf(r.out, "%-6s %8d %7d %11s %11s %11s %11s\n", q.Name, 0, r.errors[i].Load(), "-", "-", "-", "-")
			continue
		}
		fmt.Fprintf(r.out, "%-6s %8d %7d %11.1f %11.1f %11.1f %11.1f\n", q.Name, h.TotalCount(), r.errors[i].Load(),
			h.Mean()/1000, ms(h, 50), ms(h, 95), float64(h.Max())/1000)
	}
	all := merge(hists)
	fmt.Fprintf(r.out, "%-6s %8d %7d %11.1f %11.1f %11.1f %11.1f\n", "all", all.TotalCount(), r.totalErrors(),
		all.Mean()/1000, ms(all, 50), ms(all, 95), float64(all.Max())/1000)
	if s := f.Elapsed.Seconds(); s > 0 {
		fig.QphH = float64(fig.Count) * 3600 / s
	}
	if first := r.firstDone.Load(); first > 0 {
		since := time.Unix(0, first)
		if since.Before(f.Start) {
			since = f.Start
		}
		if s := f.End.Sub(since).Seconds(); s > 0 {
			fig.GoTPC = float64(fig.Count) * 3600 / s
		}
	}
	fmt.Fprintf(r.out, "QphH: %.1f (completed analytical queries per hour of the measured wall-clock time, all streams)\n", fig.QphH)
	fmt.Fprintf(r.out, "QphH as go-tpc prints it: %.1f (per hour from the first query's completion, as go-tpc 1.0.7 counts)\n", fig.GoTPC)
	for i, q := range r.queries {
		if e := r.firstErr[i].Load(); e != nil {
			fmt.Fprintf(r.out, "%s: %d error(s), the first: %s\n", q.Name, r.errors[i].Load(), *e)
		}
	}
	if r.explain {
		for i, q := range r.queries {
			if p := r.plans[i].Load(); p != nil {
				fmt.Fprintf(r.out, "\nPlan of %s (from its first execution):\n%s", q.Name, *p)
			}
		}
	}
	if r.killer != nil {
		r.killer.close()
	}
	return fig
}

func merge(hs []*hdr.Histogram) *hdr.Histogram {
	all := hdr.New(1, 3_600_000_000, 3)
	for _, h := range hs {
		all.Merge(h)
	}
	return all
}

func ms(h *hdr.Histogram, q float64) float64 { return float64(h.ValueAtQuantile(q)) / 1000 }

// killer stops a stream's query from another connection (KILL QUERY), for
// a timeout or the end of the run: the query would otherwise hold its
// stream, and the run's end, for as long as it runs.
type killer struct {
	co   conn.Options
	once sync.Once
	pool *conn.Pool
	err  error
	sent atomic.Int64 // kills the server has answered
}

func (k *killer) kill(id int64) error {
	k.once.Do(func() { k.pool, k.err = conn.Open(k.co, 2) })
	if k.err != nil {
		return k.err
	}
	// Bounded as a connect is: a server too busy to take the kill in that
	// time is sent it again (stream.watch).
	ctx, cancel := context.WithTimeout(context.Background(), k.pool.Timeout())
	defer cancel()
	_, err := k.pool.DB(0).ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id))
	if err == nil {
		k.sent.Add(1)
	}
	return err
}

func (k *killer) close() {
	if k.pool != nil {
		k.pool.Close()
	}
}
