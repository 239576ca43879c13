package pipeline

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// sized is probe with a loaded size and a search: one thread a unit, on
// the dry connector, each fresh probe judged by capacityLimit.
type sized struct{ probe }

func init() {
	workload.Register(workload.Spec{Name: "sized", Use: "search", Threads: "1", New: func() workload.Workload { return &sized{} },
		Capacity: &workload.Capacity{Unit: "units", Size: "units", Active: "active-units", ThreadsPer: 1, Verdict: capacityVerdict}})
}

func (s *sized) Flags(fs *pflag.FlagSet, ro *workload.RunOptions) {
	s.probe.Flags(fs, ro)
	fs.Int("units", 4, "units loaded")
	fs.Int("active-units", 0, "units run on")
}
func (sized) Name() string             { return "sized" }
func (sized) Dataset() dataset.Dataset { return dataset.Dataset{Workload: "sized"} }

// capacityLimit is the most units the n-th fresh probe of a search passes
// at; a probe read back keeps the verdict it was written with.
var (
	capacityMu    sync.Mutex
	capacityLimit func(n int) int
	capacityRuns  int
)

func capacityVerdict(r *result.Result) (bool, string) {
	if r.Probe != nil {
		return r.Probe.Pass, r.Probe.Why
	}
	capacityMu.Lock()
	defer capacityMu.Unlock()
	capacityRuns++
	if lim := capacityLimit(capacityRuns); r.Threads > lim {
		return false, "above " + strings.Repeat("|", lim)
	}
	return true, "within"
}

// TestSearchRepeatsFollowTheBoundary: with --repeat=3, when the repeats
// of the boundary's levels disagree with the line search's first runs, the
// maximum moves and the search follows it, so that both sides of the
// boundary rest on three runs. Down: the server sustains 4 units for the
// first three probes, 3 from then on; the repeats fail 4, and 3, passed
// once, is run three times. Up: the first probe (2 units) fails, as a cold
// server's first run can, then 3 hold; the repeats pass 2 in most runs, and
// the search goes on upward to 3 and 4. The same search again reads every
// probe back and says the same.
func TestSearchRepeatsFollowTheBoundary(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit func(n int) int // the most units the n-th fresh probe passes at
		runs  int
		want  []string
	}{
		{"down", func(n int) int { return map[bool]int{true: 4, false: 3}[n <= 3] }, 7, []string{
			"\nMAX UNITS = 3 ",
			"The line search ended at 4; the repeats of the boundary moved the maximum to 3\n",
			"\n  3 units: passed 3 of 3",
			"\n  4 units: passed 1 of 3",
			"3 probes (bound ",
			"and 4 repeats of the boundary\n",
		}},
		{"up", func(n int) int { return map[bool]int{true: 1, false: 3}[n == 1] }, 12, []string{
			"\nMAX UNITS = 3 ",
			"The line search ended at 1; the repeats of the boundary moved the maximum to 3\n",
			"\n  1 units: passed 3 of 3",
			"\n  2 units: passed 2 of 3",
			"\n  3 units: passed 3 of 3",
			"\n  4 units: passed 0 of 3",
			"4 probes (bound ",
			"and 8 repeats of the boundary\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			capacityMu.Lock()
			capacityRuns, capacityLimit = 0, tc.limit
			capacityMu.Unlock()
			dir := t.TempDir()
			search := func() string {
				var out, warn bytes.Buffer
				p, err := Parse([]string{"sized", "--units=4", "--time=0.1", "--repeat=3", "--result-dir=" + dir}, "search", &out, &warn, workload.Invocation{Tool: "oltpbench test"})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if err := p.Drive(ctx, "search", nil); err != nil {
					t.Fatalf("search: %v\n%s%s", err, out.String(), warn.String())
				}
				return out.String()
			}
			out := search()
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("no %q in the search:\n%s", want, out)
				}
			}
			if capacityRuns != tc.runs {
				t.Errorf("%d probes ran, want %d", capacityRuns, tc.runs)
			}
			ran := capacityRuns
			again := search()
			if capacityRuns != ran || strings.Count(again, "done before") != tc.runs {
				t.Errorf("the same search again ran %d more probes, read back %d:\n%s", capacityRuns-ran, strings.Count(again, "done before"), again)
			}
			_, tail, _ := strings.Cut(out, "\nUnits ")
			_, tailAgain, _ := strings.Cut(again, "\nUnits ")
			if tail == "" || tail != tailAgain {
				t.Errorf("the search read back says otherwise:\n%s\nthen:\n%s", tail, tailAgain)
			}
		})
	}
}
