package result

import (
	"maps"
	"slices"
)

// LevelRuns is how many of a capacity search's runs at one level passed.
type LevelRuns struct{ Runs, Passed int }

// Passes says whether most of the level's runs passed.
func (l LevelRuns) Passes() bool { return 2*l.Passed > l.Runs }

// Unanimous says whether the level ran at least twice, every run the same
// way (pass true: all passed; false: all failed).
func (l LevelRuns) Unanimous(pass bool) bool {
	if l.Runs < 2 {
		return false
	}
	if pass {
		return l.Passed == l.Runs
	}
	return l.Passed == 0
}

// Boundary is a capacity search's maximum and its lowest failure from
// every run at each level: a level passes when most of its runs did, the
// maximum is the highest passing level below the lowest failing one (0
// for none), failed that lowest failing level (0 for none). The search
// and the comparison of searches both judge by it.
func Boundary(levels map[int]LevelRuns) (best, failed int) {
	ns := slices.Sorted(maps.Keys(levels))
	for _, n := range ns {
		if !levels[n].Passes() {
			failed = n
			break
		}
	}
	for _, n := range ns {
		if (failed == 0 || n < failed) && levels[n].Passes() {
			best = n
		}
	}
	return best, failed
}
