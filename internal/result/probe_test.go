package result

import "testing"

func TestBoundary(t *testing.T) {
	for _, tc := range []struct {
		name         string
		levels       map[int]LevelRuns
		best, failed int
	}{
		{"none", nil, 0, 0},
		{"a line search", map[int]LevelRuns{20: {1, 1}, 27: {1, 1}, 35: {1, 0}, 28: {1, 0}}, 27, 28},
		{"repeats move the boundary up", map[int]LevelRuns{27: {3, 3}, 28: {3, 2}, 29: {1, 0}}, 28, 29},
		{"repeats move it down", map[int]LevelRuns{10: {1, 1}, 12: {3, 1}, 13: {3, 0}}, 10, 12},
		{"a tie fails", map[int]LevelRuns{5: {2, 1}}, 0, 5},
		{"a pass above a failure does not count", map[int]LevelRuns{5: {1, 1}, 6: {1, 0}, 7: {1, 1}}, 5, 6},
		{"all pass", map[int]LevelRuns{1: {1, 1}, 4: {3, 3}}, 4, 0},
	} {
		if best, failed := Boundary(tc.levels); best != tc.best || failed != tc.failed {
			t.Errorf("%s: %d, %d; want %d, %d", tc.name, best, failed, tc.best, tc.failed)
		}
	}
	if (LevelRuns{1, 1}).Unanimous(true) || !(LevelRuns{3, 3}).Unanimous(true) || !(LevelRuns{2, 0}).Unanimous(false) || (LevelRuns{3, 1}).Unanimous(false) {
		t.Error("Unanimous: at least two runs, all one way")
	}
}
