package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUCritical(t *testing.T) {
	// Tables of the two-sided 5% critical values of the Mann-Whitney U.
	for _, c := range []struct{ m, n, want int }{{5, 5, 2}, {10, 10, 23}, {6, 8, 8}, {3, 3, -1}, {4, 4, 0}} {
		if got := uCritical(c.m, c.n, 0.025); got != c.want {
			t.Errorf("U critical %d+%d: %d, want %d", c.m, c.n, got, c.want)
		}
	}
}

// Identical distributions give no significant change; shifted ones the
// right sign, with an interval that holds the shift; too few repeats say
// how many the test needs.
func TestCellStat(t *testing.T) {
	base := []float64{1000, 1020, 980, 1010, 990}
	same := []float64{1005, 985, 1015, 995, 1000}
	if s := cellStat(base, same); s.Significant || !strings.HasPrefix(s.String("QPS"), "~ no significant change (p=") {
		t.Errorf("same: %+v %s", s, s.String("QPS"))
	}
	for _, f := range []float64{1.2, 0.8} {
		c := make([]float64, len(base))
		for i, v := range base {
			c[i] = v * f
		}
		s := cellStat(base, c)
		if !s.Significant || math.Abs(s.Ratio-f) > 1e-9 || !(s.Lo <= f && f <= s.Hi) || (f > 1) != (s.Lo > 1) {
			t.Errorf("x%.1f: %+v", f, s)
		}
		want := map[bool]string{true: "QPS +20% (95% CI +", false: "QPS -20% (95% CI -"}[f > 1]
		if got := s.String("QPS"); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "p=0.008, n=5+5)") {
			t.Errorf("x%.1f: %s", f, got)
		}
	}
	if s := cellStat(base[:3], []float64{2000, 2100, 2200}); s.Significant || s.Need != 4 || !strings.Contains(s.String("QPS"), "needs 4 repeats") {
		t.Errorf("3+3: %+v %s", s, s.String("QPS"))
	}
	if s := cellStat(base[:1], same[:1]); !strings.Contains(s.String("QPS"), "one run each") {
		t.Errorf("1+1: %s", s.String("QPS"))
	}
}

// Noise alone is called a change about 5% of the time, not more; a 10%
// shift under 3% noise is found nearly always at 5+5.
func TestCellStatSimulated(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	draw := func(mu float64) []float64 {
		out := make([]float64, 5)
		for i := range out {
			out[i] = mu * (1 + 0.03*r.NormFloat64())
		}
		return out
	}
	falsePos, found := 0, 0
	for i := 0; i < 400; i++ {
		if cellStat(draw(1000), draw(1000)).Significant {
			falsePos++
		}
		if s := cellStat(draw(1000), draw(900)); s.Significant && s.Ratio < 1 && s.Hi < 1 {
			found++
		}
	}
	if falsePos > 40 {
		t.Errorf("noise called a change %d times in 400", falsePos)
	}
	if found < 380 {
		t.Errorf("a 10%% drop found %d times in 400", found)
	}
}

// Repeats in a report: the tables show the median run, each cell gets a
// test, and --fail-on finds the regression.
func TestBuildWithRepeats(t *testing.T) {
	bv, cv := Version{Label: "a"}, Version{Label: "b"}
	for i, q := range []float64{1000, 1030, 970, 1010, 990} {
		bv.Results = append(bv.Results, fixture(t, "sysbench/oltp_point_select", "a", 16, q, 1))
		cv.Results = append(cv.Results, fixture(t, "sysbench/oltp_point_select", "b", 16, q*0.85+float64(i), 1))
	}
	rep := New([]Version{bv, cv}, describe)
	row := rep.Tables[0].Rows[0]
	if tput(row.Med[0]) != 1000 || len(row.Runs[0]) != 5 || row.Stats[1] == nil || !row.Stats[1].Significant {
		t.Fatalf("row: median %v, %d runs, stat %+v", tput(row.Med[0]), len(row.Runs[0]), row.Stats[1])
	}
	if v := rep.Tables[0].CellVerdicts(rep.Labels); len(v) != 1 || !strings.HasPrefix(v[0], "16 threads: QPS -15% (95% CI -") {
		t.Errorf("verdicts %v", v)
	}
	if len(rep.Regressions(0.05)) != 1 || len(rep.Regressions(0.20)) != 0 {
		t.Errorf("regressions at 5%%: %v; at 20%%: %v", rep.Regressions(0.05), rep.Regressions(0.20))
	}
}
