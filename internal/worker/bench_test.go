package worker

import (
	"sync/atomic"
	"testing"
)

// BenchmarkStmtExec is one prepared statement's execution on a driver that
// costs nothing, without and with its client latency timed: the cost
// --statement-latency adds per statement (go test -bench StmtExec
// -benchmem ./internal/worker). Run in parallel as a run's threads are.
func BenchmarkStmtExec(b *testing.B) {
	for _, c := range []struct {
		name  string
		clock *Clock
	}{{"untimed", nil}, {"timed", NewClock()}} {
		b.Run(c.name, func(b *testing.B) {
			var ids atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(8) // 16 threads on 2 CPUs
			b.RunParallel(func(pb *testing.PB) {
				s := NewSession(&fakeConn{}, true, &Thread{ID: int(ids.Add(1)), Clock: c.clock})
				st, err := s.PrepareNamed(StmtName{"ev", "point_selects"}, "SELECT c FROM t WHERE id=?")
				if err != nil {
					b.Fatal(err)
				}
				for pb.Next() {
					st.Int(0, 5)
					if _, err := st.Query(); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
