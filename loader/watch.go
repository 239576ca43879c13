package loader

import (
	"sync"
	"sync/atomic"

	"github.com/oltpbench/oltpbench/internal/metrics"
)

// progress is a load as live metrics read it at scrape time: the phase,
// and per table what the loaded units added (updated once per unit).
type progress struct {
	mu     sync.Mutex
	phase  string
	names  []string
	tables []tableProgress
}

type tableProgress struct {
	rows, bytes, done atomic.Int64
	units             int64
}

func (p *progress) setPhase(phase string) {
	p.mu.Lock()
	p.phase = phase
	p.mu.Unlock()
}

// setTables starts the per-table counts: units to do per table.
func (p *progress) setTables(names []string, units []int64) {
	t := make([]tableProgress, len(names))
	for i := range t {
		t[i].units = units[i]
	}
	p.mu.Lock()
	p.names, p.tables = names, t
	p.mu.Unlock()
}

// unit counts one loaded unit of table ti.
func (p *progress) unit(ti int, rows, bytes int64) {
	p.mu.Lock()
	t := &p.tables[ti]
	p.mu.Unlock()
	t.rows.Add(rows)
	t.bytes.Add(bytes)
	t.done.Add(1)
}

func (p *progress) snapshot() metrics.Load {
	p.mu.Lock()
	defer p.mu.Unlock()
	ld := metrics.Load{Phase: p.phase}
	for i := range p.tables {
		t := &p.tables[i]
		ld.Tables = append(ld.Tables, metrics.TableLoad{Name: p.names[i], Rows: t.rows.Load(), Bytes: t.bytes.Load(),
			UnitsDone: t.done.Load(), UnitsTotal: t.units})
	}
	return ld
}
