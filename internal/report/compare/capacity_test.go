package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// probes are a search's runs: "4+" a pass at 4, "5-" a failure at 5, "5!"
// a run at 5 that errored out; tpmC is 100 a level.
func probes(t *testing.T, under string, runs ...string) []*result.Result {
	t.Helper()
	var out []*result.Result
	seen := map[int]int{}
	for _, s := range runs {
		var n int
		for _, c := range s[:len(s)-1] {
			n = 10*n + int(c-'0')
		}
		seen[n]++
		r := fixture(t, "tpcc", "v", 10*n, float64(100*n), 5)
		r.Probe = &result.Probe{Unit: "warehouses", Level: n, Repeat: seen[n], Pass: s[len(s)-1] == '+', Failed: s[len(s)-1] == '!', Under: under}
		out = append(out, r)
	}
	return out
}

func TestCapacityVerdicts(t *testing.T) {
	const u = "--wait=0.01 --time=60 --warehouses=40"
	for _, tc := range []struct {
		name       string
		a, b       []string
		underB     string
		want       string
		regression bool // at --fail-on=regression:5%
	}{
		{"same", []string{"20+", "30-", "25+", "27-", "26-"}, []string{"20+", "30-", "25+", "27-", "26-"}, u,
			"the same capacity: 25 warehouses", false},
		{"fell, confirmed", []string{"20+", "30-", "25+", "25+", "25+", "26-", "26-", "26-"}, []string{"20-", "10+", "15-", "12+", "12+", "12+", "13!", "13-", "13-"}, u,
			"capacity fell -52% (25 -> 12 warehouses): B failed at 13 in 3 of 3 runs, A sustained 25 in 3 of 3: confirmed", true},
		{"fell, one run each", []string{"20+", "30-", "25+", "26-"}, []string{"20-", "10+", "15-", "12+", "13-"}, u,
			"capacity fell -52% (25 -> 12 warehouses): B failed at 13 in 1 of 1 runs, A sustained 25 in 1 of 1; one run at a boundary is not a verdict", false},
		{"fell, repeats disagree", []string{"20+", "25+", "25+", "25-", "26-"}, []string{"20-", "10+", "12+", "13-", "13+", "13-"}, u,
			"A sustained 25 in 2 of 3: the repeats disagree, not confirmed", false},
		{"rose, confirmed", []string{"20-", "10+", "12+", "12+", "13-", "13-"}, []string{"20+", "25+", "25+", "26-", "26-"}, u,
			"capacity rose +108% (12 -> 25 warehouses): A failed at 13 in 2 of 2 runs, B sustained 25 in 2 of 2: confirmed", false},
		{"within the gap", []string{"20+", "24+", "24+", "30-", "30-"}, []string{"20+", "21+", "21+", "40-", "40-"}, u,
			"capacity fell -12% (24 -> 21 warehouses): within the gap of B's search (21..40), not confirmed", false},
		{"never failed", []string{"20+", "30-", "30-", "25+", "25+"}, []string{"10+", "12+", "12+"}, u,
			"B never failed (its dataset is too small to find the limit), not confirmed", false},
		{"none passed", []string{"20+", "20+", "21-", "21-"}, []string{"20-", "10-", "5-", "1!", "1!"}, u,
			"capacity fell -100% (20 -> 0 warehouses): B failed at 1 in 2 of 2 runs, A sustained 20 in 2 of 2: confirmed", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			underB := tc.underB
			rep := New([]Version{{"A", probes(t, u, tc.a...)}, {"B", probes(t, underB, tc.b...)}}, describe)
			if len(rep.Tables) != 0 || len(rep.Capacities) != 1 {
				t.Fatalf("probes in %d tables and %d capacities, want only one capacity", len(rep.Tables), len(rep.Capacities))
			}
			got := rep.Capacities[0].Verdicts(rep.Labels)
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Errorf("verdicts %q, want one with %q", got, tc.want)
			}
			if bad := rep.Regressions(0.05); (len(bad) > 0) != tc.regression {
				t.Errorf("regressions at 5%%: %q, want some: %v", bad, tc.regression)
			}
		})
	}
}

// TestCapacityTable: the text, markdown and HTML reports put each
// version's maximum and the levels near each boundary side by side, and
// warn when the searches ran under other conditions.
func TestCapacityTable(t *testing.T) {
	a := probes(t, "--wait=0.01 --time=60 --warehouses=40", "20+", "30-", "25+", "25+", "26-", "26-")
	b := probes(t, "--wait=0.02 --time=60 --warehouses=40", "20-", "10+", "15-", "12+", "12+", "13!", "13!")
	rep := New([]Version{{"A", a}, {"B", b}}, describe)
	var txt, md, page bytes.Buffer
	rep.Text(&txt)
	rep.Markdown(&md)
	rep.HTML(&page)
	lines := map[string]bool{}
	for _, l := range strings.Split(txt.String(), "\n") {
		lines[strings.Join(strings.Fields(l), " ")] = true
	}
	for _, want := range []string{
		"TPC-C: the most warehouses sustained (the levels near each boundary: passed/runs, median tpmC)",
		"Warehouses A tpmC B tpmC",
		"MAX 25 12",
		"12 - PASS 2/2 1200.0",
		"13 - FAIL 0/2 (run failed)",
		"25 PASS 2/2 2499.6 -",
		"26 FAIL 0/2 2599.8 -",
		"warning: A's search ran under --wait=0.01 --time=60 --warehouses=40, B's under --wait=0.02 --time=60 --warehouses=40: their capacities do not compare",
	} {
		if !lines[want] {
			t.Errorf("text report without the line %q:\n%s", want, txt.String())
		}
	}
	for _, want := range []string{"| Warehouses | A tpmC | B tpmC |", "| MAX | 25 | 12 |", "| 13 | - | FAIL 0/2 (run failed) |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown report without %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{"<h2>TPC-C: the most warehouses sustained</h2>", "<th>MAX</th><td>25</td><td>12</td>", "tpmC by warehouses probed", "<svg"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML report without %q", want)
		}
	}
}
