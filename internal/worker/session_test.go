package worker

import (
	"regexp"
	"strings"

	"context"
	"database/sql/driver"
	"errors"
	"github.com/oltpbench/oltpbench/internal/msglog"
	"io"
	"testing"
)

// fakeConn counts what a session asks of the driver.
type fakeConn struct {
	prepared, closed int
	fail             bool // statements fail
}

func (c *fakeConn) Prepare(q string) (driver.Stmt, error) { c.prepared++; return &fakeStmt{c: c}, nil }
func (c *fakeConn) Close() error                          { return nil }
func (c *fakeConn) Begin() (driver.Tx, error)             { return nil, errors.New("no") }
func (c *fakeConn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	return c.result()
}

func (c *fakeConn) result() (driver.Result, error) {
	if c.fail {
		return nil, errors.New("failed")
	}
	return driver.RowsAffected(1), nil
}

type fakeStmt struct{ c *fakeConn }

func (s *fakeStmt) Close() error                               { s.c.closed++; return nil }
func (s *fakeStmt) NumInput() int                              { return -1 }
func (s *fakeStmt) Exec([]driver.Value) (driver.Result, error) { return s.c.result() }
func (s *fakeStmt) Query([]driver.Value) (driver.Rows, error) {
	if s.c.fail {
		return nil, errors.New("failed")
	}
	return &fakeRows{n: 3}, nil
}

type fakeRows struct{ n int }

func (r *fakeRows) Columns() []string { return []string{"c"} }
func (r *fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if r.n == 0 {
		return io.EOF
	}
	r.n--
	dest[0] = int64(r.n)
	return nil
}

// counts are the clock's statements and their executions, by name.
func counts(c *Clock) map[StmtName]int64 {
	out := map[StmtName]int64{}
	for _, s := range c.Totals() {
		out[StmtName{s.Event, s.Name}] = s.Hist.TotalCount()
	}
	return out
}

// TestSessionTimesNamedStatements: a named statement's successful
// executions are recorded under its name (statements of one name share a
// histogram, and a new session of the thread finds them again); failed and
// unnamed ones are not; Reset drops what was recorded.
func TestSessionTimesNamedStatements(t *testing.T) {
	clock := NewClock()
	th := &Thread{ID: 3, Clock: clock}
	dc := &fakeConn{}
	s := NewSession(dc, true, th)
	sel, _ := s.PrepareNamed(StmtName{"ev", "select"}, "SELECT c FROM t1 WHERE id=?")
	sel2, _ := s.PrepareNamed(StmtName{"ev", "select"}, "SELECT c FROM t2 WHERE id=?")
	upd, _ := s.PrepareNamed(StmtName{"ev", "update"}, "UPDATE t1 SET c=1 WHERE id=?")
	plain, _ := s.Prepare("SELECT 1")
	ins := s.Label(StmtName{"ev", "insert"})
	for range 5 {
		if n, err := sel.Query(); n != 3 || err != nil {
			t.Fatal(n, err)
		}
		sel2.Query()
		upd.Exec()
		plain.Query()
		s.ExecCountedAs(ins, "INSERT INTO t1 VALUES (1)")
	}
	dc.fail = true
	upd.Exec()
	s.ExecCountedAs(ins, "INSERT INTO t1 VALUES (1)")
	dc.fail = false
	// A reconnect: the thread's new session names the same statements.
	s2 := NewSession(&fakeConn{}, false, th)
	upd2, _ := s2.PrepareNamed(StmtName{"ev", "update"}, "UPDATE t1 SET c=? WHERE id=?")
	upd2.Exec()
	if n := counts(clock)[StmtName{"ev", "select"}]; n != 0 {
		t.Errorf("%d recorded before a batch is full or the session flushed", n)
	}
	s.Flush()
	s2.Close()
	want := map[StmtName]int64{{"ev", "select"}: 10, {"ev", "update"}: 6, {"ev", "insert"}: 5}
	got := counts(clock)
	if len(got) != len(want) {
		t.Fatalf("statements %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%v: %d executions timed, want %d", k, got[k], n)
		}
	}
	if order := clock.Totals(); order[0].Name != "select" || order[1].Name != "update" || order[2].Name != "insert" {
		t.Errorf("not in the order first named: %v", order)
	}
	// What a session holds when a window begins is the last window's.
	sel.Query()
	clock.Reset()
	s.Flush()
	for k, n := range counts(clock) {
		if n != 0 {
			t.Errorf("%v: %d after Reset", k, n)
		}
	}
	for range batch {
		sel.Query()
	}
	if n := counts(clock)[StmtName{"ev", "select"}]; n != batch {
		t.Errorf("a full batch recorded %d of %d", n, batch)
	}
	// A run that does not time statements labels none and records nothing.
	if l := NewSession(dc, true, &Thread{}).Label(StmtName{"ev", "x"}); l != NoLabel {
		t.Errorf("label %d without a clock", l)
	}
	var nilClock *Clock
	if nilClock.Totals() != nil || nilClock.Snapshot() != nil {
		t.Error("a nil clock has figures")
	}
	nilClock.Reset()
}

// TestSessionSharesServerStatements: statements of one text (BEGIN under
// each transaction's name) share one server-side statement, closed when
// the last of them is, or once when the session closes.
func TestSessionSharesServerStatements(t *testing.T) {
	dc := &fakeConn{}
	s := NewSession(dc, true, nil)
	a, _ := s.PrepareNamed(StmtName{"new_order", "begin"}, "BEGIN")
	b, _ := s.PrepareNamed(StmtName{"payment", "begin"}, "BEGIN")
	s.Prepare("COMMIT")
	if dc.prepared != 2 {
		t.Fatalf("%d server statements prepared for 2 texts", dc.prepared)
	}
	a.Close()
	if dc.closed != 0 {
		t.Fatal("a shared statement closed while another uses it")
	}
	if err := b.Exec(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if dc.closed != 1 {
		t.Fatalf("%d closed after both closed", dc.closed)
	}
	c, _ := s.Prepare("BEGIN")
	if dc.prepared != 3 || c.Exec() != nil {
		t.Fatalf("%d prepared: BEGIN not prepared again after both closed", dc.prepared)
	}
	s.Close()
	if dc.closed != 3 {
		t.Fatalf("%d closed after the session: want each server statement once", dc.closed)
	}
	c.Close() // after the session: nothing more to close
	if dc.closed != 3 {
		t.Fatalf("%d closed", dc.closed)
	}
}

// TestTrace: --mysql-debug's lines in the C client's order: the library
// and the thread before the first connection only, a statement's result
// freed at the connection's next call (or its close), statements closed
// before their connection, the thread's end last; a thread's lines of
// one kind in a row counted by the log.
func TestTrace(t *testing.T) {
	var b strings.Builder
	tr := NewTrace(msglog.New(&b))
	tr.Host, tr.User, tr.DB, tr.Port = "h", "u", "d", 1
	th := &Thread{Trace: tr}
	s := NewSession(&fakeConn{}, true, th)
	sel, _ := s.Prepare("SELECT c FROM t WHERE id=?")
	upd, _ := s.Prepare("UPDATE t SET k=k+1")
	sel.Int(0, 1)
	sel.Query()
	upd.Exec()
	sel.Query()
	s.Close()
	s = NewSession(&fakeConn{}, true, th) // a reconnect: no thread_init again
	s.Close()
	th.EndTrace()
	tr.ThreadEnd() // another thread's end, the same line
	tr.log.Flush()
	want := `DEBUG: mysql_library_init(0, (nil), (nil))
DEBUG: mysql_thread_init() = 0
DEBUG: mysql_init(C)
DEBUG: mysql_real_connect(C, "h", "u", "(null)", "d", 1, "(null)", CLIENT_MULTI_STATEMENTS)
DEBUG: mysql_stmt_init(C) = S
DEBUG: mysql_stmt_prepare(S, "SELECT c FROM t WHERE id=?", 26) = S
DEBUG: mysql_stmt_param_count(S) = 1
DEBUG: mysql_stmt_bind_param(S, B) = 0
DEBUG: mysql_stmt_init(C) = U
DEBUG: mysql_stmt_prepare(U, "UPDATE t SET k=k+1", 18) = U
DEBUG: mysql_stmt_execute(S) = 0
DEBUG: mysql_stmt_store_result(S) = 0
DEBUG: mysql_stmt_num_rows(S) = 3
DEBUG: mysql_stmt_free_result(S)
DEBUG: mysql_stmt_execute(U) = 0
DEBUG: mysql_stmt_affected_rows(U) = 1
DEBUG: mysql_stmt_execute(S) = 0
DEBUG: mysql_stmt_store_result(S) = 0
DEBUG: mysql_stmt_num_rows(S) = 3
DEBUG: mysql_stmt_free_result(S)
DEBUG: mysql_stmt_close(X) = 0
DEBUG: mysql_stmt_close(X) = 0
DEBUG: mysql_close(C)
DEBUG: mysql_init(D)
DEBUG: mysql_real_connect(D, "h", "u", "(null)", "d", 1, "(null)", CLIENT_MULTI_STATEMENTS)
DEBUG: mysql_close(D)
DEBUG: mysql_thread_end()
(last message repeated 1 times)
`
	got := b.String()
	// Handles are addresses made up per run: name them by their role.
	for _, r := range []struct{ re, as string }{
		{`mysql_init\((0x[0-9a-f]+)\)`, "C"}, {`mysql_stmt_prepare\((0x[0-9a-f]+), "SELECT`, "S"},
		{`mysql_stmt_prepare\((0x[0-9a-f]+), "UPDATE`, "U"}, {`mysql_stmt_bind_param\([^,]+, (0x[0-9a-f]+)\)`, "B"},
		{`mysql_init\((0x[0-9a-f]+)\)`, "D"}, // the second connection, C named
	} {
		if m := regexp.MustCompile(r.re).FindStringSubmatch(got); m != nil {
			got = strings.ReplaceAll(got, m[1], r.as)
		}
	}
	got = regexp.MustCompile(`mysql_stmt_close\([SU]\)`).ReplaceAllString(got, "mysql_stmt_close(X)") // map order
	if got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
}
