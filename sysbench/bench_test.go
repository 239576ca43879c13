package sysbench

import (
	"testing"

	"github.com/oltpbench/oltpbench/csvgen"
	"github.com/oltpbench/oltpbench/internal/random"
)

// One sysbench row generated and CSV-encoded: zero allocations per row.
func BenchmarkGenRow(b *testing.B) {
	o := Defaults()
	o.TableSize = 1 << 30
	d, _ := random.NewDist("uniform", 12, 1, 75, 0.2, 0.8)
	tab := tests["oltp_read_write"].Tables(&o, d)[0]
	enc := csvgen.NewEncoder(1 << 20)
	enc.OnRow = func(e *csvgen.Encoder) error {
		if len(e.Buf) > 512<<10 {
			e.Buf = e.Buf[:0]
		}
		return nil
	}
	r := random.NewRand(1)
	b.ResetTimer()
	for i := 0; i < b.N; i += 1000 {
		if err := tab.Gen(r, int64(i), 1000, enc); err != nil {
			b.Fatal(err)
		}
	}
}
