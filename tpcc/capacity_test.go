package tpcc

import (
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// TestCapacityVerdict: a search's probe passes as a --wait run does, and
// its failures are named: efficiency, each response-time constraint, a run
// without waits.
func TestCapacityVerdict(t *testing.T) {
	for _, tc := range []struct {
		figures map[string]float64
		pass    bool
		why     string
	}{
		{map[string]float64{"efficiency": 91, "p90_new_order": 0.2, "p90_stock_level": 19}, true, "efficiency 91.0%, p90 new_order 0.200 s"},
		{map[string]float64{"efficiency": 84.9, "p90_new_order": 0.2}, false, "efficiency 84.9% < 85%"},
		{map[string]float64{"efficiency": 90, "p90_new_order": 5.5, "p90_stock_level": 21}, false, "p90 new_order 5.50 s > 5 s, p90 stock_level 21.00 s > 20 s"},
		{map[string]float64{"efficiency": 70, "p90_payment": 6}, false, "efficiency 70.0% < 85%, p90 payment 6.00 s > 5 s"},
		{map[string]float64{"tpmTotal": 100}, false, "no efficiency in its result (a run without --wait)"},
	} {
		pass, why := capacityVerdict(&result.Result{Figures: tc.figures})
		if pass != tc.pass || !strings.Contains(why, tc.why) {
			t.Errorf("%v: %v %q, want %v %q", tc.figures, pass, why, tc.pass, tc.why)
		}
	}
}
