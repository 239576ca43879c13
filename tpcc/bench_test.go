package tpcc

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/oltpbench/oltpbench/csvgen"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Generation and CSV encoding per row, the CSV and LOAD DATA hot path:
// allocations per row must stay at zero (run with -benchmem).
func benchTable(b *testing.B, name string) {
	var tab dataset.Table
	for _, t := range Tables(SchemaTPCC, 1, 1, Layout{}) {
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

// A TPC-C result of the first file format (tpmC x100 among the totals, no
// metric) reads with tpmC as its metric and tpmTotal as a figure.
func TestFormat1ResultReadsAsTpmC(t *testing.T) {
	old := `{"format": "oltpbench-result/1", "workload": "tpcc", "seconds": 60, "threads": 4,
	  "totals": {"events": 9000, "tpmC_x100": 400000, "tpmTotal_x100": 900000},
	  "ops": [{"name": "new_order", "count": 4000, "percentiles_ms": {"95": 12.5}}, {"name": "payment", "count": 5000}]}`
	p := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := result.ReadWith(p, workload.Upgrade) // as the report commands read files
	if err != nil {
		t.Fatal(err)
	}
	v, unit := r.Throughput()
	if unit != "tpmC" || math.Abs(v-4000) > 1e-6 || r.Figures["tpmTotal"] != 9000 || r.Latency("95") != 12.5 {
		t.Errorf("tpmC %v %s, figures %v, p95 %v", v, unit, r.Figures, r.Latency("95"))
	}
	if _, ok := r.Totals["tpmC_x100"]; ok {
		t.Error("tpmC_x100 left among the counters")
	}
}
