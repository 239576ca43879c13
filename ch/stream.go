package ch

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/worker"
)

// stream is one analytical stream: the queries in a loop, starting at its
// own place in the list, on one connection.
type stream struct {
	r       *chRun
	s       *worker.Session
	t       *worker.Thread
	next    int
	id      int64 // the connection's id, for KILL QUERY
	explain string
	stop    <-chan struct{}
}

func newStream(r *chRun, dc driver.Conn, t *worker.Thread) (*stream, error) {
	s := &stream{r: r, s: worker.NewSession(dc, false, nil), t: t}
	if len(r.queries) > 0 {
		// Streams start spread over the list (go-tpc starts stream k at
		// query k), so that a short run with few streams covers every query.
		s.next = (t.ID - r.level) * len(r.queries) / max(r.streams, 1) % len(r.queries)
	}
	var version string
	_, _, err := s.s.QueryRows("SELECT CONNECTION_ID(), VERSION()", func(row []driver.Value) error {
		s.id, _ = strconv.ParseInt(text(row[0]), 10, 64)
		version = text(row[1])
		return nil
	})
	if err != nil {
		return nil, err
	}
	// MariaDB's EXPLAIN ANALYZE is ANALYZE; MySQL 8 and TiDB have EXPLAIN ANALYZE.
	s.explain = "EXPLAIN ANALYZE "
	if strings.Contains(strings.ToLower(version), "mariadb") {
		s.explain = "ANALYZE "
	}
	return s, nil
}

func text(v driver.Value) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case nil:
		return "NULL"
	default:
		return fmt.Sprint(x)
	}
}

// Wait keeps the run's stop channel: a query under way when it closes is killed.
func (s *stream) Wait(stop <-chan struct{}) bool {
	s.stop = stop
	select {
	case <-stop:
		return false
	default:
		return true
	}
}

// killAgain is how long a killed query may still run before the kill is
// sent again.
const killAgain = 200 * time.Millisecond

const (
	notKilled int32 = iota
	timedOut
	stopped
)

// Event runs the next query and reads its rows. A query that fails or
// times out is that query's error (worker.ErrCounted), not the run's; one
// killed because the run ended ends the stream.
func (s *stream) Event() (int, error) {
	qi := s.next
	s.next = (s.next + 1) % len(s.r.queries)
	q := &s.r.queries[qi]
	if s.r.explain && !s.r.claimed[qi].Swap(true) {
		if s.explainOnce(qi, q); s.stopped() {
			return 0, worker.ErrEnd
		}
	}
	var why atomic.Int32
	done := s.watch(&why)
	_, _, err := s.s.QueryRows(q.SQL, nil)
	done()
	switch {
	case err == nil:
		s.t.Add(measure.Reads, 1)
		s.r.firstDone.CompareAndSwap(0, time.Now().UnixNano())
		return s.r.nTP + qi, nil
	case conn.IsLost(err):
		return 0, err
	case why.Load() == stopped:
		return 0, worker.ErrEnd
	}
	msg := err.Error()
	if why.Load() == timedOut {
		msg = fmt.Sprintf("killed after --ap-query-timeout=%s (%v)", s.r.timeout, err)
	}
	s.r.firstErr[qi].CompareAndSwap(nil, &msg)
	s.r.errors[qi].Add(1)
	return 0, worker.ErrCounted
}

// watch kills the query under way when the timeout passes or the run
// stops, until done is called; done returns once nothing can kill any more,
// so a kill never reaches the next query.
func (s *stream) watch(why *atomic.Int32) (done func()) {
	if s.r.killer == nil {
		return func() {}
	}
	finished, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		var expire <-chan time.Time
		if s.r.timeout > 0 {
			tm := time.NewTimer(s.r.timeout)
			defer tm.Stop()
			expire = tm.C
		}
		select {
		case <-finished:
			return
		case <-s.stop:
			why.Store(stopped)
		case <-expire:
			why.Store(timedOut)
		}
		// The kill is sent again until the query ends: on a busy machine
		// it can reach the server before the query does (both wait for a
		// CPU), and a KILL QUERY on an idle connection kills nothing.
		again := time.NewTimer(0)
		defer again.Stop()
		for {
			select {
			case <-finished:
				return
			case <-again.C:
				s.r.killer.kill(s.id)
				again.Reset(killAgain)
			}
		}
	}()
	return func() {
		close(finished)
		<-exited
	}
}

// explainOnce runs the query under EXPLAIN ANALYZE once and keeps its plan.
func (s *stream) explainOnce(qi int, q *Query) {
	var b strings.Builder
	var why atomic.Int32
	done := s.watch(&why)
	defer done()
	_, _, err := s.s.QueryRows(s.explain+q.SQL, func(row []driver.Value) error {
		for i, v := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(text(v))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		fmt.Fprintf(&b, "(%s failed: %v)\n", strings.TrimSpace(s.explain), err)
	}
	p := b.String()
	s.r.plans[qi].Store(&p)
}

func (s *stream) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

func (s *stream) Rollback() error { return nil }
func (s *stream) Close() error    { return nil }
