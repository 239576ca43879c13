package script

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/worker"
)

// pointSelect is the shape of oltp_point_select.lua's event: a random id
// into a prepared statement's parameter, then execute.
const pointSelect = `
sysbench.cmdline.options = { table_size = {"rows", 10000} }
function thread_init()
  con = sysbench.sql.driver():connect()
  stmt = con:prepare("SELECT c FROM sbtest1 WHERE id=?")
  p = stmt:bind_create(sysbench.sql.type.INT)
  stmt:bind_param(p)
end
function event()
  p:set(sysbench.rand.default(1, sysbench.opt.table_size))
  stmt:execute()
end
`

func loadScript(t testing.TB, src string) *Script {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path, "run")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func dryWorker(t testing.TB, s *Script, th *worker.Thread) worker.Worker {
	t.Helper()
	dists, err := Dists("uniform", 12, 1, 75, 0.2, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.NewRun(Config{Opt: map[string]lua.LValue{"table_size": lua.LNumber(10000)}, Dists: dists, Seed: 1,
		Prepared: true, Out: io.Discard, Dialer: conn.DryConnector{}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.NewWorker(nil, th)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The event path of a point select on a dry connection: the Lua VM and the
// API alone (go test -bench=Event -benchmem ./sysbench/script).
func BenchmarkEventPointSelect(b *testing.B) {
	s := loadScript(b, pointSelect)
	th := &worker.Thread{}
	w := dryWorker(b, s, th)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Event(); err != nil {
			b.Fatal(err)
		}
	}
	if th.Ctr[measure.Others].Load() == 0 {
		b.Fatal("no statement counted")
	}
}

// Options keep their declared types, commands and hooks are found, and a
// statement is counted as sysbench counts it.
func TestLoadAndCount(t *testing.T) {
	s := loadScript(t, pointSelect+`
sysbench.cmdline.commands = { warm = {function() end, sysbench.cmdline.PARALLEL_COMMAND} }
function cleanup() end`)
	if o := s.Options["table_size"]; o.Type != ArgDouble || o.Default != "10000" || !s.Commands["warm"] || !s.Parallel["warm"] || !s.Has["event"] || !s.Has["cleanup"] || s.Has["prepare"] {
		t.Fatalf("options %v, commands %v, hooks %v", s.Options, s.Commands, s.Has)
	}
	th := &worker.Thread{}
	w := dryWorker(t, s, th)
	for i := 0; i < 10; i++ {
		if _, err := w.Event(); err != nil {
			t.Fatal(err)
		}
	}
	// A dry statement returns no result set and changes nothing: other.
	if n := th.Ctr[measure.Others].Load(); n != 10 {
		t.Errorf("%d statements counted as other, want 10", n)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mine.lua"), []byte("function event() end"), 0o644)
	if p, err := Find(filepath.Join(dir, "mine")); err != nil || p != filepath.Join(dir, "mine.lua") {
		t.Errorf("Find adds .lua: %q %v", p, err)
	}
	t.Setenv("LUA_PATH", filepath.Join(dir, "?.lua"))
	if p, err := Find("mine"); err != nil || p != filepath.Join(dir, "mine.lua") {
		t.Errorf("Find on LUA_PATH: %q %v", p, err)
	}
	// A bare name is a module: LUA_PATH set without ";;" is the whole
	// search path, as require has it; then sysbench's own folder.
	_, err := Find("nowhere_at_all")
	if want := "looked in nowhere_at_all, " + filepath.Join(dir, "nowhere_at_all.lua") + ", /usr/share/sysbench/nowhere_at_all.lua"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("not found: %v, want %s", err, want)
	}
	t.Setenv("LUA_PATH", filepath.Join(dir, "?.lua")+";;")
	if _, err := Find("nowhere_at_all"); err == nil || !strings.Contains(err.Error(), "./nowhere_at_all.lua") {
		t.Errorf("with ;; the default ./?.lua is searched: %v", err)
	}
}

// string.format as Lua 5.1's, where gopher-lua's differs.
func TestFormat(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	L.SetField(L.GetGlobal("string").(*lua.LTable), "format", L.NewFunction(strFormat))
	if err := L.DoString(`s = string.format("%u|%5.2f|%-4s|%03d|%x|%%|%d", 7, 3.14159, "ab", 5, 255, 2.9)`); err != nil {
		t.Fatal(err)
	}
	if got := L.GetGlobal("s").String(); got != "7| 3.14|ab  |005|ff|%|2" {
		t.Errorf("format: %q", got)
	}
}

// Syntax errors are worded as Lua words them, with the line Lua names
// (each "want" is LuaJIT's, as sysbench 1.0.20 prints it after FATAL).
func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"foo\n", "f.lua:2: '=' expected near '<eof>'"},
		{"function f()\n", "f.lua:2: 'end' expected (to close 'function' at line 1) near '<eof>'"},
		{"x = = 1\n", "f.lua:1: unexpected symbol near '='"},
		{"print('a'\n", "f.lua:2: ')' expected (to close '(' at line 1) near '<eof>'"},
		{"if x then\n", "f.lua:2: 'end' expected (to close 'if' at line 1) near '<eof>'"},
		{"for i=1,2 do\n  while true do\n  end\n-- end\n", "f.lua:5: 'end' expected (to close 'for' at line 1) near '<eof>'"},
	} {
		_, err := compile("f.lua", []byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}
