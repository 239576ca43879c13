package ch

import (
	"context"
	"database/sql/driver"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/worker"
)

// A kill that reaches the server before its query does (on a busy machine
// both wait for a CPU) kills nothing: the stream sends it again until the
// query ends, so a query timeout holds whatever the order of arrival.
func TestKillReachesALateQuery(t *testing.T) {
	port := os.Getenv("OLTPBENCH_TEST_PORT")
	if port == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("OLTPBENCH_TEST_PORT not set: run through make test")
		}
		t.Skip("no test server: run make test")
	}
	p, _ := strconv.Atoi(port)
	co := conn.Options{Hosts: []string{os.Getenv("OLTPBENCH_TEST_HOST")}, Ports: []int{p}, User: "root", ConnectTimeout: 10 * time.Second}
	pool, err := conn.Open(co, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dc, _, err := pool.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	r := &chRun{killer: &killer{co: co}, timeout: time.Nanosecond}
	defer r.killer.close()
	s := &stream{r: r, s: worker.NewSession(dc, false, nil), stop: make(chan struct{})}
	if _, _, err := s.s.QueryRows("SELECT CONNECTION_ID()", func(row []driver.Value) error {
		s.id, _ = strconv.ParseInt(text(row[0]), 10, 64)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	var why atomic.Int32
	done := s.watch(&why)
	// The first kill is answered while the connection is idle.
	for r.killer.sent.Load() == 0 {
		if ctx.Err() != nil {
			t.Fatal("no kill sent in 30 s")
		}
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	_, _, err = s.s.QueryRows("SELECT SLEEP(10)", nil)
	took := time.Since(start)
	done()
	if took > 5*time.Second || why.Load() != timedOut {
		t.Errorf("a query that began after its first kill ran %s (%v), why %d: want it killed again at once", took, err, why.Load())
	}
	if n := r.killer.sent.Load(); n < 2 {
		t.Errorf("%d kills sent, want the first and at least one more", n)
	}
}
