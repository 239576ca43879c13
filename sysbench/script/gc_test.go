package script

import (
	"runtime"
	"testing"

	"github.com/oltpbench/oltpbench/internal/worker"
)

// A script that connects in every event and drops the connection leaves
// no pile of open connections: each is closed once Go collects it, as
// LuaJIT's GC closes sysbench's.
func TestDroppedConnectionsClose(t *testing.T) {
	s := loadScript(t, `function event() sysbench.sql.driver():connect():query("SELECT 1") end`)
	th := &worker.Thread{}
	w := dryWorker(t, s, th).(*luaWorker)
	for i := 0; i < 1000; i++ {
		if _, err := w.Event(); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	live := 0
	for _, c := range w.t.e.conns {
		if c.Value() != nil {
			live++
		}
	}
	if live > 2*maxHeld {
		t.Errorf("%d of 1000 dropped connections still held (tracked %d)", live, len(w.t.e.conns))
	}
}
