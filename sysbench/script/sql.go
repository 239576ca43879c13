package script

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"weak"

	"github.com/go-sql-driver/mysql"

	lua "github.com/yuin/gopher-lua"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/worker"
)

// SQL types, as sysbench.sql.type numbers them.
var sqlTypes = []string{"NONE", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "TIME", "DATE", "DATETIME",
	"TIMESTAMP", "CHAR", "VARCHAR"}

const (
	typeFloat  = 5
	typeDouble = 6
	typeChar   = 11
)

// bulkPacket is where con:bulk_insert_next sends the statement built so far.
const bulkPacket = 512 * 1024

// connection is what drv:connect() returns: a connection of its own, as
// each connect() is in sysbench.
type connection struct {
	l     *link        // its session: closed by disconnect, the thread's end or Go's GC
	stmts []*statement // prepared here: prepared again after a reconnect
	// rs is the connection's one result set, as sysbench has one: every
	// query fills it anew and returns it (rsUD); free and query_row free it.
	rs   *resultSet
	rsUD *lua.LUserData
	bulk []byte // a bulk insert in progress: its statement so far
	head int    // the statement's length without values
	rows int
}

type statement struct {
	c      *connection
	st     *worker.Stmt
	query  string
	rows   bool // the statement answers with a result set
	params []*param
	// rs is the result every execute returns, reused: a prepared
	// statement's rows are counted, not kept (sysbench cannot fetch them
	// either), so an execute allocates nothing.
	rs   *resultSet
	rsUD *lua.LUserData
}

// param is one bound value of a statement (stmt:bind_create); max is a
// CHAR or VARCHAR's buffer length, to which a longer string is cut, as
// sysbench's bind buffer cuts it.
type param struct {
	typ int
	max int
	val lua.LValue
}

type resultSet struct {
	rows  [][]lua.LValue
	next  int
	nflds int
	count int // rows counted but not kept (a prepared statement's)
	freed bool
}

// nrows is the result's row count.
func (rs *resultSet) nrows() int { return len(rs.rows) + rs.count }

// sqlTable is sysbench.sql: the driver, types and error kinds.
func (e *env) sqlTable(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	types := L.NewTable()
	for i, n := range sqlTypes {
		L.SetField(types, n, lua.LNumber(i))
	}
	L.SetField(t, "type", types)
	errs := L.NewTable()
	L.SetField(errs, "NONE", lua.LNumber(0))
	L.SetField(errs, "IGNORABLE", lua.LNumber(1))
	L.SetField(errs, "FATAL", lua.LNumber(2))
	L.SetField(t, "error", errs)
	e.registerTypes(L)
	L.SetField(t, "driver", L.NewFunction(func(L *lua.LState) int {
		if e.usedSQL != nil {
			e.usedSQL.Store(true)
		}
		if name := L.OptString(1, e.driverName); name != "mysql" && !(name == "" && e.declaring) {
			e.logf("FATAL: invalid database driver name: '%s'\n", name)
			raise(L, "failed to initialize the DB driver")
		}
		ud := L.NewUserData()
		ud.Value = "mysql"
		L.SetMetatable(ud, L.GetTypeMetatable("sql_driver"))
		L.Push(ud)
		return 1
	}))
	return t
}

func (e *env) registerTypes(L *lua.LState) {
	methods := func(name, str string, fns map[string]lua.LGFunction, index lua.LGFunction) {
		mt := L.NewTypeMetatable(name)
		m := L.SetFuncs(L.NewTable(), fns)
		if index != nil {
			L.SetField(mt, "__index", L.NewFunction(func(L *lua.LState) int {
				if v := m.RawGetString(L.CheckString(2)); v != lua.LNil {
					L.Push(v)
					return 1
				}
				return index(L)
			}))
		} else {
			L.SetField(mt, "__index", m)
		}
		L.SetField(mt, "__tostring", L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LString(str))
			return 1
		}))
	}
	methods("sql_driver", "<sql_driver>", map[string]lua.LGFunction{
		"name": func(L *lua.LState) int { L.Push(lua.LString("mysql")); return 1 },
		"connect": func(L *lua.LState) int {
			c := &connection{l: &link{}}
			if e.declaring {
				e.pushUD(L, c, "sql_connection")
				return 1
			}
			if err := e.open(c); err != nil {
				raise(L, "connection creation failed")
			}
			e.track(c)
			e.pushUD(L, c, "sql_connection")
			return 1
		},
	}, nil)
	methods("sql_connection", "<sql_connection>", map[string]lua.LGFunction{
		"query":            e.conQuery,
		"query_row":        e.conQueryRow,
		"prepare":          e.conPrepare,
		"bulk_insert_init": e.bulkInit,
		"bulk_insert_next": e.bulkNext,
		"bulk_insert_done": e.bulkDone,
		"disconnect":       e.conDisconnect,
		"reconnect":        e.conReconnect,
		"check_error":      func(L *lua.LState) int { return 0 },
		"escape_string":    e.escapeString,
	}, nil)
	methods("sql_statement", "<sql_statement>", map[string]lua.LGFunction{
		"bind_create": e.bindCreate,
		"bind_param":  e.bindParam,
		"execute":     e.stmtExecute,
		"close":       e.stmtClose,
	}, nil)
	methods("sql_param", "<sql_param>", map[string]lua.LGFunction{
		"set":          e.paramSet,
		"set_rand_str": e.paramSetRandStr,
	}, nil)
	methods("sql_result", "<sql_result>", map[string]lua.LGFunction{
		"fetch_row": e.fetchRow,
		"free":      e.resultFree,
	}, func(L *lua.LState) int {
		rs := L.CheckUserData(1).Value.(*resultSet)
		switch L.CheckString(2) {
		case "nrows":
			L.Push(lua.LNumber(rs.nrows()))
		case "nfields":
			L.Push(lua.LNumber(rs.nflds))
		default:
			L.Push(lua.LNil)
		}
		return 1
	})
}

func (e *env) pushUD(L *lua.LState, v any, typ string) {
	ud := L.NewUserData()
	ud.Value = v
	L.SetMetatable(ud, L.GetTypeMetatable(typ))
	L.Push(ud)
}

func checkConn(L *lua.LState) *connection {
	c, ok := L.CheckUserData(1).Value.(*connection)
	if !ok {
		L.ArgError(1, "connection expected")
	}
	return c
}

// returnsRows says whether a statement answers with a result set.
func returnsRows(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n(")
	i := strings.IndexAny(q, " \t\r\n(")
	if i < 0 {
		i = len(q)
	}
	for _, k := range rowKeywords {
		if strings.EqualFold(q[:i], k) {
			return true
		}
	}
	return false
}

var rowKeywords = []string{"SELECT", "SHOW", "WITH", "EXPLAIN", "DESCRIBE", "DESC", "VALUES", "TABLE", "ANALYZE", "CHECK",
	"OPTIMIZE", "REPAIR", "CALL", "CHECKSUM", "HELP"}

// conQuery is con:query(sql): a result set for statements that return
// rows, else an empty result.
func (e *env) conQuery(L *lua.LState) int {
	e.textQuery(L)
	L.Push(checkConn(L).rsUD)
	return 1
}

// textQuery runs con:query's and con:query_row's statement, raising its error.
func (e *env) textQuery(L *lua.LState) *resultSet {
	c := checkConn(L)
	q := L.CheckString(2)
	sess := c.session(L, e)
	rs, err := e.query(sess, q)
	if err != nil {
		e.raiseSQL(L, c, q, err, false)
	}
	if c.rs == nil {
		c.rs = &resultSet{}
		c.rsUD = L.NewUserData()
		c.rsUD.Value = c.rs
		L.SetMetatable(c.rsUD, L.GetTypeMetatable("sql_result"))
	}
	*c.rs = *rs
	return c.rs
}

func (e *env) query(sess *worker.Session, q string) (*resultSet, error) {
	rs := &resultSet{}
	if !returnsRows(q) {
		k, err := sess.ExecCounted(q)
		if err != nil {
			return nil, err
		}
		e.count(k)
		return rs, nil
	}
	cols, _, err := sess.QueryRows(q, func(row []driver.Value) error {
		rs.rows = append(rs.rows, toLua(row))
		return nil
	})
	if err != nil {
		return nil, err
	}
	rs.nflds = cols
	if cols > 0 {
		e.count(measure.Reads)
	} else {
		e.count(measure.Others)
	}
	return rs, nil
}

// toLua is a row as sysbench's result sets give it: strings, NULL as nil.
func toLua(row []driver.Value) []lua.LValue {
	out := make([]lua.LValue, len(row))
	for i, v := range row {
		switch x := v.(type) {
		case nil:
			out[i] = lua.LNil
		case []byte:
			out[i] = lua.LString(x)
		case string:
			out[i] = lua.LString(x)
		case int64:
			out[i] = lua.LString(strconv.FormatInt(x, 10))
		case float64:
			out[i] = lua.LString(strconv.FormatFloat(x, 'g', -1, 64))
		default:
			out[i] = lua.LString(fmt.Sprint(x))
		}
	}
	return out
}

// conQueryRow is con:query_row(sql): the first row's values.
func (e *env) conQueryRow(L *lua.LState) int {
	rs := e.textQuery(L)
	rs.freed = true
	if len(rs.rows) == 0 {
		return 0
	}
	for _, v := range rs.rows[0] {
		L.Push(v)
	}
	return len(rs.rows[0])
}

func (e *env) fetchRow(L *lua.LState) int {
	rs := L.CheckUserData(1).Value.(*resultSet)
	if rs.next >= len(rs.rows) {
		if rs.count > 0 { // sysbench's words for a prepared statement's rows
			e.logf("ALERT: attempt to fetch row from an empty result set\n")
		}
		L.Push(lua.LNil)
		return 1
	}
	row := L.NewTable()
	for i, v := range rs.rows[rs.next] {
		row.RawSetInt(i+1, v)
	}
	rs.next++
	L.Push(row)
	return 1
}

func (e *env) escapeString(L *lua.LState) int {
	b := worker.AppendQuoted(nil, []byte(L.CheckString(2)))
	L.Push(lua.LString(b[1 : len(b)-1]))
	return 1
}

// raiseSQL raises a statement's error as sysbench does: an error in
// --mysql-ignore-errors (or a lost connection) as a table with errcode
// RESTART_EVENT and the error's fields, any other as its message.
func (e *env) raiseSQL(L *lua.LState, c *connection, q string, err error, stmt bool) {
	n := conn.Number(err)
	msg := conn.Message(err)
	// sysbench counts every failed statement as an ignored error, and says
	// FATAL for those --mysql-ignore-errors does not cover, even when the
	// script catches the error.
	e.count(measure.Errors)
	if !e.ignore.Has(n) && !conn.IsLost(err) {
		fn := "mysql_drv_query()"
		if stmt {
			fn = "mysql_stmt_execute()"
		}
		e.logf("FATAL: %s returned error %d (%s) for query '%s'\n", fn, n, msg, q)
	}
	if e.ignore.Has(n) || conn.IsLost(err) {
		t := L.NewTable()
		L.SetField(t, "errcode", lua.LNumber(restartEvent))
		L.SetField(t, "sql_errno", lua.LNumber(n))
		L.SetField(t, "sql_state", lua.LString(conn.SQLState(err)))
		L.SetField(t, "sql_errmsg", lua.LString(msg))
		L.SetField(t, "query", lua.LString(q))
		e.pushUD(L, c, "sql_connection")
		L.SetField(t, "connection", L.Get(-1))
		L.Pop(1)
		e.raised, e.raisedErr = t, err
		L.Error(t, 0)
	}
	text := fmt.Sprintf("SQL error, errno = %d, state = '%s': %s", n, conn.SQLState(err), msg)
	if w := L.Where(1); w != "" && w != "[G]:" { // as luaL_error places it
		text = w + " " + text
	}
	v := lua.LString(text)
	e.raised, e.raisedErr = v, err
	L.Error(v, 0)
}

func errdescString(t *lua.LTable) string {
	return fmt.Sprintf("SQL error, errno = %s, state = '%s': %s", lua.LVAsString(t.RawGetString("sql_errno")),
		lua.LVAsString(t.RawGetString("sql_state")), lua.LVAsString(t.RawGetString("sql_errmsg")))
}

func (e *env) conPrepare(L *lua.LState) int {
	c := checkConn(L)
	q := L.CheckString(2)
	st, err := c.session(L, e).PrepareNamed(e.stmtName(q), q)
	if err != nil && conn.IsLost(err) {
		e.raiseSQL(L, c, q, err, false)
	}
	if err != nil {
		e.logf("FATAL: mysql_stmt_prepare() failed\n")
		e.logf("FATAL: MySQL error: %d \"%s\"\n", conn.Number(err), conn.Message(err))
		raise(L, "SQL API error")
	}
	stmt := &statement{c: c, st: st, query: q, rows: returnsRows(q), rs: &resultSet{}}
	c.stmts = append(c.stmts, stmt)
	stmt.rsUD = L.NewUserData()
	stmt.rsUD.Value = stmt.rs
	L.SetMetatable(stmt.rsUD, L.GetTypeMetatable("sql_result"))
	e.pushUD(L, stmt, "sql_statement")
	return 1
}

func checkStmt(L *lua.LState) *statement {
	s, ok := L.CheckUserData(1).Value.(*statement)
	if !ok {
		L.ArgError(1, "statement expected")
	}
	return s
}

// bindCreate is stmt:bind_create(type[, length]): the integer, floating
// point and string types, as sysbench binds them; another is refused with
// sysbench's error.
func (e *env) bindCreate(L *lua.LState) int {
	checkStmt(L)
	typ := L.CheckInt(2)
	if typ < 1 || typ > typeDouble && typ < typeChar || typ >= len(sqlTypes) {
		L.Error(lua.LString(fmt.Sprintf("Unsupported argument type: %d", typ)), 0)
	}
	p := &param{typ: typ, val: lua.LNil}
	if typ >= typeChar {
		p.max = L.OptInt(3, 0)
	}
	e.pushUD(L, p, "sql_param")
	return 1
}

func (e *env) bindParam(L *lua.LState) int {
	s := checkStmt(L)
	s.params = s.params[:0]
	for i := 2; i <= L.GetTop(); i++ {
		p, ok := L.CheckUserData(i).Value.(*param)
		if !ok {
			L.ArgError(i, "parameter expected")
		}
		s.params = append(s.params, p)
	}
	if len(s.params) == 0 { // sysbench answers nil to no parameters, 0 to some
		L.Push(lua.LNil)
	} else {
		L.Push(lua.LNumber(0))
	}
	return 1
}

func (e *env) paramSet(L *lua.LState) int {
	p, ok := L.CheckUserData(1).Value.(*param)
	if !ok {
		L.ArgError(1, "parameter expected")
	}
	p.val = L.Get(2)
	return 0
}

func (e *env) paramSetRandStr(L *lua.LState) int {
	p, ok := L.CheckUserData(1).Value.(*param)
	if !ok {
		L.ArgError(1, "parameter expected")
	}
	tmpl := L.CheckString(2)
	buf := make([]byte, len(tmpl))
	e.rand.Digits(buf, tmpl)
	p.val = lua.LString(buf)
	return 0
}

// stmtExecute binds the parameters' values and runs the statement: a
// result set for statements that return rows.
func (e *env) stmtExecute(L *lua.LState) int {
	s := checkStmt(L)
	for i, p := range s.params {
		if i >= s.st.NumArgs() {
			break
		}
		switch v := p.val.(type) {
		case lua.LNumber:
			if p.typ == typeFloat || p.typ == typeDouble {
				s.st.Float(i, float64(v), -1)
			} else if p.typ >= typeChar {
				s.st.Str(i, v.String())
			} else {
				s.st.Int(i, int64(v))
			}
		case lua.LString:
			if p.max > 0 && len(v) > p.max {
				v = v[:p.max]
			}
			s.st.Str(i, string(v))
		case lua.LBool:
			if v {
				s.st.Int(i, 1)
			} else {
				s.st.Int(i, 0)
			}
		default:
			s.st.Null(i)
		}
	}
	rs := s.rs
	rs.rows, rs.next, rs.count = nil, 0, 0
	var err error
	if s.rows {
		var n int
		n, err = s.st.Query()
		rs.count, rs.nflds = n, s.st.Columns()
	} else {
		err = s.st.Exec()
	}
	if err != nil {
		e.raiseSQL(L, s.c, s.query, err, true)
	}
	e.count(s.st.Counted())
	L.Push(s.rsUD)
	return 1
}

func (e *env) stmtClose(L *lua.LState) int {
	checkStmt(L).st.Close()
	return 0
}

// bulkInit starts a multi-row INSERT: values follow with bulk_insert_next
// and go in statements of about bulkPacket bytes.
func (e *env) bulkInit(L *lua.LState) int {
	c := checkConn(L)
	c.bulk = append(c.bulk[:0], L.CheckString(2)...)
	c.head, c.rows = len(c.bulk), 0
	return 0
}

func (e *env) bulkNext(L *lua.LState) int {
	c := checkConn(L)
	v := L.CheckString(2)
	if c.rows > 0 && len(c.bulk)+len(v)+1 > bulkPacket {
		e.bulkFlush(L, c)
	}
	if c.rows > 0 {
		c.bulk = append(c.bulk, ',')
	}
	c.bulk = append(c.bulk, v...)
	c.rows++
	return 0
}

func (e *env) bulkFlush(L *lua.LState, c *connection) {
	q := string(c.bulk)
	k, err := c.session(L, e).ExecCounted(q)
	if err != nil {
		e.raiseSQL(L, c, q, err, false)
	}
	e.count(k)
	c.bulk, c.rows = c.bulk[:c.head], 0
}

func (e *env) bulkDone(L *lua.LState) int {
	c := checkConn(L)
	if c.rows > 0 {
		e.bulkFlush(L, c)
	}
	c.bulk, c.head = nil, 0
	return 0
}

// stmtName is a script's prepared statement's name for its client latency:
// its text, in the run's event. (A text statement, con:query, is not timed:
// each distinct text would be a histogram of its own.)
func (e *env) stmtName(q string) worker.StmtName { return worker.StmtName{Event: e.event, Name: q} }

// session is the connection's session; a disconnected one raises, as a
// statement on a closed connection fails in sysbench.
func (c *connection) session(L *lua.LState, e *env) *worker.Session {
	if c.l.sess == nil {
		e.logf("ALERT: attempt to use an already closed connection\n")
		L.RaiseError("SQL API error")
	}
	return c.l.sess
}

// open connects c (again), preparing its statements on the new session. A
// failure is printed in sysbench's words and returned.
func (e *env) open(c *connection) error {
	if e.dial == nil {
		return errors.New("no server in this command")
	}
	dc, ep, err := e.dial()
	if err != nil {
		e.connectFailed(ep, err)
		return err
	}
	c.l.close()
	// The thread's session: its prepared statements are timed (the run's
	// clock) and the first thread's sampled for their plans.
	c.l.set(worker.NewSession(dc, e.prepared, e.thread), dc)
	for _, st := range c.stmts {
		if st.st, err = c.l.sess.PrepareNamed(e.stmtName(st.query), st.query); err != nil {
			return err
		}
	}
	return nil
}

// connectFailed prints a failed connect as sysbench's MySQL driver does:
// the endpoint, then the client library's error number and text.
func (e *env) connectFailed(ep conn.Endpoint, err error) {
	host, port, _ := net.SplitHostPort(ep.Addr)
	if ep.Net == "unix" {
		host, port = "localhost", "3306"
	}
	e.logf("FATAL: unable to connect to MySQL server on host '%s', port %s, aborting...\n", host, port)
	n, msg := clientError(host, err)
	e.logf("FATAL: error %d: %s\n", n, msg)
}

// clientError is a connect error as MariaDB's client library numbers and
// words it: the server's own, 2005 for a host that does not resolve, 2002
// for one that does not answer.
func clientError(host string, err error) (int, string) {
	var me *mysql.MySQLError
	var dns *net.DNSError
	switch {
	case errors.As(err, &me):
		return int(me.Number), me.Message
	case errors.As(err, &dns):
		return 2005, fmt.Sprintf("Unknown server host '%s' (-2)", host)
	case errors.Is(err, syscall.ETIMEDOUT) || errors.Is(err, context.DeadlineExceeded):
		return 2002, fmt.Sprintf("Can't connect to server on '%s' (110)", host)
	}
	return 2002, fmt.Sprintf("Can't connect to server on '%s' (115)", host)
}

// conDisconnect is con:disconnect(): the connection closes; a second call
// does nothing.
func (e *env) conDisconnect(L *lua.LState) int {
	c := checkConn(L)
	if c.l.sess == nil {
		e.logf("ALERT: attempt to close an already closed connection\n")
		return 0
	}
	c.l.close()
	return 0
}

// conReconnect is con:reconnect(): a new connection in place of the old,
// counted as a reconnect.
func (e *env) conReconnect(L *lua.LState) int {
	c := checkConn(L)
	if err := e.open(c); err != nil {
		L.RaiseError("connection creation failed")
	}
	e.count(measure.Reconnects)
	return 0
}

// closeAll closes every connection the state opened.
func (e *env) closeAll() {
	for _, w := range e.conns {
		if c := w.Value(); c != nil {
			c.l.close()
		}
	}
	e.conns = nil
}

// reconnectAll opens again, after a lost connection, every connection the
// state had open (the runner counts the reconnect).
func (e *env) reconnectAll() error {
	for _, w := range e.conns {
		c := w.Value()
		if c == nil || c.l.sess == nil {
			continue
		}
		if err := e.open(c); err != nil {
			return err
		}
	}
	return nil
}

// resultFree is rs:free() as sysbench 1.0.20 answers it: a result set
// freed already (by free, or by query_row on its connection) is its ALERT
// and an error; a valid one returns true and the failure text, as its Lua
// wrapper returns them.
func (e *env) resultFree(L *lua.LState) int {
	rs := L.CheckUserData(1).Value.(*resultSet)
	if rs.freed {
		e.logf("ALERT: attempt to free an invalid result set\n")
		L.Error(lua.LString("db_free_results() failed"), 0)
	}
	rs.freed = true
	L.Push(lua.LTrue)
	L.Push(lua.LString("db_free_results() failed"))
	return 2
}

// link is a connection's session, apart from the connection so that Go's
// GC can close it once the script drops the connection.
type link struct {
	mu   sync.Mutex
	sess *worker.Session
	dc   driver.Conn // the script's own: closing the session leaves it open
}

func (l *link) set(s *worker.Session, dc driver.Conn) {
	l.mu.Lock()
	l.sess, l.dc = s, dc
	l.mu.Unlock()
}

// close closes the session and its connection, once.
func (l *link) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess != nil {
		l.sess.Close()
		l.dc.Close()
		l.sess, l.dc = nil, nil
	}
}

// maxHeld is how many connections a state keeps open before it asks Go's
// GC for the ones the script dropped.
const maxHeld = 64

// track keeps c for reconnects and the thread's end, weakly: a connection
// the script drops (one connect() per event, never disconnected) is
// closed when it is collected, as LuaJIT's GC closes sysbench's. A state
// holding many runs the collector, so they do not pile up on the server.
func (e *env) track(c *connection) {
	runtime.AddCleanup(c, (*link).close, c.l)
	e.conns = append(e.conns, weak.Make(c))
	if len(e.conns) < max(e.gcAt, maxHeld) {
		return
	}
	runtime.GC()
	live := e.conns[:0]
	for _, w := range e.conns {
		if w.Value() != nil {
			live = append(live, w)
		}
	}
	e.conns = live
	e.gcAt = 2 * len(live) // a script that holds many runs the collector seldom
}
