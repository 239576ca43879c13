package tpcc

import (
	"testing"

	"github.com/oltpbench/oltpbench/csvgen"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// Generation and CSV encoding per row, the CSV and LOAD DATA hot path:
// allocations per row must stay at zero (run with -benchmem).
func benchTable(b *testing.B, name string) {
	var tab dataset.Table
	for _, t := range Tables(SchemaTPCC, 1, 1, 0, false) {
		if t.Name == name {
			tab = t
		}
	}
	enc := csvgen.NewEncoder(1 << 20)
	enc.OnRow = func(e *csvgen.Encoder) error {
		if len(e.Buf) > 512<<10 {
			e.Buf = e.Buf[:0]
		}
		return nil
	}
	r := random.NewRand(1)
	per := min(tab.ChunkRows, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i += int(per) {
		first := int64(i) % (tab.Rows - per)
		if err := tab.Gen(r, first, per, enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenStock(b *testing.B)     { benchTable(b, "stock") }
func BenchmarkGenOrderLine(b *testing.B) { benchTable(b, "order_line") }
func BenchmarkGenCustomer(b *testing.B)  { benchTable(b, "customer") }
