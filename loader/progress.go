package loader

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/oltpbench/oltpbench/internal/term"
)

// meter shows a phase's progress: a live line on a terminal, periodic plain
// lines otherwise.
type meter struct {
	w          io.Writer
	phase      string
	totalRows  int64
	rows       atomic.Int64
	bytes      atomic.Int64
	start      time.Time
	live       bool
	stop, done chan struct{}
}

func isTerminal(w io.Writer) bool { return term.Is(w) }

// startMeter begins reporting; every is the plain-line period (a terminal
// line is redrawn each second).
func startMeter(w io.Writer, phase string, totalRows int64, mode string, every time.Duration) *meter {
	m := &meter{w: w, phase: phase, totalRows: totalRows, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	switch mode {
	case "off":
		close(m.done)
		return m
	case "on":
		m.live = true
	default:
		m.live = isTerminal(w)
	}
	period := every
	if m.live {
		period = time.Second
	}
	go func() {
		defer close(m.done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.print(false)
			case <-m.stop:
				if m.live {
					m.print(true)
				}
				return
			}
		}
	}()
	return m
}

func (m *meter) add(rows, bytes int64) {
	m.rows.Add(rows)
	m.bytes.Add(bytes)
}

func (m *meter) print(final bool) {
	el := time.Since(m.start).Seconds()
	rows, mb := m.rows.Load(), float64(m.bytes.Load())/1e6
	pct := 100.0
	if m.totalRows > 0 {
		pct = float64(rows) * 100 / float64(m.totalRows)
	}
	eta := "-"
	if rows > 0 && rows < m.totalRows {
		eta = fmt.Sprintf("%.0fs", el*float64(m.totalRows-rows)/float64(rows))
	}
	line := fmt.Sprintf("[%s] %d/%d rows (%.1f%%) %.1f MB/s %.0f rows/s ETA %s", m.phase, rows, m.totalRows, pct, mb/max(el, 1e-9), float64(rows)/max(el, 1e-9), eta)
	if m.live {
		bar := int(pct / 5)
		fmt.Fprintf(m.w, "\r[%-20s] %s\033[K", repeat('#', bar), line)
		if final {
			fmt.Fprintln(m.w)
		}
		return
	}
	fmt.Fprintln(m.w, line)
}

func repeat(c byte, n int) string {
	b := make([]byte, max(n, 0))
	for i := range b {
		b[i] = c
	}
	return string(b)
}

func (m *meter) finish() {
	select {
	case <-m.done:
		return
	default:
	}
	close(m.stop)
	<-m.done
}
