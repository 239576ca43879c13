package tpcc

import (
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/measure"
)

// TestResponseTimeConstraints: clause 5.2.5.4's 90th percentiles (5 s, 20 s
// for Stock-Level) judge each type; a waited run passes only with them and
// 85% efficiency.
func TestResponseTimeConstraints(t *testing.T) {
	hists := func(deliveryUs int64) []*hdr.Histogram {
		hs := make([]*hdr.Histogram, numTx)
		for i := range hs {
			hs[i] = hdr.New(1, 3_600_000_000, 3)
			for n := 0; n < 100; n++ {
				v := int64(20_000) // 20 ms
				if i == Delivery && n >= 50 {
					v = deliveryUs
				}
				hs[i].RecordValue(v)
			}
		}
		return hs
	}
	for _, c := range []struct {
		name       string
		deliveryUs int64
		efficiency float64
		pass       bool
		why        string
	}{
		{"fast", 30_000, 96, true, "every 90th percentile response time within its limit"},
		{"delivery held 6 s", 6_000_000, 96, false, "90th percentile response delivery 6.00 s > 5 s"},
		{"slow clients", 30_000, 80, false, "efficiency 80.0% < 85%"},
	} {
		s := Summary{Efficiency: c.efficiency, Audit: responseTimes(&measure.Final{Hists: hists(c.deliveryUs)})}
		if len(s.Audit) != numTx {
			t.Fatalf("%d constraint lines", len(s.Audit))
		}
		ok, why := s.Passed()
		if ok != c.pass || !strings.Contains(why, c.why) {
			t.Errorf("%s: %v %q, want %v %q", c.name, ok, why, c.pass, c.why)
		}
	}
	none := responseTimes(&measure.Final{Hists: []*hdr.Histogram{hdr.New(1, 10, 1)}})
	if len(none) != 1 || !none[0].Pass || none[0].Verdict != VerdictTooFew {
		t.Errorf("no transactions: %+v", none)
	}
}
