// Package evidence reads the server's own account of a measured window:
// its status counters and its figures per statement (performance_schema on
// MySQL and MariaDB, the statements summary on TiDB), at the window's start
// and end on a connection of its own, never on the run's hot path. It knows
// no workload: the statements are those run in the run's schema.
package evidence

import (
	"context"
	"database/sql"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/deadline"
	"github.com/oltpbench/oltpbench/internal/result"
)

// TopStatements is how many statements a result keeps, the most time
// first: every statement of TPC-C (about 35) and sysbench's, so that one the
// why compares is in every repeat, not cut from one where it ranked lower.
const TopStatements = 64

// Reader reads one server's evidence.
type Reader struct {
	db       *sql.DB
	gate     *deadline.Gate // every read's bound (deadline.Evidence), shared with the run's other reads
	schema   string
	tidb     bool
	digests  bool // performance_schema's statements by digest (text protocol)
	prepared bool // its prepared statements' executions
	missing  []string
	took     time.Duration
	// own is what one Take adds to the server's counters (its own queries'
	// rows and statements): the start's Take falls in the window, so it is
	// taken out of the window's changes.
	own map[string]float64
	// last is the counters as last read (Take or Interval).
	last map[string]float64
}

// Snapshot is the server's counters and statement figures at one moment.
type Snapshot struct {
	status map[string]float64
	stmts  map[string]result.StatementFigures // by source and key
	at     string                             // the server's clock (TiDB), for its metrics summary
}

// Open probes what the server gives; what it does not is said in Missing
// of the evidence, once, and is not an error. Every read is within gate's
// bound for evidence: a server that does not answer leaves the evidence
// missing, with the reason, and the run goes on.
func Open(ctx context.Context, db *sql.DB, schema string, gate *deadline.Gate) *Reader {
	r := &Reader{db: db, schema: schema, gate: gate}
	r.read(ctx, func(ctx context.Context) { r.probe(ctx) })
	return r
}

// read runs f within the gate's bound; when the server misses it, what f
// noted on the way (the cancelled queries' errors) gives way to the one
// line saying why.
func (r *Reader) read(ctx context.Context, f func(context.Context)) {
	start := time.Now()
	defer func() { r.took += time.Since(start) }()
	had := len(r.missing)
	err := r.gate.Do(ctx, deadline.Evidence, func(ctx context.Context) error { f(ctx); return nil })
	if err != nil {
		r.missing = r.missing[:had]
		r.note(err, "")
	}
}

// probe finds what the server gives.
func (r *Reader) probe(ctx context.Context) {
	db := r.db
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		r.missing = append(r.missing, "everything: the server did not answer ("+err.Error()+")")
		return
	}
	r.tidb = conn.IsTiDB(version)
	if r.tidb {
		var on string
		if err := db.QueryRowContext(ctx, "SELECT @@tidb_enable_stmt_summary").Scan(&on); err != nil || (on != "1" && !strings.EqualFold(on, "ON")) {
			r.missing = append(r.missing, "statement figures: the statements summary is off (SET GLOBAL tidb_enable_stmt_summary = ON)")
			return
		}
		r.digests = true
		return
	}
	var ps string
	if err := db.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&ps); err != nil || (ps != "1" && !strings.EqualFold(ps, "ON")) {
		r.missing = append(r.missing, "statement figures: performance_schema is off (start the server with performance_schema=ON)")
		return
	}
	r.digests = true
	defer r.measureOwn(ctx)
	var consumer string
	err := db.QueryRowContext(ctx, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'events_statements_current'").Scan(&consumer)
	if err == nil && consumer == "YES" {
		r.prepared = true
	} else {
		r.missing = append(r.missing, "prepared statements' figures: performance_schema's events_statements_current consumer is off "+
			"(start the server with performance-schema-consumer-events-statements-current=ON)")
	}
}

// measureOwn takes two snapshots back to back: their difference is one
// Take's own footprint on the counters.
func (r *Reader) measureOwn(ctx context.Context) {
	a := r.take(ctx)
	b := r.take(ctx)
	r.own = map[string]float64{}
	for k, v := range b.status {
		r.own[k] = v - a.status[k]
	}
}

// Take reads the counters and the statements' figures now. A query the
// server refuses leaves its part empty and is said once; a server that does
// not answer in time leaves the snapshot empty.
func (r *Reader) Take(ctx context.Context) *Snapshot {
	var s *Snapshot
	r.read(ctx, func(ctx context.Context) { s = r.take(ctx) })
	if s == nil || r.gate.Missed() != nil {
		return &Snapshot{stmts: map[string]result.StatementFigures{}}
	}
	return s
}

func (r *Reader) take(ctx context.Context) *Snapshot {
	s := &Snapshot{stmts: map[string]result.StatementFigures{}}
	s.status = r.status(ctx)
	if r.tidb {
		r.note(r.db.QueryRowContext(ctx, "SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s')").Scan(&s.at), "the server's clock")
	}
	switch {
	case r.tidb && r.digests:
		r.note(r.statementsSummary(ctx, s), "statement figures")
	case r.digests:
		r.note(r.byDigest(ctx, s), "statement figures")
		if r.prepared {
			r.note(r.preparedStatements(ctx, s), "prepared statements' figures")
		}
	}
	return s
}

// status reads SHOW GLOBAL STATUS's numbers; a refusal is a note.
func (r *Reader) status(ctx context.Context) map[string]float64 {
	st := map[string]float64{}
	err := conn.QueryStrings(ctx, r.db, "SHOW GLOBAL STATUS", func(v []sql.NullString) error {
		// Numbers only: a counter is a number, and a text value (a path,
		// a certificate's name) is never kept.
		if f, err := strconv.ParseFloat(v[1].String, 64); err == nil {
			st[v[0].String] = f
		}
		return nil
	})
	r.note(err, "server counters")
	r.last = st
	return st
}

// Interval reads the counters now and returns those that changed since the
// last read (a Take or an Interval): a report interval's, taken as the
// runner cuts it. Nil before the first Take. Its own query's footprint (one
// SHOW GLOBAL STATUS) is in it.
func (r *Reader) Interval(ctx context.Context) map[string]float64 {
	prev := r.last
	var cur map[string]float64
	r.read(ctx, func(ctx context.Context) { cur = r.status(ctx) })
	if prev == nil || cur == nil || r.gate.Missed() != nil {
		return nil
	}
	out := map[string]float64{}
	for k, v := range cur {
		if d := v - prev[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// note says once that a part could not be read (what "": err says it).
func (r *Reader) note(err error, what string) {
	if err == nil {
		return
	}
	line := err.Error()
	if what != "" {
		line = what + ": the server refused the query (" + err.Error() + ")"
	}
	for _, m := range r.missing {
		if m == line {
			return
		}
	}
	r.missing = append(r.missing, line)
}

// Figures are the window from a to b: the counters' changes, and the
// statements executed in it, the most server time first.
func (r *Reader) Figures(a, b *Snapshot) *result.Evidence {
	ev := &result.Evidence{Missing: r.missing, QuerySeconds: r.took.Seconds()}
	if a == nil || b == nil {
		return ev
	}
	if len(b.status) > 0 {
		ev.Counters = map[string]float64{}
		for k, v := range b.status {
			if was, ok := a.status[k]; ok {
				ev.Counters[k] = v - was - r.own[k]
			}
		}
	}
	for k, f := range b.stmts {
		was := a.stmts[k] // absent: the statement is new in the window
		f.Execs -= was.Execs
		f.LatencyMs -= was.LatencyMs
		f.RowsExamined -= was.RowsExamined
		f.RowsSent -= was.RowsSent
		f.NoIndexUsed -= was.NoIndexUsed
		if f.Execs > 0 {
			ev.Statements = append(ev.Statements, f)
		}
	}
	sort.Slice(ev.Statements, func(i, j int) bool {
		x, y := ev.Statements[i], ev.Statements[j]
		if x.LatencyMs != y.LatencyMs {
			return x.LatencyMs > y.LatencyMs
		}
		return x.Text < y.Text
	})
	if len(ev.Statements) > TopStatements {
		ev.Statements = ev.Statements[:TopStatements]
	}
	return ev
}

// ownQuery says whether a statement is one of the evidence queries or of
// the server's own schemas, not the workload's.
func ownQuery(text string) bool {
	t := strings.ToUpper(text)
	return strings.HasPrefix(t, "SHOW ") || strings.Contains(t, "PERFORMANCE_SCHEMA") || strings.Contains(t, "INFORMATION_SCHEMA") ||
		strings.Contains(t, "OLTPBENCH_")
}

// byDigest reads MySQL's and MariaDB's statements by digest in the run's
// schema (text-protocol statements; latencies in picoseconds).
func (r *Reader) byDigest(ctx context.Context, s *Snapshot) error {
	return conn.QueryStrings(ctx, r.db, digestQuery, func(v []sql.NullString) error {
		if !v[0].Valid || ownQuery(v[1].String) { // NULL: the summary's overflow row
			return nil
		}
		s.stmts["digest:"+v[0].String] = result.StatementFigures{Text: v[1].String, Source: "digest", Execs: num(v[2]),
			LatencyMs: float64(num(v[3])) / 1e9, RowsExamined: num(v[4]), RowsSent: num(v[5]), NoIndexUsed: num(v[6])}
		return nil
	}, r.schema)
}

const digestQuery = "SELECT DIGEST, DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT, SUM_ROWS_EXAMINED, SUM_ROWS_SENT, SUM_NO_INDEX_USED " +
	"FROM performance_schema.events_statements_summary_by_digest WHERE SCHEMA_NAME = ?"

// preparedStatements reads performance_schema's prepared statements, summed
// over their instances (one per connection that prepared the text). An
// instance is gone when its connection closes: the end is read before the
// run's connections close.
func (r *Reader) preparedStatements(ctx context.Context, s *Snapshot) error {
	return conn.QueryStrings(ctx, r.db, preparedQuery, func(v []sql.NullString) error {
		if ownQuery(v[0].String) {
			return nil
		}
		s.stmts["prepared:"+v[0].String] = result.StatementFigures{Text: v[0].String, Source: "prepared", Execs: num(v[1]),
			LatencyMs: float64(num(v[2])) / 1e9, RowsExamined: num(v[3]), RowsSent: num(v[4]), NoIndexUsed: num(v[5])}
		return nil
	})
}

const preparedQuery = "SELECT SQL_TEXT, SUM(COUNT_EXECUTE), SUM(SUM_TIMER_EXECUTE), SUM(SUM_ROWS_EXAMINED), SUM(SUM_ROWS_SENT), SUM(SUM_NO_INDEX_USED) " +
	"FROM performance_schema.prepared_statements_instances GROUP BY SQL_TEXT"

// statementsSummary reads TiDB's statements summary of the run's schema,
// the current window and the history (a window that rolled over during the
// run is in the history), on every TiDB instance. Columns as documented at
// https://docs.pingcap.com/tidb/stable/statement-summary-tables: EXEC_COUNT,
// SUM_LATENCY (nanoseconds), AVG_PROCESSED_KEYS, PLAN_DIGEST, grouped by
// INSTANCE, SUMMARY_BEGIN_TIME, DIGEST and PLAN_DIGEST.
func (r *Reader) statementsSummary(ctx context.Context, s *Snapshot) error {
	return conn.QueryStrings(ctx, r.db, summaryQuery, func(v []sql.NullString) error {
		if ownQuery(v[3].String) {
			return nil
		}
		execs := num(v[5])
		keys, _ := strconv.ParseFloat(v[7].String, 64)
		key := "summary:" + v[0].String + "/" + v[1].String + "/" + v[2].String + "/" + v[4].String
		s.stmts[key] = result.StatementFigures{Text: v[3].String, Source: "statements_summary", PlanDigest: v[4].String, Execs: execs,
			LatencyMs: float64(num(v[6])) / 1e6, RowsExamined: int64(keys * float64(execs))}
		return nil
	}, r.schema, r.schema)
}

const summaryColumns = "INSTANCE, SUMMARY_BEGIN_TIME, DIGEST, DIGEST_TEXT, PLAN_DIGEST, EXEC_COUNT, SUM_LATENCY, AVG_PROCESSED_KEYS"

const summaryQuery = "SELECT " + summaryColumns + " FROM information_schema.cluster_statements_summary WHERE SCHEMA_NAME = ? " +
	"UNION ALL SELECT " + summaryColumns + " FROM information_schema.cluster_statements_summary_history WHERE SCHEMA_NAME = ?"

// ClusterMetrics reads TiDB's metrics summary over the window from a to b
// (the cluster's Prometheus, through TiDB): each metric's average as
// "METRICS_NAME" (or "METRICS_NAME p99" for a quantile), those that were
// not zero. Columns as documented at
// https://docs.pingcap.com/tidb/stable/information-schema-metrics-summary:
// METRICS_NAME, QUANTILE, AVG_VALUE; the window is the time_range hint.
// Nil elsewhere; a cluster whose Prometheus does not answer is a note.
func (r *Reader) ClusterMetrics(ctx context.Context, a, b *Snapshot) map[string]float64 {
	if !r.tidb || a == nil || b == nil || a.at == "" || b.at == "" {
		return nil
	}
	out := map[string]float64{}
	r.read(ctx, func(ctx context.Context) { r.clusterMetrics(ctx, a, b, out) })
	if len(out) == 0 {
		return nil
	}
	return out
}

func (r *Reader) clusterMetrics(ctx context.Context, a, b *Snapshot, out map[string]float64) {
	err := conn.QueryStrings(ctx, r.db, metricsQuery(a.at, b.at), func(v []sql.NullString) error {
		avg, err := strconv.ParseFloat(v[2].String, 64)
		if err != nil || avg == 0 {
			return nil
		}
		name := v[0].String
		if q, _ := strconv.ParseFloat(v[1].String, 64); q > 0 {
			name += " p" + strconv.FormatFloat(100*q, 'f', -1, 64)
		}
		out[name] = avg
		return nil
	})
	r.note(err, "cluster metrics (information_schema.metrics_summary, from the cluster's Prometheus)")
}

// metricsQuery reads the metrics summary between two of the server's
// times (a hint takes literals only: they are the server's own NOW()).
func metricsQuery(from, to string) string {
	return "SELECT /*+ time_range('" + from + "','" + to + "') */ METRICS_NAME, QUANTILE, AVG_VALUE FROM information_schema.metrics_summary"
}

func num(v sql.NullString) int64 {
	f, _ := strconv.ParseFloat(v.String, 64)
	return int64(f)
}
