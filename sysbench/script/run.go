package script

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/msglog"
	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Config is what a script's Lua states are made from.
type Config struct {
	Opt map[string]lua.LValue // sysbench.opt
	// Globals are the options as globals, for a script that declares none
	// (0.5-era scripts read them so): sysbench's own, as sysbench gives them.
	Globals  map[string]lua.LValue
	Dists    map[string]*random.Dist
	Seed     uint64
	Prepared bool // --db-ps-mode=auto
	Ignore   conn.ErrorSet
	Out      io.Writer // print, and sysbench's FATAL lines
	Notice   io.Writer // sysbench's own lines (verbosity 3 and up); Out when nil
	Reports  Reports   // sysbench.report_default, report_csv, report_json
	// Log prints sysbench's own messages (FATAL:, ALERT:), counting
	// repeats as its logger does: the command's (Out's own when nil).
	Log *msglog.Log
	// Dialer opens the connections scripts ask for (nil: no server);
	// Driver is --db-driver, which sysbench.sql.driver() checks.
	Dialer conn.Dialer
	Driver string
}

func (c *Config) notice() io.Writer {
	if c.Notice != nil {
		return c.Notice
	}
	return c.Out
}

// Reports print a stat table's figures as sysbench's report functions do.
type Reports interface {
	PrintDefault(stat map[string]float64)
	PrintCSV(stat map[string]float64)
	PrintJSON(stat map[string]float64)
}

// Run is a script bound to one run: it makes a Lua state per thread.
type Run struct {
	s       *Script
	c       Config
	uniq    *random.UniqueSeq
	next    atomic.Uint32
	main    *lua.LState // init and done run here
	log     *msglog.Log
	logOnce sync.Once
	// usedSQL: a state asked for sysbench.sql's driver; sysbench's report
	// has SQL statistics only then.
	usedSQL atomic.Bool
}

// UsedSQL says whether the script used sysbench.sql.
func (r *Run) UsedSQL() bool { return r.usedSQL.Load() }

// NewRun checks that the script can run and calls its init.
func (s *Script) NewRun(c Config) (*Run, error) {
	if !s.Has["event"] {
		return nil, fmt.Errorf("%s has no event function: it cannot run (its commands: %s)", s.Path, s.commandList())
	}
	r := &Run{s: s, c: c, uniq: random.NewUniqueSeq(c.Seed)}
	e := r.env("run", 0, nil)
	r.main = s.newState(e)
	// sysbench's init runs in the state that loaded the script, whose
	// chunk printed once already (Printed).
	e.out = io.Discard
	if err := s.runMain(r.main); err != nil {
		return nil, err
	}
	e.out = c.Out
	if err := call(r.main, "init"); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Run) env(command string, tid int, th *worker.Thread) *env {
	rnd := random.NewRand(r.c.Seed, uint64(tid))
	rnd.SetDist(r.c.Dists["default"])
	e := &env{command: command, tid: tid, opt: r.c.Opt, globals: r.c.Globals, rand: rnd, dists: r.c.Dists, out: r.c.Out, thread: th, event: r.s.Name,
		ignore: r.c.Ignore, uniq: r.uniq, uniqNext: func() uint32 { return r.next.Add(1) - 1 }, reports: r.c.Reports, usedSQL: &r.usedSQL,
		prepared: r.c.Prepared, driverName: r.c.Driver, log: r.logger()}
	if e.driverName == "" {
		e.driverName = "mysql"
	}
	if d := r.c.Dialer; d != nil {
		e.dial = func() (driver.Conn, conn.Endpoint, error) { return d.Connect(context.Background()) }
	}
	return e
}

// logger is the run's: one for all its states, as sysbench has one.
func (r *Run) logger() *msglog.Log {
	r.logOnce.Do(func() {
		if r.log = r.c.Log; r.log == nil {
			r.log = msglog.New(r.c.Out)
		}
	})
	return r.log
}

// HasHook says whether the script set sysbench.hooks[name]
// (report_intermediate, report_cumulative).
func (r *Run) HasHook(name string) bool {
	hooks, ok := r.main.GetGlobal("sysbench").(*lua.LTable).RawGetString("hooks").(*lua.LTable)
	if !ok {
		return false
	}
	_, ok = hooks.RawGetString(name).(*lua.LFunction)
	return ok
}

// Report calls the report hook name with a stat table of the figures.
func (r *Run) Report(name string, stat map[string]float64) error {
	t := r.main.NewTable()
	for k, v := range stat {
		t.RawSetString(k, lua.LNumber(v))
	}
	return hook(r.main, name, t)
}

// Done calls the script's done, after the threads.
func (r *Run) Done() error {
	defer r.main.Close()
	return call(r.main, "done")
}

// Ops names the measured operation: the script's events.
func (r *Run) Ops() []string { return []string{r.s.Name} }

// thread is one thread's Lua state; it outlives reconnects, as the
// script's globals and connections do in sysbench.
type thread struct {
	L *lua.LState
	e *env
}

// NewWorker gives a thread its state (its script run, thread_init called
// with the thread's id) or, after a lost connection, opens again the
// connections the script had open and tells the script so through
// sysbench.hooks.before_restart_event, as sysbench does. The script opens
// its own connections: the runner hands it none (dc is nil).
func (r *Run) NewWorker(_ driver.Conn, th *worker.Thread) (worker.Worker, error) {
	t, _ := th.State.(*thread)
	if t != nil {
		if err := t.e.reconnectAll(); err != nil {
			return nil, err
		}
		if err := hook(t.L, "before_restart_event", restartDesc(t.L, conn.ErrLost)); err != nil {
			return nil, err
		}
		return &luaWorker{t: t}, nil
	}
	t = &thread{}
	t.e = r.env("run", th.ID, th)
	t.L = r.s.newState(t.e)
	th.State = t
	if err := r.s.runMain(t.L); err != nil {
		return nil, err
	}
	if err := call(t.L, "thread_init", lua.LNumber(th.ID)); err != nil {
		return nil, &workload.Message{Text: "FATAL: " + err.Error() + "\nFATAL: Thread initialization failed!"}
	}
	return &luaWorker{t: t, own: r.s.Has["thread_run"]}, nil
}

type luaWorker struct {
	t    *thread
	last lua.LValue // the error the last event raised
	// own: the script defines thread_run, the 0.5-era name of the whole
	// thread's body, which replaces sysbench's loop of events.
	own bool
}

// Event calls the script's event with the thread's id. A true result ends
// the thread. An error the API raised for a statement comes back as the
// statement's error, so the runner retries what --mysql-ignore-errors
// covers, reconnects after a lost connection and stops on anything else.
func (w *luaWorker) Event() (int, error) {
	L, e := w.t.L, w.t.e
	e.raised, e.raisedErr = nil, nil
	name := "event"
	if w.own {
		name = "thread_run"
	}
	L.Push(L.GetGlobal(name))
	L.Push(lua.LNumber(e.tid))
	if err := L.PCall(1, 1, nil); err != nil {
		var ae *lua.ApiError
		_, restart := e.raised.(*lua.LTable) // an error --mysql-ignore-errors covers, or a lost connection
		if errors.As(err, &ae) && restart && ae.Object == e.raised {
			w.last = ae.Object
			if e.ignore.Has(conn.Number(e.raisedErr)) {
				// The API counted it; the runner counts what it retries.
				e.thread.Add(measure.Errors, -1)
			}
			return 0, e.raisedErr
		}
		m := &workload.Message{Text: fmt.Sprintf("FATAL: `thread_run' function failed: %v", luaError(err))}
		if n := conn.Number(e.raisedErr); n != 0 {
			m.Hint = fmt.Sprintf("oltpbench: error %d is not in --mysql-ignore-errors: add %d to it to go on past it", n, n)
		}
		return 0, m
	}
	ret := L.Get(-1)
	L.Pop(1)
	if w.own || lua.LVAsBool(ret) {
		return 0, worker.ErrEnd
	}
	return 0, nil
}

// Rollback is sysbench's restart of an event: the script hears of it
// through sysbench.hooks.before_restart_event; no statement is sent.
func (w *luaWorker) Rollback() error {
	if t, ok := w.last.(*lua.LTable); ok {
		return hook(w.t.L, "before_restart_event", t)
	}
	return nil
}

// Close does nothing: the connections are the script's, open until its
// thread_done has run (End).
func (w *luaWorker) Close() error { return nil }

// End calls thread_done with the thread's id, then closes the thread's
// connections and state.
func (w *luaWorker) End() {
	call(w.t.L, "thread_done", lua.LNumber(w.t.e.tid))
	w.t.e.closeAll()
	w.t.L.Close()
}

// restartDesc is the error table before_restart_event receives for a
// connection lost (sql_errno 2013, as sysbench reports it).
func restartDesc(L *lua.LState, errno int) *lua.LTable {
	t := L.NewTable()
	L.SetField(t, "errcode", lua.LNumber(restartEvent))
	L.SetField(t, "sql_errno", lua.LNumber(errno))
	L.SetField(t, "sql_state", lua.LString("HY000"))
	L.SetField(t, "sql_errmsg", lua.LString("Lost connection to server during query"))
	return t
}

// call calls a global function of the script, if it has one.
func call(L *lua.LState, name string, args ...lua.LValue) error {
	return protect(L, L.GetGlobal(name), "`"+name+"' function", args)
}

// hook calls sysbench.hooks[name], if the script set it.
func hook(L *lua.LState, name string, args ...lua.LValue) error {
	hooks, ok := L.GetGlobal("sysbench").(*lua.LTable).RawGetString("hooks").(*lua.LTable)
	if !ok {
		return nil
	}
	return protect(L, hooks.RawGetString(name), "sysbench.hooks."+name, args)
}

// protect calls fn, if it is a function, and words its error.
func protect(L *lua.LState, fn lua.LValue, what string, args []lua.LValue) error {
	f, ok := fn.(*lua.LFunction)
	if !ok {
		return nil
	}
	if err := L.CallByParam(lua.P{Fn: f, NRet: 0, Protect: true}, args...); err != nil {
		// Text only: sysbench ends the run on it in these words, whatever
		// statement error raised it (no retry, no "add N to ignore it").
		return fmt.Errorf("%s failed: %s", what, luaError(err).Error())
	}
	return nil
}

// Command runs one of the script's commands: sysbench.cmdline.commands[name]
// (in every thread when it is a PARALLEL_COMMAND), else a global function
// of that name (prepare, cleanup). Its connections are those it opens.
func (s *Script) Command(ctx context.Context, name string, c Config, threads int) error {
	fnName, parallel := name, s.Parallel[name]
	if s.Commands[name] {
		fnName = ""
	}
	if fnName != "" && !s.Has[name] {
		return fmt.Errorf("Unknown command: %s (the script has %s)", name, s.commandList())
	}
	r := &Run{s: s, c: c, uniq: random.NewUniqueSeq(c.Seed)}
	n := 1
	if parallel {
		n = max(threads, 1)
	}
	if n > 1 {
		fmt.Fprintf(c.notice(), "Initializing worker threads...\n\n")
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for tid := 0; tid < n; tid++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[tid] = r.command(name, fnName, tid, parallel)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// command runs a command's function in a state of thread tid. A command
// that is not parallel runs, in sysbench, in the state that loaded the
// script, whose body printed once already (Printed): its body runs quiet.
func (r *Run) command(name, fnName string, tid int, parallel bool) error {
	e := r.env(name, tid, nil)
	L := r.s.newState(e)
	defer L.Close()
	defer e.closeAll()
	if !parallel {
		e.out = io.Discard
	}
	if err := r.s.runMain(L); err != nil {
		return err
	}
	e.out = r.c.Out
	fn := L.GetGlobal(fnName)
	if fnName == "" {
		def := L.GetGlobal("sysbench").(*lua.LTable).RawGetString("cmdline").(*lua.LTable).RawGetString("commands").(*lua.LTable).RawGetString(name).(*lua.LTable)
		fn = def.RawGetInt(1)
	}
	f, ok := fn.(*lua.LFunction)
	if !ok {
		return fmt.Errorf("command %s of %s is not a function", name, r.s.Path)
	}
	if err := L.CallByParam(lua.P{Fn: f, NRet: 0, Protect: true}); err != nil {
		return fmt.Errorf("`%s' function failed: %s", name, luaError(err).Error()) // text only, as above
	}
	return nil
}

// commandList names the commands a script has, for messages.
func (s *Script) commandList() string {
	var c []string
	for _, n := range []string{"prepare", "run", "cleanup", "help"} {
		if n == "run" && s.Has["event"] || s.Has[n] || s.Commands[n] {
			c = append(c, n)
		}
	}
	for n := range s.Commands {
		if n != "prepare" && n != "cleanup" && n != "help" {
			c = append(c, n)
		}
	}
	if len(c) == 0 {
		return "none"
	}
	return fmt.Sprint(c)
}
