package worker

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/measure"

	"github.com/oltpbench/oltpbench/internal/conn"
)

// Session runs a worker's statements on one pinned driver connection, either
// as server-side prepared statements or as text (sysbench's --db-ps-mode).
// Argument and row buffers are reused, so a statement costs no more than the
// driver itself allocates.
type Session struct {
	// Timeout, when set, bounds each text statement of Exec and QueryRows
	// with its rows: past it the driver gives up and the connection is
	// lost (the runner makes it anew), so a server gone silent cannot
	// hold a run that has no time limit of its own.
	Timeout  time.Duration
	dc       driver.Conn
	prepared bool
	dest     []driver.Value
	text     []byte
	stmts    []*Stmt
	sampler  *Sampler // the thread's, when its statements are sampled
	clock    *Clock   // the run's, when its statements are timed
	hint     int      // the thread's id: its stripe in the clock
	held     []timed  // latencies not recorded yet (batch at most)
	epoch    uint64   // the clock's window they were taken in
	// shared are the server-side statements by text: statements of one
	// text (BEGIN in each transaction of a workload, under its own name) share one.
	shared map[string]*sharedStmt
	// TextFallbacks counts statements sent as text because the server
	// refused to prepare more.
	TextFallbacks int
	trace         *Trace // the run's, when its calls are printed (--mysql-debug)
	handle        uint64 // the connection's in the trace
}

// NewSession wraps dc; prepared selects server-side prepared statements.
// th (nil for none) is the thread it runs for: a sampled thread's first
// execution of each statement is kept (Thread.Sampler).
func NewSession(dc driver.Conn, prepared bool, th *Thread) *Session {
	s := &Session{dc: dc, prepared: prepared, dest: make([]driver.Value, 8), shared: map[string]*sharedStmt{}}
	if th != nil {
		s.sampler, s.clock, s.hint = th.Sampler, th.Clock, th.ID
		if s.trace = th.Trace; s.trace != nil {
			if !th.traced {
				th.traced = true
				s.trace.threadInit()
			}
			s.handle = s.trace.connect()
		}
	}
	if s.clock != nil {
		s.held, s.epoch = make([]timed, 0, batch), s.clock.epoch.Load()
	}
	return s
}

// sharedStmt is a server-side statement and how many Stmts use it.
type sharedStmt struct {
	ds     driver.Stmt
	refs   int
	handle uint64 // in the trace
}

// Label is name's histogram in the run's clock; NoLabel when the run does
// not time statements.
func (s *Session) Label(name StmtName) Label {
	if s.clock == nil || name == (StmtName{}) {
		return NoLabel
	}
	return s.clock.label(name)
}

// clockBase is what statements are timed from: time.Since of a time that
// has a monotonic reading reads one clock, where time.Now reads two (wall
// and monotonic). On a VM's kvm-clock each read is 30-300 ns.
var clockBase = time.Now()

// start is when a timed statement begins: 0 for an untimed one.
func (s *Session) start(l Label) time.Duration {
	if l == NoLabel {
		return 0
	}
	return time.Since(clockBase)
}

// stop keeps a timed statement that succeeded, for the next batch.
func (s *Session) stop(l Label, t0 time.Duration, err error) {
	if l == NoLabel || err != nil {
		return
	}
	if e := s.clock.epoch.Load(); e != s.epoch { // a new window: what is held is the last one's
		s.held, s.epoch = s.held[:0], e
	}
	s.held = append(s.held, timed{l, (time.Since(clockBase) - t0).Microseconds()})
	if len(s.held) >= batch {
		s.Flush()
	}
}

// Flush records the latencies the session holds (Close does too).
func (s *Session) Flush() {
	if len(s.held) > 0 {
		s.clock.record(s.hint, s.held, s.epoch)
		s.held = s.held[:0]
	}
}

// Stmt is one statement with its argument slots.
type Stmt struct {
	s     *Session
	query string
	parts []string // query split at '?', for text mode
	ds    driver.Stmt
	args  []driver.Value
	last  measure.Counter // how sysbench counts the last execution
	cols  int             // columns of the last result set
	// sampled: the session's sampler has this statement.
	sampled bool
	label   Label  // its histogram in the run's clock
	handle  uint64 // its server-side statement's in the trace
}

// Counted is how sysbench counts the statement's last execution: a result
// set is a read, changed rows a write, anything else (BEGIN, an UPDATE that
// matched nothing, a dry run) other.
func (st *Stmt) Counted() measure.Counter { return st.last }

func countedExec(res driver.Result) measure.Counter {
	if n, err := res.RowsAffected(); err == nil && n > 0 {
		return measure.Writes
	}
	return measure.Others
}

// errMaxPreparedStmts is ER_MAX_PREPARED_STMT_COUNT_REACHED.
const errMaxPreparedStmts = 1461

// Prepare declares a statement with '?' placeholders, not timed.
func (s *Session) Prepare(query string) (*Stmt, error) { return s.PrepareNamed(StmtName{}, query) }

// PrepareNamed declares a statement timed under name (when the run times
// statements). A text prepared before on the session shares its
// server-side statement.
func (s *Session) PrepareNamed(name StmtName, query string) (*Stmt, error) {
	st := &Stmt{s: s, query: query, parts: strings.Split(query, "?"), label: s.Label(name)}
	st.args = make([]driver.Value, len(st.parts)-1)
	if s.prepared {
		if sh := s.shared[query]; sh != nil {
			sh.refs++
			st.ds, st.handle = sh.ds, sh.handle
		} else {
			ds, err := s.dc.Prepare(query)
			switch {
			case conn.Number(err) == errMaxPreparedStmts:
				// The server holds no more prepared statements (many threads x
				// statements): this one goes as text, as sysbench does then.
				s.TextFallbacks++
			case err != nil:
				return nil, err
			default:
				st.ds = ds
				if s.trace != nil {
					st.handle = s.trace.prepare(s.handle, query, len(st.args))
				}
				s.shared[query] = &sharedStmt{ds: ds, refs: 1, handle: st.handle}
			}
		}
	}
	s.stmts = append(s.stmts, st)
	return st, nil
}

// Close closes the statement; its session forgets it. A server-side
// statement another Stmt shares stays open for it.
func (st *Stmt) Close() error {
	for i, x := range st.s.stmts {
		if x == st {
			st.s.stmts = append(st.s.stmts[:i], st.s.stmts[i+1:]...)
			break
		}
	}
	if st.ds == nil {
		return nil
	}
	st.ds = nil
	sh := st.s.shared[st.query]
	if sh.refs--; sh.refs > 0 {
		return nil
	}
	delete(st.s.shared, st.query)
	if st.s.trace != nil {
		st.s.trace.stmtClose(st.s.handle, sh.handle)
	}
	return sh.ds.Close()
}

// Session returns the session the statement belongs to.
func (st *Stmt) Session() *Session { return st.s }

// Int sets argument i.
func (st *Stmt) Int(i int, v int64) { st.args[i] = v }

// Bytes sets argument i to a string value held in b (b is not copied; keep it
// unchanged until the statement has run).
func (st *Stmt) Bytes(i int, b []byte) { st.args[i] = b }

// Query runs a row-returning statement and reads every row; it returns the row count.
func (st *Stmt) Query() (int, error) { return st.Scan(nil) }

// Scan runs a row-returning statement and calls fn (if not nil) for each
// row; the values are valid only during the call.
func (st *Stmt) Scan(fn func(row []driver.Value) error) (int, error) {
	var rows driver.Rows
	var err error
	st.sample()
	t0 := st.s.start(st.label)
	if st.ds != nil {
		// The context-free call skips the driver's per-query cancel watcher.
		rows, err = st.ds.Query(st.args)
	} else {
		rows, err = st.s.textQuery(st)
	}
	if err != nil {
		st.s.traceScan(st, 0, 0, err)
		return 0, err
	}
	st.last = measure.Others
	st.cols = len(rows.Columns())
	if st.cols > 0 {
		st.last = measure.Reads
	}
	n, err := st.s.scan(rows, fn)
	st.s.stop(st.label, t0, err)
	st.s.traceScan(st, st.cols, n, err)
	return n, err
}

// traceScan prints an executed statement's calls (--mysql-debug).
func (s *Session) traceScan(st *Stmt, cols, rows int, err error) {
	switch {
	case s.trace == nil:
	case st.ds != nil:
		s.trace.stmtQuery(s.handle, st.handle, rows, err)
	default:
		s.trace.textQuery(s.handle, s.render(st), cols, rows, err)
	}
}

// Float sets argument i to a decimal value, sent as text so no binary
// floating-point rounding reaches a DECIMAL column.
func (st *Stmt) Float(i int, v float64, decimals int) {
	st.args[i] = strconv.AppendFloat(nil, v, 'f', decimals, 64)
}

// Str sets argument i to a string.
func (st *Stmt) Str(i int, v string) { st.args[i] = v }

// Null sets argument i to NULL.
func (st *Stmt) Null(i int) { st.args[i] = nil }

// Binder fills a statement's arguments in order, so that callers name the
// values they bind instead of computing positions: st.Bind().Int(w).Int(d).
type Binder struct {
	st *Stmt
	i  int
}

// Bind starts filling st's arguments from the first.
func (st *Stmt) Bind() Binder { return Binder{st: st} }

func (b Binder) Int(v int64) Binder                   { b.st.Int(b.i, v); b.i++; return b }
func (b Binder) Float(v float64, decimals int) Binder { b.st.Float(b.i, v, decimals); b.i++; return b }
func (b Binder) Bytes(v []byte) Binder                { b.st.Bytes(b.i, v); b.i++; return b }
func (b Binder) Str(v string) Binder                  { b.st.Str(b.i, v); b.i++; return b }

// Stmt returns the statement being bound.
func (b Binder) Stmt() *Stmt { return b.st }

// Repeat joins n copies of one with sep: the placeholder lists of
// multi-row statements.
func Repeat(one, sep string, n int) string {
	return strings.TrimSuffix(strings.Repeat(one+sep, n), sep)
}

// Exec runs a statement that returns no rows.
func (st *Stmt) Exec() error {
	var res driver.Result
	var err error
	st.sample()
	t0 := st.s.start(st.label)
	if st.ds != nil {
		res, err = st.ds.Exec(st.args)
	} else {
		res, err = st.s.textExec(st.s.render(st))
	}
	st.s.stop(st.label, t0, err)
	if err == nil {
		st.last = countedExec(res)
	}
	if t := st.s.trace; t != nil && st.ds != nil { // textExec traced a text one
		var n int64
		if err == nil {
			n, _ = res.RowsAffected()
		}
		t.stmtExec(st.s.handle, st.handle, n, err)
	}
	return err
}

// Exec runs a statement as text with no arguments.
func (s *Session) Exec(query string) error {
	_, err := s.textExec(query)
	return err
}

// ExecCounted is Exec that says how sysbench counts the statement.
func (s *Session) ExecCounted(query string) (measure.Counter, error) {
	return s.ExecCountedAs(NoLabel, query)
}

// ExecCountedAs is ExecCounted timed under l (Session.Label).
func (s *Session) ExecCountedAs(l Label, query string) (measure.Counter, error) {
	t0 := s.start(l)
	res, err := s.textExec(query)
	s.stop(l, t0, err)
	if err != nil {
		return 0, err
	}
	return countedExec(res), nil
}

// QueryRows runs a text statement that returns rows and calls fn (if not
// nil) for each; the values are valid only during the call. cols is the
// result's column count.
func (s *Session) QueryRows(query string, fn func(row []driver.Value) error) (cols, n int, err error) {
	return s.QueryRowsAs(NoLabel, query, fn)
}

// Sample gives a text statement to the session's sampler (a sampled
// thread's), its plan read after the run as a prepared statement's. Only
// for a workload's fixed texts: a script's texts carry their values, and
// each would be kept.
func (s *Session) Sample(query string) {
	if s.sampler != nil {
		s.sampler.first(query, nil)
	}
}

// QueryRowsAs is QueryRows timed under l in the run's clock
// (--statement-latency), from its send to its last row read.
func (s *Session) QueryRowsAs(l Label, query string, fn func(row []driver.Value) error) (cols, n int, err error) {
	q, ok := s.dc.(driver.QueryerContext)
	if !ok {
		return 0, 0, errors.New("driver cannot run text queries")
	}
	ctx, cancel := s.statementContext()
	defer cancel()
	t0 := s.start(l)
	rows, err := q.QueryContext(ctx, query, nil)
	if err == nil {
		cols = len(rows.Columns())
		n, err = s.scan(rows, fn)
	}
	s.stop(l, t0, err)
	if s.trace != nil {
		s.trace.textQuery(s.handle, query, cols, n, err)
	}
	return cols, n, err
}

// NumArgs is the statement's number of arguments ('?').
func (st *Stmt) NumArgs() int { return len(st.args) }

// Columns is the column count of the statement's last result set.
func (st *Stmt) Columns() int { return st.cols }

// QueryText runs a text statement and reads all its rows.
func (s *Session) QueryText(query string) (int, error) {
	q, ok := s.dc.(driver.Queryer)
	if !ok {
		return 0, errors.New("driver cannot run text queries")
	}
	rows, err := q.Query(query, nil)
	n, cols := 0, 0
	if err == nil {
		cols = len(rows.Columns())
		n, err = s.scan(rows, nil)
	}
	if s.trace != nil {
		s.trace.textQuery(s.handle, query, cols, n, err)
	}
	return n, err
}

// statementContext bounds one statement by Timeout (none when 0).
func (s *Session) statementContext() (context.Context, context.CancelFunc) {
	if s.Timeout <= 0 {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.Background(), s.Timeout)
}

func (s *Session) textExec(query string) (driver.Result, error) {
	ex, ok := s.dc.(driver.ExecerContext)
	if !ok {
		return nil, errors.New("driver cannot run text statements")
	}
	ctx, cancel := s.statementContext()
	defer cancel()
	res, err := ex.ExecContext(ctx, query, nil)
	if s.trace != nil {
		s.trace.textQuery(s.handle, query, 0, 0, err)
	}
	return res, err
}

func (s *Session) textQuery(st *Stmt) (driver.Rows, error) {
	q, ok := s.dc.(driver.QueryerContext)
	if !ok {
		return nil, errors.New("driver cannot run text queries")
	}
	return q.QueryContext(context.Background(), s.render(st), nil)
}

// render substitutes arguments into the query text (text mode).
func (s *Session) render(st *Stmt) string {
	b := s.text[:0]
	for i, p := range st.parts {
		b = append(b, p...)
		if i < len(st.args) {
			switch v := st.args[i].(type) {
			case int64:
				b = strconv.AppendInt(b, v, 10)
			case []byte:
				b = AppendQuoted(b, v)
			case string:
				b = AppendQuoted(b, []byte(v))
			case nil:
				b = append(b, "NULL"...)
			}
		}
	}
	s.text = b
	return string(b)
}

// AppendQuoted appends v as a single-quoted SQL string literal, escaping as
// MySQL expects with the default sql_mode.
func AppendQuoted(b, v []byte) []byte {
	b = append(b, '\'')
	for _, c := range v {
		switch c {
		case '\'':
			b = append(b, '\\', '\'')
		case '\\':
			b = append(b, '\\', '\\')
		case 0:
			b = append(b, '\\', '0')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case 0x1a:
			b = append(b, '\\', 'Z')
		default:
			b = append(b, c)
		}
	}
	return append(b, '\'')
}

func (s *Session) scan(rows driver.Rows, fn func(row []driver.Value) error) (int, error) {
	cols := len(rows.Columns())
	if cols > len(s.dest) {
		s.dest = make([]driver.Value, cols)
	}
	dest := s.dest[:cols]
	n := 0
	for {
		err := rows.Next(dest)
		if err == io.EOF {
			break
		}
		if err == nil && fn != nil {
			err = fn(dest)
		}
		if err != nil {
			rows.Close()
			return n, err
		}
		n++
	}
	return n, rows.Close()
}

// Close records what it holds and closes the prepared statements (best
// effort: the connection may be gone).
func (s *Session) Close() error {
	s.Flush()
	for _, sh := range s.shared {
		if s.trace != nil && sh.handle != 0 {
			s.trace.stmtClose(s.handle, sh.handle)
		}
		sh.ds.Close()
	}
	if s.trace != nil {
		s.trace.close(s.handle)
	}
	clear(s.shared)
	for _, st := range s.stmts {
		st.ds = nil
	}
	s.stmts = nil
	return nil
}
