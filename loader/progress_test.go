package loader

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestMeterPlainLines(t *testing.T) {
	var w syncBuf
	m := startMeter(&w, "load", 1000, "auto", 20*time.Millisecond) // not a terminal: plain lines
	m.add(500, 5e6)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(w.String(), "500/1000 rows (50.0%)") {
		if time.Now().After(deadline) {
			t.Fatalf("no progress line: %q", w.String())
		}
		time.Sleep(5 * time.Millisecond) // polling output, not hiding a race
	}
	m.finish()
	if strings.Contains(w.String(), "\r") {
		t.Error("plain lines carry carriage returns")
	}
	if !strings.Contains(w.String(), "[load]") || !strings.Contains(w.String(), "ETA") {
		t.Errorf("line lacks phase or ETA: %q", w.String())
	}
}

func TestMeterLiveLine(t *testing.T) {
	var w syncBuf
	m := startMeter(&w, "csv", 100, "on", time.Hour)
	m.add(100, 0)
	m.finish() // a live meter draws its last line when it stops
	s := w.String()
	if !strings.HasPrefix(s, "\r[####################] [csv] 100/100 rows (100.0%)") || !strings.HasSuffix(s, "\n") {
		t.Errorf("live line %q", s)
	}
	var off syncBuf
	m = startMeter(&off, "x", 1, "off", time.Millisecond)
	m.add(1, 1)
	time.Sleep(5 * time.Millisecond)
	m.finish()
	if off.String() != "" {
		t.Errorf("--progress=off printed %q", off.String())
	}
}
