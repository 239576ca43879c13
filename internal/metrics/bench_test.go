package metrics

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
)

type histSource struct {
	reg    *hist.Registry
	counts measure.Totals
}

func (s *histSource) Counts() measure.Totals           { return s.counts }
func (s *histSource) Running() int                     { return 16 }
func (s *histSource) Queue() int64                     { return 0 }
func (s *histSource) Hists() []*hdr.Histogram          { return s.reg.Snapshot() }
func (s *histSource) ErrorCodes() []measure.ErrorCount { return nil }
func (s *histSource) Statements() []measure.StmtHist   { return nil }

// BenchmarkScrape is one scrape of /metrics during a TPC-C-like run: five
// operations, 8 stripes each, a million latencies spread over 0.1-100 ms
// recorded. Its time is what the endpoint costs the client per scrape
// (once a second under Prometheus); the threads pay nothing per query.
// "cached" is a scrape between two histogram refreshes (most of them),
// "refresh" one that reads and converts the histograms (one in five at a
// 1 s scrape interval).
func BenchmarkScrape(b *testing.B) {
	b.Run("cached", func(b *testing.B) { benchScrape(b, false) })
	b.Run("refresh", func(b *testing.B) { benchScrape(b, true) })
}

func benchScrape(b *testing.B, refresh bool) {
	ops := []string{"a", "b", "c", "d", "e"}
	reg := hist.NewRegistry(ops, 8)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1_000_000; i++ {
		reg.Record(i%len(ops), i, int64(100*(1+r.ExpFloat64()*10)))
	}
	e := &Exporter{client: "c", scraped: make(chan struct{})}
	run := e.StartRun(Labels{Workload: "w", Test: "w/t", Threads: 16, Repeat: 1}, ops, &histSource{reg: reg}, nil)
	h := handler(e)
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	b.ReportAllocs()
	for b.Loop() {
		if refresh {
			run.histAt = time.Time{}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
