package dbgen

import "testing"

// discard is a Writer that keeps nothing but looks at each string's
// bytes, as every real writer does (a CSV encoder's scan for quotes): the
// generator's own cost, with the fetches of its comments from the pool.
type discard struct {
	rows int64
	sum  byte
}

func (d *discard) Int(int64)   {}
func (d *discard) Money(int64) {}
func (d *discard) Str(b []byte) {
	for _, c := range b {
		d.sum ^= c
	}
}
func (d *discard) EndRow() error { d.rows++; return nil }

// BenchmarkGen makes 10,000 indexes of each table at SF 1 (the text pool
// made before the timer starts).
func BenchmarkGen(b *testing.B) {
	s, err := NewScale(1)
	if err != nil {
		b.Fatal(err)
	}
	textPool()
	for _, table := range []string{"lineitem", "orders", "partsupp", "part", "customer", "supplier"} {
		b.Run(table, func(b *testing.B) {
			var d discard
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Gen(table, 50000, 10000, &d); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(d.rows)/float64(b.N)/10000, "rows/index")
		})
	}
}

// BenchmarkTextPool makes the 300 MiB text pool, as every process that
// makes comments does once (its huge pages cost about 0.5 s of faults
// here, which the comments' reads win back: csv tpch --sf=10 -6%).
func BenchmarkTextPool(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		p, free := buildPool()
		if len(p) != poolSize {
			b.Fatal(len(p))
		}
		free()
	}
}
