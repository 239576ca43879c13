package worker

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Trace prints what sessions do as the MySQL C client's calls, one
// "DEBUG: call(args) = result" line each, the way sysbench's --mysql-debug
// traces its driver: scripts that read that trace (and people who know it)
// find the same calls in the same order. Handles are made-up addresses,
// one per connection and statement, so that lines of one connection can be
// told apart; the password is never printed.
type Trace struct {
	mu   sync.Mutex
	w    io.Writer
	next atomic.Uint64
	// Connect is the connection as mysql_real_connect's arguments show it:
	// host, user, database, port and socket.
	Host, User, DB, Socket string
	Port                   int
	Password               bool // whether there is one (printed as ****)
}

// NewTrace prints to w.
func NewTrace(w io.Writer) *Trace { return &Trace{w: w} }

// handle is a new made-up address.
func (t *Trace) handle() uint64 { return 0x7f0000010000 + t.next.Add(1)*0x2410 }

func (t *Trace) printf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, "DEBUG: "+format+"\n", args...)
}

// connect is a new connection's lines; it returns its handle.
func (t *Trace) connect() uint64 {
	h := t.handle()
	pw, sock := "(null)", "(null)"
	if t.Password {
		pw = "****"
	}
	if t.Socket != "" {
		sock = t.Socket
	}
	t.printf("mysql_init(%#x)", h)
	t.printf("mysql_real_connect(%#x, \"%s\", \"%s\", \"%s\", \"%s\", %d, \"%s\", CLIENT_MULTI_STATEMENTS)", h, t.Host, t.User, pw, t.DB, t.Port, sock)
	return h
}

// prepare is a server-side statement's lines; it returns its handle.
func (t *Trace) prepare(conn uint64, query string, params int) uint64 {
	h := t.handle()
	t.printf("mysql_stmt_init(%#x) = %#x", conn, h)
	t.printf("mysql_stmt_prepare(%#x, \"%s\", %d) = %#x", h, query, len(query), h)
	if params > 0 {
		t.printf("mysql_stmt_param_count(%#x) = %d", h, params)
		t.printf("mysql_stmt_bind_param(%#x, %#x) = 0", h, h+0x100)
	}
	return h
}

// rc is a call's return code as the C client gives it: 0, or 1 on error.
func rc(err error) int {
	if err != nil {
		return 1
	}
	return 0
}

// stmtQuery is an executed statement's lines that returned rows (rows < 0:
// it failed).
func (t *Trace) stmtQuery(h uint64, rows int, err error) {
	t.printf("mysql_stmt_execute(%#x) = %d", h, rc(err))
	if err != nil {
		return
	}
	t.printf("mysql_stmt_store_result(%#x) = 0", h)
	t.printf("mysql_stmt_num_rows(%#x) = %d", h, rows)
	t.printf("mysql_stmt_free_result(%#x)", h)
}

// stmtExec is an executed statement's lines that returned no rows.
func (t *Trace) stmtExec(h uint64, affected int64, err error) {
	t.printf("mysql_stmt_execute(%#x) = %d", h, rc(err))
	if err == nil {
		t.printf("mysql_stmt_affected_rows(%#x) = %d", h, affected)
	}
}

// textQuery is a text statement's lines; cols is its result's columns (0:
// none), rows its rows.
func (t *Trace) textQuery(conn uint64, query string, cols, rows int, err error) {
	t.printf("mysql_real_query(%#x, \"%s\", %d) = %d", conn, query, len(query), rc(err))
	if err != nil {
		return
	}
	if cols == 0 {
		t.printf("mysql_store_result(%#x) = (nil)", conn)
		return
	}
	res := t.handle()
	t.printf("mysql_store_result(%#x) = %#x", conn, res)
	t.printf("mysql_num_rows(%#x) = %d", res, rows)
	t.printf("mysql_num_fields(%#x) = %d", res, cols)
	t.printf("mysql_free_result(%#x)", res)
}

// stmtClose is a closed statement's line.
func (t *Trace) stmtClose(h uint64) { t.printf("mysql_stmt_close(%#x) = 0", h) }
