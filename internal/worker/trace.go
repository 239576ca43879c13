package worker

import (
	"sync"
	"sync/atomic"

	"github.com/oltpbench/oltpbench/internal/msglog"
)

// Trace prints what sessions do as the MySQL C client's calls, one
// "DEBUG: call(args) = result" line each, the way sysbench's --mysql-debug
// traces its driver: scripts that read that trace (and people who know it)
// find the same calls in the same order. Handles are made-up addresses,
// one per connection and statement, so that lines of one connection can be
// told apart; the password is never printed.
type Trace struct {
	mu   sync.Mutex // guards unfreed
	log  *msglog.Log
	next atomic.Uint64
	lib  sync.Once
	// unfreed is each connection's statement whose result is freed at the
	// connection's next call, as the C client's caller frees it.
	unfreed map[uint64]uint64
	// Begins, if set, is called before the trace's first line.
	Begins func()
	// Connect is the connection as mysql_real_connect's arguments show it:
	// host, user, database, port and socket.
	Host, User, DB, Socket string
	Port                   int
	Password               bool // whether there is one (printed as ****)
}

// NewTrace prints to log, each line a message (its repeats counted, as
// the C client's caller's logger does).
func NewTrace(log *msglog.Log) *Trace { return &Trace{log: log, unfreed: map[uint64]uint64{}} }

// handle is a new made-up address.
func (t *Trace) handle() uint64 { return 0x7f0000010000 + t.next.Add(1)*0x2410 }

// printf prints one line (the log writes each whole).
func (t *Trace) printf(format string, args ...any) { t.log.Printf("DEBUG: "+format+"\n", args...) }

// free prints the free of conn's last statement result, if one is due,
// before conn's next call.
func (t *Trace) free(conn uint64) {
	t.mu.Lock()
	h, ok := t.unfreed[conn]
	delete(t.unfreed, conn)
	t.mu.Unlock()
	if ok {
		t.printf("mysql_stmt_free_result(%#x)", h)
	}
}

// begin is the trace's first line, the client library's start.
func (t *Trace) begin() {
	t.lib.Do(func() {
		if t.Begins != nil {
			t.Begins()
		}
		t.printf("mysql_library_init(0, (nil), (nil))")
	})
}

// threadInit is a thread's first line, before its first connection.
func (t *Trace) threadInit() {
	t.begin()
	t.printf("mysql_thread_init() = 0")
}

// ThreadEnd is a thread's last line, after its connection's.
func (t *Trace) ThreadEnd() { t.printf("mysql_thread_end()") }

// close is a closed connection's line, after its statements'.
func (t *Trace) close(conn uint64) {
	t.free(conn)
	t.printf("mysql_close(%#x)", conn)
}

// connect is a new connection's lines; it returns its handle.
func (t *Trace) connect() uint64 {
	t.begin()
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
	t.free(conn)
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

// stmtQuery is the lines of statement h, executed on conn, that returned
// rows; the result's free waits for conn's next call.
func (t *Trace) stmtQuery(conn, h uint64, rows int, err error) {
	t.free(conn)
	t.printf("mysql_stmt_execute(%#x) = %d", h, rc(err))
	if err != nil {
		return
	}
	t.printf("mysql_stmt_store_result(%#x) = 0", h)
	t.printf("mysql_stmt_num_rows(%#x) = %d", h, rows)
	t.mu.Lock()
	t.unfreed[conn] = h
	t.mu.Unlock()
}

// stmtExec is the lines of statement h, executed on conn, that returned
// no rows.
func (t *Trace) stmtExec(conn, h uint64, affected int64, err error) {
	t.free(conn)
	t.printf("mysql_stmt_execute(%#x) = %d", h, rc(err))
	if err == nil {
		t.printf("mysql_stmt_affected_rows(%#x) = %d", h, affected)
	}
}

// textQuery is a text statement's lines; cols is its result's columns (0:
// none), rows its rows.
func (t *Trace) textQuery(conn uint64, query string, cols, rows int, err error) {
	t.free(conn)
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

// stmtClose is the line of statement h of conn, closed.
func (t *Trace) stmtClose(conn, h uint64) {
	t.free(conn)
	t.printf("mysql_stmt_close(%#x) = 0", h)
}
